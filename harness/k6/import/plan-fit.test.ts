import { describe, expect, it } from 'vitest';
import { placePlan } from './plan-fit.ts';
import { coarseCandidates } from './plan-search.ts';

/** The plan's rate at tau seconds after its start, written out here, apart from plan-fit.ts's integral. */
function rateAt(tau: number, start: number, step: number, rampS: number, periodS: number): number {
  if (tau < 0) return 0;
  const k = Math.floor(tau / periodS);
  const level = start + k * step;
  const before = k === 0 ? 0 : level - step;
  const into = tau - k * periodS;
  return into < rampS ? before + ((level - before) * into) / rampS : level;
}

/**
 * Offered arrivals per second of a plan starting offsetS after second 0, by a fine sum (100 points
 * a second); blurred, each second's count also spread by the triangle of whole-second timestamps
 * (the difference of two uniform draws, at 40 points).
 */
function series(
  p: { start: number; step: number; rampS: number; periodS: number; offsetS: number },
  endS: number,
  blurred: boolean,
): number[] {
  const perSecond = (from: number) => {
    let sum = 0;
    for (let i = 0; i < 100; i++)
      sum += rateAt(from + (i + 0.5) / 100 - p.offsetS, p.start, p.step, p.rampS, p.periodS) / 100;
    return sum;
  };
  return Array.from({ length: endS }, (_, t) => {
    if (!blurred) return perSecond(t);
    let sum = 0;
    let weight = 0;
    for (let j = 0; j < 40; j++) {
      const z = -1 + (j + 0.5) / 20;
      const w = 1 - Math.abs(z);
      sum += w * perSecond(t - z);
      weight += w;
    }
    return sum / weight;
  });
}

describe('placePlan', () => {
  const plans = [
    { start: 100, step: 50, rampS: 5, periodS: 20, offsetS: 0.35 },
    { start: 40, step: 40, rampS: 0, periodS: 9, offsetS: -0.65 },
    { start: 500, step: 250, rampS: 10, periodS: 30, offsetS: 2.4 },
    { start: 20, step: 10, rampS: 7, periodS: 12, offsetS: 1.05 },
  ];
  const named = (p: (typeof plans)[number]) =>
    `${p.start} + i x ${p.step}, ${p.rampS} s ramps in ${p.periodS} s periods, starting ${p.offsetS} s in`;
  it.each(plans.map((p) => [named(p), p] as const))('places %s, at millisecond stamps', (_, p) => {
    const endS = 5 * p.periodS;
    const y = series(p, endS, false);
    const placed = placePlan(y, endS, endS, coarseCandidates(y, endS, 3, 6), 3)!;
    expect(placed).toMatchObject({ periodS: p.periodS, rampS: p.rampS, steps: 5 });
    expect(placed.offsetS).toBeCloseTo(p.offsetS, 9);
    expect(placed.startPerSec).toBeCloseTo(p.start, 6);
    expect(placed.stepPerSec).toBeCloseTo(p.step, 6);
  });
  it.each(plans.map((p) => [named(p), p] as const))(
    'places %s, at whole-second stamps: their blur fits, where the plan unblurred does not',
    (_, p) => {
      const endS = 5 * p.periodS;
      const y = series(p, endS, true);
      const candidates = coarseCandidates(y, endS, 3, 6);
      const placed = placePlan(y, endS, endS, candidates, 3, true)!;
      expect(placed).toMatchObject({ periodS: p.periodS, rampS: p.rampS, steps: 5 });
      expect(placed.offsetS).toBeCloseTo(p.offsetS, 9);
      expect(Math.abs(placed.startPerSec - p.start)).toBeLessThan(0.05);
      expect(Math.abs(placed.stepPerSec - p.step)).toBeLessThan(0.002);
      // the blur's quarter-second steps against the series' finer triangle: a residual 100 times below the unblurred plan's
      const sharp = placePlan(y, endS, endS, candidates, 3, false)!;
      expect(placed.perSecond).toBeLessThan(sharp.perSecond / 20);
    },
  );
  it('counts the steps whose hold shows 3 s before countEndS', () => {
    const p = plans[0]; // the fifth hold starts at 0.35 + 4 x 20 + 5 = 85.35 s
    const y = series(p, 100, false);
    const candidates = coarseCandidates(y, 100, 3, 6);
    expect(placePlan(y, 100, 88, candidates, 3)?.steps).toBe(4);
    expect(placePlan(y, 100, 89, candidates, 3)?.steps).toBe(5);
  });
  it.each([
    [21, 4],
    [19, 6],
    [21, 8],
    [19, 4],
  ])(
    'a coarse candidate of a %s s period and a %s s ramp is placed on the plan (periods a second either way, ramps a second longer to 3 s shorter)',
    (periodS, rampS) => {
      const y = series(plans[0], 100, false);
      const placed = placePlan(y, 100, 100, [{ periodS, rampS, perSecond: 0 }], 3);
      expect(placed && { periodS: placed.periodS, rampS: placed.rampS }).toEqual({ periodS: 20, rampS: 5 });
    },
  );
});
