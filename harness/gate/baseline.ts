/**
 * baseline.json: the RunResult of a run that was judged good, kept in the repository so CI can
 * gate later runs against it. The per-second series are dropped (the gate and compare read steps
 * only), which keeps the file small enough to review in a pull request.
 */
import type { RunResult } from '../../analysis/types.ts';

export const BASELINE_KIND = 'plateau-baseline';

export interface Baseline {
  schemaVersion: 1;
  kind: typeof BASELINE_KIND;
  /** When it was saved (ISO 8601), and from which run directory. */
  savedAt: string;
  from: string;
  run: RunResult;
}

export function baselineOf(run: RunResult, savedAt: string, from: string): Baseline {
  const { series: _series, gauges: _gauges, ...rest } = run;
  return { schemaVersion: 1, kind: BASELINE_KIND, savedAt, from, run: rest };
}

export function isBaseline(x: unknown): x is Baseline {
  return typeof x === 'object' && x !== null && (x as { kind?: unknown }).kind === BASELINE_KIND && typeof (x as { run?: unknown }).run === 'object';
}

/** A RunResult as written to summary.json (schemaVersion 1 with steps and a stop reason). */
export function isRunResult(x: unknown): x is RunResult {
  const r = x as Partial<RunResult> | null;
  return typeof r === 'object' && r !== null && r.schemaVersion === 1 && Array.isArray(r.steps) && typeof r.stopReason === 'string';
}
