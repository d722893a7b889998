/**
 * The server-side view of one window read from a Prometheus server's HTTP API, for users who
 * already scrape their service with Prometheus: the same ServerWindow as the direct scrape
 * (analysis/server-window.ts), with source 'promql'.
 *
 * How it is computed, and why not with increase()/rate(): Prometheus's increase(X[d]) takes the
 * first and last samples inside the range and then extrapolates their difference towards the
 * range's edges (by up to half a scrape interval beyond the samples, or to where the counter would
 * reach zero), so increase() of an exact integer count comes back fractional and off by up to
 * about one scrape interval's worth of requests. We want the exact figure, so we ask for the raw
 * samples instead: one instant query of the range selector `X{labels}[d]` at time toMs (a range
 * vector answers with the samples as scraped, and from up to the lookback before fromMs for the
 * counters), and compute ourselves, once some series has two samples inside [fromMs, toMs]:
 *
 *   rate(series)     = its reset-aware increase over its own samples / the time they span
 *                      (analysis/counter-rate.ts: its samples inside the window, or its one inside
 *                      and the last before fromMs; a reset counts the value after it, as rate())
 *   throughputPerSec = sum over series of rate(<name>_count)
 *   meanMs           = sum rate(<name>_sum) / sum rate(<name>_count) * 1000
 *                      (in seconds after the unit's factor: envoy's _sum is in ms)
 *   percentiles      = p50, p90, p99 as histogram_quantile takes them (analysis/server-histogram.ts)
 *                      over sum rate(<name>_bucket) per le, times the span read (bounds by the unit to ms)
 *   maxMs            = max of the raw <name>_max samples with t_first < t <= t_last, * 1000
 *                      (a max_over_time; Micrometer's _max is itself a max over ~60 s, so it may
 *                      carry a slow request from shortly before the window, as in the scrape path)
 *   pool*            = max over t in [t_first, t_last] of the sum over series at t (max_over_time
 *                      of sum: several replicas' pools add up at each instant)
 *
 * where t_first, t_last are the first and last count samples of any series inside [fromMs, toMs].
 * Replicas are scraped at instants of their own: each one's increase covers its own span, so the
 * increases are not added and divided by one span (that read 62 req/s for two replicas at 50 each,
 * scraped every 5 s at offsets 1 s and 4 s of a 10 s window: decision 048).
 *
 * A series that first appears inside the window (Micrometer creates a timer at its first request,
 * e.g. the first 503) with no sample in the lookback before fromMs started at 0 at t_first: its
 * first value counts, else its first requests would be lost. fromS and toS report the span the
 * rates were read over (first to last sample used, of any series) on the caller's clock: up to a
 * scrape interval inside the window at each end, or before fromMs where a series borrowed its
 * sample from there.
 *
 * A count that goes backwards inside the window (a restart) marks it counterReset; its deltas are
 * still Prometheus's reset-aware ones (never negative), and the cross-check does not compare it.
 */
import { request } from 'undici';
import { z } from 'zod';
import type { ServerWindow } from '../../analysis/types.ts';
import { serverPercentiles } from '../../analysis/server-histogram.ts';
import { bucketDeltas } from './promql-histogram.ts';
import { sumOfRates } from '../../analysis/counter-rate.ts';
import { EXIT, PlateauError } from '../errors.ts';
import { requestSeriesOf, type RequestSeriesConfig } from '../../analysis/request-series.ts';

export interface PoolSeries {
  active: string;
  pending: string;
  max: string;
  labels?: Record<string, string>;
}

export interface QueryWindowOptions {
  /** Base URL of the Prometheus server, e.g. http://127.0.0.1:9090 */
  prometheusUrl: string;
  /** The request series' config (metrics.requests): a preset, or a name and unit. */
  requests: RequestSeriesConfig;
  pool?: PoolSeries;
  /** The window, epoch milliseconds (Prometheus's clock is the wall clock). */
  fromMs: number;
  toMs: number;
  /** Epoch ms of the caller's t = 0: fromS/toS are seconds since it (default 0: epoch seconds). */
  t0EpochMs?: number;
  /** How far before fromMs to look for a series' earlier sample (default 300 s, Prometheus's staleness). */
  lookbackMs?: number;
  /** Per HTTP request (default 5000 ms). */
  timeoutMs?: number;
  /** The config fields to check where Prometheus holds nothing of the series (default the request series'). */
  fields?: string;
}

