/**
 * The target's own view of a steady window, from readings of its Prometheus metrics taken at the
 * window's edges, and the cross-check of that view against what the client measured.
 *
 *   server X     = (count_end - count_start) / (t_end - t_start)
 *   server mean  = (sum_end - sum_start) / (count_end - count_start)
 *   consistent  <=> |X_server - X_client| <= 5% of X_client  and
 *                   client mean - RTT - tol <= server mean <= client mean + tol,
 *                   tol = max(0.5 ms, 5% of the server mean)
 *
 * (the RTT subtracted is the fastest round trip to a cheap endpoint: an upper bound of what the
 * path and the HTTP stacks add, since it also holds the server's own handling of that endpoint;
 * so a server mean anywhere between client mean - RTT and client mean agrees)
 *
 * The client's figures are over the server window's span, in whole seconds, and both tolerances
 * are widened by what those seconds cannot match of it (span-match.ts, docs/decisions/067).
 *
 * Requests the client timed out (http.timeoutMs) it abandoned: the server counts such a request
 * when it finishes it, after the window or never. A server short of the client by no more than
 * those, X_server >= (X_client - X_timedOut) x (1 - 5%), reads `client-timeouts`, not missing
 * traffic (docs/decisions/059).
 *
 * A client mean that reads systematically higher than the server's is time spent queueing inside
 * the generator (event loop, connection pool), not in the target. The means are compared only where
 * the server's rests on rules.minTailSamples requests or more (serverMeanReliable): a mean of 3
 * requests, its window's edges up to a second off the client's, shows neither queueing nor other
 * traffic (docs/decisions/061).
 *
 * With histogram buckets in the readings, the window also has the server's p50, p90 and p99 from
 * the bucket deltas (server-histogram.ts). A count, sum or bucket that goes backwards between two
 * readings inside the window (a restart) marks it counterReset: its throughput, mean and
 * percentiles are then null, never a negative figure, and the cross-check does not compare it.
 */
import { fmtCountShare, fmtInt } from './format.ts';
import { DEFAULT_MIN_TAIL_SAMPLES } from './percentiles.ts';
import { histogramDelta, resetInside, serverPercentiles } from './server-histogram.ts';
import { NO_SLACK, type SpanSlack } from './span-match.ts';
import type { CrossCheck, HistogramReading, RouteReading, RttFigures, ServerSample, ServerWindow } from './types.ts';

/** How far (s) a reading may sit from a window edge and still stand for it. */
export const EDGE_TOLERANCE_S = 1.0;
export const THROUGHPUT_TOLERANCE = 0.05;
export const MEAN_TOLERANCE = 0.05;
export const MEAN_TOLERANCE_FLOOR_MS = 0.5;

function nearest(samples: readonly ServerSample[], tS: number): ServerSample | null {
  let best: ServerSample | null = null;
  for (const s of samples)
    if (Math.abs(s.tS - tS) <= EDGE_TOLERANCE_S && (!best || Math.abs(s.tS - tS) < Math.abs(best.tS - tS))) best = s;
  return best;
}

/** The readings that stand for a window's edges (within EDGE_TOLERANCE_S), and those between them; null without both. */
export function windowEdges(
  samples: readonly ServerSample[],
  phase: string,
  fromS: number,
  toS: number,
): { a: ServerSample; b: ServerSample; inside: ServerSample[] } | null {
  const own = samples.filter((s) => s.phase === phase);
  const a = nearest(own, fromS);
  const b = nearest(own, toS);
  if (!a || !b || b.tS <= a.tS) return null;
  return { a, b, inside: own.filter((s) => s.tS >= a.tS && s.tS <= b.tS) };
}

function maxOf(values: (number | null)[]): number | null {
  const xs = values.filter((v): v is number => v !== null);
  return xs.length ? Math.max(...xs) : null;
}

