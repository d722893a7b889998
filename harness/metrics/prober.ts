/**
 * Reads the target's metrics (and the topology probe) on the load phase's clock: at every whole
 * second that is a steady window's edge or a multiple of scrapeEveryS. Each reading keeps only the
 * configured series (a ServerSample), goes to probes.ndjson and stays in memory (O(seconds)) for
 * the live verdicts.
 */
import { exec } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import type { ServerSample } from '../../analysis/types.ts';
import type { PlateauConfig } from '../config/schema.ts';
import { maxOf, parsePromText, sumOf, type PromSample } from './prom-text.ts';

export interface ProberOptions {
  config: PlateauConfig;
  phase: string;
  /** performance.now() of the phase's t = 0. */
  t0Ms: number;
  /** True for seconds that must be read (steady window edges). */
  isEdge(tS: number): boolean;
  sink(s: ServerSample): void;
}

export class Prober {
  readonly samples: ServerSample[] = [];
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private inflight: Promise<void> = Promise.resolve();
  /** The last reading failed: said once, not every second. */
  lastError: string | null = null;

  constructor(private readonly o: ProberOptions) {}

  start(): void {
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped) return;
    const nowS = (performance.now() - this.o.t0Ms) / 1000;
    const nextS = Math.floor(nowS) + 1;
    this.timer = setTimeout(() => {
      if (this.due(nextS)) this.inflight = this.read();
      this.schedule();
    }, (nextS - nowS) * 1000);
  }

  private due(tS: number): boolean {
    const c = this.o.config;
    const every = Math.min(c.metrics?.scrapeEveryS ?? Infinity, c.topology?.everyS ?? Infinity);
    return this.o.isEdge(tS) || tS % every === 0;
  }

  async read(): Promise<void> {
    const startMs = performance.now();
    try {
      const [prom, commandValue] = await Promise.all([this.scrape(), this.topologyCommand()]);
      const s = toSample(this.o.config, prom, commandValue);
      const tS = ((startMs + performance.now()) / 2 - this.o.t0Ms) / 1000;
      const sample: ServerSample = { kind: 'scrape', phase: this.o.phase, tS: Math.round(tS * 1000) / 1000, ...s };
      this.samples.push(sample);
      this.o.sink(sample);
      this.lastError = null;
    } catch (err) {
      this.lastError = (err as Error).message;
    }
  }

  private async scrape(): Promise<PromSample[]> {
    const m = this.o.config.metrics;
    if (!m?.url) return [];
    const res = await request(new URL(m.url, this.o.config.target.url), { headersTimeout: 2000, bodyTimeout: 2000 });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`metrics answered ${res.statusCode}`);
    return parsePromText(text);
  }

  private topologyCommand(): Promise<number | null> {
    const cmd = this.o.config.topology?.command;
    if (!cmd) return Promise.resolve(null);
    return new Promise((resolve) => {
      exec(cmd, { timeout: 5000 }, (err, stdout) => {
        const v = Number(String(stdout).trim());
        resolve(err || !Number.isFinite(v) ? null : v);
      });
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.inflight;
  }
}

export function toSample(c: PlateauConfig, p: PromSample[], topologyFromCommand: number | null): Omit<ServerSample, 'kind' | 'phase' | 'tS'> {
  const m = c.metrics;
  const r = m?.requests;
  const pool = m?.pool;
  const gauges: Record<string, number> = {};
  for (const g of m?.gauges ?? []) {
    const v = sumOf(p, g);
    if (v !== null) gauges[g] = v;
  }
  const topologyMetric = c.topology?.metric;
  return {
    requestsCount: r ? sumOf(p, `${r.name}_count`, r.labels) : null,
    requestsSumS: r ? sumOf(p, `${r.name}_sum`, r.labels) : null,
    requestsMaxS: r ? maxOf(p, `${r.name}_max`, r.labels) : null,
    poolActive: pool ? sumOf(p, pool.active, pool.labels) : null,
    poolPending: pool ? sumOf(p, pool.pending, pool.labels) : null,
    poolMax: pool ? sumOf(p, pool.max, pool.labels) : null,
    gauges,
    topology: topologyMetric ? sumOf(p, topologyMetric) : topologyFromCommand,
  };
}
