import { describe, expect, it } from 'vitest';
import { bucketQuantile, histogramDelta, judgedWindow, resetInside, serverPercentiles } from './server-histogram.ts';
import { newHistogram, recordUs } from './histogram.ts';
import { percentiles } from './percentiles.ts';
import type { HistogramReading, ServerWindow } from './types.ts';

const h = (boundsMs: number[], cumulative: number[]): HistogramReading => ({ boundsMs, cumulative });

describe('bucketQuantile: histogram_quantile over a window', () => {
  it("interpolates linearly inside the bucket that holds the rank (ClickHouse's worked example of the same rule)", () => {
    // le 0: 6, le 0.5: 11, le 1: 14, +Inf: 19 -> the median is 0.35 (rank 9.5, 3.5 of the 5 in (0, 0.5])
    const p = bucketQuantile(50, h([0, 500, 1000], [6, 11, 14, 19]));
    expect(p.valueMs).toBeCloseTo(350, 9);
    expect(p).toMatchObject({ q: 50, lowerMs: 0, upperMs: 500, n: 19 });
  });

  it('the first bucket starts at 0; a rank exactly at a bound is that bound', () => {
    // 100 requests: 40 <= 5 ms, 50 in (5, 10], 10 in (10, 25]
    const w = h([5, 10, 25], [40, 90, 100, 100]);
    expect(bucketQuantile(20, w)).toMatchObject({ valueMs: 2.5, lowerMs: 0, upperMs: 5 });
    expect(bucketQuantile(90, w)).toMatchObject({ valueMs: 10, lowerMs: 5, upperMs: 10 });
    expect(bucketQuantile(50, w).valueMs).toBeCloseTo(5 + 5 * (10 / 50), 9);
    expect(bucketQuantile(99, w).valueMs).toBeCloseTo(10 + 15 * (9 / 10), 9);
  });

  it('a rank in the +Inf bucket gives the highest finite bound, with no upper bound to read it by', () => {
    const w = h([5, 10], [10, 20, 100]);
    expect(bucketQuantile(99, w)).toEqual({ q: 99, valueMs: 10, lowerMs: 10, upperMs: null, n: 100 });
  });

  it('a window without requests has no value; a dip between bounds is raised as Prometheus does', () => {
    expect(bucketQuantile(50, h([5, 10], [0, 0, 0])).valueMs).toBeNull();
    // le 10 read one lower than le 5 (a scrape racing the updates): taken as 10, so (10, 25] holds 10, not 11
    const p = bucketQuantile(60, h([5, 10, 25], [10, 9, 20, 20]));
    expect(p).toMatchObject({ lowerMs: 10, upperMs: 25 });
    expect(p.valueMs).toBeCloseTo(10 + 15 * (2 / 10), 9);
  });

  it('gives p50, p90 and p99', () => {
    expect(serverPercentiles(h([5, 10, 25], [40, 90, 100, 100])).map((p) => p.q)).toEqual([50, 90, 99]);
  });
});

describe('histogramDelta and resetInside', () => {
  it('subtracts per bound; a histogram absent at the start counts from zero', () => {
    const a = h([5, 10], [10, 20, 25]);
    const b = h([5, 10], [15, 40, 50]);
    expect(histogramDelta(a, b)).toEqual(h([5, 10], [5, 20, 25]));
    expect(histogramDelta(null, b)).toEqual(b);
  });

  it('is null when the bounds changed or a count went backwards (never a negative count)', () => {
    expect(histogramDelta(h([5, 10], [1, 2, 3]), h([5, 25], [1, 2, 3]))).toBeNull();
    expect(histogramDelta(h([5, 10], [10, 20, 30]), h([5, 10], [1, 2, 3]))).toBeNull();
  });

  it('finds a count that went backwards between consecutive readings, even when the edges look fine', () => {
    const up = [h([5], [1, 2]), h([5], [5, 8]), h([5], [9, 12])];
    expect(resetInside(up)).toBe(false);
    // a restart in the middle, then more requests than before it by the end
    expect(resetInside([h([5], [10, 20]), h([5], [1, 2]), h([5], [30, 40])])).toBe(true);
    expect(resetInside([null, h([5], [1, 2]), undefined, h([5], [3, 4])])).toBe(false);
  });
});

describe("judgedWindow: a server percentile trusted by the client's rule", () => {
  const w = (n: number): ServerWindow => ({
    source: 'scrape',
    fromS: 6,
    toS: 10,
    throughputPerSec: n / 4,
    meanMs: 18.8,
    maxMs: null,
    poolActiveMax: null,
    poolPendingMax: null,
    poolMax: null,
    percentiles: serverPercentiles(h([8.39, 39.1, 44.7], [Math.round(n * 0.6), Math.round(n * 0.8), n, n])),
  });

  it("marks b1's step 1 as the client's would be: of 171 requests the p50 holds, the p90 (300) and p99 (3,000) do not", () => {
    const ps = judgedWindow(w(171), 30)!.percentiles!;
    expect(ps.map((p) => [p.q, p.n, p.reliable])).toEqual([
      [50, 171, true],
      [90, 171, false],
      [99, 171, false],
    ]);
    // the client's percentiles of as many samples, by its own code, agree
    const c = newHistogram();
    for (let i = 0; i < 171; i++) recordUs(c, 10_000 + i * 100);
    expect(percentiles(c, [50, 90, 99], 30).map((p) => p.reliable)).toEqual(ps.map((p) => p.reliable));
  });

  it('follows rules.minTailSamples: 3,000 requests make a p99 at 30, not at 50; a window without percentiles is left as it is', () => {
    expect(judgedWindow(w(3000), 30)!.percentiles![2]!.reliable).toBe(true);
    expect(judgedWindow(w(3000), 50)!.percentiles![2]!.reliable).toBe(false);
    expect(judgedWindow(w(4999), 50)!.percentiles![2]!.reliable).toBe(false);
    expect(judgedWindow(w(5000), 50)!.percentiles![2]!.reliable).toBe(true);
    const bare = { ...w(10), percentiles: undefined };
    expect(judgedWindow(bare, 30)).toBe(bare);
    expect(judgedWindow(null, 30)).toBeNull();
  });
});
