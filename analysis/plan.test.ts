import { describe, expect, it } from 'vitest';
import { settleSOf } from './plan.ts';

describe('the default settle', () => {
  it('is max(5 s, 10% of the hold), at most half the hold, in whole seconds rounded down', () => {
    // [holdS, settleS]: half the hold caps short holds (a 5 s hold settled 3 s, more than half, before)
    const table: [number, number][] = [
      [1, 0],
      [3, 1],
      [5, 2],
      [10, 5],
      [12, 5],
      [60, 6],
      [75, 7],
    ];
    for (const [holdS, settleS] of table) {
      expect(settleSOf({ holdS }), `hold ${holdS} s`).toBe(settleS);
      expect(settleSOf({ holdS })).toBeLessThanOrEqual(holdS / 2);
    }
    expect(settleSOf({ holdS: 5, settleS: 4 })).toBe(4);
  });
});
