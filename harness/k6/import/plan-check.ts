/**
 * Step flags given at an import, checked against the file where the analysis judges them (placed
 * from t0, as buildPlan places them): each judged window's offered rate (k6 iterations started
 * plus dropped, at the second they were due: IngestStats.offeredPerS) must be the step's rate, on
 * average and in each of its seconds. A plan the run was never offered judges delivery against
 * rates of the user's own making: a hold of 8 s given as 12 read delivery 1.43 and printed a
 * capacity; a 1 s ramp given for k6's 2 s drifts a second a step, and by step 5 its window takes
 * in a ramp second whose average hides it. Pure.
 */
import type { StepPlan } from '../../../analysis/types.ts';
import { deriveSteps } from './derive-steps.ts';
import type { OfferedPhases } from '../output/offered.ts';
import type { IngestStats } from '../output/ingest-stats.ts';
import { continuousRampClause, HELD_STAGES_FIX } from './continuous-ramp.ts';
import { edgeNoise, tolOf } from './offered-noise.ts';

/** A window's offered rate may differ from its step's by this share of the rate (k6 schedules arrivals exactly)... */
const REL_TOL = 0.05;
/** ...or by this many arrivals/s, whichever is more (a low rate's rounding). */
const ABS_TOL = 1;

export interface RateMismatch {
  index: number;
  ratePerSec: number;
  /** The judged window's mean. */
  offeredPerSec: number;
  fromS: number;
  toS: number;
  /** The window's second furthest from the rate, when further than a second may be (secondTol). */
  worst?: { tS: number; offered: number };
}

/**
 * How far one second of a judged window may lie from its rate: a hold's spread (derive-steps
 * tolOf: 3% of the rate, at least 2); with whole-second timestamps 3 x a second's noise,
 * sqrt(rate / 12), too, or as its hold's seconds measure it (`edgeSd`, offered-noise.ts
 * edgeNoise: a second is off by its two edges, sqrt(2) x theirs), which a collapsed step's many
 * times exceeds (160/s read 145 in a window of the run's own flags, which were refused). A ramp's
 * second of a plan whose steps rise by 10% or more lies further; at whole seconds the flags' hold
 * then takes in ramp seconds too, which the noise measured grows by, and the period is judged off
 * the whole series instead (periodMismatch).
 */
function secondTol(ratePerSec: number, wholeSeconds: boolean, edgeSd: number): number {
  return Math.max(
    tolOf(ratePerSec, wholeSeconds),
    wholeSeconds ? 3 * Math.max(Math.sqrt(ratePerSec / 12), Math.SQRT2 * edgeSd) : 0,
  );
}

/**
 * Seconds the load may start after t0 (k6 writes its first vus point before it has started its
 * VUs: derive-steps allows 3; whole-second stamps blur one more), tried in half seconds when the
 * flags do not fit from t0: said in the refusal, with the --t0 that places them there.
 */
const MAX_START_S = 4;

/**
 * The steps whose judged window (from t0, or shiftS later) the file offered another rate in, on
 * average or in one of its seconds. Only windows the file holds whole are judged: before its last
 * second with arrivals (a part second; with whole-second timestamps the one before it too), so a
 * plan longer than the run, or a run cut, is left to the ended-early check.
 */
export function flagMismatches(
  steps: readonly StepPlan[],
  offered: readonly number[],
  wholeSeconds = false,
  shiftS = 0,
): RateMismatch[] {
  return judged(steps, offered, wholeSeconds, shiftS).mismatches;
}

/** The mismatches of flagMismatches, and how many windows were judged (whole in the file). */
function judged(
  steps: readonly StepPlan[],
  offered: readonly number[],
  wholeSeconds: boolean,
  shiftS: number,
): { mismatches: RateMismatch[]; windows: number } {
  let end = offered.length;
  while (end > 0 && !(offered[end - 1] > 0)) end--;
  end -= wholeSeconds ? 2 : 1;
  const out: RateMismatch[] = [];
  let windows = 0;
  for (const s of steps) {
    const fromS = Math.ceil(s.steadyStartS + shiftS);
    const toS = Math.floor(s.steadyEndS + shiftS);
    if (toS <= fromS || toS > end) continue;
    windows++;
    // measured over the hold's seconds: a window alone has too few
    const edgeSd = wholeSeconds
      ? edgeNoise(offered, Math.ceil(s.holdStartS + shiftS), Math.min(end, Math.floor(s.holdEndS + shiftS)))
      : 0;
    let sum = 0;
    for (let t = fromS; t < toS; t++) sum += offered[t];
    // a window that drifted off its hold takes in a ramp second at its first or its last: the
    // seconds between are the hold's whatever the period (a collapsed step's noise reached past 3
    // standard deviations in some second of a 25 s window)
    const last = toS - 1;
    const worst =
      Math.abs(offered[last] - s.ratePerSec) > Math.abs(offered[fromS] - s.ratePerSec)
        ? { tS: last, offered: offered[last] }
        : { tS: fromS, offered: offered[fromS] };
    const offeredPerSec = sum / (toS - fromS);
    const meanOff = Math.abs(offeredPerSec - s.ratePerSec) > Math.max(REL_TOL * s.ratePerSec, ABS_TOL);
    const secondOff = Math.abs(worst.offered - s.ratePerSec) > secondTol(s.ratePerSec, wholeSeconds, edgeSd);
    if (meanOff || secondOff)
      out.push({ index: s.index, ratePerSec: s.ratePerSec, offeredPerSec, fromS, toS, ...(meanOff ? {} : { worst }) });
  }
  return { mismatches: out, windows };
}

