/**
 * `plateau gate --json`: the gate's decision as one document for machines: status and exit code,
 * the capacities compared, the step and tolerance that judged them, why a run cannot be judged,
 * the settings that differ, the names that regressed at the rates both runs held (warnings: the exit
 * code stays about capacity; on a pass and on a regression alike), and the cost per request when asked; which capacity was judged (`on`:
 * the plateau's, or the one within the latency objective) and each side's capacity within its
 * objective when it has one. Pure.
 */
import type { NameRegression, NameSkip, NameThresholds } from '../analysis/compare/by-name.ts';
import type { CostResult } from '../analysis/models/cost.ts';
import type { GateDecision, GateOn } from '../analysis/gate/decide.ts';
import { sloObjectiveText } from '../analysis/slo.ts';
import type { RunResult } from '../analysis/types.ts';

/**
 * 3 (12-06): each side's knee is `knee: { step, ratePerSec }`, as in `plateau compare --json` (it
 * was `kneeStep`, 1-based, and `kneeRatePerSec`: the same name as summary.json's 0-based
 * `kneeStep`, one step apart); each side carries its `peakPerSec`, which a pass's headline may cite.
 * 2 (12-06): `nameRegressions` holds the confirmed rises only (at two rates or more, half or more
 * of those judged from the lowest: analysis/compare/by-name.ts), the rest in `nameUnconfirmed`;
 * each carries what it rests on (aN, bN; aFailed, bFailed). 1 held every rise at any one rate.
 * Within 3, since 12-06: a regression carries the per-name fields too (`names` was null there):
 * a field that was always null on a regression now has the value it has on a pass.
 */
export const GATE_JSON_SCHEMA_VERSION = 3;

/** One side of the comparison: the figure the gate compared and what it came from. */
export interface GateSide {
  runId: string;
  /** The capacity the gate compared (for a run whose every step held, what it held at least); null when none. */
  comparedPerSec: number | null;
  capacityPerSec: number | null;
  heldAtLeastPerSec: number | null;
  /** The knee's step, 1-based as every output but summary.json numbers steps, and its offered rate; null when no step held. */
  knee: { step: number; ratePerSec: number } | null;
  /** The highest steady throughput of any step. */
  peakPerSec: number;
  stopReason: string;
  /**
   * The run was interrupted (a Ctrl-C, the duration cap, a k6 file cut short). With a stop reason
   * other than `interrupted`, after its limit was confirmed: its capacity stands, judged.
   */
  interrupted: boolean;
  engine: string;
  /** The capacity within the latency objective (RunResult.slo), when the run has one; its step 1-based. */
  slo: GateSlo | null;
}

export interface GateSlo {
  objective: string;
  capacityPerSec: number | null;
  step: number | null;
  ratePerSec: number | null;
  /** No holding step missed the objective: the figure is a lower bound. */
  atLeast: boolean;
  detail: string;
}

/** The document `plateau gate --json` prints. */
export interface GateDocument {
  schemaVersion: typeof GATE_JSON_SCHEMA_VERSION;
  kind: 'plateau-gate';
  status: GateDecision['status'];
  exitCode: number;
  headline: string;
  /** Which capacity was judged: the plateau's (`plateau gate`'s default) or the one within the latency objective (`--on slo`). */
  on: GateOn;
  /** Its name in the headline: "capacity", or "capacity within SLO (p99 <= 300 ms, client minus RTT)". */
  judged: string;
  baseline: GateSide;
  run: GateSide;
  /** A regression needs the knee at least this much lower (one step, req/s) ... */
  stepPerSec: number;
  /** ... and capacity lower by more than this share of the baseline's (and, where the run failed at the baseline's knee rate, its throughput there too). */
  tolerance: number;
  /** Why the run cannot be judged (status invalid); empty otherwise. */
  reasons: string[];
  /** Settings that differ from the baseline's: the decision stands, read it with these. */
  warnings: string[];
  /**
   * The per-name comparison (baseline as A, this run as B) at the rates both held; null unless the
   * run was judged (pass or regression) and either run recorded names.
   */
  names: GateNames | null;
  /** Each name, rate and figure that regressed at the rates both held: warnings, never the exit code. */
  nameRegressions: NameRegression[];
  /** Rises past the thresholds not confirmed at other rates (analysis/compare/by-name.ts): neither warned nor failed. */
  nameUnconfirmed: NameRegression[];
  /** The same in words, one per name and figure. */
  nameWarnings: string[];
  cost: CostResult | null;
}

