import { describe, expect, it } from 'vitest';
import type { StepPlan } from '../../../analysis/types.ts';
import { endedEarly } from './ended-early.ts';

/** Steps of `rates` with 2 s ramps and 6 s holds from t = 0 (a settle of 2 s). */
function plan(rates: number[]): StepPlan[] {
  return rates.map((ratePerSec, index) => {
    const rampStartS = index * 8;
    return {
      index,
      ratePerSec,
      rampStartS,
      holdStartS: rampStartS + 2,
      holdEndS: rampStartS + 8,
      steadyStartS: rampStartS + 4,
      steadyEndS: rampStartS + 8,
    };
  });
}

/** Arrivals per second: each stage [rate, seconds] in turn. */
function seconds(...stages: [number, number][]): number[] {
  return stages.flatMap(([rate, n]) => Array.from({ length: n }, () => rate));
}

describe('endedEarly: a file of whole lines that ends mid-step', () => {
  const steps = plan([60, 120, 180]);
  const held = seconds([60, 8], [120, 8], [180, 8]);

  it('a run that reaches the end of its last hold ended where planned', () => {
    expect(endedEarly([...held, 0], steps, false)).toBeNull();
  });

  it('arrivals that end inside a hold: the step and how long it held', () => {
    expect(endedEarly(held.slice(0, 21), steps, false)).toMatchObject({ in: 'step', lastS: 20, heldS: 2 });
  });

  it('arrivals that rise above the last step and end there: a next step, cut', () => {
    const cut = [...held, 200, 220, 240, 240];
    expect(endedEarly(cut, steps, false)).toMatchObject({ in: 'ramp-beyond', lastS: 27, peakPerSec: 240 });
  });

  it.each([
    ['a short top step, then a ramp down', [...held, 200, 220, 240, 240, 200, 150, 100, 50, 10]],
    ['a ramp down after the last hold', [...held, 150, 100, 50, 10]],
    ['a peak past the last hold, then a fall back under its rate', [...held, 240, 240, 240, 100, 100, 100]],
  ])('%s is a complete run: not ended early (it read interrupted, its capacity lost)', (_what, offered) => {
    expect(endedEarly(offered, steps, false)).toBeNull();
  });
});

describe('endedEarly at whole-second timestamps', () => {
  const steps = plan([60, 120, 180]);

  it("a collapsed last hold's seconds stray by its own noise: its last one above its rate is no next step", () => {
    // 180/s read 200, 158, 195, 163, 198, 166 (a collapsed step's starts and drops taking turns)
    const noisy = [...seconds([60, 8], [120, 8], [180, 2]), 200, 158, 195, 163, 198, 166, 196, 30];
    expect(endedEarly(noisy, steps, true)).toBeNull();
    expect(endedEarly(noisy, steps, false)).toMatchObject({ in: 'ramp-beyond' });
  });

  it('a clean last hold, then a rise to a next step, cut: still a next step, cut', () => {
    const held = seconds([60, 8], [120, 8], [180, 8]);
    expect(endedEarly([...held, 200, 220, 240, 240], steps, true)).toMatchObject({ in: 'ramp-beyond', lastS: 27 });
  });
});
