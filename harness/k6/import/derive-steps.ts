/**
 * Derives the stepped plan of an imported k6 run from its own data, for when the user does not
 * give it. The offered rate is in the arrivals, never in what completed: each second's iterations
 * started plus dropped_iterations, both at the second they were due (the ingest's offeredPerS,
 * which neither an iteration longer than the buckets wait for nor whole-second CSV timestamps
 * shift: bucketizer.ts). It follows the plan in ramps and holds, also in a step whose target
 * collapsed (what it could not serve was dropped, and a drop is an arrival).
 *
 * The plan is fitted to the whole series at once, not read off flat runs of seconds: whole-second
 * timestamps make a hold's seconds vary by about sqrt(rate / 12) (a 100/s hold reads 93 to 107),
 * and several times that where a collapsed step's starts and drops take turns, which broke a hold
 * into pieces, and a gentle ramp (10 to 20/s over 10 s) lies flat for seconds at a time.
 *   period, ramp = the best of every pair (plan-search.ts: start and step by least squares, the
 *            squared difference per second), then placed to a twentieth of a second with each
 *            second blurred as its arrivals were shared (plan-fit.ts, second-blur.ts)
 *   start, step = the least-squares line through the holds' means, each weighted by its noise
 *            and rounded to the roundest whole number its uncertainty allows (plan-holds.ts)
 *   steps  = those whose hold shows for 3 s (all but a second of a shorter hold) before the
 *            arrivals end and before the rate falls from its top: a run cut mid-hold keeps the
 *            step it was in; a ramp down after the last hold is no step
 *
 * Pure; returns a `steps` config section when each hold's seconds lie within tol of its rate
 * (their mean, and without a trend: a continuous ramp is not a stepped plan), else says why not
 * (the user then passes the step flags): a rate held flat, or one that rose on a line with no hold
 * (continuous-ramp.ts), has no steps to judge, and is said to be so.
 */
import type { BucketRecord } from '../../../analysis/types.ts';
import { placePlan, type PlacedPlan } from './plan-fit.ts';
import { coarseCandidates } from './plan-search.ts';
import { median, tolOf, trends } from './offered-noise.ts';
import { holdsOf, levels, meanSd, type Hold } from './plan-holds.ts';
import { flatRate, topEnd } from './series-shape.ts';
import { secondBlur } from './second-blur.ts';
import type { OfferedPhases } from '../output/offered.ts';
import { continuousRamp, continuousRampText, type ContinuousRamp } from './continuous-ramp.ts';

export interface DerivedSteps {
  startPerSec: number;
  stepPerSec: number;
  maxPerSec: number;
  rampS: number;
  holdS: number;
}

const MIN_HOLD_S = 3;
/** A derived hold shorter than this between ramps of twice its length or more is no stepped plan's. */
const SHORT_HOLD_S = 5;
/** Coarse candidates placed finely (plan-fit.ts). */
const CANDIDATES = 6;

/**
 * Offered arrivals per second from stored buckets, indexed by tS (missing seconds are 0): what an
 * import without the ingest's own tally has (an iteration counted late sits in a later bucket).
 */
export function offeredPerSecond(records: readonly BucketRecord[]): number[] {
  const out: number[] = [];
  for (const r of records) out[r.tS] = (out[r.tS] ?? 0) + r.started + r.dropped;
  return Array.from(out, (v) => v ?? 0);
}

/**
 * @param offered arrivals due per second (IngestStats.offeredPerS); from the records when absent.
 * @param wholeSeconds the output's timestamps are whole seconds (IngestStats.wholeSeconds): its
 *   iterations' starts are blurred over two seconds, which the fit allows for.
 * @param phases with whole seconds, how each second read its arrivals (IngestStats.offeredPhases),
 *   the blur the fit gives the plan; without it, that of iterations of random lengths.
 */
