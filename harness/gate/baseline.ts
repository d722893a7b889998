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

/**
 * A summary of either version as the current RunResult. One stopped `interrupted` with a capacity
 * beside it predates a cut run keeping its limit's reason (decision 045): that figure was a lower
 * bound, so it reads as none established, for compare and its charts as for the gate.
 */
export function currentRunResult(r: RunResult): RunResult {
  const v1 = r as RunResult & { heldAtLeastPerSec?: number | null };
  const current: RunResult =
    v1.heldAtLeastPerSec === undefined ? { ...r, schemaVersion: 2 as const, heldAtLeastPerSec: r.capacityPerSec } : r;
  return current.stopReason === 'interrupted' && current.capacityPerSec !== null
    ? { ...current, capacityPerSec: null }
    : current;
}

const isNum = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

function percentilesProblem(x: unknown): string | null {
  if (!Array.isArray(x)) return ' is not a list of percentiles';
  const bad = x.findIndex(
    (p: { q?: unknown; valueMs?: unknown; n?: unknown; reliable?: unknown } | null) =>
      typeof p !== 'object' ||
      p === null ||
      !isNum(p.q) ||
      !(p.valueMs === null || isNum(p.valueMs)) ||
      !isNum(p.n) ||
      typeof p.reliable !== 'boolean',
  );
  return bad === -1 ? null : `[${bad}] is not a percentile { q, valueMs, n, reliable }`;
}

/** What is wrong with one name's figures (NameResult), as the tail of a field path (" is not ...", ".f is ..."); null when nothing. */
function nameProblem(n: unknown): string | null {
  if (typeof n !== 'object' || n === null || Array.isArray(n)) return ' is not an object';
  const r = n as Record<string, unknown>;
  for (const f of ['completedPerSec', 'throughputPerSec', 'completed', 'ok', 'failed', 'errorRate'])
    if (!isNum(r[f])) return `.${f} is not a number`;
  const p = percentilesProblem(r.latency);
  return p === null ? null : `.latency${p}`;
}

/**
 * The first malformed per-name result of a summary's steps (`steps[i].byName`), in words naming
 * the field; null when every one is well formed or absent (older summaries, one-name runs).
 */
export function byNameProblem(run: RunResult): string | null {
  for (const [i, step] of run.steps.entries()) {
    const byName = (step as { byName?: unknown }).byName;
    if (byName === undefined) continue;
    if (typeof byName !== 'object' || byName === null || Array.isArray(byName))
      return `steps[${i}].byName is not an object of names`;
    for (const [name, n] of Object.entries(byName)) {
      const p = nameProblem(n);
      if (p !== null) return `steps[${i}].byName[${JSON.stringify(name)}]${p}`;
    }
  }
  return null;
}
