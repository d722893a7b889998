/**
 * The request series in one reading of the target's metrics (metrics.requests, resolved by preset
 * in analysis/request-series.ts): the cumulative count, sum and max converted to seconds, the
 * histogram's buckets summed per `le` with bounds in ms, each mapped route's own figures, and a
 * line for everything wrong with the series (a histogram without +Inf, a non-numeric sample,
 * labels that match nothing), each naming the fix. A problem never stops the run: the figure it
 * concerns is left out and the report says why.
 */
import type { HistogramReading, RouteReading, ServerSample } from '../../analysis/types.ts';
import type { RequestSeries } from '../../analysis/request-series.ts';
import { histogramOf, matches, maxOf, seriesId, sumOf, unmatchedLabels, type PromSample } from './prom-text.ts';

export type RequestReading = Pick<
  ServerSample,
  'requestsCount' | 'requestsSumS' | 'requestsMaxS' | 'requestsBuckets' | 'routes' | 'problems'
>;

export function requestReading(r: RequestSeries, all: readonly PromSample[]): RequestReading {
  const problems: string[] = [];
  // a bucket's non-numeric value is the histogram's problem (histogramOf): said there, once
  const names = [r.count, r.sum, r.max].filter((n): n is string => n !== null);
  problems.push(...nonNumeric(all, names, r.labels));
  // NaN is a valid value in the format but not of a counter: left out of the sums with the line above
  const p = all.filter((s) => !(names.includes(s.name) && Number.isNaN(s.value)));
  const unmatched = p.some((s) => s.name === r.count)
    ? unmatchedLabels(p, r.count, r.labels, 'metrics.requests.labels')
    : null;
  if (!p.some((s) => s.name === r.count))
    problems.push(
      `no series ${r.count} in this reading: the server's figures are missing; set metrics.requests.preset (or name and unit) to the series the target exposes`,
    );
  else if (unmatched) problems.push(unmatched);
  const buckets = bucketsOf(r, p, r.labels, problems);
  // a label filter that matches nothing matches no route either: its line says so, not one per route
  const routes = routesOf(r, p, unmatched ? [] : problems);
  return {
    requestsCount: sumOf(p, r.count, r.labels),
    requestsSumS: r.sum ? scaled(sumOf(p, r.sum, r.labels), r.toSeconds) : null,
    requestsMaxS: r.max ? scaled(maxOf(p, r.max, r.labels), r.toSeconds) : null,
    ...(buckets !== undefined ? { requestsBuckets: buckets } : {}),
    ...(routes ? { routes } : {}),
    ...(problems.length > 0 ? { problems: [...new Set(problems)] } : {}),
  };
}

/**
 * The histogram of the series under `filter`: undefined where the series has none by convention
 * (Micrometer's timers have buckets only when percentile histograms are on), null where it should
 * have one and the reading has none or a broken one (with the problem).
 */
function bucketsOf(
  r: RequestSeries,
  p: readonly PromSample[],
  filter: Record<string, string>,
  problems: string[],
): HistogramReading | null | undefined {
  if (!r.bucket) return undefined;
  const h = histogramOf(p, r.bucket, filter, r.toMs);
  problems.push(...h.problems);
  if (h.reading || h.problems.length > 0) return h.reading;
  if (r.preset === 'spring') return undefined;
  if (sumOf(p, r.count, filter) === null) return null; // nothing matched: said once, of the count
  problems.push(
    `no series ${r.bucket} beside ${r.count}: server percentiles not computed; expose the request time as a histogram (a summary's quantiles cannot be combined over a window)`,
  );
  return null;
}

function routesOf(r: RequestSeries, p: readonly PromSample[], problems: string[]): Record<string, RouteReading> | null {
  const mapped = Object.entries(r.routes);
  if (mapped.length === 0) return null;
  if (!r.routeLabel) {
    problems.push(
      `metrics.requests.routes is set but the ${r.preset} preset names no route label: set metrics.requests.routeLabel (Spring: uri, OpenTelemetry: http_route)`,
    );
    return null;
  }
  const out: Record<string, RouteReading> = {};
  for (const [name, route] of mapped) {
    const filter = { ...r.labels, [r.routeLabel]: route };
    const count = sumOf(p, r.count, filter);
    if (count === null && p.some((s) => s.name === r.count)) {
      const values = [...new Set(p.filter((s) => s.name === r.count).map((s) => s.labels[r.routeLabel!]))]
        .filter((v): v is string => v !== undefined)
        .sort();
      problems.push(
        `metrics.requests.routes["${name}"] ${seriesId({ [r.routeLabel]: route })} matches no series of ${r.count} (${r.routeLabel} values there: ${
          values.length
            ? values
                .slice(0, 8)
                .map((v) => JSON.stringify(v))
                .join(', ')
            : 'none'
        }): no cross-check for "${name}"; set it to the route as the target labels it`,
      );
    }
    const buckets = count === null ? undefined : bucketsOf(r, p, filter, problems);
    out[name] = {
      count,
      sumS: r.sum ? scaled(sumOf(p, r.sum, filter), r.toSeconds) : null,
      ...(buckets !== undefined ? { buckets } : {}),
    };
  }
  return out;
}

/** A line for each matching sample of the series whose value is not a number (left out of every figure). */
function nonNumeric(p: readonly PromSample[], names: readonly string[], filter: Record<string, string>): string[] {
  const out: string[] = [];
  for (const s of p) {
    if (!names.includes(s.name) || !matches(s.labels, filter)) continue;
    if (s.raw === undefined && !Number.isNaN(s.value)) continue;
    out.push(
      `${s.name}${seriesId(s.labels)} has the value "${s.raw ?? 'NaN'}", not a number: left out of the server's figures; fix the target's exporter`,
    );
  }
  return out;
}

function scaled(v: number | null, by: number): number | null {
  return v === null ? null : v * by;
}