/**
 * The start after t0 (half seconds up to MAX_START_S) at which the flags fit the file, when they
 * do not from t0: k6 started its load that much after the t0 taken. Null when none. A start that
 * fits only because a window it moves past the file's end goes unjudged is none: the last step's
 * window of a run whose load began 1.1 s after t0 was off by a collapsed step's noise, and "the
 * load starting 1 s after t0" was said because at 1 s that window was no longer judged.
 */
export function laterStartS(
  steps: readonly StepPlan[],
  offered: readonly number[],
  wholeSeconds = false,
): number | null {
  const fromT0 = judged(steps, offered, wholeSeconds, 0).windows;
  for (let shiftS = 0.5; shiftS <= MAX_START_S; shiftS += 0.5) {
    const j = judged(steps, offered, wholeSeconds, shiftS);
    if (j.mismatches.length === 0 && j.windows === fromT0) return shiftS;
  }
  return null;
}

/** The mismatches in a sentence, the first few. */
export function mismatchText(file: string, m: readonly RateMismatch[], unit: string): string {
  const shown = m
    .slice(0, 4)
    .map((x) => {
      const head = `step ${x.index + 1} is ${x.ratePerSec} ${unit} by the flags, the file offered`;
      const window = `its judged window (${x.fromS}-${x.toS} s)`;
      return x.worst
        ? `${head} ${x.worst.offered.toFixed(1)} at ${x.worst.tS}-${x.worst.tS + 1} s of ${window}, ${x.offeredPerSec.toFixed(1)} over it: a ramp's second, or a period other than the run's`
        : `${head} ${x.offeredPerSec.toFixed(1)} in ${window}`;
    })
    .join('; ');
  return `the step flags do not match ${file}: ${shown}${m.length > 4 ? `; and ${m.length - 4} more` : ''} (offered: k6 iterations started plus dropped, at the second they were due; windows placed from t0, as the report judges them)`;
}

/**
 * The plan derived from the file when its period (ramp + hold) is not the flags': the flags' windows
 * then drift off the holds by the difference each step. At whole-second timestamps one second of a
 * window says little (a collapsed step's seconds stray by more than a ramp's second does), so the
 * period is read off the whole series instead; the split between ramp and hold is not (a second
 * either way cannot always be told: derive-steps.ts). Null when no plan is derived, or it has the flags' period.
 */
export function periodMismatch(
  flags: Flags,
  offered: readonly number[],
  wholeSeconds: boolean,
  phases?: OfferedPhases,
): Flags | null {
  const d = deriveSteps([], offered, wholeSeconds, phases).steps;
  return d !== null && d.rampS + d.holdS !== flags.rampS + flags.holdS ? d : null;
}

/**
 * Why flags given at an import do not match its file, and the fix; null when they do: a judged
 * window offered another rate (flagMismatches), else the file steps with another period
 * (periodMismatch).
 */
export function flagsRefusal(
  file: string,
  flags: Flags,
  steps: readonly StepPlan[],
  stats: Pick<IngestStats, 'offeredPerS' | 'wholeSeconds' | 't0Ms' | 'offeredPhases'>,
  unit: string,
): { why: string; fix: string } | null {
  const { offeredPerS: offered, wholeSeconds, t0Ms, offeredPhases: phases } = stats;
  const fix = () => mismatchFix(flags, steps, offered, wholeSeconds, t0Ms, phases);
  const m = flagMismatches(steps, offered, wholeSeconds);
  if (m.length > 0) return { why: mismatchText(file, m, unit), fix: fix() };
  const d = periodMismatch(flags, offered, wholeSeconds, phases);
  if (d === null) return null;
  const [theirs, ours] = [d.rampS + d.holdS, flags.rampS + flags.holdS];
  return {
    why: `the step flags do not match ${file}: its offered rate steps every ${theirs} s (${d.rampS} s ramps and ${d.holdS} s holds, derived from it), the flags every ${ours} s, so their judged windows drift off its holds by ${Math.abs(theirs - ours)} s a step`,
    fix: fix(),
  };
}

