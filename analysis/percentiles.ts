/**
 * Percentiles that carry the sample count behind them. A percentile q rests on the tail above it:
 * n x (1 - q/100) samples. Below `minTailSamples` tail samples it is shown but marked unreliable
 * (with 30: p50 needs 60 samples, p90 300, p99 3,000, p99.9 30,000).
 */
import { percentileMs, type Histogram } from './histogram.ts';
import type { Percentile } from './types.ts';

export const DEFAULT_QUANTILES: readonly number[] = [50, 90, 99, 99.9];
export const DEFAULT_MIN_TAIL_SAMPLES = 30;

/**
 * Smallest n with n x (1 - q/100) >= minTailSamples, i.e. ceil(minTail x 100 / (100 - q)).
 * q is scaled to parts per million of tail first so that 99.9 gives exactly 30,000, not 30,001.
 * Infinity for q >= 100 (the maximum never has a tail).
 */
export function requiredSamples(q: number, minTailSamples: number = DEFAULT_MIN_TAIL_SAMPLES): number {
  const tailPpm = Math.round((100 - q) * 10_000);
  if (tailPpm <= 0) return Infinity;
  return Math.ceil((minTailSamples * 1_000_000) / tailPpm);
}

/**
 * Whether a q-th percentile of n samples is to be trusted: n reaches requiredSamples(q). The one
 * rule of every percentile's `reliable`, the client's (percentiles below) and the server's
 * histogram ones (server-histogram.ts judgedWindow).
 */
export function tailReliable(q: number, n: number, minTailSamples: number = DEFAULT_MIN_TAIL_SAMPLES): boolean {
  return n > 0 && n >= requiredSamples(q, minTailSamples);
}

/** Each quantile of `h` (ms) with n = h.totalCount and whether n reaches requiredSamples(q). */
export function percentiles(
  h: Histogram,
  qs: readonly number[] = DEFAULT_QUANTILES,
  minTailSamples: number = DEFAULT_MIN_TAIL_SAMPLES,
): Percentile[] {
  const n = h.totalCount;
  return qs.map((q) => ({
    q,
    valueMs: percentileMs(h, q),
    n,
    reliable: tailReliable(q, n, minTailSamples),
  }));
}

export interface PercentileTrust {
  q: number;
  /** Samples this percentile needs to be reliable. */
  requiredSamples: number;
  /** True when the expected sample count reaches requiredSamples. */
  trusted: boolean;
}

/**
 * Which percentiles a step expecting `expectedSamples` successful requests can trust (for
 * `plateau plan`: expected samples = rate x steady seconds).
 */
export function trustworthyPercentiles(
  expectedSamples: number,
  minTailSamples: number = DEFAULT_MIN_TAIL_SAMPLES,
  qs: readonly number[] = DEFAULT_QUANTILES,
): PercentileTrust[] {
  return qs.map((q) => {
    const required = requiredSamples(q, minTailSamples);
    return { q, requiredSamples: required, trusted: expectedSamples > 0 && expectedSamples >= required };
  });
}

/** "p99.9", "p50": the label used in every output. */
export function percentileLabel(q: number): string {
  return `p${q}`;
}

/**
 * The percentiles a name's tail is judged by, in turn: the p99, else the p90 where a p99 rests on
 * too few samples (a short hold's 300 samples of a name make a p90; a p99 needs 3,000). The knee's
 * finding (names-knee.ts) and compare/gate by name (compare/by-name.ts) both follow it.
 */
export const TAIL_PERCENTILES = [99, 90] as const;
export type TailPercentile = (typeof TAIL_PERCENTILES)[number];

/** When a mix entry's tail percentile becomes trustworthy (TailTrust.fromStepIndex). */
export interface TailTrust {
  q: TailPercentile;
  /** Samples of the entry a steady window needs for it. */
  requiredSamples: number;
  /** The first step (0-based, as a plan's steps[].index) whose window expects that many; null: none of the plan's. */
  fromStepIndex: number | null;
}

/**
 * For a mix entry taking `share` (0 to 1) of each step's expected samples: from which step each
 * tail percentile (TAIL_PERCENTILES, in turn) rests on enough of them (`plateau plan` by name).
 */
export function tailTrustByShare(
  expectedSteadySamples: readonly number[],
  share: number,
  minTailSamples: number = DEFAULT_MIN_TAIL_SAMPLES,
): TailTrust[] {
  return TAIL_PERCENTILES.map((q) => {
    const required = requiredSamples(q, minTailSamples);
    const i = expectedSteadySamples.findIndex((n) => n * share >= required);
    return { q, requiredSamples: required, fromStepIndex: i < 0 ? null : i };
  });
}

/** Percentile q of `latency` in ms when it is reliable and above 0, else null. */
export function reliableMs(latency: readonly Percentile[] | undefined, q: number): number | null {
  const p = latency?.find((x) => x.q === q);
  return p && p.reliable && p.valueMs !== null && p.valueMs > 0 ? p.valueMs : null;
}