/**
 * How far (s) a window's length may be off: each edge reading stands for a moment within half its
 * own time of its tS, so the length is known within (readMs_a + readMs_b) / 2. Null where neither
 * reading carries its time (runs recorded before it).
 */
function edgeSpreadS(a: ServerSample, b: ServerSample): number | null {
  if (a.readMs === undefined && b.readMs === undefined) return null;
  return ((a.readMs ?? 0) + (b.readMs ?? 0)) / 2000;
}

/**
 * The share two throughputs may differ by and still agree: THROUGHPUT_TOLERANCE, widened by the
 * server window's own uncertainty in its length (edgeSpreadS / its length). A 4 s window whose edge
 * readings took 200 ms each under a busy generator is known to 5% on its own.
 */
export function throughputTolerance(server: Pick<ServerWindow, 'fromS' | 'toS' | 'edgeSpreadS'>): number {
  const lengthS = server.toS - server.fromS;
  const spread = server.edgeSpreadS ?? 0;
  return THROUGHPUT_TOLERANCE + (lengthS > 0 ? spread / lengthS : 0);
}

export function serverWindow(
  samples: readonly ServerSample[],
  phase: string,
  fromS: number,
  toS: number,
): ServerWindow | null {
  const edges = windowEdges(samples, phase, fromS, toS);
  if (!edges) return null;
  const { a, b, inside } = edges;
  const figures = windowFigures(
    inside.map((s) => ({ count: s.requestsCount, sumS: s.requestsSumS, buckets: s.requestsBuckets })),
    b.tS - a.tS,
  );
  const maxS = maxOf(inside.slice(1).map((s) => s.requestsMaxS));
  const problems = requestProblems(inside);
  const spreadS = edgeSpreadS(a, b);
  return {
    source: 'scrape',
    fromS: a.tS,
    toS: b.tS,
    ...(spreadS !== null ? { edgeSpreadS: spreadS } : {}),
    throughputPerSec: figures.throughputPerSec,
    meanMs: figures.meanMs,
    maxMs: maxS === null ? null : maxS * 1000,
    poolActiveMax: maxOf(inside.map((s) => s.poolActive)),
    poolPendingMax: maxOf(inside.map((s) => s.poolPending)),
    poolMax: maxOf(inside.map((s) => s.poolMax)),
    ...poolMean(inside),
    ...(figures.percentiles !== undefined ? { percentiles: figures.percentiles } : {}),
    ...(figures.counterReset ? { counterReset: true } : {}),
    ...(problems.length > 0 ? { problems } : {}),
  };
}

/** The mean of the active gauge and its readings, kept only where the gauge was read (stored runs without it render as before). */
function poolMean(inside: readonly ServerSample[]): Pick<ServerWindow, 'poolActiveMean' | 'poolReadings'> {
  const mean = meanOf(inside.map((s) => s.poolActive));
  return mean === null
    ? {}
    : { poolActiveMean: mean, poolReadings: inside.filter((s) => s.poolActive !== null).length };
}

/**
 * One mapped route's window (metrics.requests.routes): the same figures from the readings' route
 * entries; null without a reading of the route at both edges. The pool figures are the target's,
 * not the route's: null here.
 */
export function routeWindow(
  samples: readonly ServerSample[],
  phase: string,
  fromS: number,
  toS: number,
  name: string,
): ServerWindow | null {
  const edges = windowEdges(samples, phase, fromS, toS);
  if (!edges || !edges.a.routes?.[name] || !edges.b.routes?.[name]) return null;
  const { a, b, inside } = edges;
  const route = (s: ServerSample): RouteReading | undefined => s.routes?.[name];
  const figures = windowFigures(
    inside.map((s) => ({ count: route(s)?.count ?? null, sumS: route(s)?.sumS ?? null, buckets: route(s)?.buckets })),
    b.tS - a.tS,
  );
  // the route's own lines: the series' other lines are the step's window's
  const problems = requestProblems(inside).filter((l) => l.includes(`routes["${name}"]`));
  const spreadS = edgeSpreadS(a, b);
  return {
    source: 'scrape',
    fromS: a.tS,
    toS: b.tS,
    ...(spreadS !== null ? { edgeSpreadS: spreadS } : {}),
    throughputPerSec: figures.throughputPerSec,
    meanMs: figures.meanMs,
    maxMs: null,
    poolActiveMax: null,
    poolPendingMax: null,
    poolMax: null,
    ...(figures.percentiles !== undefined ? { percentiles: figures.percentiles } : {}),
    ...(figures.counterReset ? { counterReset: true } : {}),
    ...(problems.length > 0 ? { problems } : {}),
  };
}

