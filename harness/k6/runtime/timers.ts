/**
 * k6's global timers (setTimeout and clearTimeout as in a browser, global from k6 v0.51); null on
 * an older k6, which has none there. Runs inside k6: no Node API.
 */
export interface Timers {
  setTimeout(f: () => void, ms: number): unknown;
  clearTimeout(id: unknown): void;
}

export function globalTimers(): Timers | null {
  const t = globalThis as unknown as Partial<Timers>;
  return typeof t.setTimeout === 'function' && typeof t.clearTimeout === 'function' ? (t as Timers) : null;
}
