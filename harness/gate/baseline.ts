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
  return (
    typeof x === 'object' &&
    x !== null &&
    (x as { kind?: unknown }).kind === BASELINE_KIND &&
    typeof (x as { run?: unknown }).run === 'object'
  );
}

/**
 * A RunResult as written to summary.json (steps and a stop reason). Version 1 (before
 * `heldAtLeastPerSec`) reads as 2 with the knee's throughput as what it held at least; its
 * capacityPerSec may be a lower bound (an all-held or generator-bound run), as it was then.
 */
export function isRunResult(x: unknown): x is RunResult {
  const r = x as { schemaVersion?: unknown; steps?: unknown; stopReason?: unknown } | null;
  return (
    typeof r === 'object' &&
    r !== null &&
    (r.schemaVersion === 1 || r.schemaVersion === 2) &&
    Array.isArray(r.steps) &&
    typeof r.stopReason === 'string'
  );
}

/** A summary of either version as the current RunResult. */
export function currentRunResult(r: RunResult): RunResult {
  const v1 = r as RunResult & { heldAtLeastPerSec?: number | null };
  return v1.heldAtLeastPerSec === undefined ? { ...r, schemaVersion: 2, heldAtLeastPerSec: r.capacityPerSec } : r;
}
