/**
 * ctx.sleep's argument, on both engines (the k6 runtime bundles this file): think time in
 * milliseconds, a finite number >= 0. Anything else (a string from ctx.env, NaN, a negative) throws
 * the same fix on either engine, so that a transaction's arrival fails (kind other) alike, never
 * sleeping some guess on one engine and failing on the other. Pure.
 */
export function thinkTimeProblem(ms: unknown): string | null {
  if (typeof ms === 'number' && Number.isFinite(ms) && ms >= 0) return null;
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
  return `give ctx.sleep a finite number of milliseconds (${ms} comes of a division by 0 or an overflow)`;
}
