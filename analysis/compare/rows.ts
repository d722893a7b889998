/**
 * Two runs' steps paired at equal offered rates: the one pairing compare's table, its --json
 * document and the per-name comparison (compare and gate) all read. Pure.
 */
import type { RunResult, StepResult } from '../types.ts';

export interface CompareRow {
  ratePerSec: number;
  /** null: the run did not offer this rate (or none of its attempts at it covered a steady second). */
  a: StepResult | null;
  b: StepResult | null;
}

/** The last attempt at each rate (a confirmation rerun replaces the first attempt), by rate. */
function byRate(run: RunResult): Map<number, StepResult> {
  const m = new Map<number, StepResult>();
  for (const s of run.steps) if (s.steadyS > 0) m.set(s.ratePerSec, s);
  return m;
}

/** One row per rate either run offered, lowest first. */
export function compareRows(a: RunResult, b: RunResult): CompareRow[] {
  const ma = byRate(a),
    mb = byRate(b);
  const rates = [...new Set([...ma.keys(), ...mb.keys()])].sort((x, y) => x - y);
  return rates.map((ratePerSec) => ({ ratePerSec, a: ma.get(ratePerSec) ?? null, b: mb.get(ratePerSec) ?? null }));
}
