/**
 * The cross-check of the client's view of a steady window against the target's own (its figures
 * from the readings at the window's edges: server-window.ts, or PromQL's):
 *
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
 * the server's rests on rules.minTailSamples requests or more (serverMeanReliable, server-mean.ts):
 * a mean of 3 requests, its window's edges up to a second off the client's, shows neither queueing
 * nor other traffic (docs/decisions/061). A window whose counters went backwards (counterReset) is
 * not compared.
 */
import { fmtCountShare, fmtInt } from './format.ts';
import { DEFAULT_MIN_TAIL_SAMPLES } from './percentiles.ts';
import { requestsText, serverMeanReliable, serverRequests, tooFewForAMean } from './server-mean.ts';
import { NO_SLACK, type SpanSlack } from './span-match.ts';
import type { CrossCheck, RttFigures, ServerWindow } from './types.ts';

export const THROUGHPUT_TOLERANCE = 0.05;
export const MEAN_TOLERANCE = 0.05;
export const MEAN_TOLERANCE_FLOOR_MS = 0.5;

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
