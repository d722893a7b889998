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

/**
 * The fix of a think time thinkTimeProblem refused, by what it was (preflight's fix line; the load
 * keeps the message alone): where such a value comes from, and how to make it a number of ms.
 */
export function thinkTimeFix(ms: unknown): string {
  if (typeof ms === 'string')
    return `convert the think time read as text to a number: ctx.sleep(Number(${JSON.stringify(ms)}))`;
  if (typeof ms !== 'number')
    return `give ctx.sleep the think time in milliseconds, a number >= 0 (it was given ${ms === null ? 'null' : typeof ms === 'object' ? 'an object' : String(ms)})`;
  if (Number.isNaN(ms))
    return 'compute the think time from numbers: NaN comes of arithmetic on something that is not one (a missing setting or field, text); give ctx.sleep milliseconds >= 0';
  if (ms < 0)
    return `give ctx.sleep milliseconds >= 0: a think time computed below 0 (${ms}) can be clamped, Math.max(0, ms)`;
  if (Number.isFinite(ms))
    return "give the think time in milliseconds (a value in seconds x 1000, not a timestamp), within the transaction's deadline: raise http.transactionTimeoutMs for longer think time";
  return `give ctx.sleep a finite number of milliseconds (${ms} comes of a division by 0 or an overflow)`;
}
