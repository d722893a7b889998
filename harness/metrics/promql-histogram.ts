/**
 * The request histogram through PromQL (promql.ts): the raw `_bucket` samples of a window, their
 * reset-aware increase summed per `le` (the window's own histogram, for histogram_quantile's
 * arithmetic in analysis/server-histogram.ts), and whether any counter went backwards inside it.
 */
import type { HistogramReading } from '../../analysis/types.ts';
import { sumDeltas, type RawSeries } from './promql.ts';
import { toMsExact } from './prom-text.ts';

/**
 * The reset-aware increase of each bucket over the window, summed per `le` (bounds x toMs), as a
 * histogram of the window; a problem instead when a series has no +Inf bucket.
 */
export function bucketDeltas(
  series: RawSeries[],
  fromMs: number,
  tFirst: number,
  tLast: number,
  toMs: number,
): { delta: HistogramReading | null; problem?: string } {
  const byLe = new Map<number, RawSeries[]>();
  const infBy = new Set<string>();
  const ids = new Set<string>();
  for (const x of series) {
    const { le, ...rest } = x.labels;
    const id = JSON.stringify(Object.entries(rest).sort());
    ids.add(id);
    const bound = le === '+Inf' ? Infinity : Number(le);
    if (le === undefined || Number.isNaN(bound)) continue;
    if (bound === Infinity) infBy.add(id);
    byLe.set(bound, [...(byLe.get(bound) ?? []), x]);
  }
  if (infBy.size < ids.size)
    return {
      delta: null,
      problem: `${ids.size - infBy.size} of the ${ids.size} series of ${series[0]!.labels.__name__ ?? 'the histogram'} have no le="+Inf" bucket in Prometheus: server percentiles not computed; expose the histogram with its +Inf bucket`,
    };
  const finite = [...byLe.keys()].filter((b) => b !== Infinity).sort((a, b) => a - b);
  const at = (b: number) => sumDeltas(byLe.get(b)!, fromMs, tFirst, tLast);
  return { delta: { boundsMs: finite.map((b) => toMsExact(b, toMs)), cumulative: [...finite.map(at), at(Infinity)] } };
}

/** True when a series' value drops between consecutive samples inside [tFirst, tLast] (a counter reset). */
export function goesBackwards(series: RawSeries[], tFirst: number, tLast: number): boolean {
  return series.some((x) => {
    const inside = x.samples.filter(([t]) => t >= tFirst && t <= tLast);
    return inside.some(([, v], i) => i > 0 && v < inside[i - 1]![1]);
  });
}