export interface GateNames {
  /** The offered rates at which names were compared (by their error rates alone at those `skipped` lists as latencyOnly). */
  ratesCompared: number[];
  /** Names only this run recorded, and only the baseline: listed, not compared. */
  added: string[];
  removed: string[];
  /** 'a': the baseline recorded no per-name results; 'b': this run did not. */
  withoutNames: 'a' | 'b' | null;
  /**
   * Rates both offered whose names were not compared, and why; latencyOnly: their tails alone. Within 3, since
   * 12-07: a stalled or near-knee rate was left out whole, and not among ratesCompared.
   */
  skipped: NameSkip[];
  thresholds: NameThresholds;
}

function gateNames(d: GateDecision): GateNames | null {
  const r = d.names;
  if (r === undefined) return null;
  return {
    ratesCompared: r.rates.map((x) => x.ratePerSec),
    added: r.added,
    removed: r.removed,
    withoutNames: r.withoutNames,
    skipped: r.skipped,
    thresholds: r.thresholds,
  };
}

function sloSide(r: RunResult): GateSlo | null {
  const slo = r.slo;
  if (!slo) return null;
  const at = slo.steps.find((s) => s.holds && s.step === slo.step);
  return {
    objective: sloObjectiveText(slo),
    capacityPerSec: slo.capacityPerSec,
    step: slo.step === null ? null : slo.step + 1,
    ratePerSec: at?.ratePerSec ?? null,
    atLeast: slo.atLeast,
    detail: slo.detail,
  };
}

function side(r: RunResult, comparedPerSec: number | null): GateSide {
  const knee = r.kneeStep === null ? undefined : r.steps.find((s) => s.index === r.kneeStep);
  return {
    runId: r.runId,
    comparedPerSec,
    capacityPerSec: r.capacityPerSec,
    heldAtLeastPerSec: r.heldAtLeastPerSec ?? null,
    knee: knee ? { step: knee.index + 1, ratePerSec: knee.ratePerSec } : null,
    peakPerSec: r.peakPerSec,
    stopReason: r.stopReason,
    interrupted: r.interrupted === true,
    engine: r.engine,
    slo: sloSide(r),
  };
}

export function gateDocument(
  d: GateDecision,
  run: RunResult,
  baseline: RunResult,
  cost: CostResult | null,
): GateDocument {
  return {
    schemaVersion: GATE_JSON_SCHEMA_VERSION,
    kind: 'plateau-gate',
    status: d.status,
    exitCode: d.exitCode,
    headline: d.headline,
    on: d.on ?? 'capacity',
    judged: d.judged ?? 'capacity',
    baseline: side(baseline, d.baselinePerSec),
    run: side(run, d.currentPerSec),
    stepPerSec: d.stepPerSec,
    tolerance: d.tolerance,
    reasons: d.reasons,
    warnings: d.warnings,
    names: gateNames(d),
    nameRegressions: d.names?.regressions ?? [],
    nameUnconfirmed: d.names?.unconfirmed ?? [],
    nameWarnings: d.nameWarnings ?? [],
    cost,
  };
}

export function renderGateJson(d: GateDecision, run: RunResult, baseline: RunResult, cost: CostResult | null): string {
  return `${JSON.stringify(gateDocument(d, run, baseline, cost), null, 2)}\n`;
}
