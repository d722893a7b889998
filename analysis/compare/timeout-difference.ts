/**
 * The request and transaction deadlines of two runs (http.timeoutMs, http.transactionTimeoutMs):
 * what a run counts as a failure (kind timeout), so a lower one can turn a queue that held into
 * failed steps. An audit's gate passed 10,000 against 400 ms (every request of the 400 ms run's
 * step 6 timed out) naming only the generator's threads. Pure.
 */
import type { RunResult } from '../types.ts';

/** The deadlines that differ, in words ("http.timeoutMs 10000 vs 400"), and the judged steps' timeouts of each run; null when they agree or either is unknown. */
export function timeoutDifference(
  a: Pick<RunResult, 'http' | 'steps' | 'traffic'>,
  b: Pick<RunResult, 'http' | 'steps' | 'traffic'>,
  /** How each pair of values is said: "10000 vs 400" by default. */
  pair: (x: number, y: number) => string = (x, y) => `${x} vs ${y}`,
): { which: string; timedOut: [number, number] } | null {
  if (!a.http || !b.http) return null;
  // a transaction's deadline bounds only transactions: none in either mix, it decides nothing
  const transactions = [a, b].some((r) => r.traffic?.entries.some((e) => e.transaction));
  const keys = (['timeoutMs', ...(transactions ? (['transactionTimeoutMs'] as const) : [])] as const).filter(
    (k) => a.http![k] !== b.http![k],
  );
  if (keys.length === 0) return null;
  return {
    which: keys.map((k) => `http.${k} ${pair(a.http![k], b.http![k])}`).join(', '),
    timedOut: [timeouts(a), timeouts(b)],
  };
}

/** Requests or arrivals that failed as timeouts in the run's steady windows. */
function timeouts(r: Pick<RunResult, 'steps'>): number {
  return r.steps.reduce((n, s) => n + (s.errors.timeout ?? 0), 0);
}

/** What the difference does: the failures it decided, where either run had any. */
export function timeoutDifferenceWhy(d: { timedOut: [number, number] }, labels: readonly [string, string]): string {
  const [x, y] = d.timedOut;
  return x + y === 0
    ? 'no request timed out in either run, so it decided no failure here; a slower target would fail at other latencies'
    : `a request slower than its deadline fails (kind timeout), and these runs had ${x} and ${y} in their judged steps (${labels[0]}, ${labels[1]}): they count other requests as failed; compare runs of one timeout`;
}
