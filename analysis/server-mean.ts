/**
 * How many requests a server window's figures rest on, and whether its mean rests on enough to
 * stand for the target's time (rules.minTailSamples, docs/decisions/061), with the words that say
 * so. Apart from the cross-check (cross-check.ts): the verdicts (verdicts.ts) and the report's
 * server latency (reports/server-latency.ts) judge a thin mean by the same count.
 */
import { fmtInt } from './format.ts';
import type { ServerWindow } from './types.ts';

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