/** The step flags of a plan, as they are typed. */
type Flags = { startPerSec: number; stepPerSec: number; maxPerSec: number; rampS: number; holdS: number };
const flagsText = (f: Flags) =>
  `--start-rate ${f.startPerSec} --step-rate ${f.stepPerSec} --max-rate ${f.maxPerSec} --ramp ${f.rampS} --hold ${f.holdS}`;

/**
 * What to do about flags that do not match: the flags of the plan derived from the file, when it
 * is another (and its period where the flags' differs: a window drifts by the difference each
 * step); the --t0 that places the flags where they fit, when the file's plan is theirs (or none is
 * derived) and they fit a later start; else give k6's stages. Dropping the flags is named only where
 * a plan is derived from the file: a continuous ramp has none, and no flags fit it either (its fix
 * and the refusal without flags sent the user to each other).
 */
export function mismatchFix(
  flags: Flags,
  steps: readonly StepPlan[],
  offered: readonly number[],
  wholeSeconds: boolean,
  t0Ms: number | null,
  phases?: OfferedPhases,
): string {
  const derived = deriveSteps([], offered, wholeSeconds, phases);
  const d = derived.steps;
  if (d && flagsText(d) !== flagsText(flags)) {
    const period = (f: Flags) => f.rampS + f.holdS;
    const drift =
      period(flags) === period(d)
        ? ''
        : ` (the flags' period, ${flags.rampS} s ramp + ${flags.holdS} s hold = ${period(flags)} s, is not the file's ${period(d)} s: each step's window lies ${Math.abs(period(flags) - period(d))} s further off its hold than the one before)`;
    return `drop the step flags to let plateau derive the plan from the file, or give the plan it offered: ${flagsText(d)}${drift}`;
  }
  if (derived.steps === null && derived.ramp)
    return `its offered rate ${continuousRampClause(derived.ramp)}: neither these flags nor any others fit it, and no plan is derived from it; ${HELD_STAGES_FIX}`;
  const drop = d !== null ? ', or drop the step flags to derive the plan from the file' : '';
  const later = laterStartS(steps, offered, wholeSeconds);
  if (later !== null && t0Ms !== null)
    return `the flags fit the file with the load starting ${later} s after t0: pass --t0 ${new Date(t0Ms + later * 1000).toISOString()} to judge them there${drop}`;
  return `give the rates and times k6 ran (its ramping-arrival-rate stages: --start-rate, --step-rate, --max-rate, --ramp, --hold)${drop || ` (no plan is derived from the file either${derived.steps === null && derived.flat ? `: ${derived.why}` : ''})`}`;
}

/** Offered arrivals after the flags' last hold (a rate above the top step's): k6 ran further than the flags say. */
export interface LoadBeyond {
  /** Second the flags' plan ended at, latest start offset and a part second allowed. */
  fromS: number;
  seconds: number;
  arrivals: number;
  /** The highest rate offered in one of those seconds. */
  maxPerSec: number;
}

/**
 * Load the file offered after the flags' last step ended (at the latest start offset, plus a
 * second for a part one) at a rate above that step's: the flags stop short of the run, and read
 * whole they would say "every step held, raise the top rate" of a run whose top steps failed.
 * Null when nothing above the top rate came after (k6's end, or a ramp down).
 */
export function loadBeyond(steps: readonly StepPlan[], offered: readonly number[]): LoadBeyond | null {
  const last = steps.at(-1);
  if (!last) return null;
  const fromS = Math.ceil(last.holdEndS + MAX_START_S) + 1;
  let seconds = 0,
    arrivals = 0,
    maxPerSec = 0;
  for (let t = fromS; t < offered.length; t++) {
    if (offered[t] <= 0) continue;
    seconds++;
    arrivals += offered[t];
    maxPerSec = Math.max(maxPerSec, offered[t]);
  }
  const above = maxPerSec > last.ratePerSec * (1 + REL_TOL) + ABS_TOL;
  return seconds >= 2 && above ? { fromS, seconds, arrivals: Math.round(arrivals), maxPerSec } : null;
}