/** One series' raw samples: [epoch ms, value], ascending. */
export interface RawSeries {
  labels: Record<string, string>;
  samples: Array<[number, number]>;
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

const matrixAnswer = z.object({
  status: z.literal('success'),
  data: z.object({
    resultType: z.literal('matrix'),
    result: z.array(
      z.object({ metric: z.record(z.string(), z.string()), values: z.array(z.tuple([z.number(), z.string()])) }),
    ),
  }),
});

/** `name{k="v",...}` with PromQL string escapes; throws PlateauError on a name PromQL cannot take. */
export function selector(name: string, labels: Record<string, string> = {}): string {
  if (!METRIC_NAME.test(name)) throw badSeries(`metric name "${name}"`);
  const pairs = Object.entries(labels).map(([k, v]) => {
    if (!LABEL_NAME.test(k)) throw badSeries(`label name "${k}"`);
    return `${k}="${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
  });
  return `${name}{${pairs.join(',')}}`;
}

function badSeries(what: string): PlateauError {
  return new PlateauError(
    `${what} is not valid in PromQL`,
    'use the series name exactly as Prometheus stores it (letters, digits, _ and :)',
    'promql-series',
    EXIT.usage,
  );
}

/** Raw samples of `sel` with timestamps in [fromMs, toMs] (an instant query of a range selector). */
export async function rawSamples(
  prometheusUrl: string,
  sel: string,
  fromMs: number,
  toMs: number,
  timeoutMs = 5000,
): Promise<RawSeries[]> {
  const rangeMs = Math.max(1, Math.ceil(toMs - fromMs));
  const url = new URL('/api/v1/query', prometheusUrl);
  url.searchParams.set('query', `${sel}[${rangeMs}ms]`);
  url.searchParams.set('time', (toMs / 1000).toFixed(3));
  let status: number;
  let text: string;
  try {
    const res = await request(url, { headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
    status = res.statusCode;
    text = await res.body.text();
  } catch (err) {
    throw new PlateauError(
      `Prometheus at ${prometheusUrl} did not answer: ${(err as Error).message}`,
      'check the Prometheus URL (metrics.prometheus.url) and that the server is up',
      'promql-unreachable',
      EXIT.stage,
    );
  }
  const json = safeJson(text) as { status?: unknown; error?: unknown } | null;
  const parsed = status === 200 ? matrixAnswer.safeParse(json) : null;
  if (!parsed?.success) {
    // Prometheus's own refusal is JSON with status "error"; anything else is not its HTTP API
    if (json !== null && typeof json === 'object' && json.status === 'error')
      throw new PlateauError(
        `Prometheus at ${prometheusUrl} refused the query ${sel} (HTTP ${status}): ${oneLine(String(json.error ?? ''), 200)}`,
        'check the series name and labels in the config',
        'promql-query',
        EXIT.stage,
      );
    throw new PlateauError(
      `${prometheusUrl} answered a PromQL query with HTTP ${status} and ${json === null ? 'no JSON' : 'JSON of another shape'} (it begins "${oneLine(text, 60)}"): it is not a Prometheus HTTP API`,
      'set metrics.prometheus.url to the Prometheus server itself (its port, 9090 by default), not to an exporter or the target',
      'promql-query',
      EXIT.stage,
    );
  }
  return parsed.data.data.result.map((r) => ({
    labels: r.metric,
    samples: r.values
      .map(([tS, v]): [number, number] => [Math.round(tS * 1000), Number(v)])
      .filter(([t]) => t >= fromMs && t <= toMs),
  }));
}

/** Text on one line, whitespace runs as one space, cut to `max` characters. */
function oneLine(text: string, max: number): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max)}...` : t;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** A query that failed (Prometheus gone since preflight, a timeout): its error and fix as a window's problem line. */
export function problemOf(err: unknown): string {
  const e = err as Error & { hint?: string };
  return `${e.message}${e.hint ? `: ${e.hint}` : ''}`;
}

export async function queryWindow(o: QueryWindowOptions): Promise<ServerWindow> {
  const lookbackMs = o.lookbackMs ?? 300_000;
  const get = (name: string, labels?: Record<string, string>, fromMs = o.fromMs): Promise<RawSeries[]> =>
    rawSamples(o.prometheusUrl, selector(name, labels), fromMs, o.toMs, o.timeoutMs);
  const r = requestSeriesOf(o.requests);
  const [count, sum, max, bucket, active, pending, poolMax] = await Promise.all([
    get(r.count, r.labels, o.fromMs - lookbackMs),
    r.sum ? get(r.sum, r.labels, o.fromMs - lookbackMs) : [],
    r.max ? get(r.max, r.labels) : [],
    r.bucket ? get(r.bucket, r.labels, o.fromMs - lookbackMs) : [],
    o.pool ? get(o.pool.active, o.pool.labels) : null,
    o.pool ? get(o.pool.pending, o.pool.labels) : null,
    o.pool ? get(o.pool.max, o.pool.labels) : null,
  ]);
  const w = windowFromSamples(
    { count, sum, max, bucket, active, pending, poolMax, toSeconds: r.toSeconds, toMs: r.toMs },
    o.fromMs,
    o.toMs,
    o.t0EpochMs ?? 0,
  );
  const most = mostInWindow(count, o.fromMs, o.toMs);
  const problems = [
    ...(most < 2
      ? [
          tooFewSamplesText(
            selector(r.count, r.labels),
            count,
            most,
            o.fromMs,
            o.toMs,
            o.fields ?? 'metrics.requests (preset, name, labels)',
          ),
        ]
      : []),
    ...(w.problems ?? []),
    ...(count.length > 0 && r.bucket && r.preset !== 'spring' && bucket.length === 0
      ? [
          `Prometheus holds no samples of ${r.bucket}: server percentiles not computed; expose the request time as a histogram`,
        ]
      : []),
  ];
  return problems.length > 0 ? { ...w, problems } : w;
}

export interface WindowSamples {
  /** With samples from up to the lookback before fromMs (to tell a series born in the window). */
  count: RawSeries[];
  sum: RawSeries[];
  max: RawSeries[];
  /** The histogram's _bucket series (each with its `le` label), with the lookback as count's. */
  bucket?: RawSeries[];
  /** The unit's factors (analysis/request-series.ts): _sum to seconds, a bucket bound to ms (default seconds: 1, 1000). */
  toSeconds?: number;
  toMs?: number;
  active: RawSeries[] | null;
  pending: RawSeries[] | null;
  poolMax: RawSeries[] | null;
}

/**
 * The most samples inside [fromMs, toMs] of any one series (0 when none has one there): a rate
 * needs two of a series. Several replicas scraped at staggered offsets, one sample each, give
 * distinct times across series but no delta of any one of them.
 */
export function mostInWindow(series: readonly RawSeries[], fromMs: number, toMs: number): number {
  return Math.max(0, ...series.map((x) => x.samples.filter(([t]) => t >= fromMs && t <= toMs).length));
}

/** The median gap (ms) between one series' consecutive samples, over every series; null with fewer than two. */
export function scrapeIntervalMs(series: readonly RawSeries[]): number | null {
  const gaps = series.flatMap((x) => x.samples.slice(1).map(([t], i) => t - x.samples[i]![0]));
  if (gaps.length === 0) return null;
  gaps.sort((a, b) => a - b);
  return gaps[Math.floor(gaps.length / 2)]!;
}

/**
 * Why a series Prometheus holds gave no figure in a window: fewer than two of its samples fall
 * inside it (a scrape interval as long as the window, Prometheus's default 15 s against a 5 s
 * steady window), or none of it at all (a name or label that matches nothing). `inWindow`: its
 * sample times inside the window; `what`: the config fields to check ("metrics.requests (preset, name, labels)").
 */
export function tooFewSamplesText(
  name: string,
  series: readonly RawSeries[],
  inWindow: number,
  fromMs: number,
  toMs: number,
  what: string,
): string {
  const lengthS = (toMs - fromMs) / 1000;
  if (series.some((x) => x.samples.length > 0)) {
    const every = scrapeIntervalMs(series);
    const lastMs = Math.max(...series.flatMap((x) => x.samples.map(([t]) => t)));
    // scraped often enough for a rate here, yet its samples end early: the scrapes stopped, and
    // a shorter scrape_interval or a longer hold (the advice below) would not bring them back
    if (every !== null && 2 * every <= toMs - fromMs && lastMs < toMs - 2 * every)
      return `Prometheus's samples of ${name} stop ${((toMs - lastMs) / 1000).toFixed(1)} s before the end of the ${lengthS.toFixed(1)} s steady window (${inWindow} inside it), though it scraped it every ${(every / 1000).toFixed(1)} s: its scrapes stopped (the exporter or target that exports it went away or stopped answering: its up series in Prometheus reads 0 from then); keep it up for the whole run`;
    return `Prometheus holds ${inWindow} sample${inWindow === 1 ? '' : 's'} of ${name} inside the ${lengthS.toFixed(1)} s steady window${every === null ? '' : ` (it scraped it every ${(every / 1000).toFixed(1)} s)`}: a rate needs two; scrape the target at least every ${(lengthS / 2).toFixed(1)} s (scrape_interval) or lengthen the hold`;
  }
  return `Prometheus holds no samples of ${name} in the window: check ${what} and that Prometheus scrapes the endpoint that exports it`;
}

/** A window through PromQL over [fromS, toS] that read nothing. */
export function emptyWindow(fromS: number, toS: number): ServerWindow {
  return {
    source: 'promql',
    fromS,
    toS,
    throughputPerSec: null,
    meanMs: null,
    maxMs: null,
    poolActiveMax: null,
    poolPendingMax: null,
    poolMax: null,
  };
}

/** The pure part of queryWindow: the formulas of this file's comment over raw samples. */
export function windowFromSamples(s: WindowSamples, fromMs: number, toMs: number, t0EpochMs: number): ServerWindow {
  const inside = (series: RawSeries[]) =>
    series.map((x) => ({ ...x, samples: x.samples.filter(([t]) => t >= fromMs && t <= toMs) }));
  const countIn = inside(s.count);
  const times = countIn.flatMap((x) => x.samples.map(([t]) => t));
  const empty = emptyWindow((fromMs - t0EpochMs) / 1000, (toMs - t0EpochMs) / 1000);
  // fewer than two samples of some series inside the window: no delta of it to read (queryWindow says why)
  if (times.length === 0 || mostInWindow(s.count, fromMs, toMs) < 2)
    return { ...empty, ...poolFigures(s, fromMs, toMs) };
  const tFirst = Math.min(...times);
  const tLast = Math.max(...times);
  const count = sumOfRates(s.count, fromMs, toMs, tFirst);
  if (count === null) return { ...empty, ...poolFigures(s, fromMs, toMs) };
  const sum = sumOfRates(s.sum, fromMs, toMs, tFirst);
  const sumSPerSec = (sum?.ratePerSec ?? 0) * (s.toSeconds ?? 1);
  const span = { fromMs, toMs, firstMs: tFirst, spanS: (count.lastMs - count.firstMs) / 1000 };
  const maxS = maxAt(s.max, (t) => t > tFirst && t <= tLast);
  const hist = s.bucket && s.bucket.length > 0 ? bucketDeltas(s.bucket, span, s.toMs ?? 1000) : null;
  const reset = count.reset || sum?.reset || hist?.reset;
  return {
    ...empty,
    fromS: (count.firstMs - t0EpochMs) / 1000,
    toS: (count.lastMs - t0EpochMs) / 1000,
    throughputPerSec: count.ratePerSec,
    meanMs: count.ratePerSec > 0 ? (sumSPerSec / count.ratePerSec) * 1000 : null,
    maxMs: maxS === null ? null : maxS * (s.toSeconds ?? 1) * 1000,
    ...poolFigures(s, tFirst, tLast),
    ...(hist?.delta ? { percentiles: serverPercentiles(hist.delta) } : {}),
    ...(reset ? { counterReset: true } : {}),
    ...(hist?.problem ? { problems: [hist.problem] } : {}),
  };
}

/** max over samples passing `keep`, over every series (null when none). */
function maxAt(series: RawSeries[], keep: (tMs: number) => boolean): number | null {
  let best: number | null = null;
  for (const x of series) for (const [t, v] of x.samples) if (keep(t) && (best === null || v > best)) best = v;
  return best;
}

/** The sum over series at each sample time in [fromMs, toMs] (null without series). */
function sumsAt(series: RawSeries[] | null, fromMs: number, toMs: number): number[] | null {
  if (!series) return null;
  const sums = new Map<number, number>();
  for (const x of series)
    for (const [t, v] of x.samples) if (t >= fromMs && t <= toMs) sums.set(t, (sums.get(t) ?? 0) + v);
  return [...sums.values()];
}

/** max over time in [fromMs, toMs] of the sum over series at each sample time (null without series). */
function maxOfSums(series: RawSeries[] | null, fromMs: number, toMs: number): number | null {
  const sums = sumsAt(series, fromMs, toMs);
  return sums?.length ? Math.max(...sums) : null;
}

/** The mean over sample times in [fromMs, toMs] of the sum over series (null without samples). */
function meanOfSums(series: RawSeries[] | null, fromMs: number, toMs: number): number | null {
  const sums = sumsAt(series, fromMs, toMs);
  return sums?.length ? sums.reduce((a, v) => a + v, 0) / sums.length : null;
}

/** Kept only where the gauge was read, as analysis/server-window.ts does: its mean and the sample times it is of. */
function activeMean(mean: number | null, readings: number): Pick<ServerWindow, 'poolActiveMean' | 'poolReadings'> {
  return mean === null ? {} : { poolActiveMean: mean, poolReadings: readings };
}

function poolFigures(
  s: WindowSamples,
  fromMs: number,
  toMs: number,
): Pick<ServerWindow, 'poolActiveMax' | 'poolActiveMean' | 'poolReadings' | 'poolPendingMax' | 'poolMax'> {
  return {
    poolActiveMax: maxOfSums(s.active, fromMs, toMs),
    ...activeMean(meanOfSums(s.active, fromMs, toMs), sumsAt(s.active, fromMs, toMs)?.length ?? 0),
    poolPendingMax: maxOfSums(s.pending, fromMs, toMs),
    poolMax: maxOfSums(s.poolMax, fromMs, toMs),
  };
}