export function deriveSteps(
  records: readonly BucketRecord[],
  offered: readonly number[] = offeredPerSecond(records),
  wholeSeconds = false,
  phases?: OfferedPhases,
):
  | { steps: DerivedSteps; holds: Hold[]; after: LeftOut }
  | { steps: null; why: string; uneven?: boolean; flat?: boolean; ramp?: ContinuousRamp } {
  // the last second with arrivals may be a part second (a run cut, or its plan's end mid-second);
  // with whole-second timestamps the one before it may have lent arrivals to it
  let arrivalsEnd = offered.length;
  while (arrivalsEnd > 0 && !(offered[arrivalsEnd - 1] > 0)) arrivalsEnd--;
  if (arrivalsEnd === 0) return { steps: null, why: 'no arrivals were offered (no iterations started or dropped)' };
  // fitted up to the part second (and with whole seconds its neighbour), steps counted up to the
  // last second at the top: what falls after it is no step
  const fullEndS = Math.max(0, arrivalsEnd - (wholeSeconds ? 2 : 1));
  const top = fullEndS > 0 ? topEnd(offered, fullEndS, arrivalsEnd, wholeSeconds) : arrivalsEnd;
  const endS = Math.min(fullEndS, top);
  // the plan starts up to 3 s after t0 (plan-fit.ts OFFSETS: k6's VU init); load that begins at
  // once later (a scenario's startTime, a setup() that wrote no sample) would stretch its first
  // ramp; a slow first ramp's first arrivals come late, one at a time
  const lead = offered.findIndex((v) => v >= 1);
  if (lead >= 4 && (offered[lead] ?? 0) + (offered[lead + 1] ?? 0) > 4)
    return {
      steps: null,
      why: `the first arrivals came ${lead} s after t0 (a scenario's startTime, or a setup() with no samples): pass --t0 at the load's start`,
    };
  const flat = flatRate(offered, endS, wholeSeconds, MIN_HOLD_S);
  if (flat !== null)
    return {
      steps: null,
      flat: true,
      why: `the run held one rate only, about ${flat.perSec}/s from ${flat.fromS} to ${endS} s: there are no steps to judge`,
    };
  // a rate that rose on a line with no hold has no steps either (continuous-ramp.ts): a staircase
  // of 3 s holds was fitted to one at whole seconds (55 + i x 15/s), and where none fitted, the
  // closest one's holds were listed as if the run had held them
  const ramp = continuousRamp(offered, endS, wholeSeconds, phases);
  if (ramp !== null) return { steps: null, ramp, why: continuousRampText(ramp) };
  const first = fitUpTo(offered, endS, Math.min(arrivalsEnd, top), wholeSeconds, phases);
  // a ramp down after the last hold (k6 stages ending at 0), or what a cut left of a step, is no
  // step: a plan that fails at its last step alone, short of its rate there, is fitted again
  // without that step's period (a last hold above its rate is a plan of other steps: refused)
  if (
    first.steps === null &&
    first.plan &&
    first.failedStep === first.plan.steps - 1 &&
    first.plan.steps > 2 &&
    first.fallsShort
  ) {
    const cut = Math.floor(first.plan.offsetS + (first.plan.steps - 1) * first.plan.periodS);
    const again = fitUpTo(offered, cut, cut, wholeSeconds, phases);
    if (again.steps !== null) return again;
  }
  // a last hold that ends where the rate falls from its top (the arrivals go on, well below it: a
  // ramp down), not where the arrivals end, shows all but 2 s of its hold; a shorter one is a
  // ramp's peak, no step. Judged on whole seconds: the part ones a run ends with are no fall (a
  // collapsed step's last hold, cut short by its noise, was dropped for them)
  const fallen = offered.slice(top, fullEndS);
  const fallenMean = fallen.reduce((a, v) => a + v, 0) / Math.max(1, fallen.length);
  if (
    first.steps !== null &&
    first.holds.length > 2 &&
    fallen.length > 3 &&
    fallenMean < first.steps.maxPerSec - 2 * tolOf(first.steps.maxPerSec, wholeSeconds)
  ) {
    const last = first.holds[first.holds.length - 1];
    if (last.toS >= top && last.toS - last.fromS < first.steps.holdS - 2) {
      const cut = last.fromS - first.steps.rampS - 1;
      const again = fitUpTo(offered, cut, cut, wholeSeconds, phases);
      return again.steps === null ? { steps: null, why: again.why, uneven: again.uneven } : again;
    }
  }
  return first.steps === null ? { steps: null, why: first.why, uneven: first.uneven } : first;
}

