import { describe, expect, it } from 'vitest';
import { edgeNoise, trends } from './offered-noise.ts';

describe('a hold that trends', () => {
  it('millisecond stamps: an arrival either side of its two ends is no trend (a 60/s hold was refused as a rise from 59 to 61/s); a rise of 2/s a second is', () => {
    expect(trends([59, 60, 60, 60, 60, 61], false)).toBe(false);
    expect(trends([11, 10, 9], false)).toBe(false);
    expect(trends([55, 57, 59, 61, 63, 65], false)).toBe(true);
    expect(trends([60, 61, 62, 63, 64, 65, 66, 67], false)).toBe(true);
  });

  it("whole seconds: a collapsed step's seconds, as noisy as they measure, are no trend (at a second's known noise, a 240/s hold's were)", () => {
    // a80-seed7.csv's third hold (test/fixtures/k6-sim), its inner seconds judged
    const hold = [225.54, 252.05, 241.83, 226.98, 243.36];
    expect(trends(hold.slice(1, 4), true)).toBe(true);
    expect(trends(hold.slice(1, 4), true, edgeNoise(hold, 0, hold.length))).toBe(false);
  });
});

describe('the noise of the edges between seconds, as the seconds measure it', () => {
  it('a hold read at its rate every second has none; one whose edges move 10 arrivals either way, about 10; a ramp adds none', () => {
    expect(edgeNoise([240, 240, 240, 240, 240], 0, 5)).toBe(0);
    // edges of +10, -10, ... : seconds 240 + e(t + 1) - e(t)
    const e = [10, -10, 10, -10, 10, -10, 10, -10, 10];
    const hold = e.slice(1).map((v, t) => 240 + v - e[t]);
    const ramp = hold.map((v, t) => v + 15 * t);
    expect(edgeNoise(hold, 0, hold.length)).toBeCloseTo(edgeNoise(ramp, 0, ramp.length), 9);
    expect(edgeNoise(hold, 0, hold.length)).toBeGreaterThan(10);
    expect(edgeNoise(hold, 0, hold.length)).toBeLessThan(20);
    expect(edgeNoise(hold, 0, 2)).toBe(0);
  });
});