interface Cumulative {
  count: number | null;
  sumS: number | null;
  buckets?: HistogramReading | null;
}

/** Throughput, mean and percentiles between the first and last of `readings` (the window's edges), `seconds` apart. */
function windowFigures(
  readings: readonly Cumulative[],
  seconds: number,
): Pick<ServerWindow, 'throughputPerSec' | 'meanMs' | 'percentiles' | 'counterReset'> {
  const a = readings[0]!;
  const b = readings.at(-1)!;
  const reset =
    backwards(readings.map((r) => r.count)) ||
    backwards(readings.map((r) => r.sumS)) ||
    resetInside(readings.map((r) => r.buckets));
  if (reset) return { throughputPerSec: null, meanMs: null, percentiles: null, counterReset: true };
  const dCount = a.count !== null && b.count !== null ? b.count - a.count : null;
  const dSum = a.sumS !== null && b.sumS !== null ? b.sumS - a.sumS : null;
  // a histogram first seen inside the window was created there by its first request (nothing counted
  // at the start): it counts from zero; one missing at a start that counted requests cannot be told
  const start = a.buckets ?? (a.count ? undefined : null);
  const delta = b.buckets && start !== undefined ? histogramDelta(start, b.buckets) : null;
  return {
    throughputPerSec: dCount === null ? null : dCount / seconds,
    meanMs: dCount && dSum !== null ? (dSum / dCount) * 1000 : null,
    ...(delta ? { percentiles: serverPercentiles(delta) } : {}),
  };
}

/** True when a value is lower than the last value before it (nulls skipped). */
function backwards(xs: readonly (number | null)[]): boolean {
  let prev: number | null = null;
  for (const v of xs) {
    if (v === null) continue;
    if (prev !== null && v < prev) return true;
    prev = v;
  }
  return false;
}

/**
 * The readings' lines about the request series, deduplicated (the downstreams' lines, prefixed
 * "downstream <name>: " by analysis/downstream-window.ts, are theirs to show).
 */
function requestProblems(inside: readonly ServerSample[]): string[] {
  const lines = [...new Set(inside.flatMap((s) => s.problems ?? []).filter((l) => !l.startsWith('downstream ')))];
  // a label filter that matches nothing matches no route either (readings stored before its line alone said so)
  return lines.some((l) => l.startsWith('metrics.requests.labels '))
    ? lines.filter((l) => !l.startsWith('metrics.requests.routes['))
    : lines;
}

/**
 * The requests a window's server figures rest on: its throughput times its length, rounded (the
 * direct readings' throughput is that count over that length, so it is the count; through PromQL,
 * whose replicas' rates each cover a span of their own, it is about the count). Null without a
 * throughput.
 */
export function serverRequests(w: Pick<ServerWindow, 'throughputPerSec' | 'fromS' | 'toS'>): number | null {
  return w.throughputPerSec === null ? null : Math.round(w.throughputPerSec * Math.max(0, w.toS - w.fromS));
}

