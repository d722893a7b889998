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
 *     a ramp and then a hold, ramps of several slopes, or steps that stand out bend away from it;
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
import { lineThrough, median, tolOf } from './offered-noise.ts';
import { roundest } from './roundest.ts';

/** Seconds a ramp must rise over to be told from a short run's noise. */
const RAMP_MIN_S = 10;
/** The staircase it is compared with: as derive-steps.ts searches for one (MIN_HOLD_S, CANDIDATES). */
const MIN_HOLD_S = 3;
const CANDIDATES = 6;
/**
 * A staircase has more to fit with than a line (its period, ramp and start offset): by the Bayesian
 * information criterion (n ln(sse / n) + k ln n) it is the closer only when it leaves n^(3 / n)
 * times less squared difference over n seconds (1.23 at 60 s). Whole-second timestamps blur a
 * staircase of 3 s steps into a line with a ripple, which fitted a ramp's noise a little better.
 */
const EXTRA_PARAMETERS = 3;

export interface ContinuousRamp {
  /** The line's rate where the load began and at its top, arrivals/s. */
  fromPerSec: number;
  toPerSec: number;
  /** How long the line takes between the two. */
  seconds: number;
}

/**
 * The series up to endS (derive-steps.ts: before a part last second, and up to the last second at
 * the top) as a continuous ramp, or null when it is not one.
 */
export function continuousRamp(offered: readonly number[], endS: number, wholeSeconds: boolean): ContinuousRamp | null {
  // the second the load began in may be a part one: judged from the next
  const lead = offered.findIndex((v) => v >= 1);
  const a = lead + 1;
  const n = endS - a;
  if (lead < 0 || n < RAMP_MIN_S) return null;
  const ys = offered.slice(a, endS);
  // y_i = intercept + slope x i, second a + i (its middle, a + i + 0.5)
  const { intercept, slope } = lineThrough(ys);
  const rateAt = (tS: number) => intercept + slope * (tS - a - 0.5);
  const fromPerSec = Math.max(0, rateAt(lead));
  if (!(slope > 0) || rateAt(endS) - fromPerSec < 3 * tolOf(rateAt(endS), wholeSeconds)) return null;
  let sse = 0;
  for (let i = 0; i < n; i++) {
    const line = intercept + slope * i;
    const m = median([ys[i - 1] ?? ys[i], ys[i], ys[i + 1] ?? ys[i]]);
    // the last two seconds may be a fall's first, within the top's tolerance (a ramp up, then down)
    if (i < n - 2 && Math.abs(m - line) > (wholeSeconds ? 2 * tolOf(line, true) + slope : tolOf(line, false)))
      return null;
    sse += (ys[i] - line) ** 2;
  }
  // the staircase over the same seconds: its start may lie up to a second before them (plan-fit.ts
  // OFFSETS), in the part second the load began in
  const stairs = placePlan(ys, n, n, coarseCandidates(ys, n, MIN_HOLD_S, CANDIDATES), MIN_HOLD_S, wholeSeconds);
  if (stairs !== null && stairs.perSecond * n ** (EXTRA_PARAMETERS / n) < sse / n) return null;
  // its top: where the run ended, the line's over the seconds left out at the end (a part second,
  // and with whole seconds its neighbour); where it fell before (a ramp down), half a second's rise
  // past its highest second. Both to the roundest rate within a second's rise (k6's stage targets
  // are round: 50 to 350/s, not 52 to 345; 0 within one), and the ramp's length the line's between
  let arrivalsEnd = offered.length;
  while (arrivalsEnd > 0 && !(offered[arrivalsEnd - 1] > 0)) arrivalsEnd--;
  const leftOutS = wholeSeconds ? 2 : 1;
  const top = arrivalsEnd - endS <= leftOutS ? rateAt(endS) + slope * (leftOutS - 0.5) : Math.max(...ys) + slope / 2;
  const from = fromPerSec <= slope ? 0 : roundest(fromPerSec, slope);
  const to = roundest(top, slope);
  return { fromPerSec: from, toPerSec: to, seconds: Math.round((to - from) / slope) };
}

/** What the offered rate did: "rose continuously from 50 to 350/s over 60 s, with no holds". */
export function continuousRampClause(r: ContinuousRamp): string {
  return `rose continuously from ${r.fromPerSec} to ${r.toPerSec}/s over ${r.seconds} s, with no holds`;
}

/** Why no plan is derived, as the flat run's "held one rate only" says it. */
export function continuousRampText(r: ContinuousRamp): string {
  return `the offered rate ${continuousRampClause(r)}: there are no steps to judge`;
}

/** What to run instead: the stages of a stepped plan, as plateau's own k6 script writes them (engine/options.ts). */
export const HELD_STAGES_FIX =
  "plateau judges a run of rising steps, each rate held: run k6 again with a ramping-arrival-rate scenario whose stages ramp to each rate, then hold it (stages: [{ duration: '2s', target: 50 }, { duration: '8s', target: 50 }, { duration: '2s', target: 100 }, { duration: '8s', target: 100 }, ...]; plateau k6-script writes such a script from a plateau config)";
