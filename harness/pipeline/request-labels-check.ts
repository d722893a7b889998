/**
 * Preflight for metrics.requests.labels and metrics.requests.routes, after the sample arrivals (a
 * target makes a route's series at its first request), where the run will read the series: the
 * target's endpoint, or Prometheus when metrics.prometheus is given (a label such as `job` is
 * Prometheus's, not the endpoint's).
 *
 * A label filter that cannot match the request series is refused before any load, naming the
 * values each of its labels has there: every step's cross-check would be empty. It cannot where one
 * of its labels is on no series at all (a misspelt name, `job` on the endpoint), or where its labels
 * other than the route label match none (a wrong `job`, `application`: the original finding). A
 * filter that misses only by the route label's value (`uri: '/orders'`), and a mapped route that
 * matches no series, are only said (on the stage's line), naming the route values there: a route
 * whose sample request has not been counted yet (Prometheus has not scraped since, or the target
 * counts it later: a periodic reader exports every 60 s by default, and the direct read waits for
 * none) may be right; the run warns where the filter never matches (labels-unseen) or a route
 * never appears (route-unseen). Nothing is said where the series has no series at all (the series
 * check's refusal, or a Prometheus that has not scraped the target yet). docs/decisions/069.
 */
import type { RequestSeries } from '../../analysis/request-series.ts';
import { EXIT, PlateauError } from '../errors.ts';
import { rawSamples, selector } from '../metrics/promql.ts';
import { matches, seriesId, unmatchedLabels, type PromSample } from '../metrics/prom-text.ts';

/** Both checks below: refuses a filter that cannot match, else the note of a filter or route not seen yet, or null. */
export function checkLabelsAndRoutes(r: RequestSeries, samples: readonly PromSample[], where: string): string | null {
  return checkRequestLabels(r, samples, where) ?? unseenRoutesNote(r, samples, where);
}

/**
 * Refuses a label filter that cannot match the series of the request count `r.count` in
 * `samples`; where it misses by the route label's value alone, the note that says so; else null.
 */
export function checkRequestLabels(r: RequestSeries, samples: readonly PromSample[], where: string): string | null {
  const unmatched = unmatchedLabels(samples, r.count, r.labels, 'metrics.requests.labels');
  if (unmatched === null) return null;
  const later = routeNotCountedNote(r, samples, where);
  if (later !== null) return later;
  throw new PlateauError(
    `${where}: ${unmatched.replace(/; set metrics\.requests\.labels to values the target exposes$/, '')}: every step's cross-check would be empty`,
    `set metrics.requests.labels to values ${where.startsWith('Prometheus') ? 'Prometheus holds' : 'the endpoint exposes'} (or remove the filter); the routes are not judged until it matches`,
    'metrics-labels',
    EXIT.preflight,
  );
}

/**
 * The note of a filter (matching none of the series) that names the route label, every label of
 * it on some series, and its other labels matching some: only the route's value is absent, which
 * the sample arrivals' own series may bring later. Null where the filter cannot match.
 */
function routeNotCountedNote(r: RequestSeries, samples: readonly PromSample[], where: string): string | null {
  const label = r.routeLabel;
  if (label === null || !Object.hasOwn(r.labels, label)) return null;
  const all = samples.filter((s) => s.name === r.count);
  if (Object.keys(r.labels).some((k) => all.every((s) => s.labels[k] === undefined))) return null;
  const others = Object.fromEntries(Object.entries(r.labels).filter(([k]) => k !== label));
  const target = all.filter((s) => matches(s.labels, others));
  if (target.length === 0) return null;
  return `metrics.requests.labels ${seriesId(r.labels)} match no series of ${r.count} in ${where} yet (${label} values there: ${valuesText(target, label)}): set its ${label} to the route as the target labels it, unless its sample request is not counted yet (the run warns where the filter never matches)`;
}

/** "metrics.requests.routes[...] ... matches no series ..." for each mapped route absent from `samples`; null where all are there. */
export function unseenRoutesNote(r: RequestSeries, samples: readonly PromSample[], where: string): string | null {
  const label = r.routeLabel;
  if (!label) return null;
  const mine = samples.filter((s) => s.name === r.count && matches(s.labels, r.labels));
  if (mine.length === 0) return null;
  const absent = Object.entries(r.routes).filter(([, route]) => !mine.some((s) => s.labels[label] === route));
  if (absent.length === 0) return null;
  const each = absent.map(([name, route]) => `metrics.requests.routes["${name}"] ${seriesId({ [label]: route })}`);
  return `${each.join(', ')} ${absent.length === 1 ? 'matches' : 'match'} no series of ${r.count} in ${where} yet (${label} values there: ${valuesText(mine, label)}): set ${absent.length === 1 ? 'it' : 'each'} to the route as the target labels it, unless its sample request is not counted yet (the run warns where a route never appears)`;
}

/** The first 8 values of `label` in `samples`, sorted and quoted, or "none". */
function valuesText(samples: readonly PromSample[], label: string): string {
  const values = [...new Set(samples.map((s) => s.labels[label]).filter((v): v is string => v !== undefined))].sort();
  return values.length
    ? values
        .slice(0, 8)
        .map((v) => JSON.stringify(v))
        .join(', ')
    : 'none';
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
      return checkLabelsAndRoutes(r, samples, where);
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
