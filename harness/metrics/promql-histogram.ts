/**
 * The request histogram through PromQL (promql.ts): the raw `_bucket` samples of a window, each
 * bucket series' reset-aware rate (analysis/counter-rate.ts: its own samples, as the request count's)
 * summed per `le` and taken over the window's span (the window's own histogram, for
 * histogram_quantile's arithmetic in analysis/server-histogram.ts), and whether any went backwards.
 */
import type { HistogramReading } from '../../analysis/types.ts';
import { sumOfRates } from '../../analysis/counter-rate.ts';
import type { RawSeries } from './promql.ts';
import { toMsExact } from './prom-text.ts';

/**
 * Per `le`, the sum over series of each bucket series' rate, times the window's span spanS (bounds
 * x boundToMs): the count of each bucket in the window, each replica weighed by its rate as the
 * throughput weighs it (decision 048), so the +Inf count is throughput x spanS. A problem instead
 * when a series has no +Inf bucket; reset when a bucket counter went backwards.
 */
export function bucketDeltas(
  series: RawSeries[],
  window: { fromMs: number; toMs: number; firstMs: number; spanS: number },
  boundToMs: number,
): { delta: HistogramReading | null; problem?: string; reset?: boolean } {
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
  const rates = [...finite, Infinity].map((b) => sumOfRates(byLe.get(b)!, window.fromMs, window.toMs, window.firstMs));
  return {
    delta: {
      boundsMs: finite.map((b) => toMsExact(b, boundToMs)),
      cumulative: rates.map((r) => (r?.ratePerSec ?? 0) * window.spanS),
    },
    ...(rates.some((r) => r?.reset) ? { reset: true } : {}),
  };
}
