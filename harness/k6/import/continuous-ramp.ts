/**
 * A continuous ramp: an offered rate that rose on a straight line from where the load began to its
 * top, with no hold on the way (a ramping-arrival-rate of one long stage). It has no steps to judge.
 * Where no plan fitted one, the closest staircase's "holds" were listed as if the run had held
 * them, and the fix (give the step flags) led to a refusal of the flags whose fix (drop them) led
 * back; at whole seconds a staircase of 3 s holds was fitted to one (55 + i x 15/s) and judged.
 * Said as the flat run's refusal is said, with a fix that works: stages that hold each rate.
 *
 * A series is one when it
 *   rises: by 3 tolerances of its top or more, over RAMP_MIN_S seconds or more;
 *   is straight: every 3-second median lies within a tolerance of the least-squares line through
 *     the seconds (two and a second's rise with whole-second timestamps, whose seconds are noisier):
 *     a ramp and then a hold, or steps that stand out, bend away from it; or straight in pieces:
 *     the line bent once or twice (ramp-slopes.ts), each piece 10 s or more and rising by 3
 *     tolerances of its top or more, so that a hold is no piece (k6 stages ramping on at other slopes);
 *   has no steps: the closest staircase, placed as derive-steps.ts places one (plan-search.ts,
 *     plan-fit.ts), fits the same seconds no better than the line, allowing for its extra
 *     parameters (a staircase whose steps stand out of the noise fits its own seconds far better
 *     than any line; on a line, a staircase's holds and steeper ramps leave more).
 * Sweeps (2026-12-07; ramps and stepped plans at millisecond and whole-second stamps, iterations of
 * 5 to 205 ms): 160 random ramps (0-500/s rising by 50-1,500/s over 20-300 s, some then ramping
 * down) all read as ramps (3 of them, at whole seconds, had been judged as steps of 3 s holds); of
 * 560 random stepped plans (holds 3-30 s, steps 5-100% of the start), none did, and each derived
 * what it derived before. Pure.
 */
import { coarseCandidates } from './plan-search.ts';
import { placePlan } from './plan-fit.ts';
import { secondBlur } from './second-blur.ts';
import type { OfferedPhases } from '../output/offered.ts';
import { lineThrough, median, tolOf } from './offered-noise.ts';
import { roundest } from './roundest.ts';
import { bentLine } from './ramp-slopes.ts';

/** Seconds a ramp must rise over to be told from a short run's noise. */
const RAMP_MIN_S = 10;
/** The staircase it is compared with: as derive-steps.ts searches for one (MIN_HOLD_S, CANDIDATES). */
const MIN_HOLD_S = 3;
const CANDIDATES = 6;
/**
 * A staircase has more to fit with than a line (its start, step, period, ramp and start offset: 5
 * to the line's 2; a bend adds 2): by the Bayesian information criterion (n ln(sse / n) + k ln n)
 * it is the closer to a line only when it leaves n^(3 / n) times less squared difference over n
 * seconds (1.23 at 60 s). Whole-second timestamps blur a staircase of 3 s steps into a line with a
 * ripple, which fitted a ramp's noise a little better.
 */
const STAIRS_PARAMETERS = 5;

export interface ContinuousRamp {
  /** The line's rate where the load began and at its top, arrivals/s. */
  fromPerSec: number;
  toPerSec: number;
  /** How long the line takes between the two. */
  seconds: number;
  /** Where it rose in pieces of other slopes (ramp-slopes.ts), each piece's end and length, first to last. */
  pieces?: { toPerSec: number; seconds: number }[];
}

/** A straight or bent line through the seconds, and the slope of each of its pieces. */
interface Fit {
  at(i: number): number;
  slopes: number[];
  bends: number[];
}

/**
 * The series up to endS (derive-steps.ts: before a part last second, and up to the last second at
 * the top) as a continuous ramp, or null when it is not one: a line first, then one bent once or
 * twice (ramp-slopes.ts), each piece rising.
 */
export function continuousRamp(
  offered: readonly number[],
  endS: number,
  wholeSeconds: boolean,
  phases?: OfferedPhases,
): ContinuousRamp | null {
  // the second the load began in may be a part one: judged from the next
  const lead = offered.findIndex((v) => v >= 1);
  const a = lead + 1;
  const n = endS - a;
  if (lead < 0 || n < RAMP_MIN_S) return null;
  const ys = offered.slice(a, endS);
  // y_i = intercept + slope x i, second a + i (its middle, a + i + 0.5)
  const { intercept, slope } = lineThrough(ys);
  const fits: (Fit | null)[] = [{ at: (i) => intercept + slope * i, slopes: [slope], bends: [] }];
  let stairs: ReturnType<typeof placePlan> | undefined;
  for (let k = 0; k <= 2; k++) {
    const fit = k === 0 ? fits[0] : bentLine(ys, k as 1 | 2);
    if (fit === null) continue;
    const sse = riseOf(fit, ys, lead, a, endS, wholeSeconds);
    if (sse === null) continue;
    // the staircase over the same seconds: its start may lie up to a second before them (plan-fit.ts
    // OFFSETS), in the part second the load began in
    stairs ??= placePlan(
      ys,
      n,
      n,
      coarseCandidates(ys, n, MIN_HOLD_S, CANDIDATES),
      MIN_HOLD_S,
      secondBlur(n, wholeSeconds, phases, a),
    );
    if (stairs !== null && stairs.perSecond * n ** ((STAIRS_PARAMETERS - 2 - 2 * k) / n) < sse / n) continue;
    return described(fit, offered, lead, a, endS, wholeSeconds);
  }
  return null;
}

