import { describe, expect, it } from 'vitest';
import { stepResult } from '../../analysis/testing/builders.ts';
import { stepsDetail } from './steps.ts';

describe('the steps stage detail', () => {
  const held = [stepResult({ index: 0 }), stepResult({ index: 1 })];
  it('says every step held only when every planned step was judged', () => {
    expect(stepsDetail(held, 2, null)).toBe('all 2 steps held');
    expect(stepsDetail(held.slice(0, 1), 2, null)).toBe('1 of 2 steps judged, all held; the other 1 produced no data');
  });

  it('names the step that did not hold, or where the run was interrupted', () => {
    const failed = [
      ...held,
      stepResult({ index: 2, ratePerSec: 300, verdict: 'fails' }),
      stepResult({ index: 2, ratePerSec: 300, verdict: 'fails', attempt: 2 }),
    ];
    expect(stepsDetail(failed, 5, null)).toBe('3 of 5 steps run; step 3 (300 req/s) did not hold');
    expect(stepsDetail(held, 5, 2)).toBe('interrupted at step 3 of 5');
  });
});
