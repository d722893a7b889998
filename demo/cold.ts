/**
 * The demo's cold start: for its first `coldS` seconds after it starts listening, every hold is
 * `factor` times longer, and steady while slow (a JVM before its JIT has compiled the hot path,
 * caches and pools still filling). A warmup that only asks "is it stable?" passes such a target
 * while it is still slow, and the first steps then measure a target that later gets faster:
 * the case analysis/cold-target.ts detects.
 */
export interface ColdStart {
  /** Seconds after listening during which holds are slower; 0 = never cold. */
  coldS: number;
  /** The hold's multiplier while cold (>= 1). */
  factor: number;
}

export const DEFAULT_COLD_FACTOR = 3;

export function validCold(coldS: number | undefined, factor: number | undefined): ColdStart {
  const c = { coldS: coldS ?? 0, factor: factor ?? DEFAULT_COLD_FACTOR };
  if (!(c.coldS >= 0) || !Number.isFinite(c.coldS))
    throw new RangeError(`coldS must be a finite number of seconds >= 0, got ${coldS}`);
  if (!(c.factor >= 1) || !Number.isFinite(c.factor))
    throw new RangeError(`coldFactor must be a finite number >= 1 (the hold's multiplier while cold), got ${factor}`);
  if (factor !== undefined && coldS === undefined)
    throw new RangeError('coldFactor needs coldS (the seconds the demo stays cold), e.g. coldS 30 with coldFactor 3');
  return c;
}

/** The hold's multiplier at nowMs for a demo listening since listeningAtMs (performance.now() readings). */
export function coldFactorAt(cold: ColdStart, listeningAtMs: number, nowMs: number): number {
  return nowMs - listeningAtMs < cold.coldS * 1000 ? cold.factor : 1;
}
