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
  it.each(plans.flatMap((p) => [false, true].map((blurred) => ({ ...p, blurred }))))(
    'places $start + i x $step, $rampS s ramps in $periodS s periods, starting $offsetS s in (whole seconds: $blurred)',
    ({ blurred, ...p }) => {
      const endS = 5 * p.periodS;
      const y = series(p, endS, blurred);
      const placed = placePlan(y, endS, endS, coarseCandidates(y, endS, 3, 6), 3, blurred);
      expect(placed).not.toBeNull();
      expect({ periodS: placed!.periodS, rampS: placed!.rampS }).toEqual({ periodS: p.periodS, rampS: p.rampS });
      expect(placed!.offsetS).toBeCloseTo(p.offsetS, 5);
      expect(placed!.startPerSec).toBeCloseTo(p.start, blurred ? -1 : 1);
      expect(Math.abs(placed!.stepPerSec - p.step)).toBeLessThan(blurred ? 0.01 * p.step : 0.05);
      expect(placed!.steps).toBe(5 - (p.offsetS + p.rampS + Math.min(3, p.periodS - p.rampS - 1) > p.periodS ? 1 : 0));
    },
  );
  it('a candidate neighbour a second off is placed on the plan (period and ramp tried a second either way)', () => {
    const p = plans[0];
    const y = series(p, 100, false);
    const placed = placePlan(y, 100, 100, [{ periodS: 21, rampS: 4, perSecond: 0 }], 3);
    expect(placed && { periodS: placed.periodS, rampS: placed.rampS }).toEqual({ periodS: 20, rampS: 5 });
  });
});
