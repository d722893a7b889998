/**
 * Reads the target's metrics (and the topology probe) on the load phase's clock: at every whole
 * second that is a steady window's edge or a multiple of scrapeEveryS. Each reading keeps only the
 * configured series (a ServerSample), goes to probes.ndjson and stays in memory (O(seconds)) for
 * the live verdicts, which wait for their window's end edge to be read (readingAt).
 */
import { request } from 'undici';
import type { ServerSample } from '../../analysis/types.ts';
import { realClock, type Clock, type Timer } from '../clock.ts';
import type { PlateauConfig } from '../config/schema.ts';
import { parsePromText, sumOf, type PromSample } from './prom-text.ts';
import { requestSeriesOf } from '../../analysis/request-series.ts';
import { requestReading } from './request-reading.ts';
import { downstreamReadings } from './downstream-reading.ts';
import { readTopologyCommand } from './topology-command.ts';

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
  /** Every second up to this one that was due has been read (or its reading failed). */
  private settledS = -Infinity;
  private readonly waiters: { tS: number; settle(): void }[] = [];
  /** The last reading failed: said once, not every second. */
  lastError: string | null = null;
  /** Readings whose topology.command gave no number, and the last one's problem (the metrics of those readings are kept). */
  readonly topologyUnread = { count: 0, last: null as string | null };

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
        if (this.due(nextS)) this.inflight = this.read().finally(() => this.settle(nextS));
        else this.settle(nextS);
        this.schedule();
      },
      (nextS - nowS) * 1000,
    );
  }

  /**
   * Settles once the reading of whole second tS (phase clock) has been taken or has failed, once
   * second tS has passed with no reading due, or after waitMs at most (a reading that hangs): the
   * steps stage judges a steady window after its end edge is read, so the live verdict has the
   * window the report has, and the judging's own work cannot delay that reading.
   */
  readingAt(tS: number, waitMs: number): Promise<void> {
    if (this.stopped || this.settledS >= tS) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = this.clock.setTimeout(() => settle(), waitMs);
      const waiter = { tS, settle: () => settle() };
      const settle = () => {
        this.clock.clear(timer);
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        resolve();
      };
      this.waiters.push(waiter);
    });
  }

  private settle(tS: number): void {
    this.settledS = Math.max(this.settledS, tS);
    for (const w of this.waiters.filter((x) => x.tS <= this.settledS)) w.settle();
  }

  private due(tS: number): boolean {
    const c = this.o.config;
    const every = Math.min(c.metrics?.scrapeEveryS ?? Infinity, c.topology?.everyS ?? Infinity);
    return this.o.isEdge(tS) || tS % every === 0;
  }

  async read(): Promise<void> {
    const startMs = this.clock.now();
    const unread = this.topologyUnread.count;
    try {
      const s = await (this.o.read ?? (() => this.readTarget()))();
      const endMs = this.clock.now();
      const tS = ((startMs + endMs) / 2 - this.o.t0Ms) / 1000;
      const sample: ServerSample = {
        kind: 'scrape',
        phase: this.o.phase,
        tS: Math.round(tS * 1000) / 1000,
        readMs: Math.round(endMs - startMs),
        ...s,
      };
      this.samples.push(sample);
      this.o.sink(sample);
      this.lastError = this.topologyUnread.count > unread ? `topology.command ${this.topologyUnread.last}` : null;
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

  private async topologyCommand(): Promise<number | null> {
    const cmd = this.o.config.topology?.command;
    if (!cmd) return null;
    const r = await readTopologyCommand(cmd);
    if ('value' in r) return r.value;
    this.topologyUnread.count++;
    this.topologyUnread.last = r.problem;
    return null;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.clock.clear(this.timer);
    await this.inflight;
    this.settle(Infinity);
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
