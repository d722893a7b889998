/**
 * The target's own view beyond one timer (issue 28): histogram readings and the percentiles they
 * give, per-route readings, downstreams (their ops, fan-out per request and which one limits), and
 * the capacity within a latency objective. Types only.
 */
import type { RequestSeriesConfig } from '../request-series.ts';

/**
 * A cumulative histogram reading, summed over the matching series: `boundsMs` the finite upper
 * bounds (`le`, converted to ms) ascending, `cumulative` the counts at each bound and, last, at
 * +Inf (so cumulative.length === boundsMs.length + 1). A histogram without +Inf is not stored (its
 * reading has a problem instead).
 */
export interface HistogramReading {
  boundsMs: number[];
  cumulative: number[];
}

/** One route's cumulative figures in a reading (metrics.requests.routes), by the mix's name. */
export interface RouteReading {
  count: number | null;
  sumS: number | null;
  buckets?: HistogramReading | null;
}

/** One downstream's cumulative figures in a reading (metrics.downstreams), by its name. */
export interface DownstreamReading {
  /** The ops counter summed over the matching series. */
  ops: number | null;
  /** The ops counter by value of splitBy. */
  byLabel?: Record<string, number>;
  /** The saturation gauge (summed over matching series). */
  saturation?: number | null;
  /** Cumulative per-op time (s) and count of the latency series. */
  latencySumS?: number | null;
  latencyCount?: number | null;
}

/** A server percentile from bucket deltas, interpolated within its bucket as histogram_quantile does. */
export interface ServerPercentile {
  /** 50, 90, 99 */
  q: number;
  /** Null when the window counted no requests. */
  valueMs: number | null;
  /** The bounds of the bucket the value lies in: the resolution the reader should see. upperMs null = +Inf. */
  lowerMs: number;
  upperMs: number | null;
  /** Requests behind it (the window's delta count). */
  n: number;
  /**
   * Whether n reaches the samples a percentile at q needs (rules.minTailSamples beyond it: the
   * client's rule, analysis/percentiles.ts tailReliable), set when a step is judged
   * (server-histogram.ts judgedWindow); absent on a window as read, before that.
   */
  reliable?: boolean;
  /**
   * Set where the interpolation landed above the highest value known to bound the window's
   * requests (analysis/server-cap.ts): valueMs is then that bound, an upper bound of the
   * percentile rather than an estimate, and interpolatedMs histogram_quantile's own figure.
   */
  cappedBy?: PercentileCap;
  interpolatedMs?: number;
}

/** What capped a server percentile: the server's own max gauge, or the client's max over the same window. */
export type PercentileCap = 'server-max' | 'client-max';

/**
 * One downstream over one steady window, as read (the deltas of its cumulative figures between the
 * window's edges): from the direct readings (analysis/downstreams.ts) or through PromQL
 * (harness/metrics/promql-downstreams.ts, stored in run.json's promqlWindows).
 */
export interface DownstreamWindow {
  source: 'scrape' | 'promql';
  /** The edges actually read (seconds on the steps phase's clock). */
  fromS: number;
  toS: number;
  /** Ops counted in the window; null when the series matched nothing. */
  ops: number | null;
  /** Ops counted in the window by value of splitBy. */
  byLabel?: Record<string, number>;
  /** The saturation gauge at the window's start, and its max inside it. */
  saturationStart?: number | null;
  saturationMax?: number | null;
  /** Per-op time (s) and ops counted by the latency series in the window. */
  latencySumS?: number | null;
  latencyCount?: number | null;
  /** A counter went backwards inside the window (a restart): its deltas are not trusted. */
  counterReset?: boolean;
  /** What was wrong with the series (matched nothing, non-numeric), a line each. */
  problems?: string[];
}

/** One downstream over one step's steady window. */
export interface DownstreamStep {
  name: string;
  opsPerSec: number | null;
  /**
   * Ops per successful request: opsPerSec / the client's successful requests per second over the
   * steady window (every request of every arrival where a mix names them, else throughputPerSec).
   */
  opsPerRequest: number | null;
  /** The successful requests per second over the downstream's own window: opsPerRequest's divisor. */
  requestsPerSec?: number | null;
  /** The saturation gauge at the window's start and its max inside it. */
  saturationStart?: number | null;
  saturationMax?: number | null;
  /** Mean per-op time over the window (ms). */
  latencyMeanMs?: number | null;
  /** Share of the ops by value of splitBy (sums to 1). */
  shares?: Record<string, number>;
  /** Ops/s by value of splitBy. */
  byLabelPerSec?: Record<string, number>;
  /** A counter went backwards inside the window: its figures are not trusted (null). */
  counterReset?: boolean;
}

/** The kind of evidence that names a downstream the limit (docs/decisions/030). */
export type DownstreamEvidence = 'saturation' | 'latency' | 'ceiling';

