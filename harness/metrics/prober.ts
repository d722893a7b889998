/**
 * Reads the target's metrics (and the topology probe) on the load phase's clock: at every whole
 * second that is a steady window's edge or a multiple of scrapeEveryS. Each reading keeps only the
 * configured series (a ServerSample), goes to probes.ndjson and stays in memory (O(seconds)) for
 * the live verdicts.
 */
import { exec } from 'node:child_process';
import { request } from 'undici';
import type { ServerSample } from '../../analysis/types.ts';
import { realClock, type Clock, type Timer } from '../clock.ts';
import type { PlateauConfig } from '../config/schema.ts';
import { parsePromText, sumOf, type PromSample } from './prom-text.ts';
import { requestSeriesOf } from '../../analysis/request-series.ts';
import { requestReading } from './request-reading.ts';
import { downstreamReadings } from './downstream-reading.ts';

/** One reading of the target's series, without where and when it was taken. */
export type ServerReading = Omit<ServerSample, 'kind' | 'phase' | 'tS'>;

/** Where the readings come from instead of the metrics endpoint and topology command (a model target). */
export type ServerReader = () => Promise<ServerReading>;

export interface ProberOptions {
  config: PlateauConfig;
  phase: string;
  /** clock.now() of the phase's t = 0. */
  t0Ms: number;
  /** True for seconds that must be read (steady window edges). */
  isEdge(tS: number): boolean;
  sink(s: ServerSample): void;
  /** Time and timers (default: the machine's). */
  clock?: Clock;
  /** Reads instead of scraping config.metrics.url and running topology.command (default: those). */
  read?: ServerReader;
}

export class Prober {
  readonly samples: ServerSample[] = [];
  private timer: Timer | null = null;
  private stopped = false;
  private inflight: Promise<void> = Promise.resolve();
  /** The last reading failed: said once, not every second. */
  lastError: string | null = null;

  private readonly clock: Clock;

  constructor(private readonly o: ProberOptions) {
    this.clock = o.clock ?? realClock;
  }

  start(): void {
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped) return;
    const nowS = (this.clock.now() - this.o.t0Ms) / 1000;
    const nextS = Math.floor(nowS) + 1;
    this.timer = this.clock.setTimeout(
      () => {
        if (this.due(nextS)) this.inflight = this.read();
        this.schedule();
      },
      (nextS - nowS) * 1000,
    );
  }

  private due(tS: number): boolean {
    const c = this.o.config;
    const every = Math.min(c.metrics?.scrapeEveryS ?? Infinity, c.topology?.everyS ?? Infinity);
    return this.o.isEdge(tS) || tS % every === 0;
  }

  async read(): Promise<void> {
    const startMs = this.clock.now();
    try {
      const s = await (this.o.read ?? (() => this.readTarget()))();
      const tS = ((startMs + this.clock.now()) / 2 - this.o.t0Ms) / 1000;
      const sample: ServerSample = { kind: 'scrape', phase: this.o.phase, tS: Math.round(tS * 1000) / 1000, ...s };
      this.samples.push(sample);
      this.o.sink(sample);
      this.lastError = null;
    } catch (err) {
      this.lastError = (err as Error).message;
    }
  }

  /** The target's metrics endpoint and the topology command, read together. */
  private async readTarget(): Promise<ServerReading> {
    const [prom, commandValue] = await Promise.all([this.scrape(), this.topologyCommand()]);
    return toSample(this.o.config, prom, commandValue);
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
    this.clock.clear(this.timer);
    await this.inflight;
  }
}

export function toSample(c: PlateauConfig, p: PromSample[], topologyFromCommand: number | null): ServerReading {
  const m = c.metrics;
  const r = m ? requestSeriesOf(m.requests) : null;
  const pool = m?.pool;
  const gauges: Record<string, number> = {};
  for (const g of m?.gauges ?? []) {
    const v = sumOf(p, g);
    if (v !== null) gauges[g] = v;
  }
  const topologyMetric = c.topology?.metric;
  const req = r ? requestReading(r, p) : { requestsCount: null, requestsSumS: null, requestsMaxS: null };
  const problems: string[] = [...(req.problems ?? [])];
  // downstreams declared with metrics.prometheus are read through PromQL (promql-downstreams.ts): they live on their exporters
  const downstreams = m?.downstreams.length && !m.prometheus ? downstreamReadings(m.downstreams, p, problems) : null;
  return {
    ...req,
    poolActive: pool ? sumOf(p, pool.active, pool.labels) : null,
    poolPending: pool ? sumOf(p, pool.pending, pool.labels) : null,
    poolMax: pool ? sumOf(p, pool.max, pool.labels) : null,
    gauges,
    topology: topologyMetric ? sumOf(p, topologyMetric) : topologyFromCommand,
    ...(downstreams ? { downstreams } : {}),
    ...(problems.length > 0 ? { problems } : {}),
  };
}
