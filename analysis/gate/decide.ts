/**
 * The gate's decision, pure. With B the baseline and C the current run:
 *
 *   cannot judge (3)  when C or B was interrupted before its limit was confirmed, generator-bound
 *                     or contaminated, when B has no
 *                     capacity, when they differ in engine, rules, target (its host and path;
 *                     the port only off loopback) or grid of offered rates (the step, and starts a
 *                     whole number of steps apart), or when C held every step but stopped short
 *                     of where it would read a regression (a lower bound shows none)
 *   regression   (1)  when C's knee sits at least one whole step below B's
 *                        (kneeRate_B - kneeRate_C >= step)
 *                     and C's capacity fell by more than the tolerance
 *                        (cap_B - cap_C > tolerance x cap_B),
 *                     unless C's knee is one step lower and C served within the tolerance of
 *                     cap_B at B's knee rate, the step it failed (knee-step.ts: the grid, not a fall);
 *                     its headline says why C stopped (and B, where for another reason)
 *   pass         (0)  otherwise
 *
 * Both conditions must hold: a difference smaller than one step is resolution, not a change, and
 * one smaller than the tolerance is noise. The knee is compared in offered rates (whole steps)
 * and the drop in measured throughput, so X reading 399.6 instead of 400 never fails a build.
 *
 * When the run is judged (pass or regression), the names both runs recorded are compared at the
 * rates both held (analysis/compare/by-name.ts): a name whose p99 or error rate regressed is a
 * warning, never the exit code, which stays about capacity. A regression keeps them: which names
 * slowed or failed below the knee is where its diagnosis starts.
 *
 * A run cut short after its limit was confirmed keeps its capacity (interrupted-stop.ts
 * establishedCapacity, as its report's headline does) and is judged on it; the headline says which
 * side was cut, and its cut step, incomplete, is never compared by name (only steps that held are).
 *
 * `on: 'slo'` judges the capacity within the latency objective (RunResult.slo) by the same rule:
 * its step's offered rate in place of the knee's, its throughput in place of the capacity. It
 * cannot judge (3) when either run has none (no objective configured, or none established), or
 * when the two objectives differ.
 */
import { fmtPercent, fmtRate, fmtTarget, rateUnitOf, sharedRateUnit } from '../format.ts';
import type { RunResult } from '../types.ts';
import {
  grid,
  GRID_TOLERANCE,
  mixDifference,
  ruleDifference,
  sameGrid,
  settingDifferenceList,
  type DifferenceKey,
  stepSizePerSec,
  targetKey,
  IMPORTED_TARGET,
  unknownTargetText,
} from '../compare/differences.ts';
import { timeoutDifference } from '../compare/timeout-difference.ts';
import {
  compareByName,
  NAME_REGRESSION_THRESHOLDS,
  type NameComparisonResult,
  type NameThresholds,
} from '../compare/by-name.ts';
import { GATE_LABELS, nameWarnings } from '../compare/name-warnings.ts';
import { fanOutRises } from '../compare/downstreams.ts';
import { BOTH_BOUNDS_TEXT, boundedChangeText } from '../compare/bound-change.ts';
import { sloObjectiveText } from '../slo.ts';
import { whereCutAfterLimit, establishedCapacity } from '../interrupted-stop.ts';

export { stepSizePerSec };
import { unjudgeableReasons } from './judgeable.ts';
import { stopClause } from './stop-clause.ts';
import { throughputAtBaselineKnee } from './knee-step.ts';

export type GateStatus = 'pass' | 'regression' | 'invalid';
/** Which capacity the gate judges: the plateau's (the default), or the one within the latency objective. */
export type GateOn = 'capacity' | 'slo';

/** 3, not 2, for "cannot judge": 2 is every command's usage error, which a CI step must never let through. */
export const GATE_EXIT: Record<GateStatus, number> = { pass: 0, regression: 1, invalid: 3 };

export interface GateDecision {
  status: GateStatus;
  exitCode: number;
  /** One sentence with the numbers. */
  headline: string;
  /** Why the run cannot be judged (status invalid). */
  reasons: string[];
  /** Differences in settings between baseline and run (the decision stands, but read it with these). */
  warnings: string[];
  /** Those of `warnings` a reason already states (the gate's texts say them once: warningsBesideReasons). */
  warningsInReasons?: string[];
  baselinePerSec: number | null;
  currentPerSec: number | null;
  stepPerSec: number;
  tolerance: number;
  /** Which capacity was judged (absent: the plateau's, as before `--on`), and its name in the outputs. */
  on?: GateOn;
  /** "capacity", or "capacity within SLO (p99 <= 300 ms, client minus RTT)". */
  judged?: string;
  /**
   * Per name at the rates both runs held, baseline as A and this run as B; when the run was judged
   * (pass or regression: a run that cannot be judged has nothing to compare) and either run
   * recorded names.
   */
  names?: NameComparisonResult;
  /** A name whose p99 or error rate regressed at rates both runs held, one sentence each: warnings, never the exit code. */
  nameWarnings?: string[];
}

