/**
 * Why a regressed run's capacity is what it is, for the gate's headline: its stop reason and the
 * first clause of its stop detail ("plateau: step 4 (400 req/s) delivered 0.78 < 0.90 (310.0 req/s
 * achieved)"), and the baseline's reason where it stopped for another. A CI log shows the headline
 * alone (JUnit's failure message): a lower capacity read without its stop is taken for the
 * service's. The stops that establish no capacity (interrupted before its limit, generator-bound,
 * an error...) never reach a regression: the gate cannot judge them (judgeable.ts).
 */
import type { RunResult } from '../types.ts';

/**
 * A stop detail's first clause: up to its first ": " or "; " outside parentheses, where the detail
 * turns from what failed to what it means and what to do ("step 4 (400 req/s, attempt 2, which
 * confirmed it) delivered 0.78 < 0.90 (310.0 req/s achieved)"). The whole detail where it has none.
 */
export function stopHead(detail: string): string {
  let depth = 0;
  for (let i = 0; i < detail.length - 1; i++) {
    const c = detail[i];
    if (c === '(') depth++;
    else if (c === ')') depth = Math.max(0, depth - 1);
    else if (depth === 0 && (c === ':' || c === ';') && detail[i + 1] === ' ') return detail.slice(0, i);
  }
  return detail;
}

type Stopped = Pick<RunResult, 'stopReason' | 'stopDetail'>;

/**
 * "; this run stopped (plateau): step 4 ...", and "; the baseline stopped (max-rate-reached)" where
 * its reason differs: the reason alone, the baseline's figure being the headline's already.
 */
export function stopClause(run: Stopped, baseline: Stopped): string {
  const head = stopHead(run.stopDetail).trim();
  const other = baseline.stopReason === run.stopReason ? '' : `; the baseline stopped (${baseline.stopReason})`;
  return `; this run stopped (${run.stopReason})${head === '' ? '' : `: ${head}`}${other}`;
}
