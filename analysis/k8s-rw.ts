/**
 * k6 runners' remote-write series -> one-second BucketRecords, pure (no I/O, no clock: the caller
 * gives each reading and the time). Each runner (its instance_id) gets its own buckets, source
 * `k8s/<instance_id>`, so the decision path merges them as it merges any engine's instances.
 *
 * Counters are read as raw samples with their own differences, never rate(): a series' first
 * sample counts from zero (k6 creates a counter at its first event), a value below the previous
 * one is a reset (the runner restarted: the new value counts from zero, and is named). The
 * difference between two pushes covers the push interval before the later one (k6 pushes every
 * K6_PROMETHEUS_RW_PUSH_INTERVAL, 1 s): it goes to the second that holds the middle of that
 * interval, so a second's events land in it or a neighbour, and counts are exact over any window.
 * Latency comes from the native histogram of http_req_duration: bucket differences, each
 * recorded at its bucket's geometric middle (resolutionOf says how fine).
 *
 * A second is emitted once every runner has pushed a sample whose interval's middle is past its
 * end (no later push can land in it), so a steady window is judged once every runner has
 * reported past it. A runner silent for
 * `silentAfterMs` past a second's end is emitted without its data: its share of the schedule's
 * arrivals that second counts as dropped (the generator did not deliver them, as far as plateau
 * can see), which makes the step generator-bound, never the target's capacity, and it is named.
 */
import { encodeHistogram, newHistogram, recordUs, type Histogram } from './histogram.ts';
import { PHASES, type BucketRecord, type ErrorKind, type Phase } from './types.ts';

/** k6's metric names under experimental-prometheus-rw (a counter gets _total, a trend in seconds _seconds). */
export const RW_METRICS = {
  iterations: 'k6_iterations_total',
  dropped: 'k6_dropped_iterations_total',
  reqs: 'k6_http_reqs_total',
  checkFailed: 'k6_plateau_check_failed_total',
  vus: 'k6_vus',
  vusMax: 'k6_vus_max',
  duration: 'k6_http_req_duration_seconds',
} as const;
export type CounterField = 'iterations' | 'dropped' | 'reqs' | 'checkFailed';
export type GaugeField = 'vus' | 'vusMax';

export interface RawSeries {
  labels: Record<string, string>;
  samples: [tMs: number, value: number][];
}
export interface NativeBucket {
  lower: number;
  upper: number;
  count: number;
}
export interface NativeSample {
  tMs: number;
  count: number;
  buckets: NativeBucket[];
}
export interface RawHistogramSeries {
  labels: Record<string, string>;
  samples: NativeSample[];
}

/** One reading of every series of the run (all runners), as Prometheus returned them. */
export interface RwReading {
  counters: Partial<Record<CounterField, RawSeries[]>>;
  gauges: Partial<Record<GaugeField, RawSeries[]>>;
  durations: RawHistogramSeries[];
}

/** A native histogram's relative bucket width: schema s gives buckets a factor 2^(2^-s) wide. */
export function resolutionOf(schema: number): string {
  const factor = 2 ** (2 ** -schema);
  return `native histogram schema ${schema}: buckets ${((factor - 1) * 100).toFixed(1)}% wide, a latency read to within ±${(((factor - 1) / 2) * 100).toFixed(1)}%`;
}

interface Tally {
  iterations: number;
  dropped: number;
  completed: number;
  ok: number;
  checkFailed: number;
  errors: Partial<Record<ErrorKind, number>>;
  statuses: Record<string, number>;
  vusMax: number;
  vusAllocated: number;
  hist: Histogram;
}

function newTally(): Tally {
  return {
    iterations: 0,
    dropped: 0,
    completed: 0,
    ok: 0,
    checkFailed: 0,
    errors: {},
    statuses: {},
    vusMax: 0,
    vusAllocated: 0,
    hist: newHistogram(),
  };
}

const key = (labels: Record<string, string>) =>
  Object.entries(labels)
    .filter(([k]) => k !== '__name__')
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join(',');

const kindOf = (status: string): ErrorKind =>
  status.startsWith('4') ? 'http_4xx' : status.startsWith('5') ? 'http_5xx' : 'other';

/** A series' last sample: its time and value (counters, gauges), or its count and buckets (histograms). */
interface Last {
  tMs: number;
  v: number;
  buckets?: Map<string, number>;
}