/**
 * The fit's squared difference from the seconds where it is a rise (every piece rising by 3
 * tolerances of its top or more) that every second's 3-second median follows within a tolerance
 * (two and a second's rise with whole-second timestamps, whose seconds are noisier); else null.
 */
function riseOf(
  fit: Fit,
  ys: readonly number[],
  lead: number,
  a: number,
  endS: number,
  wholeSeconds: boolean,
): number | null {
  const n = ys.length;
  const rateAt = (tS: number) => fit.at(tS - a - 0.5);
  const edges = [lead, ...fit.bends.map((b) => a + b + 0.5), endS];
  for (let j = 0; j < fit.slopes.length; j++) {
    const top = rateAt(edges[j + 1]);
    if (!(fit.slopes[j] > 0) || top - Math.max(0, rateAt(edges[j])) < 3 * tolOf(top, wholeSeconds)) return null;
  }
  const steepest = Math.max(...fit.slopes);
  let sse = 0;
  for (let i = 0; i < n; i++) {
    const line = fit.at(i);
    const m = median([ys[i - 1] ?? ys[i], ys[i], ys[i + 1] ?? ys[i]]);
    // the last two seconds may be a fall's first, within the top's tolerance (a ramp up, then down)
    if (i < n - 2 && Math.abs(m - line) > (wholeSeconds ? 2 * tolOf(line, true) + steepest : tolOf(line, false)))
      return null;
    sse += (ys[i] - line) ** 2;
  }
  return sse;
}

/**
 * The ramp's rates and length. Its top: where the run ended, the line's over the seconds left out
 * at the end (a part second, and with whole seconds its neighbour); where it fell before (a ramp
 * down), half a second's rise past its highest second. Each rate to the roundest within a second's
 * rise (k6's stage targets are round: 50 to 350/s, not 52 to 345; 0 within one), and each piece's
 * length the line's between its rates.
 */
function described(
  fit: Fit,
  offered: readonly number[],
  lead: number,
  a: number,
  endS: number,
  wholeSeconds: boolean,
): ContinuousRamp {
  const ys = offered.slice(a, endS);
  const rateAt = (tS: number) => fit.at(tS - a - 0.5);
  const first = fit.slopes[0];
  const last = fit.slopes[fit.slopes.length - 1];
  let arrivalsEnd = offered.length;
  while (arrivalsEnd > 0 && !(offered[arrivalsEnd - 1] > 0)) arrivalsEnd--;
  const leftOutS = wholeSeconds ? 2 : 1;
  const top = arrivalsEnd - endS <= leftOutS ? rateAt(endS) + last * (leftOutS - 0.5) : Math.max(...ys) + last / 2;
  const fromPerSec = Math.max(0, rateAt(lead));
  const from = fromPerSec <= first ? 0 : roundest(fromPerSec, first);
  const to = roundest(top, last);
  const tos = [...fit.bends.map((b, j) => roundest(fit.at(b), fit.slopes[j])), to];
  const pieces = tos.map((t, j) => ({
    toPerSec: t,
    seconds: Math.round((t - (j === 0 ? from : tos[j - 1])) / fit.slopes[j]),
  }));
  const seconds = pieces.reduce((s, p) => s + p.seconds, 0);
  return { fromPerSec: from, toPerSec: to, seconds, ...(pieces.length > 1 ? { pieces } : {}) };
}

/**
 * What the offered rate did: "rose continuously from 50 to 350/s over 60 s, with no holds", and
 * where it rose in pieces ", in 2 slopes (to 100/s over 20 s, then to 400/s over 20 s)" before the holds.
 */
export function continuousRampClause(r: ContinuousRamp): string {
  const pieces = r.pieces
    ? `, in ${r.pieces.length} slopes (${r.pieces.map((p) => `to ${p.toPerSec}/s over ${p.seconds} s`).join(', then ')})`
    : '';
  return `rose continuously from ${r.fromPerSec} to ${r.toPerSec}/s over ${r.seconds} s${pieces}, with no holds`;
}

/** Why no plan is derived, as the flat run's "held one rate only" says it. */
export function continuousRampText(r: ContinuousRamp): string {
  return `the offered rate ${continuousRampClause(r)}: there are no steps to judge`;
}

/** What to run instead: the stages of a stepped plan, as plateau's own k6 script writes them (engine/options.ts). */
export const HELD_STAGES_FIX =
  "plateau judges a run of rising steps, each rate held: run k6 again with a ramping-arrival-rate scenario whose stages ramp to each rate, then hold it (stages: [{ duration: '2s', target: 50 }, { duration: '8s', target: 50 }, { duration: '2s', target: 100 }, { duration: '8s', target: 100 }, ...]; plateau k6-script writes such a script from a plateau config)";