/**
 * Whether a window's server mean rests on enough requests to stand for the target's time: at least
 * `minTailSamples` of them (rules.minTailSamples, 30 by default), where fewer is shown marked with
 * its count, as a thin percentile is. Why that count: a percentile is trusted with that many
 * samples beyond it, and every request of the window lies "beyond" a mean (each moves it), so a
 * mean needs that many in all; it is the count the warmup's medians need too (cold-target.ts
 * COLD_MIN_WARMUP_SAMPLES), and about where a sample mean starts to read as the mean of its
 * population. A window whose series missed nearly all the traffic (0.3 req/s over 4 s) has a
 * "mean" of one request. False without a count.
 */
export function serverMeanReliable(
  w: Pick<ServerWindow, 'throughputPerSec' | 'fromS' | 'toS'>,
  minTailSamples: number,
): boolean {
  const n = serverRequests(w);
  return n !== null && n > 0 && n >= minTailSamples;
}

/**
 * Why a thin server mean is not judged by, after what it rests on ("the server's mean rests on 3
 * requests"): the count a mean needs and what gives it more, in the words slo.ts gives a thin
 * percentile.
 */
export function tooFewForAMean(minTailSamples: number): string {
  return `fewer than the ${fmtInt(minTailSamples)} a mean needs (rules.minTailSamples): too few to stand for its time per request; hold the steps longer (steps.holdS) or offer higher rates`;
}

/** "1 request", "3 requests". */
export function requestsText(n: number): string {
  return `${fmtInt(n)} ${n === 1 ? 'request' : 'requests'}`;
}

/** The RTT the cross-check subtracts: the fastest HTTP round trip (its median in older runs), 0 unmeasured. */
export function serverRttMs(rtt: Pick<RttFigures, 'httpMinMs' | 'httpMedianMs'> | null | undefined): number {
  return rtt?.httpMinMs ?? rtt?.httpMedianMs ?? 0;
}

/** Failed share above which the means are not compared: the client's mean covers its successes only, the server's every request. */
const MEAN_COMPARE_MAX_ERRORS = 0.01;

/**
 * What the client's figure counts: `arrivals` where each arrival is one request (the figures read
 * "req/s", as they always have), `requests` where arrivals send several (transactions): then the
 * client's figure is every request of every arrival (StepResult.requestsPerSec), as the server
 * counts them, and the words say so.
 */
export type ClientCount = 'arrivals' | 'requests';

/** The requests the client gave up on at its own deadline: their share of those it completed, and the deadline where known. */
export interface ClientTimeouts {
  share: number;
  timeoutMs?: number;
}

/**
 * The client's view of a window against the server's. `clientPerSec` is the requests it completed
 * per second, `clientMeanMs` the mean duration of its successful requests (every request, never a
 * transaction's), `errorRate` the failed share of its requests, `timedOut` those of them it timed
 * out itself. `minTailSamples` is the requests a server mean needs to be compared (serverMeanReliable);
 * the client's mean rests on about as many, since the means are compared only where the throughputs
 * agree and at most 1% of requests failed. `span`: what the client's seconds leave unmatched of
 * the server's span (span-match.ts), widening both tolerances.
 */
