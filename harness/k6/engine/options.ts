/**
 * The plan as k6 `options`: one ramping-arrival-rate scenario whose stages are the plan's
 * segments (a ramp from the previous rate, then a hold; a 0 s stage where the plan jumps), so
 * k6's arrival n happens where the integral of the same piecewise-linear rate reaches n, exactly
 * as the native schedule.
 * Nothing secret goes here: the options are written into the script.
 */
import type { Plan } from '../../../analysis/plan.ts';

export const K6_SCENARIO = 'plateau';
export const SUMMARY_TREND_STATS = ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)', 'p(99)', 'p(99.9)', 'count'];

export interface K6Stage {
  duration: string;
  target: number;
}

export interface K6Options {
  scenarios: Record<
    string,
    {
      executor: 'ramping-arrival-rate';
      startRate: number;
      timeUnit: string;
      preAllocatedVUs: number;
      maxVUs: number;
      stages: K6Stage[];
      gracefulStop: string;
    }
  >;
  summaryTrendStats: string[];
  discardResponseBodies: boolean;
}

/** Go duration text; whole milliseconds so that k6 parses it exactly. */
function goDuration(seconds: number): string {
  return Number.isInteger(seconds) ? `${seconds}s` : `${Math.round(seconds * 1000)}ms`;
}

/**
 * k6 reads startRate and every stage target as whole numbers of arrivals per timeUnit; a plan with
 * a fractional rate (2.5/s) is written per 1,000 s (2,500), which is the same rate.
 */
function timeUnitOf(plan: Pick<Plan, 'segments'>): { timeUnit: string; scale: number } {
  const whole = plan.segments.every((s) => Number.isInteger(s.fromPerSec) && Number.isInteger(s.toPerSec));
  return whole ? { timeUnit: '1s', scale: 1 } : { timeUnit: '1000s', scale: 1000 };
}

export function k6Options(plan: Pick<Plan, 'segments' | 'vus'>, gracefulStopS: number): K6Options {
  const { timeUnit, scale } = timeUnitOf(plan);
  const per = (rate: number) => Math.round(rate * scale);
  const stages: K6Stage[] = [];
  let at = plan.segments[0]?.fromPerSec ?? 0;
  for (const s of plan.segments) {
    // k6 ramps every stage from the previous target: a jump (no ramp, rampS 0) is a stage of 0 s
    if (s.fromPerSec !== at) stages.push({ duration: '0s', target: per(s.fromPerSec) });
    stages.push({ duration: goDuration(s.durationS), target: per(s.toPerSec) });
    at = s.toPerSec;
  }
  return {
    scenarios: {
      [K6_SCENARIO]: {
        executor: 'ramping-arrival-rate',
        startRate: per(plan.segments[0]?.fromPerSec ?? 0),
        timeUnit,
        preAllocatedVUs: plan.vus.preAllocatedVUs,
        maxVUs: plan.vus.maxVUs,
        stages,
        gracefulStop: goDuration(gracefulStopS),
      },
    },
    summaryTrendStats: SUMMARY_TREND_STATS,
    // every request sets its own responseType ('text' where a check or a transaction reads the
    // body, else 'none'): this default leaves any other body unread
    discardResponseBodies: true,
  };
}