/** Offered rate at the knee, 0 when no step held. */
function kneeRate(run: RunResult): number {
  return run.steps.find((s) => s.index === run.kneeStep)?.ratePerSec ?? 0;
}

/** Differences that make a capacity against the baseline meaningless (others are warnings). */
function incomparable(baseline: RunResult, run: RunResult): { key: DifferenceKey; text: string }[] {
  const out: { key: DifferenceKey; text: string }[] = [];
  const say = (key: DifferenceKey, text: string) => out.push({ key, text });
  if (baseline.engine !== run.engine)
    say(
      'engine',
      `the engine differs (baseline ${baseline.engine}, run ${run.engine}): engines measure differently; save a baseline with this engine`,
    );
  const rules = ruleDifference(baseline, run, (x, y) => `${x} in the baseline, ${y} in the run`);
  if (rules)
    say(
      'rules',
      `the stop rules differ (${rules.which}): ${rules.why}; use the baseline's rules or save a new baseline`,
    );
  // a deadline that failed requests in either run decided what counted (a warning where none timed out)
  const deadlines = timeoutDifference(baseline, run, (x, y) => `${x} ms in the baseline, ${y} ms in the run`);
  if (deadlines && deadlines.timedOut[0] + deadlines.timedOut[1] > 0)
    say(
      'timeouts',
      `the deadlines differ (${deadlines.which}), and requests timed out (${deadlines.timedOut[0]} in the baseline's judged steps, ${deadlines.timedOut[1]} in the run's): a request slower than its deadline fails, so the runs count other requests as failed; use the baseline's http settings or save a new baseline`,
    );
  // two imports that named no target: unknown, not different (a warning, as compare's); one
  // named and one not cannot be told the same service (decision 051)
  const imported = [baseline.target, run.target].filter((t) => t.startsWith(IMPORTED_TARGET)).length;
  if (imported === 1)
    say(
      'target',
      `${unknownTargetText(baseline.target, run.target, ['the baseline', 'the run'])}, or save a baseline of this target`,
    );
  else if (imported === 0 && targetKey(baseline.target) !== targetKey(run.target))
    say(
      'target',
      `the target differs (baseline ${baseline.target}, run ${run.target}): save a baseline of this target`,
    );
  if (!sameGrid(baseline, run)) {
    const unit = sharedRateUnit(run.traffic, baseline.traffic);
    say(
      'steps',
      `the steps differ (baseline ${grid(baseline, unit)}, run ${grid(run, unit)}): the gate reads a knee in whole steps, and knees on other grids do not compare (one step apart may be no change, or most of one); run with the baseline's steps (steps.startPerSec, steps.stepPerSec; an import with its step flags), or save a baseline of this plan`,
    );
  }
  const mix = mixDifference(baseline, run, ['the baseline', 'the run']);
  const units = [rateUnitOf(baseline.traffic), rateUnitOf(run.traffic)];
  if (mix)
    say(
      'traffic mix',
      `the traffic mix differs (${mix}): a capacity is a property of its mix; save a baseline of this mix`,
    );
  // one entry each, or a baseline that recorded no mix: the rates may still count different things
  else if (units[0] !== units[1])
    say(
      'rate unit',
      `the rates count different things (baseline ${units[0]}, run ${units[1]}): an arrival of several requests (a transaction) is not a request; save a baseline of this scenario`,
    );
  return out;
}

function invalid(
  base: Omit<GateDecision, 'status' | 'exitCode' | 'headline' | 'reasons'>,
  reasons: string[],
): GateDecision {
  return { ...base, status: 'invalid', exitCode: GATE_EXIT.invalid, headline: `cannot judge: ${reasons[0]}`, reasons };
}

/**
 * The decision's setting differences that no reason already states: the texts say a difference
 * that makes the run unjudgeable (the traffic mix, the engine...) once, as the reason.
 */
export function warningsBesideReasons(d: GateDecision): string[] {
  const said = new Set(d.warningsInReasons ?? []);
  return d.warnings.filter((w) => !said.has(w));
}

/**
 * The figure the gate compares: the capacity, or for a run whose every planned step held, what it
 * held at least (a lower bound: the gate judged such runs so before capacityPerSec said null).
 */