/** Runner.advance's answer for a sample already taken. */
const SEEN = Symbol('seen');

class Runner {
  readonly seconds = new Map<number, Tally>();
  /** Last sample per series (advance keeps it). */
  private readonly last = new Map<string, Last>();
  reportedMs = -Infinity;
  firstMs = Infinity;
  silent = false;
  resets = 0;

  /**
   * Takes sample (tMs, v) of series k as its latest, and the runner's latest report, and returns
   * the series' sample before it (undefined for its first); SEEN when the series already has one
   * this late (readings overlap), which changes nothing.
   */
  advance(k: string, tMs: number, v: number, buckets?: Map<string, number>): Last | undefined | typeof SEEN {
    const prev = this.last.get(k);
    if (prev && tMs <= prev.tMs) return SEEN;
    this.last.set(k, buckets ? { tMs, v, buckets } : { tMs, v });
    this.reportedMs = Math.max(this.reportedMs, tMs);
    return prev;
  }

  constructor(readonly id: string) {}
  at(s: number): Tally {
    let t = this.seconds.get(s);
    if (!t) this.seconds.set(s, (t = newTally()));
    return t;
  }
}

export interface RwBucketsOptions {
  /** Epoch ms of the plan's t = 0 (the runners' start). */
  t0Ms: number;
  /** The runners' instance ids as the operator tags them ("1".."N"). */
  runners: string[];
  /** Runner r's (0-based) share of the schedule's arrivals in second s: what counts as dropped when it is silent. */
  expected(runner: number, s: number): number;
  /** After how long past a second's end a runner without a sample there is taken as silent. */
  silentAfterMs: number;
  phase: string;
  /** The runners' push interval (K6_PROMETHEUS_RW_PUSH_INTERVAL; default 1000 ms). */
  pushIntervalMs?: number;
}

/** The live reader's state: readings in, complete seconds out. */
export class RwBuckets {
  private readonly runners: Runner[];
  /** The next second to emit (the same for every runner). */
  private nextS = 0;
  readonly notes: string[] = [];
  schema: number | null = null;

  constructor(private readonly o: RwBucketsOptions) {
    this.runners = o.runners.map((id) => new Runner(id));
  }

  private runnerOf(labels: Record<string, string>): Runner | undefined {
    return this.runners.find((r) => r.id === labels.instance_id);
  }

  /** Half the push interval: a push stamped t covers (t - interval, t], whose middle is t - half. */
  private get halfMs(): number {
    return (this.o.pushIntervalMs ?? 1000) / 2;
  }

  private secondOf(tMs: number): number {
    return Math.floor((tMs - this.halfMs - this.o.t0Ms) / 1000);
  }

  /** Takes one reading; samples already seen (by series and time) are skipped, so readings may overlap. */
  add(reading: RwReading): void {
    for (const [field, series] of Object.entries(reading.counters) as [CounterField, RawSeries[]][])
      for (const s of series) this.addCounter(field, s);
    for (const [field, series] of Object.entries(reading.gauges) as [GaugeField, RawSeries[]][])
      for (const s of series) this.addGauge(field, s);
    for (const s of reading.durations) this.addHistogram(s);
  }

  private addCounter(field: CounterField, s: RawSeries): void {
    const r = this.runnerOf(s.labels);
    if (!r) return;
    const k = `${field}|${key(s.labels)}`;
    for (const [tMs, v] of s.samples) {
      const prev = r.advance(k, tMs, v);
      if (prev === SEEN) continue;
      let delta = prev ? v - prev.v : v;
      if (delta < 0) {
        delta = v;
        r.resets++;
        this.notes.push(
          `runner ${r.id}: ${RW_METRICS[field]} went from ${prev!.v} down to ${v} (a reset): counted from zero`,
        );
      }
      r.firstMs = Math.min(r.firstMs, tMs);
      if (delta === 0) continue;
      const t = r.at(this.secondOf(tMs));
      if (field === 'reqs') {
        t.completed += delta;
        if (s.labels.expected_response === 'false') {
          const status = s.labels.status ?? '0';
          const kind = kindOf(status);
          t.errors[kind] = (t.errors[kind] ?? 0) + delta;
          if (status !== '0') t.statuses[status] = (t.statuses[status] ?? 0) + delta;
        } else t.ok += delta;
      } else t[field] += delta;
    }
  }

