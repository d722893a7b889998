import { describe, expect, it } from 'vitest';
import { secondBlur } from './second-blur.ts';
import { placePlan } from './plan-fit.ts';
import { coarseCandidates } from './plan-search.ts';

/** Second t's weights by shift in quarter seconds (plan-fit.ts's m: minus 4 x the shift). */
const weightsOf = (b: ReturnType<typeof secondBlur>, t: number) => {
  const out: Record<number, number> = {};
  for (let k = b.start[t]; k < b.start[t + 1]; k++) out[b.m[k]] = b.w[k];
  return out;
};

describe('how each second read the plan', () => {
  it('millisecond stamps: sharp; whole seconds without a tally: the triangle of spans at every phase', () => {
    expect(weightsOf(secondBlur(3, false), 1)).toEqual({ 0: 1 });
    const triangle = weightsOf(secondBlur(3, true), 1);
    for (let m = -3; m <= 3; m++) expect(triangle[m]).toBeCloseTo((1 - Math.abs(m / 4)) / 4, 12);
  });

  it('whole seconds: as the spans around it lay; a second with none, sharp', () => {
    // second 1: spans starting on it (phase 0) and 0.5 s into second 0 and into second 1, 2 to 1 to 1
    const phases = [0, 0, 1, 0, 2, 0, 1, 0];
    expect(weightsOf(secondBlur(3, true, phases), 1)).toEqual({ 0: 0.5, [-2]: 0.25, 2: 0.25 });
    expect(weightsOf(secondBlur(4, true, phases), 3)).toEqual({ 0: 1 });
  });

  it('a plan read sharp at whole seconds (iterations of a few ms, drops) is placed exactly, where the triangle leaves a residual 100 times larger', () => {
    // 20 + i x 20/s, 2 s ramps in 10 s periods, starting 1.1 s in: each second the plan's mean over it
    const rateAt = (tau: number) => {
      if (tau < 0) return 0;
      const k = Math.floor(tau / 10);
      const into = tau - 10 * k;
      const level = 20 + 20 * k;
      const before = k === 0 ? 0 : level - 20;
      return into < 2 ? before + ((level - before) * into) / 2 : level;
    };
    const y = Array.from({ length: 40 }, (_, t) => {
      let sum = 0;
      for (let i = 0; i < 100; i++) sum += rateAt(t + (i + 0.5) / 100 - 1.1) / 100;
      return sum;
    });
    const phases = y.flatMap((v) => [v, 0, 0, 0]);
    const candidates = coarseCandidates(y, 40, 3, 6);
    const placed = placePlan(y, 40, 40, candidates, 3, secondBlur(40, true, phases))!;
    expect(placed).toMatchObject({ periodS: 10, rampS: 2, steps: 4 });
    expect(placed.offsetS).toBeCloseTo(1.1, 9);
    expect(placed.perSecond).toBeLessThan(placePlan(y, 40, 40, candidates, 3, true)!.perSecond / 100);
  });
});