export function gateCapacity(r: RunResult): number | null {
  return establishedCapacity(r) ?? (r.stopReason === 'max-rate-reached' ? (r.heldAtLeastPerSec ?? null) : null);
}

/** The headline's word on each side cut short after its limit was confirmed, so no one reads it as a whole run. */
function cutNotes(run: RunResult, baseline: RunResult): string {
  return (
    [
      ['this run', run],
      ['the baseline', baseline],
    ] as const
  )
    .map(([who, r]) => {
      const where = whereCutAfterLimit(r);
      return where === null
        ? ''
        : `; ${who} was cut short after its limit was confirmed (${where}): only its complete steps count`;
    })
    .join('');
}

/** What the gate compares on `on`: the figure, the offered rate it was found at, and whether it is a lower bound. */
interface Judged {
  perSec: number | null;
  ratePerSec: number;
  lowerBound: boolean;
  /**
   * Nothing above the figure is known: every planned step held (on `slo`, within the objective
   * too). A run stopped by its plateau with every holding step within the objective is "at least"
   * within it, yet its plateau caps it there: a figure, not a bound, for the change.
   */
  openAbove: boolean;
}

/** A run whose every step held established a lower bound, not a capacity: said so (decision 026). */
function atLeastText(j: Judged): string {
  return j.lowerBound ? 'at least ' : '';
}

function judgedOf(r: RunResult, on: GateOn): Judged {
  const allHeld = r.stopReason === 'max-rate-reached';
  if (on === 'capacity')
    return { perSec: gateCapacity(r), ratePerSec: kneeRate(r), lowerBound: allHeld, openAbove: allHeld };
  const slo = r.slo;
  const at = slo?.steps.find((s) => s.holds && s.step === slo.step);
  const atLeast = slo?.atLeast === true;
  return {
    perSec: slo?.capacityPerSec ?? null,
    ratePerSec: at?.ratePerSec ?? 0,
    lowerBound: atLeast,
    openAbove: atLeast && allHeld,
  };
}

/** Why the capacities within the objective cannot be compared: one missing or not established, or other objectives. */
function sloReasons(run: RunResult, baseline: RunResult): string[] {
  const out: string[] = [];
  for (const [who, r, again] of [
    ['this run', run, ''],
    ['the baseline', baseline, ', save the baseline again'],
  ] as const) {
    if (!r.slo)
      out.push(
        r.rules.imported
          ? `${who} has no latency objective: an import of k6 output takes none; gate on the plateau's capacity (--on capacity)`
          : `${who} has no latency objective (no slo in its config): set slo in plateau.config.ts and rerun${again}, or gate on the plateau's capacity (--on capacity)`,
      );
    else if (r.slo.capacityPerSec === null)
      out.push(`${who} established no capacity within SLO (${sloObjectiveText(r.slo)}): ${r.slo.detail}`);
  }
  const a = baseline.slo,
    b = run.slo;
  if (a && b && (a.quantile !== b.quantile || a.maxMs !== b.maxMs || a.source !== b.source))
    out.push(
      `the objectives differ (baseline ${sloObjectiveText(a)}; run ${sloObjectiveText(b)}): capacities within different objectives do not compare; gate against a baseline run with this objective`,
    );
  return out;
}

/** "capacity" or "capacity within SLO (p99 <= 300 ms, client minus RTT)". */
function judgedLabel(on: GateOn, run: RunResult, baseline: RunResult): string {
  const slo = run.slo ?? baseline.slo;
  return on === 'slo' ? `capacity within SLO${slo ? ` (${sloObjectiveText(slo)})` : ''}` : 'capacity';
}

/** The per-name fields of a judged decision (pass or regression); none when neither run recorded names. */
function perName(run: RunResult, baseline: RunResult, thresholds: NameThresholds): Partial<GateDecision> {
  const names = compareByName(baseline, run, undefined, thresholds);
  const unit = sharedRateUnit(run.traffic, baseline.traffic);
  return names === null ? {} : { names, nameWarnings: nameWarnings(names, GATE_LABELS, unit) };
}

/**
 * The clause for a pass whose peak fell: two runs that both found their limit, the knee at the same
 * rate, neither cut short, but the highest steady throughput lower by more than the tolerance. A fall smaller
 * than a step cannot move the knee, so the capacity reads "held" on the grid; the peak is where it
 * shows (a plateau of 137 falling to 124 on steps of 40). Said, never the exit code: the peak is a
 * step past the knee, judged failing, and its figure is noisier than the knee's.
 */
