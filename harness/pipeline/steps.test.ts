import { describe, expect, it } from 'vitest';
import { stepResult } from '../../analysis/testing/builders.ts';
import { cutDetail, stepsDetail } from './steps.ts';

describe('the steps stage detail', () => {
  const held = [stepResult({ index: 0 }), stepResult({ index: 1 })];
  it('says every step held only when every planned step was judged', () => {
    expect(stepsDetail(held, 2)).toBe('all 2 steps held');
    expect(stepsDetail(held.slice(0, 1), 2)).toBe('1 of 2 steps judged, all held; the other 1 produced no data');
  });

  it('names the step that did not hold, or where the run was interrupted', () => {
    const failed = [
      ...held,
      stepResult({ index: 2, ratePerSec: 300, verdict: 'fails' }),
      stepResult({ index: 2, ratePerSec: 300, verdict: 'fails', attempt: 2 }),
    ];
    expect(stepsDetail(failed, 5)).toBe('3 of 5 steps run; step 3 (300 req/s) did not hold');
  });

  it('names the step whose topology changed during every attempt, not "all held"', () => {
    const dirty = { ratePerSec: 300, contaminated: true };
    const unsteady = [...held, stepResult({ index: 2, ...dirty }), stepResult({ index: 2, attempt: 2, ...dirty })];
    expect(stepsDetail(unsteady, 5)).toBe(
      '3 of 5 steps run; step 3 (300 req/s): the topology changed during every attempt at it',
    );
  });

  // the stop line (analysis/interrupted-stop.ts) says where the cut fell and the last attempt that
  // ended in the same words (analysis/cut.ts), with the rates: analysis/cut.test.ts
  it.each<[string, readonly ReturnType<typeof stepResult>[], Parameters<typeof cutDetail>[2], string]>([
    [
      'mid-step 3',
      held,
      { index: 2, attempt: 1, phase: 'hold', ratePerSec: 300 },
      'interrupted during step 3 of 5 (its hold), after step 2',
    ],
    [
      'in the ramp',
      held,
      { index: 2, attempt: 1, phase: 'ramp', ratePerSec: 300 },
      'interrupted during step 3 of 5 (its ramp), after step 2',
    ],
    [
      "in step 2's rerun",
      [...held.slice(0, 1), stepResult({ index: 1, verdict: 'fails' })],
      { index: 1, attempt: 2, phase: 'hold', ratePerSec: 300 },
      'interrupted during step 2 of 5 (its rerun, attempt 2), after its attempt 1',
    ],
    [
      'before any step ended',
      [],
      { index: 0, attempt: 1, phase: 'ramp', ratePerSec: 300 },
      'interrupted during step 1 of 5 (its ramp), before any step ended',
    ],
    [
      'between steps',
      held,
      { index: 2, attempt: 1, phase: 'before', ratePerSec: 300 },
      'interrupted before step 3 of 5, after step 2',
    ],
    ['after every attempt ended', held, null, 'interrupted after step 2'],
  ])('says where the cut fell: %s', (_, judged, cut, detail) => {
    expect(cutDetail(judged, 5, cut)).toBe(detail);
  });
});
