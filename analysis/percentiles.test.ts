import { describe, expect, it } from 'vitest';
import { newHistogram, recordUs } from './histogram.ts';
import { percentiles, requiredSamples, tailTrustByShare, trustworthyPercentiles } from './percentiles.ts';

function histogramOf(n: number) {
  const h = newHistogram(64);
  for (let i = 1; i <= n; i++) recordUs(h, i);
  return h;
}

describe('requiredSamples', () => {
  it.each([
    [50, 30, 60],
    [90, 30, 300],
    [99, 30, 3_000],
    [99.9, 30, 30_000],
    [99.99, 30, 300_000],
    [99, 10, 1_000],
    [100, 30, Infinity],
  ])('p%s with %s tail samples needs %s', (q, minTail, needed) => {
    expect(requiredSamples(q, minTail)).toBe(needed);
  });
});

describe('percentiles', () => {
  it.each([
    // n, reliable flags for p50, p90, p99, p99.9
    [59, [false, false, false, false]],
    [60, [true, false, false, false]],
    [299, [true, false, false, false]],
    [300, [true, true, false, false]],
    [2_999, [true, true, false, false]],
    [3_000, [true, true, true, false]],
    [29_999, [true, true, true, false]],
    [30_000, [true, true, true, true]],
  ])('n=%s: reliable %j', (n, flags) => {
    const ps = percentiles(histogramOf(n), [50, 90, 99, 99.9], 30);
    expect(ps.map((p) => p.reliable)).toEqual(flags);
    expect(ps.every((p) => p.n === n)).toBe(true);
  });

  it('gives values in ms and nulls for an empty histogram', () => {
    const [p50] = percentiles(histogramOf(1000), [50]);
    expect(p50.valueMs).toBeCloseTo(0.5, 2);
    const empty = percentiles(newHistogram(64));
    expect(empty.map((p) => [p.valueMs, p.n, p.reliable])).toEqual([
      [null, 0, false],
      [null, 0, false],
      [null, 0, false],
      [null, 0, false],
    ]);
  });
});

describe('trustworthyPercentiles', () => {
  it('says which percentiles a step of a given expected sample count can trust', () => {
    // 100 req/s for a 25 s steady window
    expect(trustworthyPercentiles(2_500, 30)).toEqual([
      { q: 50, requiredSamples: 60, trusted: true },
      { q: 90, requiredSamples: 300, trusted: true },
      { q: 99, requiredSamples: 3_000, trusted: false },
      { q: 99.9, requiredSamples: 30_000, trusted: false },
    ]);
    expect(trustworthyPercentiles(30_000).every((t) => t.trusted)).toBe(true);
    expect(trustworthyPercentiles(0).some((t) => t.trusted)).toBe(false);
  });
});

describe('tailTrustByShare', () => {
  it("gives the first step whose window holds enough of an entry's share for its p99, then its p90", () => {
    const expected = [1_000, 2_000, 4_000, 8_000];
    // 40%: 400, 800, 1,600, 3,200: a p90 (300) from the first step, a p99 (3,000) from the last
    expect(tailTrustByShare(expected, 0.4)).toEqual([
      { q: 99, requiredSamples: 3_000, fromStepIndex: 3 },
      { q: 90, requiredSamples: 300, fromStepIndex: 0 },
    ]);
    // 5% of 1,000 to 6,000: never a p99; exactly 300 at 6,000 reaches a p90 (>=, as trustworthyPercentiles)
    expect(tailTrustByShare([1_000, 2_000, 4_000, 5_000, 6_000], 0.05).map((t) => t.fromStepIndex)).toEqual([null, 4]);
    // a stricter minTailSamples asks for more
    expect(tailTrustByShare(expected, 0.4, 100).map((t) => t.requiredSamples)).toEqual([10_000, 1_000]);
    expect(tailTrustByShare([], 1).map((t) => t.fromStepIndex)).toEqual([null, null]);
  });
});