function peakFell(run: RunResult, baseline: RunResult, tolerance: number, stepPerSec: number, unit: string): string {
  if (establishedCapacity(run) === null || establishedCapacity(baseline) === null) return '';
  // a run cut short measured fewer steps past its knee than it would have (the step it cut is never
  // the peak, decision 049, but a record analysed before that may still carry it): not compared
  if (run.interrupted || baseline.interrupted) return '';
  // a knee that moved is the headline's own matter (within the tolerance, or a regression)
  if (kneeRate(run) !== kneeRate(baseline)) return '';
  const a = baseline.peakPerSec,
    b = run.peakPerSec;
  if (!(a > 0) || a - b <= tolerance * a) return '';
  return `; but the peak throughput fell ${fmtPercent((a - b) / a)} (${fmtRate(a)} to ${fmtRate(b)} ${unit}): a fall smaller than one step (${fmtTarget(stepPerSec)} ${unit}) cannot move the knee, so rerun both with finer steps (--step-rate) to judge it`;
}

/**
 * A run that held no step sustained less than its first step's rate: its capacity lies below it,
 * at least (base - first) / base under the baseline's. Said as that bound, never as 0.0 and -100%.
 */
function belowFirstStep(run: RunResult, baseCap: number, unit: string): string {
  const first = run.steps[0]?.ratePerSec ?? 0;
  return `below the first step's ${fmtTarget(first)} ${unit}, which did not hold (at least ${fmtPercent((baseCap - first) / baseCap)} lower than the baseline's ${fmtRate(baseCap)} ${unit})`;
}

