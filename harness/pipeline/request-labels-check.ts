/**
 * Preflight for metrics.requests.labels and metrics.requests.routes, after the sample arrivals (a
 * target makes a route's series at its first request), where the run will read the series: the
 * target's endpoint, or Prometheus when metrics.prometheus is given (a label such as `job` is
 * Prometheus's, not the endpoint's).
 *
 * A label filter that matches none of the request series' series is refused before any load,
 * naming the values each of its labels has there: every step's cross-check would be empty. A
 * mapped route that matches no series is only said (on the stage's line), naming the route values
 * there: a route whose sample request has not been counted yet (Prometheus has not scraped since,
 * or the target counts it later) may be right; the run warns where it never appears (route-unseen).
 * Nothing is said where the series has no series at all (the series check's refusal, or a
 * Prometheus that has not scraped the target yet).
 */
import type { RequestSeries } from '../../analysis/request-series.ts';
import { EXIT, PlateauError } from '../errors.ts';
import { rawSamples, selector } from '../metrics/promql.ts';
import { matches, seriesId, unmatchedLabels, type PromSample } from '../metrics/prom-text.ts';

/** Refuses a label filter that matches none of the series of the request count `r.count` in `samples`. */
export function checkRequestLabels(r: RequestSeries, samples: readonly PromSample[], where: string): void {
  const unmatched = unmatchedLabels(samples, r.count, r.labels, 'metrics.requests.labels');
  if (unmatched === null) return;
  throw new PlateauError(
    `${where}: ${unmatched.replace(/; set metrics\.requests\.labels to values the target exposes$/, '')}: every step's cross-check would be empty`,
    `set metrics.requests.labels to values ${where.startsWith('Prometheus') ? 'Prometheus holds' : 'the endpoint exposes'} (or remove the filter); the routes are not judged until it matches`,
    'metrics-labels',
    EXIT.preflight,
  );
}

/** "metrics.requests.routes[...] ... matches no series ..." for each mapped route absent from `samples`; null where all are there. */
export function unseenRoutesNote(r: RequestSeries, samples: readonly PromSample[], where: string): string | null {
  const label = r.routeLabel;
  if (!label) return null;
  const mine = samples.filter((s) => s.name === r.count && matches(s.labels, r.labels));
  if (mine.length === 0) return null;
  const values = [...new Set(mine.map((s) => s.labels[label]).filter((v): v is string => v !== undefined))].sort();
  const absent = Object.entries(r.routes).filter(([, route]) => !values.includes(route));
  if (absent.length === 0) return null;
  const there = values.length
    ? values
        .slice(0, 8)
        .map((v) => JSON.stringify(v))
        .join(', ')
    : 'none';
  const each = absent.map(([name, route]) => `metrics.requests.routes["${name}"] ${seriesId({ [label]: route })}`);
  return `${each.join(', ')} ${absent.length === 1 ? 'matches' : 'match'} no series of ${r.count} in ${where} yet (${label} values there: ${there}): set ${absent.length === 1 ? 'it' : 'each'} to the route as the target labels it, unless its sample request is not counted yet (the run warns where a route never appears)`;
}

/**
 * Through Prometheus (metrics.prometheus): the request count's series of the last five minutes,
 * any labels, as samples of the text format; both checks above run on them once Prometheus has
 * scraped every target holding them since the sample arrivals ended (scrapedSince) (`sentAtMs`, epoch ms): before that a filter naming the
 * route the samples called (`uri: '/orders'`) has no series yet. Polled every 500 ms up to
 * `waitMs`; a Prometheus that has not scraped by then is not judged, and the note says so (its
 * scrape interval is checked apart: scrape-check.ts).
 */
export async function checkRequestLabelsInPrometheus(
  prometheusUrl: string,
  r: RequestSeries,
  sentAtMs: number,
  waitMs = 10_000,
): Promise<string | null> {
  const where = `Prometheus at ${prometheusUrl}`;
  for (const giveUpAt = Date.now() + waitMs; ; await new Promise((ok) => setTimeout(ok, 500))) {
    const nowMs = Date.now();
    const series = await rawSamples(prometheusUrl, selector(r.count), nowMs - 300_000, nowMs).catch((err: unknown) => {
      if (err instanceof PlateauError) throw new PlateauError(err.message, err.hint, err.code, EXIT.preflight);
      throw err;
    });
    const read = series.filter((x) => x.samples.length > 0);
    if (read.length > 0 && scrapedSince(read, sentAtMs)) {
      const samples = read.map((x) => ({ name: r.count, labels: x.labels, value: x.samples.at(-1)![1] }));
      checkRequestLabels(r, samples, where);
      return unseenRoutesNote(r, samples, where);
    }
    if (nowMs >= giveUpAt)
      // said, so that a filter refused in one run and not in the next (a scrape inside the wait or not) reads why
      return read.length === 0
        ? null
        : `metrics.requests.labels and routes not checked: Prometheus had not scraped every target holding ${r.count} within ${waitMs / 1000} s of the sample arrivals (its scrape interval is longer); the run warns of a route no step reads`;
  }
}

/**
 * Every scrape target (job and instance) holding the series has been scraped since `sentAtMs`: one
 * of them scraped is not the target that counts the samples (another job's series of the same name
 * made a right filter on the samples' new route read as matching nothing). A target gone from the
 * scrapes holds the check back until its wait ends, unjudged, never refused.
 */
export function scrapedSince(
  read: ReadonlyArray<{ labels: Readonly<Record<string, string>>; samples: ReadonlyArray<readonly [number, number]> }>,
  sentAtMs: number,
): boolean {
  const latest = new Map<string, number>();
  for (const x of read) {
    const key = `${x.labels.job ?? ''}\u0000${x.labels.instance ?? ''}`;
    latest.set(key, Math.max(latest.get(key) ?? -Infinity, x.samples.at(-1)![0]));
  }
  return [...latest.values()].every((t) => t >= sentAtMs);
}
