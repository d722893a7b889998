/**
 * The plan as k6 `options`: one ramping-arrival-rate scenario whose stages are the plan's
 * segments (a ramp from the previous rate, then a hold), so k6's arrival n happens where the
 * integral of the same piecewise-linear rate reaches n, exactly as the native schedule.
 * Nothing secret goes here: the options are written into the script.
 */
import type { Plan } from '../plan.ts';

export const K6_SCENARIO = 'plateau';
export const SUMMARY_TREND_STATS = ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)', 'p(99)', 'p(99.9)', 'count'];

export interface K6Stage { duration: string; target: number }

export interface K6Options {
  scenarios: Record<string, {
    executor: 'ramping-arrival-rate';
    startRate: number;
    timeUnit: '1s';
    preAllocatedVUs: number;
    maxVUs: number;
    stages: K6Stage[];
    gracefulStop: string;
  }>;
  summaryTrendStats: string[];
  discardResponseBodies: boolean;
}

/** Go duration text; whole milliseconds so that k6 parses it exactly. */
function goDuration(seconds: number): string {
  return Number.isInteger(seconds) ? `${seconds}s` : `${Math.round(seconds * 1000)}ms`;
}

export function k6Options(plan: Pick<Plan, 'segments' | 'vus'>, gracefulStopS: number): K6Options {
  const stages = plan.segments.map((s) => ({ duration: goDuration(s.durationS), target: s.toPerSec }));
  return {
    scenarios: {
      [K6_SCENARIO]: {
        executor: 'ramping-arrival-rate',
        startRate: plan.segments[0]?.fromPerSec ?? 0,
        timeUnit: '1s',
        preAllocatedVUs: plan.vus.preAllocatedVUs,
        maxVUs: plan.vus.maxVUs,
        stages,
        gracefulStop: goDuration(gracefulStopS),
      },
    },
    summaryTrendStats: SUMMARY_TREND_STATS,
    // the portable check sees status and headers only, so bodies need not be kept
    discardResponseBodies: true,
  };
}
