import { describe, expect, it } from 'vitest';
import { neverHeldStill, unsteadyStep, unsteadyWhy } from './topology-unsteady.ts';
import { summarizeStop } from './stop.ts';
import { DEFAULT_RULES, stepResult } from './testing/builders.ts';
import type { StepResult } from './types.ts';

const at = (index: number, over: Partial<StepResult> = {}) =>
  stepResult({ index, ratePerSec: 100 * (index + 1), throughputPerSec: 100 * (index + 1), ...over });
const dirty = (index: number, attempt: number, values: number[], over: Partial<StepResult> = {}) =>
  at(index, { attempt, contaminated: true, topologyValues: values, ...over });

describe('a topology that never held still', () => {
  it.each<[string, StepResult[], number | null]>([
    ['a contaminated step whose rerun held still', [at(0), dirty(1, 1, [3, 4]), at(1, { attempt: 2 })], null],
    ['one contaminated attempt and no rerun (topology.rerun false)', [at(0), dirty(1, 1, [3, 4]), at(2)], null],
    ['a rerun contaminated too', [at(0), dirty(1, 1, [3, 4]), dirty(1, 2, [4, 5])], 1],
    [
      'a failed first attempt whose confirmation was contaminated: the failure is the target',
      [at(0), at(1, { verdict: 'fails' }), dirty(1, 2, [3, 4], { verdict: 'fails' })],
      null,
    ],
    ['the first step, twice', [dirty(0, 1, [2, 3]), dirty(0, 2, [3, 4], { verdict: 'fails' })], 0],
  ])('%s', (_what, steps, index) => {
    expect(unsteadyStep(steps)?.index ?? null).toBe(index);
    expect(steps.some((s) => neverHeldStill(steps, s.index))).toBe(index !== null);
  });

  it("stops with no capacity, what held before it kept as a lower bound, both attempts' readings and the fix", () => {
    const steps = [at(0), at(1), dirty(2, 1, [3, 4]), dirty(2, 2, [4, 5])];
    expect(unsteadyWhy(steps, 2)).toBe(
      'the topology changed during all 2 attempts at this rate (3 -> 4, then 4 -> 5): it never held still, so nothing further measures one system; pin the replica count for the test (disable the autoscaler, or set its min = max), or warm the access layer up to its scale before the run',
    );
    const stop = summarizeStop(steps, 5, false, DEFAULT_RULES);
    expect(stop).toEqual({
      capacityPerSec: null,
      heldAtLeastPerSec: 200,
      kneeStep: 1,
      peakPerSec: 200,
      peakStep: 1,
      stopReason: 'topology-unsteady',
      stopDetail:
        'step 3 (300 req/s): the topology changed during every attempt at its rate (3 -> 4, then 4 -> 5): it never held still (an autoscaler reacting to the load, instances joining or leaving), so the run stopped there: capacity not established (at least 200.0 req/s held before it); pin the replica count for the test (disable the autoscaler, or set its min = max), or warm the access layer up to its scale before the run, and run again',
    });
  });

  it('at the first step: nothing held before it; a run that went on past it (recorded before the stop) reads the same', () => {
    const first = summarizeStop([dirty(0, 1, [2, 3]), dirty(0, 2, [3, 4])], 3, false, DEFAULT_RULES);
    expect(first).toMatchObject({ heldAtLeastPerSec: null, kneeStep: null, stopReason: 'topology-unsteady' });
    expect(first.stopDetail).toContain('capacity not established (no step held before it)');
    // steps after it measured whatever the topology had grown to: they raise nothing
    const wentOn = summarizeStop(
      [at(0), dirty(1, 1, [3, 4]), dirty(1, 2, [4, 5]), at(2), at(3)],
      4,
      false,
      DEFAULT_RULES,
    );
    expect([wentOn.stopReason, wentOn.capacityPerSec, wentOn.heldAtLeastPerSec, wentOn.kneeStep]).toEqual([
      'topology-unsteady',
      null,
      100,
      0,
    ]);
  });

  it('a step that failed before it keeps its own stop; an interrupted run keeps interrupted', () => {
    const failedBefore = [at(0), at(1, { verdict: 'fails' }), dirty(2, 1, [3, 4]), dirty(2, 2, [4, 5])];
    expect(summarizeStop(failedBefore, 5, false, DEFAULT_RULES).stopReason).toBe('plateau');
    const steps = [at(0), dirty(1, 1, [3, 4]), dirty(1, 2, [4, 5])];
    expect(summarizeStop(steps, 3, true, DEFAULT_RULES).stopReason).toBe('interrupted');
  });
});
