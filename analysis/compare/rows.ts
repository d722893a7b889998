/**
 * Two runs' steps paired at equal offered rates: the one pairing compare's table, its --json
 * document and the per-name comparison (compare and gate) all read. Pure.
 */
import type { RunResult, StepResult } from '../types.ts';
import { GRID_TOLERANCE, stepSizePerSec } from './differences.ts';

export interface CompareRow {
  ratePerSec: number;
  /** null: the run did not offer this rate (or none of its attempts at it covered a steady second). */
  a: StepResult | null;
  b: StepResult | null;
}

/** The last attempt at each rate (a confirmation rerun replaces the first attempt), by rate (`keyOf`'s). */
function byRate(run: RunResult, keyOf: (rate: number) => number): Map<number, StepResult> {
  const m = new Map<number, StepResult>();
  for (const s of run.steps) if (s.steadyS > 0) m.set(keyOf(s.ratePerSec), s);
  return m;
}

/**
 * One row per rate either run offered, lowest first. Rates within GRID_TOLERANCE of a step are one
 * (an instance's share rounded to 0.001, a merge's sum of them: 50.001 is the 50 of the other run).
 */
export function compareRows(a: RunResult, b: RunResult): CompareRow[] {
  const steps = [stepSizePerSec(a), stepSizePerSec(b)].filter((s) => s > 0);
  const near = steps.length ? GRID_TOLERANCE * Math.min(...steps) : 0;
  const keys: number[] = [];
  const keyOf = (rate: number) => {
    const k = keys.find((x) => Math.abs(x - rate) <= near);
    if (k !== undefined) return k;
    keys.push(rate);
    return rate;
  };
  const ma = byRate(a, keyOf),
    mb = byRate(b, keyOf);
  const rates = [...new Set([...ma.keys(), ...mb.keys()])].sort((x, y) => x - y);
  return rates.map((ratePerSec) => ({ ratePerSec, a: ma.get(ratePerSec) ?? null, b: mb.get(ratePerSec) ?? null }));
}
