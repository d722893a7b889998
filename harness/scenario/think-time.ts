/**
 * ctx.sleep's argument, on both engines (the k6 runtime bundles this file): think time in
 * milliseconds, a finite number >= 0, no longer than the transaction's deadline
 * (http.transactionTimeoutMs, which think time counts in) nor than any timer waits. Anything else
 * (a string from ctx.env, NaN, a negative, seconds given as a timestamp) throws the same fix on
 * either engine, so that a transaction's arrival fails (kind other) alike, never sleeping some
 * guess on one engine and failing on the other. Pure.
 */

/**
 * The longest delay a timer takes (a signed 32-bit count of ms): Node fires a longer one after 1 ms
 * and prints a TimeoutOverflowWarning, so ctx.sleep(1e12) had slept 1 ms, warning each time.
 */
export const LONGEST_SLEEP_MS = 2 ** 31 - 1;

/** `deadlineMs`: http.transactionTimeoutMs, where the context has one (a longer sleep can only time its transaction out). */
export function thinkTimeProblem(ms: unknown, deadlineMs?: number): string | null {
  if (typeof ms === 'number' && Number.isFinite(ms) && ms >= 0) {
    if (deadlineMs !== undefined && ms > deadlineMs && deadlineMs < LONGEST_SLEEP_MS)
      return `ctx.sleep(${ms}): give the think time in milliseconds, a number from 0 to ${deadlineMs}: a longer sleep outlasts the transaction's deadline (http.transactionTimeoutMs, think time included; raise it for longer think time)`;
    if (ms > LONGEST_SLEEP_MS)
      return `ctx.sleep(${ms}): give the think time in milliseconds, a number from 0 to ${LONGEST_SLEEP_MS}: no timer waits longer (about 24.8 days)`;
    return null;
  }
  const shown = typeof ms === 'string' ? JSON.stringify(ms) : String(ms);
  return `ctx.sleep(${shown}): give the think time in milliseconds, a number >= 0${typeof ms === 'string' ? ' (convert a setting read as text: Number(...))' : ''}`;
}
