/**
 * k6 checks that failed on responses an imported run counts as successes. k6's check() fails no
 * request and its output ties no check to a request, so a response a check rejected stays a
 * success in delivery and capacity (decision 101): a service answering 200 with an error body
 * under load read as holding, silently. A check that failed on a failed request (a 503 failing
 * "status is 200") is no news: a window is told only where its failed checks outnumber what its
 * failed requests explain, each failed request explaining as many checks as a request had on
 * average (at least one). The report warns of them (harness/report.ts), under the capacity where
 * the step it is read from had them.
 */
import type { StepPlan } from '../../../analysis/types.ts';
import type { CheckTally } from '../output/ingest-stats.ts';
import type { StepChecks } from '../../../reports/k6-checks-text.ts';

/**
 * Failed checks beyond those explained, as a share of a window's checks, that a window must exceed
 * to be told: a check is stamped a moment after its request, so at a window's edges a few fall in
 * another window than their requests.
 */
const UNEXPLAINED_MIN_SHARE = 0.01;

/** The steps whose steady windows had failed checks their failed requests do not explain; [] when none. */
export function unexplainedChecks(t: CheckTally, steps: readonly StepPlan[]): StepChecks[] {
  const out: StepChecks[] = [];
  for (const s of steps) {
    const w = (xs: readonly number[]) => sum(xs, s.steadyStartS, s.steadyEndS);
    const c: StepChecks = {
      step: s.index,
      checks: w(t.checks),
      checksFailed: w(t.checksFailed),
      requests: w(t.requests),
      requestsFailed: w(t.requestsFailed),
    };
    const perRequest = c.requests > 0 ? Math.max(1, c.checks / c.requests) : 1;
    const unexplained = c.checksFailed - c.requestsFailed * perRequest;
    if (unexplained > 0 && unexplained > UNEXPLAINED_MIN_SHARE * c.checks) out.push(c);
  }
  return out;
}

function sum(xs: readonly number[], from: number, to: number): number {
  let n = 0;
  for (let i = Math.max(0, from); i < Math.min(to, xs.length); i++) n += xs[i];
  return n;
}
