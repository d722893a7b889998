/**
 * Server percentiles from a classic Prometheus histogram over one window: the bucket deltas
 * between the window's edge readings, then each quantile as PromQL's histogram_quantile computes
 * it from those deltas (its documented behaviour, prometheus/promql/quantile.go bucketQuantile):
 *
 *   n      = the +Inf bucket's count (every request of the window)
 *   rank   = q x n
 *   b      = the first bucket whose cumulative count >= rank
 *   value  = lower(b) + (upper(b) - lower(b)) x (rank - cum(b-1)) / (cum(b) - cum(b-1))
 *
 * where lower(first bucket) = 0 (a first bound <= 0 is returned as is), and a rank that falls in
 * the +Inf bucket returns the highest finite bound (nothing above it can be told). Counts that dip
 * from one bound to the next (a scrape racing the target's updates of its buckets) are raised to
 * the previous bound's, as Prometheus does. Each percentile carries the bounds of its bucket: the
 * resolution at which it is to be read ("p99 41.2 ms, bucket 25 to 50 ms").
 *
 * A count that goes backwards between two readings (a restart) makes the window's deltas
 * meaningless: resetInside() says so and no percentile is given, never a negative count.
 */
import { tailReliable } from './percentiles.ts';
import type { HistogramReading, ServerPercentile, ServerWindow } from './types.ts';

/** The server quantiles the results keep (ServerWindow.percentiles). */
export const SERVER_QUANTILES = [50, 90, 99] as const;

/**
 * b - a, per bound. `a` null (the histogram did not exist yet at the window's start: clients
 * create it at the first request) counts from zero. Null when the bounds differ (the layout
 * changed inside the window) or a count went backwards.
 */
export function histogramDelta(a: HistogramReading | null | undefined, b: HistogramReading): HistogramReading | null {
  if (!a) return { boundsMs: [...b.boundsMs], cumulative: [...b.cumulative] };
  if (!sameBounds(a, b)) return null;
  const cumulative = b.cumulative.map((v, i) => v - a.cumulative[i]!);
  return cumulative.some((v) => v < 0) ? null : { boundsMs: [...b.boundsMs], cumulative };
}

export function sameBounds(a: HistogramReading, b: HistogramReading): boolean {
  return (
    a.boundsMs.length === b.boundsMs.length &&
    a.cumulative.length === b.cumulative.length &&
    a.boundsMs.every((x, i) => x === b.boundsMs[i])
  );
}

/** True when any bucket's count is lower in a later reading than in an earlier one (over consecutive readings). */
export function resetInside(readings: readonly (HistogramReading | null | undefined)[]): boolean {
  let prev: HistogramReading | null = null;
  for (const r of readings) {
    if (!r) continue;
    if (prev && sameBounds(prev, r) && r.cumulative.some((v, i) => v < prev!.cumulative[i]!)) return true;
    prev = r;
  }
  return false;
}

/** One quantile (q in 0..100) of a window's bucket counts, as histogram_quantile does (see the file comment). */
export function bucketQuantile(q: number, h: HistogramReading): ServerPercentile {
  const counts = monotonic(h.cumulative);
  const n = counts.at(-1) ?? 0;
  const bounds = h.boundsMs;
  if (n <= 0 || bounds.length === 0) return { q, valueMs: null, lowerMs: 0, upperMs: bounds[0] ?? null, n: 0 };
  const rank = (q / 100) * n;
  let b = 0;
  while (b < bounds.length && counts[b]! < rank) b++;
  if (b === bounds.length) return { q, valueMs: bounds.at(-1)!, lowerMs: bounds.at(-1)!, upperMs: null, n };
  const upper = bounds[b]!;
  if (b === 0 && upper <= 0) return { q, valueMs: upper, lowerMs: upper, upperMs: upper, n };
  const lower = b === 0 ? 0 : bounds[b - 1]!;
  const below = b === 0 ? 0 : counts[b - 1]!;
  const inBucket = counts[b]! - below;
  const valueMs = inBucket > 0 ? lower + (upper - lower) * ((rank - below) / inBucket) : upper;
  return { q, valueMs, lowerMs: lower, upperMs: upper, n };
}

/** p50, p90 and p99 of a window's bucket deltas. */
export function serverPercentiles(delta: HistogramReading): ServerPercentile[] {
  return SERVER_QUANTILES.map((q) => bucketQuantile(q, delta));
}

/**
 * The window with each percentile's `reliable` set by the client's rule (percentiles.ts
 * tailReliable: at least minTailSamples of its n beyond it), so a server p99 of 171 requests is
 * marked as a client's would be; the window itself where it has no percentiles.
 */
export function judgedWindow(w: ServerWindow | null, minTailSamples: number): ServerWindow | null {
  if (!w?.percentiles?.length) return w;
  return { ...w, percentiles: w.percentiles.map((p) => ({ ...p, reliable: tailReliable(p.q, p.n, minTailSamples) })) };
}

/** Each count at least the one before it (Prometheus's ensureMonotonic). */
function monotonic(counts: readonly number[]): number[] {
  const out: number[] = [];
  let max = 0;
  for (const c of counts) out.push((max = Math.max(max, c)));
  return out;
}