  private addGauge(field: GaugeField, s: RawSeries): void {
    const r = this.runnerOf(s.labels);
    if (!r) return;
    const k = `${field}|${key(s.labels)}`;
    for (const [tMs, v] of s.samples) {
      if (r.advance(k, tMs, v) === SEEN) continue;
      const t = r.at(this.secondOf(tMs));
      if (field === 'vus') t.vusMax = Math.max(t.vusMax, v);
      else t.vusAllocated = v;
    }
  }

  private addHistogram(s: RawHistogramSeries): void {
    const r = this.runnerOf(s.labels);
    if (!r || s.labels.expected_response === 'false') return;
    const k = `duration|${key(s.labels)}`;
    for (const h of s.samples) {
      const now = new Map(h.buckets.map((b) => [`${b.lower}:${b.upper}`, b.count]));
      const prev = r.advance(k, h.tMs, h.count, now);
      if (prev === SEEN) continue;
      const reset = prev !== undefined && h.count < prev.v;
      const t = r.at(this.secondOf(h.tMs));
      for (const b of h.buckets) {
        const before = reset ? 0 : (prev?.buckets?.get(`${b.lower}:${b.upper}`) ?? 0);
        const n = Math.round(b.count - before);
        const us = Math.sqrt(Math.max(b.lower, 1e-9) * b.upper) * 1e6;
        for (let i = 0; i < n; i++) recordUs(t.hist, us);
      }
      if (this.schema === null && h.buckets.length > 0) {
        const b = h.buckets.find((x) => x.lower > 0);
        if (b) this.schema = Math.round(-Math.log2(Math.log2(b.upper / b.lower)));
      }
    }
  }

  /** The runners that have pushed nothing yet. */
  unseen(): string[] {
    return this.runners.filter((r) => r.reportedMs === -Infinity).map((r) => r.id);
  }

  /** The spread of the runners' first counter samples (ms): how far apart they started; null until all have pushed. */
  startSkewMs(): number | null {
    const firsts = this.runners.map((r) => r.firstMs);
    return firsts.every(Number.isFinite) ? Math.max(...firsts) - Math.min(...firsts) : null;
  }

  /**
   * The seconds complete at `nowMs`: a bucket per runner for each second every runner has pushed
   * past (or been silent past by silentAfterMs), in order, up to `untilS` (exclusive).
   */
  drain(nowMs: number, untilS = Infinity): BucketRecord[] {
    const out: BucketRecord[] = [];
    for (;;) {
      const s = this.nextS;
      if (s >= untilS) return out;
      const endMs = this.o.t0Ms + (s + 1) * 1000;
      const late = nowMs > endMs + this.o.silentAfterMs;
      const past = (r: Runner) => r.reportedMs - this.halfMs >= endMs;
      if (!this.runners.every((r) => past(r) || late)) return out;
      this.runners.forEach((r, i) => {
        const t = r.seconds.get(s) ?? newTally();
        r.seconds.delete(s);
        if (!past(r)) {
          if (!r.silent)
            this.notes.push(
              `runner ${r.id} pushed nothing after ${((r.reportedMs - this.o.t0Ms) / 1000).toFixed(1)} s (its series stopped): its share of the arrivals from second ${s} on counts as dropped, so a step it spoiled is generator-bound; check the runner pod (kubectl logs) and its remote write`,
            );
          r.silent = true;
          t.dropped += Math.max(0, this.o.expected(i, s) - t.iterations - t.dropped);
        }
        out.push(this.record(r, s, t));
      });
      this.nextS = s + 1;
    }
  }

  private record(r: Runner, s: number, t: Tally): BucketRecord {
    const hist = {} as Record<Phase, string>;
    const empty = encodeHistogram(newHistogram());
    for (const p of PHASES) hist[p] = empty;
    hist.duration = encodeHistogram(t.hist);
    const errors = { ...t.errors };
    const check = Math.min(t.checkFailed, t.ok);
    if (check > 0) errors.check = (errors.check ?? 0) + check;
    return {
      v: 1,
      source: `k8s/${r.id}`,
      tS: s,
      phase: this.o.phase,
      started: t.iterations,
      dropped: t.dropped,
      completed: t.completed,
      ok: t.ok - check,
      errors,
      statuses: t.statuses,
      bytesIn: 0,
      bytesOut: 0,
      vusActiveMax: t.vusMax,
      vusAllocated: t.vusAllocated,
      lag: empty,
      hist,
    };
  }
}
