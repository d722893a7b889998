/**
 * Is the target's tail low in a failed (or held) step, against the first step that held? Read by
 * the server's mean where both steps' rest on enough requests (decision 061), else by the client's
 * p99 minus the RTT:
 *
 *   low <=> tail <= tailFactor x baseline tail
 *
 * Timeouts from 1% of the completions stand for the tail (they waited past any percentile), and
 * a generator at its own CPU ceiling has a client tail that is its own queue, never the target's
 * (decision 087). Whose limit the step was is verdicts.ts's question.
 */
import { fmtInt, fmtPercent } from './format.ts';
import { requestsText, serverMeanReliable, serverRequests, tooFewForAMean } from './server-mean.ts';
import type { StepResult } from './types.ts';

function p99(s: StepResult): number | null {
  return s.latency.find((p) => p.q === 99)?.valueMs ?? null;
}

/** The share of a step's completions that timed out from which its p99 is a timeout's. */
export const TIMEOUTS_IN_TAIL = 0.01;

/**
 * The tail's reading: `grew: false` where something other than a p99 stood for it (timeouts, no
 * success), `unread` where the client's p99 could not be the target's (a saturated generator).
 */
export interface TailReading {
  low: boolean;
  text: string;
  grew?: false;
  unread?: true;
}

/**
 * Is the target's tail low in step s, relative to the baseline step? `saturated`: the generator
 * was at its CPU ceiling (generatorSaturated), so the client's times, its timeouts included, hold
 * its own queue and only the server's figures can show the target's tail.
 */
export function tailLow(
  s: StepResult,
  baseline: StepResult,
  rttMs: number,
  factor: number,
  minTailSamples: number,
  saturated: string | null,
): TailReading {
  // timed out: those requests waited a whole timeout, past any percentile of the successes (a
  // user's hung confirm read 'tail stayed low', the step generator-bound): from 1% of them the p99 is
  const timedOut = s.errors.timeout ?? 0;
  if (saturated === null && s.completed > 0 && timedOut / s.completed >= TIMEOUTS_IN_TAIL)
    return {
      low: false,
      text: `${fmtInt(timedOut)} of its ${fmtInt(s.completed)} completions timed out (${fmtPercent(timedOut / s.completed)}): its tail is the timeout, not the p99 of its successes`,
      grew: false,
    };
  if (s.server?.meanMs != null && baseline.server?.meanMs != null) {
    const thin = thinMeans(s, baseline, minTailSamples);
    if (thin === null) {
      const low = s.server.meanMs <= factor * Math.max(baseline.server.meanMs, 0.1);
      return {
        low,
        text: `server mean ${s.server.meanMs.toFixed(2)} ms vs ${baseline.server.meanMs.toFixed(2)} ms at step ${baseline.index + 1}`,
      };
    }
    // a thin mean is no mean (decision 061): judged as a run without the server's figures is, and said
    const client = clientTailLow(s, baseline, rttMs, factor, saturated);
    return client.grew === false ? client : { ...client, text: `${client.text}; ${thin}` };
  }
  return clientTailLow(s, baseline, rttMs, factor, saturated);
}

/**
 * Why the server's means of s and its baseline are not judged by, where either rests on fewer
 * requests than a mean needs (server.ts serverMeanReliable): "the server's mean is too thin to
 * judge by: it rests on 3 requests at step 5, fewer than ..."; null where both rest on enough.
 */
function thinMeans(s: StepResult, baseline: StepResult, minTailSamples: number): string | null {
  const thin = [s, baseline].filter((x) => x.server && !serverMeanReliable(x.server, minTailSamples));
  if (thin.length === 0) return null;
  const at = thin.map((x) => `${requestsText(serverRequests(x.server!) ?? 0)} at step ${x.index + 1}`).join(' and ');
  return `the server's mean is too thin to judge by: it rests on ${at}, ${tooFewForAMean(minTailSamples)}`;
}

/**
 * The tail by the client's p99 minus the RTT, against the baseline's. A saturated generator's
 * p99 that grew is unread, not the target's: a generator on one thread against nginx (worker 60%
 * of a core) read p99 - RTT 375 ms against 2.1 ms at 100% busy, "the target is the limit", and
 * its ceiling was printed as the target's capacity with a collapse.
 */
function clientTailLow(
  s: StepResult,
  baseline: StepResult,
  rttMs: number,
  factor: number,
  saturated: string | null,
): TailReading {
  const a = p99(s);
  const b = p99(baseline);
  // no success at all in s (every request failed or timed out): the target failed them, whatever a tail would say
  if (a === null && b !== null)
    return { low: false, text: 'none of its requests succeeded: every one failed or timed out', grew: false };
  if (a === null || b === null) return { low: false, text: 'no latency to judge the tail' };
  const tail = a - rttMs;
  const base = Math.max(b - rttMs, 0.1);
  const text = `p99 - RTT ${tail.toFixed(1)} ms vs ${base.toFixed(1)} ms at step ${baseline.index + 1}`;
  const low = tail <= factor * base;
  if (low || saturated === null) return { low, text };
  return {
    low: true,
    unread: true,
    text: `the client's tail (${text}) cannot show the target's: the generator was saturated (${saturated}), so its own queue is in every request's time`,
  };
}
