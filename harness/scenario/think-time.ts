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