export function crossCheck(
  clientPerSec: number,
  clientMeanMs: number | null,
  rttMs: number,
  server: ServerWindow | null,
  errorRate = 0,
  counts: ClientCount = 'arrivals',
  timedOut: ClientTimeouts = { share: 0 },
  minTailSamples: number = DEFAULT_MIN_TAIL_SAMPLES,
  span: SpanSlack = NO_SLACK,
): CrossCheck {
  const base = {
    clientPerSec,
    serverPerSec: server?.throughputPerSec ?? null,
    clientMeanMinusRttMs: clientMeanMs === null ? null : clientMeanMs - rttMs,
    serverMeanMs: server?.meanMs ?? null,
  };
  if (server?.counterReset)
    return {
      ...base,
      verdict: 'no-data',
      detail:
        "the server's counters went backwards inside the window (a restart?): its figures are not compared; keep the target up for the whole run, or rerun",
    };
  if (!server || server.throughputPerSec === null)
    return { ...base, verdict: 'no-data', detail: 'no server reading at the window edges' };
  const sX = server.throughputPerSec;
  const xGap = clientPerSec > 0 ? (sX - clientPerSec) / clientPerSec : 0;
  const over = span.seconds
    ? ` over ${span.seconds.fromS}-${span.seconds.toS} s, the whole seconds of the server's span`
    : '';
  const xText =
    counts === 'requests'
      ? `server counted ${sX.toFixed(1)} requests/s, client ${clientPerSec.toFixed(1)} requests/s (every request of every arrival${over})`
      : `server counted ${sX.toFixed(1)} req/s, client ${clientPerSec.toFixed(1)}${over ? ` (${over.slice(1)})` : ''}`;
  const tolerance = throughputTolerance(server) + span.share;
  const widened = widenedText(tolerance, throughputTolerance(server) > THROUGHPUT_TOLERANCE, span.share > 0);
  if (Math.abs(xGap) > tolerance) {
    if (xGap < 0 && timedOut.share > 0) return shortOfTimedOut(base, xText, widened, tolerance, timedOut);
    return xGap < 0
      ? {
          ...base,
          verdict: 'traffic-missing',
          detail: `${xText}: ${fmtCountShare(-xGap, 1)} of the client's requests never reached the measured series${widened} (a proxy, a cache, another instance, or the wrong label filter)`,
        }
      : {
          ...base,
          verdict: 'traffic-extra',
          detail: `${xText}: the server saw ${(xGap * 100).toFixed(1)}% more traffic than this test sent${widened} (another client, retries, or health checks in the series)`,
        };
  }
  if (base.clientMeanMinusRttMs === null || server.meanMs === null)
    return { ...base, verdict: 'consistent', detail: `${xText}; no latency to compare` };
  if (errorRate > MEAN_COMPARE_MAX_ERRORS) {
    return {
      ...base,
      verdict: 'consistent',
      detail: `${xText}; latency not compared: ${(errorRate * 100).toFixed(1)}% of requests failed, and the client's mean covers its successes only while the server's covers every request`,
    };
  }
  if (!serverMeanReliable(server, minTailSamples))
    return {
      ...base,
      verdict: 'consistent',
      detail: `${xText}; latency not compared: the server's mean rests on ${requestsText(serverRequests(server) ?? 0)}, ${tooFewForAMean(minTailSamples)}`,
    };
  const gapMs = base.clientMeanMinusRttMs - server.meanMs;
  const tolMs = Math.max(MEAN_TOLERANCE_FLOOR_MS, MEAN_TOLERANCE * server.meanMs) + span.meanMs;
  const mText = `client mean ${(base.clientMeanMinusRttMs + rttMs).toFixed(2)} ms (minus RTT ${base.clientMeanMinusRttMs.toFixed(2)}), server mean ${server.meanMs.toFixed(2)} ms`;
  const unit = unitHint(server.meanMs, base.clientMeanMinusRttMs + rttMs);
  if (gapMs > tolMs)
    return {
      ...base,
      verdict: 'client-queueing',
      detail: `${xText}; ${mText}: ${gapMs.toFixed(2)} ms per request is spent in the generator or the network, not in the target${unit}`,
    };
  if (server.meanMs > base.clientMeanMinusRttMs + rttMs + tolMs)
    return {
      ...base,
      verdict: 'traffic-extra',
      detail: `${xText}; ${mText}: the server's series is slower than anything this client saw (other traffic in it?)${unit}`,
    };
  // the gap itself, and the tolerance it is within (a user read the tolerance alone as the gap)
  return {
    ...base,
    verdict: 'consistent',
    detail: `${xText}; ${mText} (${Math.abs(gapMs).toFixed(2)} ms apart, within the ${tolMs.toFixed(2)} ms tolerance${spanMsText(span, tolMs)})`,
  };
}

