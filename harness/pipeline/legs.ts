/**
 * A leg is one engine run over the steps from `fromIndex` to the end of the plan, starting at
 * `startS` on the steps phase's clock. The first leg is the plan itself; a rerun starts a new leg
 * at the rerun step (its ramp from the previous step's rate), so reruns keep the plan's shape.
 */
import type { StepPlan } from '../../analysis/types.ts';
import type { Segment } from '../../analysis/schedule.ts';
import type { Plan } from '../../analysis/plan.ts';

/** A step of a leg: its plan on the steps phase's clock and which attempt at its rate it is. */
export type LegStep = StepPlan & { attempt: number };

export interface Leg {
  startS: number;
  steps: LegStep[];
  segments: Segment[];
}

export function legOf(plan: Plan, fromIndex: number, startS: number, attempt: number): Leg {
  const first = plan.steps[fromIndex];
  const shiftS = startS - first.rampStartS;
  const steps = plan.steps.slice(fromIndex).map((s, i) => ({
    ...s,
    rampStartS: s.rampStartS + shiftS,
    holdStartS: s.holdStartS + shiftS,
    holdEndS: s.holdEndS + shiftS,
    steadyStartS: s.steadyStartS + shiftS,
    steadyEndS: s.steadyEndS + shiftS,
    attempt: i === 0 ? attempt : 1,
  }));
  // The plan's segments: one ramp (when rampS > 0) and one hold per step.
  const perStep = plan.segments.length / plan.steps.length;
  return { startS, steps, segments: plan.segments.slice(fromIndex * perStep) };
}
