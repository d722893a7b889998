/**
 * A topology that never held still: every attempt at a step's rate (a first one and its rerun, or
 * more) read the topology change under it, as an autoscaler reacting to each step's load does. No
 * attempt at that rate measured one system, and each step after it would measure whatever the
 * topology had grown to: the run stops there (decision.ts) and establishes no capacity
 * (docs/decisions/091).
 */
import type { RateUnit, StepResult } from './types.ts';
import { stepName } from './step-name.ts';

/** What makes a run's topology hold still: said wherever a changed topology limits a figure. */
export const TOPOLOGY_FIX =
  'pin the replica count for the test (disable the autoscaler, or set its min = max), or warm the access layer up to its scale before the run';

/** Did the topology change during every attempt at `index`'s rate, and was there more than one? */
export function neverHeldStill(all: readonly StepResult[], index: number): boolean {
  const at = all.filter((s) => s.index === index);
  return at.length > 1 && at.every((s) => s.contaminated === true);
}

/** The first attempt at the first rate whose topology never held still (neverHeldStill), or null. */
export function unsteadyStep(all: readonly StepResult[]): StepResult | null {
  return all.find((s) => neverHeldStill(all, s.index)) ?? null;
}

/** "3 -> 4, then 4 -> 5": each attempt's readings at the rate. */
function changesAt(all: readonly StepResult[], index: number): string {
  return all
    .filter((s) => s.index === index)
    .map((s) => (s.topologyValues ?? []).join(' -> '))
    .join(', then ');
}

/** Why the decision stops at an attempt whose rate's topology never held still. */
export function unsteadyWhy(all: readonly StepResult[], index: number): string {
  const n = all.filter((s) => s.index === index).length;
  return `the topology changed during all ${n} attempts at this rate (${changesAt(all, index)}): it never held still, so nothing further measures one system; ${TOPOLOGY_FIX}`;
}

/**
 * The stop line of a run stopped at `first`, the first attempt at a rate whose topology never held
 * still (stop.ts builds the stop; `heldBefore` is its words for what held before that rate).
 */
export function unsteadyDetail(
  all: readonly StepResult[],
  first: StepResult,
  heldBefore: string,
  unit: RateUnit,
): string {
  return `${stepName(first, unit)}: the topology changed during every attempt at its rate (${changesAt(all, first.index)}): it never held still (an autoscaler reacting to the load, instances joining or leaving), so the run stopped there: capacity not established (${heldBefore}); ${TOPOLOGY_FIX}, and run again`;
}