/** One downstream over the run (RunResult.downstreams, summary.json `downstreams[]`). */
export interface DownstreamResult {
  name: string;
  /** Per executed step (index, and attempt when a rerun), its window's figures. */
  steps: (Omit<DownstreamStep, 'name'> & { step: number; attempt?: number })[];
  /** True for the one downstream named the limit at the knee on its own evidence. */
  limiting: boolean;
  /** Its own evidence at the knee (saturation, per-op latency, its ceiling), when it showed any. */
  evidenceKind?: DownstreamEvidence;
  /** Why it was (or was not) named: the figures in words. */
  evidence?: string;
  /** The splitBy value that carried more than 1.5 x the mean ops, when flagged. */
  hotShard?: string;
  /** Ops per request changed between holding steps by more than the tolerance (a cache warming, retries). */
  fanOutChanged?: boolean;
  /** What was wrong with its series in the readings (deduplicated), a line each. */
  problems?: string[];
}

/** The run's downstream verdict: the limiting one, or where the evidence points instead. */
export interface DownstreamVerdict {
  /** The limiting downstream's name, or null when none showed its own evidence. */
  limiting: string | null;
  /** Where the evidence points: a downstream, the service's pool, the generator, or none of them. */
  pointsTo: 'downstream' | 'pool' | 'generator' | 'nothing';
  /** The step (index) whose figures the detail gives; null when none. */
  step: number | null;
  /** The arithmetic and evidence, or where the evidence points instead (the pool, the generator, nothing). */
  detail: string;
}

/** The latency objective (config `slo`). */
export interface SloConfig {
  /** The objective's quantile as a share: 0.5, 0.9, 0.99 or 0.999 on the client, 0.5, 0.9 or 0.99 on the server (the quantiles the results keep). */
  quantile: number;
  maxMs: number;
  source: 'client' | 'server';
}

/**
 * Why a step's quantile was not judged against the objective: too few samples behind it, no value
 * (no successful request, or no server percentiles: a series without histogram buckets), the
 * generator over its bounds while the step held, or a server counter that went backwards.
 */
export type SloUnjudged = 'thin' | 'no-data' | 'no-server-percentiles' | 'generator-limited' | 'counter-reset';

/** One step's reading against the objective. */
export interface SloStep {
  /** The step's index (0-based, as StepResult.index), and its attempt when a rerun. */
  step: number;
  attempt?: number;
  ratePerSec: number;
  throughputPerSec: number;
  /** The quantile (client minus RTT, or server), ms; null when not measurable. */
  valueMs: number | null;
  /** The server's: the bounds of the bucket the value lies in (upperMs null = +Inf), the resolution to read it with. */
  lowerMs?: number;
  upperMs?: number | null;
  /** Samples behind it, and the samples a percentile at this quantile needs to be trusted (rules.minTailSamples beyond it). */
  n: number;
  requiredSamples: number;
  /** False when the percentile is too thin to trust (a thin percentile is marked, never trusted). */
  reliable: boolean;
  /** True met, false missed; null not judged (`unjudged` says why): only a trusted percentile is judged. */
  met: boolean | null;
  unjudged?: SloUnjudged;
  /** In the holding prefix (held and counted, up to the knee): only such a step can establish the capacity within the objective. */
  holds: boolean;
}

/** Capacity within the objective (RunResult.slo). */
export interface SloResult extends SloConfig {
  /**
   * Throughput of the highest holding step whose trusted quantile met the objective, below the
   * first holding step that missed it (a step met again above a miss is not counted: never
   * overstate); null when none did.
   */
  capacityPerSec: number | null;
  /** Its step (index); null when none. */
  step: number | null;
  /** True when no judged holding step missed the objective: the plateau came first, so the capacity within it is at least this. */
  atLeast: boolean;
  /** The RTT subtracted from the client's percentiles (ms); null for the server's, or when the RTT was not measured. */
  rttMs: number | null;
  /** Why the objective cannot be judged at all (a quantile the results do not keep), with the fix. */
  problem?: string;
  steps: SloStep[];
  /** One sentence with the figures. */
  detail: string;
}

/** What the analysis needs of the run's metrics config (from run.json's config), beyond the samples. */
export interface ServerConfigInput {
  requests?: RequestSeriesConfig & { routeLabel?: string; routes?: Record<string, string> };
  downstreams?: {
    name: string;
    ops: string;
    labels?: Record<string, string>;
    splitBy?: string;
    saturation?: string;
    latency?: string;
    maxOpsPerSec?: number;
  }[];
}

/** One declared downstream (metrics.downstreams[i]) as the analysis and the readers take it. */
export type DownstreamConfig = NonNullable<ServerConfigInput['downstreams']>[number];