export function decideGate(
  run: RunResult,
  baseline: RunResult,
  tolerance: number,
  nameThresholds: NameThresholds = NAME_REGRESSION_THRESHOLDS,
  on: GateOn = 'capacity',
): GateDecision {
  const stepPerSec = stepSizePerSec(baseline) || stepSizePerSec(run);
  const base = judgedOf(baseline, on),
    current = judgedOf(run, on);
  const label = judgedLabel(on, run, baseline);
  const differences = settingDifferenceList(baseline, run, ['the baseline', 'the run']);
  const unlike = incomparable(baseline, run);
  const reasonKeys = new Set(unlike.map((u) => u.key));
  const common = {
    // a downstream's fan-out that rose is the run's difference, never the exit code (compare/downstreams.ts)
    warnings: [...differences.map((w) => w.text), ...fanOutRises(baseline, run, ['the baseline', 'the run'])],
    warningsInReasons: differences.filter((w) => reasonKeys.has(w.key)).map((w) => w.text),
    baselinePerSec: base.perSec,
    currentPerSec: current.perSec,
    stepPerSec,
    tolerance,
    on,
    judged: label,
  };
  const reasons = [
    ...unjudgeableReasons(run),
    ...unjudgeableReasons(baseline).map((r) => `the baseline: ${r}`),
    ...unlike.map((u) => u.text),
    ...(on === 'slo' ? sloReasons(run, baseline) : []),
  ];
  if (on === 'capacity' && base.perSec === null)
    reasons.push(
      baseline.heldAtLeastPerSec == null
        ? 'the baseline has no capacity (no step held): save a baseline from a run that found one'
        : `the baseline established no capacity (stopped ${baseline.stopReason}): save a baseline from a run that found one`,
    );
  if (reasons.length > 0) return invalid(common, reasons);
  const baseCap = base.perSec as number;
  const cap = current.perSec ?? 0;
  const topRate = Math.max(0, ...run.steps.map((s) => s.ratePerSec));
  const unit = sharedRateUnit(run.traffic, baseline.traffic);
  const kneeDrop = base.ratePerSec - current.ratePerSec;
  // a whole step, its rates as rounded as the grids are allowed to be (16.667 down to 33.333 - 16.666)
  const oneStep = stepPerSec * (1 - GRID_TOLERANCE);
  const capDrop = baseCap - cap;
  // A run whose every planned step held sustained at least its top rate, maybe much more: it shows
  // no regression, however far below the baseline it stopped (one step below it read "regressed").
  // Not one stopped by its plateau (--on slo's "at least" is then the objective's, capped by it).
  if (
    current.lowerBound &&
    run.stopReason === 'max-rate-reached' &&
    kneeDrop >= oneStep &&
    capDrop > tolerance * baseCap
  ) {
    const held = on === 'slo' ? 'every holding step met the objective' : 'every step held';
    return invalid(common, [
      `${held} up to the run's top rate ${fmtTarget(topRate)} ${unit} (at least ${fmtRate(cap)} ${unit}), short of the baseline's knee at ${fmtTarget(base.ratePerSec)} ${unit} (${label} ${atLeastText(base)}${fmtRate(baseCap)} ${unit}): it shows no limit to compare; raise the top rate (--max-rate) past the baseline's knee`,
    ]);
  }
  if (current.perSec === null && (run.steps[0]?.ratePerSec ?? 0) > baseCap) {
    return invalid(common, [
      `the first step (${fmtTarget(run.steps[0].ratePerSec)} ${unit}) already exceeds the baseline capacity and failed: start lower`,
    ]);
  }
  // a bound's change says which way the figure may lie; between two bounds there is none (bound-change.ts)
  const delta = boundedChangeText(
    { perSec: baseCap, lowerBound: base.openAbove },
    { perSec: cap, lowerBound: current.openAbove },
  );
  const change = `${atLeastText(current)}${fmtRate(cap)} ${unit} vs baseline ${atLeastText(base)}${fmtRate(baseCap)} ${unit}${delta === null ? '' : ` (${delta})`}`;
  const knee = on === 'slo' ? 'the highest step within it' : 'the knee';
  // the knee one step lower, the throughput at the baseline's knee rate within the tolerance: the
  // grid's resolution at a knee step on the limit, not a fall (knee-step.ts, decision 090)
  const atBaseKnee = on === 'capacity' ? throughputAtBaselineKnee(run, baseline, stepPerSec) : null;
  const pastTolerance = kneeDrop >= oneStep && capDrop > tolerance * baseCap;
  const gridOnly = pastTolerance && atBaseKnee !== null && baseCap - atBaseKnee <= tolerance * baseCap;
  if (pastTolerance && !gridOnly) {
    // no step held: the run sustained less than its first step's rate, a bound and not a figure of 0
    const below = current.perSec === null ? belowFirstStep(run, baseCap, unit) : null;
    return {
      ...common,
      status: 'regression',
      exitCode: GATE_EXIT.regression,
      reasons: [],
      headline: `${label} regressed: ${below ?? `${change}; ${knee} moved ${fmtTarget(kneeDrop)} ${unit} down`} (steps of ${fmtTarget(stepPerSec)} ${unit}, tolerance ${fmtPercent(tolerance)})${stopClause(run, baseline)}${cutNotes(run, baseline)}`,
      ...perName(run, baseline, nameThresholds),
    };
  }
  // its own figure fell past the tolerance on the knee's step, a fall the steps are too coarse to
  // place: not a pass (a review's 6.92% fall on steps of 20% passed "within one step", exit 0); a
  // baseline's lower bound only makes the fall larger; a run's own bound may lie anywhere above
  if (capDrop > tolerance * baseCap && kneeDrop < oneStep && !current.openAbove) {
    const finer = Math.max(1, Math.floor(tolerance * baseCap));
    return invalid(common, [
      `${label} fell past the tolerance (${fmtPercent(tolerance)}) by less than a step: ${change}, on steps of ${fmtTarget(stepPerSec)} ${unit} (${fmtPercent(stepPerSec / baseCap)} of the baseline's): the steps cannot tell a limit that moved from one that held; rerun both with steps of at most ${fmtTarget(finer)} ${unit} (--step-rate: the tolerance of the baseline's ${fmtRate(baseCap)}), or save a baseline on them`,
    ]);
  }
  const why =
    base.openAbove && current.openAbove
      ? BOTH_BOUNDS_TEXT
      : gridOnly
        ? `the knee moved one step down, but at the baseline's knee rate (${fmtTarget(base.ratePerSec)} ${unit}) this run achieved ${fmtRate(atBaseKnee)} ${unit}, within the tolerance of the baseline's ${fmtRate(baseCap)} ${unit} (${fmtPercent((atBaseKnee - baseCap) / baseCap)}): a knee step at the limit held in one run and failed in the other, which is the grid's resolution, not a fall`
        : capDrop > 0
          ? kneeDrop < oneStep
            ? 'within one step'
            : 'within the tolerance'
          : // the baseline's true figure may lie anywhere above its bound: "held" is not known
            base.openAbove
            ? "at or above the baseline's lower bound"
            : `${on === 'slo' ? 'it' : 'capacity'} held or rose`;
  const peak = on === 'capacity' ? peakFell(run, baseline, tolerance, stepPerSec, unit) : '';
  return {
    ...common,
    status: 'pass',
    exitCode: GATE_EXIT.pass,
    reasons: [],
    headline: `${label} holds: ${change}: ${why} (steps of ${fmtTarget(stepPerSec)} ${unit}, tolerance ${fmtPercent(tolerance)})${peak}${cutNotes(run, baseline)}`,
    ...perName(run, baseline, nameThresholds),
  };
}