/**
 * Arrivals offered after the last derived step's hold (from the second after its end: a part
 * second either way): a step cut before 3 s of its hold showed, or a ramp down. Not judged; the
 * import says so.
 */
export interface LeftOut {
  /** Second (of the series) the last hold ended at. */
  fromS: number;
  /** Seconds with arrivals after it, and their arrivals. */
  seconds: number;
  arrivals: number;
}

type Fitted =
  | { steps: DerivedSteps; holds: Hold[]; after: LeftOut }
  | { steps: null; why: string; plan?: PlacedPlan; failedStep?: number; fallsShort?: boolean; uneven?: boolean };

/**
 * Where a ramp of the plan is no ramp: k6 ramps an arrival rate in a straight line, so the seconds
 * between two holds lie near the line between their levels (3-second medians, a ramp's edge
 * seconds left out). A plan of uneven steps (20, 50, 100, 180/s) fits as fewer, even ones whose
 * long "ramps" hold the others flat: judged so, 20 and 100 were never steps and the capacity read
 * was the first hold's. A rate that saturates within a ramp (a closed model) bends it too.
 */
function bentRamp(
  offered: readonly number[],
  plan: PlacedPlan,
  startPerSec: number,
  stepPerSec: number,
  endS: number,
  wholeSeconds: boolean,
): string | null {
  // a ramp too short to hide a hold in (MIN_HOLD_S and a second of ramp on either side of it)
  if (plan.rampS < MIN_HOLD_S + 3) return null;
  const med = (t: number) => median([offered[t - 1] ?? 0, offered[t] ?? 0, offered[t + 1] ?? 0]);
  // from the second ramp on: the first rises from k6's startRate, which the plan does not know
  for (let k = 1; k < plan.steps; k++) {
    const rampFrom = plan.offsetS + k * plan.periodS;
    const to = startPerSec + k * stepPerSec;
    const from = to - stepPerSec;
    // a hold's spread, or 15% of the rise; and a second of the slope (where the plan's edges are placed)
    const slope = Math.abs(to - from) / plan.rampS;
    const allowed = Math.max(3 * tolOf(Math.max(from, to), wholeSeconds), 0.15 * Math.abs(to - from)) + slope;
    const first = Math.ceil(rampFrom) + 1;
    const last = Math.min(endS, Math.floor(rampFrom + plan.rampS)) - 1;
    for (let t = first; t < last; t++) {
      const line = from + ((to - from) * (t + 0.5 - rampFrom)) / plan.rampS;
      if (Math.abs(med(t) - line) > allowed)
        return `its ramp to step ${k + 1} (${Math.max(0, Math.round(rampFrom))}-${Math.round(rampFrom + plan.rampS)} s) offered ${Math.round(med(t))}/s at ${t} s where a ramp from ${Math.round(from)} to ${to}/s passes ${Math.round(line)}/s: steps of uneven sizes or ramps, or a rate that stopped rising`;
    }
  }
  return null;
}