/** Why a throughput tolerance is wider than THROUGHPUT_TOLERANCE, where it is; empty otherwise. */
function widenedText(tolerance: number, byReadings: boolean, bySpan: boolean): string {
  if (!byReadings && !bySpan) return '';
  const why = [
    ...(byReadings ? ['the time its edge readings took'] : []),
    ...(bySpan ? ["the span's edges the client's whole seconds do not match"] : []),
  ].join(' and ');
  return ` (beyond its ${(tolerance * 100).toFixed(1)}% tolerance, ${(THROUGHPUT_TOLERANCE * 100).toFixed(0)}% widened by ${why})`;
}

/** ", 0.77 ms of it for ..." where the span's slack is a tenth of the mean tolerance or more (less is rounding); empty otherwise. */
function spanMsText(span: SpanSlack, tolMs: number): string {
  return span.meanMs >= 0.1 * tolMs
    ? `, ${span.meanMs.toFixed(2)} ms of it for the span's edges the client's whole seconds do not match`
    : '';
}

/**
 * A server that counted fewer requests than the client, where the client timed some out: those it
 * abandoned need not be in the server's count (finished after the window, or dropped by a target
 * whose client had gone), so only a server short of the others is missing traffic.
 */
function shortOfTimedOut(
  base: Omit<CrossCheck, 'verdict' | 'detail'>,
  xText: string,
  widened: string,
  tolerance: number,
  timedOut: ClientTimeouts,
): CrossCheck {
  const sX = base.serverPerSec!;
  const answeredPerSec = base.clientPerSec * (1 - timedOut.share);
  const deadline =
    timedOut.timeoutMs !== undefined ? `http.timeoutMs, ${fmtInt(timedOut.timeoutMs)} ms` : 'http.timeoutMs';
  const gaveUp = `the client itself gave up on ${fmtCountShare(timedOut.share)} of its requests at its deadline (${deadline})`;
  if (sX < answeredPerSec * (1 - tolerance))
    return {
      ...base,
      verdict: 'traffic-missing',
      detail: `${xText}: ${gaveUp}, and of the others ${fmtCountShare((answeredPerSec - sX) / answeredPerSec, 1)} never reached the measured series${widened} (a proxy, a cache, another instance, or the wrong label filter)`,
    };
  const gap = fmtCountShare((base.clientPerSec - sX) / base.clientPerSec, 1);
  return {
    ...base,
    verdict: 'client-timeouts',
    detail: `${xText}: ${gaveUp}, and the server counts a request when it finishes it, after the window or never (a target may not count one whose client has gone): the ${gap} it did not count lie within those the client abandoned, not traffic that missed the series; the timeouts are the step's failures: if real clients wait longer, raise http.timeoutMs`,
  };
}

/**
 * A server mean about 1,000 x the client's (or 1 / 1,000 of it) is a series read in the wrong
 * unit far more often than a real difference: milliseconds read as seconds, or the reverse. The
 * preflight's unit rule (decision 029) catches it only for means over 10 s; this names it at
 * every size. Within a factor of 2 of 1,000 either way; empty otherwise.
 */
function unitHint(serverMs: number, clientMs: number): string {
  if (!(serverMs > 0 && clientMs > 0)) return '';
  const ratio = serverMs / clientMs;
  if (ratio >= 500 && ratio <= 2000)
    return ` (about ${fmtInt(ratio)} x the client's: a series in milliseconds read as seconds? set metrics.requests.unit: 'milliseconds')`;
  if (ratio >= 1 / 2000 && ratio <= 1 / 500)
    return ` (about 1/${fmtInt(1 / ratio)} of the client's: a series in seconds read as milliseconds? set metrics.requests.unit: 'seconds')`;
  return '';
}

function meanOf(values: (number | null)[]): number | null {
  const xs = values.filter((v): v is number => v !== null);
  return xs.length ? xs.reduce((a, v) => a + v, 0) / xs.length : null;
}