/** The plan over seconds [0, endS), its steps those whose hold shows before countEndS, and its checks. */
function fitUpTo(
  offered: readonly number[],
  endS: number,
  countEndS: number,
  wholeSeconds: boolean,
  phases: OfferedPhases | undefined,
): Fitted {
  const plan = placePlan(
    offered,
    endS,
    countEndS,
    coarseCandidates(offered, endS, MIN_HOLD_S, CANDIDATES),
    MIN_HOLD_S,
    secondBlur(endS, wholeSeconds, phases),
  );
  if (plan === null)
    return { steps: null, why: `no plan of two or more rising steps fits the ${endS} s of offered arrivals` };
  const holds = holdsOf(offered, plan, countEndS, wholeSeconds);
  const { startPerSec, stepPerSec } = levels(holds, wholeSeconds);
  const listed = () => {
    const shown = holds.slice(0, 6).map((h) => `${h.hold.ratePerSec}/s at ${h.hold.fromS}-${h.hold.toS} s`);
    return holds.length > 6 ? `${shown.join(', ')} and ${holds.length - 6} more` : shown.join(', ');
  };
  const rampS = plan.rampS;
  const holdS = plan.periodS - plan.rampS;
  if (startPerSec <= 0 || stepPerSec <= 0)
    return { steps: null, why: `the best plan's rates do not rise from a start above 0 (holds ${listed()})` };
  const topRate = startPerSec + (plan.steps - 1) * stepPerSec;
  if (stepPerSec < tolOf(topRate, wholeSeconds))
    return {
      steps: null,
      why: `the best plan's steps (${startPerSec} + i x ${stepPerSec} arrivals/s) rise by less than a hold's own spread at ${topRate}/s: no steps to tell apart`,
    };
  // a hold's mean is uncertain by its edges' noise x sqrt(2) / its seconds (levels): a short or noisy one may be off by more than a tolerance
  const at = holds.findIndex(
    (h, i) =>
      Math.abs(h.hold.ratePerSec - (startPerSec + i * stepPerSec)) >
      Math.max(
        tolOf(startPerSec + i * stepPerSec, wholeSeconds),
        (3 * meanSd(h, startPerSec + i * stepPerSec, wholeSeconds)) / Math.max(1, h.seconds.length),
      ),
  );
  const tilted = holds.findIndex((h) => h.flat.length >= 2 && trends(h.flat, wholeSeconds, h.edgeSd));
  if (at >= 0 || tilted >= 0) {
    const i = at >= 0 ? at : tilted;
    const h = holds[i];
    const level = startPerSec + i * stepPerSec;
    const shape = `${startPerSec} + i x ${stepPerSec} arrivals/s, ${rampS} s ramps and ${holdS} s holds`;
    const [first, last] = [h.flat[0], h.flat[h.flat.length - 1]];
    const what =
      at >= 0
        ? `offered ${h.hold.ratePerSec}/s, not ${level}/s`
        : `moves from ${Math.round(first)} to ${Math.round(last)}/s`;
    return {
      steps: null,
      why: `the offered rate is not a stepped plan: the closest (${shape}) has holds ${listed()}, and step ${i + 1}'s hold (${h.hold.fromS}-${h.hold.toS} s) ${what}`,
      plan,
      failedStep: i,
      fallsShort: at >= 0 ? h.hold.ratePerSec < level : last < first,
    };
  }
  // holds of a few seconds between long "ramps": a rate that rose by itself (a closed model whose
  // throughput crept up), its steps judged on a second or two
  if (holdS < SHORT_HOLD_S && rampS >= 2 * holdS)
    return {
      steps: null,
      uneven: true,
      why: `the offered rate is not a stepped plan: the closest (${startPerSec} + i x ${stepPerSec} arrivals/s) has ${rampS} s ramps and holds of only ${holdS} s (holds ${listed()}): a rate that rose by itself, not steps held long enough to judge`,
    };
  const bent = bentRamp(offered, plan, startPerSec, stepPerSec, countEndS, wholeSeconds);
  if (bent !== null)
    return {
      steps: null,
      uneven: true,
      why: `the offered rate is not an evenly stepped plan: the closest (${startPerSec} + i x ${stepPerSec} arrivals/s, ${rampS} s ramps and ${holdS} s holds) has holds ${listed()}, but ${bent}`,
    };
  const fromS = Math.ceil(plan.offsetS + plan.steps * plan.periodS);
  const later = offered.slice(fromS + 1).filter((v) => v > 0);
  return {
    steps: { startPerSec, stepPerSec, maxPerSec: startPerSec + (plan.steps - 1) * stepPerSec, rampS, holdS },
    holds: holds.map((h) => h.hold),
    after: { fromS, seconds: later.length, arrivals: Math.round(later.reduce((a, v) => a + v, 0)) },
  };
}
