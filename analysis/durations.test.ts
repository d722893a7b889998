import { describe, expect, it, vi } from 'vitest';
import { aggregate, mergeRecords } from './buckets.ts';
import { decodeDurations } from './durations.ts';
import type { Histogram } from './histogram.ts';
import { seriesOf } from './series.ts';
import { steadyWindowS } from './judge.ts';
import { buildInput, buildPlan, buildRecords, type FakeRunSpec } from './testing/builders.ts';

const SPEC: FakeRunSpec = {
  steps: [
    { ratePerSec: 100, latencyMs: 5 },
    { ratePerSec: 200, latencyMs: 9 },
    { ratePerSec: 300, okPerSec: 240, failedPerSec: 30, latencyMs: 60 },
  ],
  rampS: 2,
  holdS: 8,
  settleS: 2,
  warmupS: 3,
  sources: 2,
};

describe('decodeDurations: every second decoded once, the same figures', () => {
  const merged = mergeRecords(buildRecords(SPEC));
  const windows = buildPlan(SPEC).map(steadyWindowS);

  it("each window's sum is the one aggregate() decodes, and the series' p99s are unchanged", () => {
    const d = decodeDurations(merged, windows);
    expect(d.p99Ms).toEqual(seriesOf(merged).map((p) => p.p99Ms));
    for (const w of windows) {
      const own = aggregate(merged, 'steps', w.fromS, w.toS);
      const given = aggregate(merged, 'steps', w.fromS, w.toS, d.windowSum(w));
      expect(d.windowSum(w)!.totalCount).toBeGreaterThan(0);
      for (const q of [50, 90, 99, 99.9, 100])
        expect(given.hist.duration.getValueAtPercentile(q)).toBe(own.hist.duration.getValueAtPercentile(q));
      expect([given.hist.duration.totalCount, given.hist.duration.mean]).toEqual([
        own.hist.duration.totalCount,
        own.hist.duration.mean,
      ]);
      const { hist: _a, ...givenCounts } = given;
      const { hist: _b, ...ownCounts } = own;
      expect(givenCounts).toEqual(ownCounts);
    }
    expect(d.windowSum({ fromS: 1000, toS: 1001 })).toBeUndefined();
  });

  it("analyzeRun decodes each merged second's durations once (the series and the step's judgement decoded the steady ones twice)", async () => {
    // the unit projects share modules between files (isolate: false): analyze.ts may already be
    // bound to the real decoder, so it is imported afresh against a counting one
    // every way in to an encoded histogram's counts, counted
    const real = await vi.importActual<typeof import('./histogram.ts')>('./histogram.ts');
    const read = vi.fn();
    const counted = <A extends unknown[], R>(f: (b64: string, ...rest: A) => R) =>
      ((b64: string, ...rest: A) => (read(b64), f(b64, ...rest))) as typeof f;
    vi.resetModules();
    vi.doMock('./histogram.ts', () => ({
      ...real,
      decodeHistogram: counted(real.decodeHistogram),
      countsOf: counted(real.countsOf),
      encodedPercentileMs: counted(real.encodedPercentileMs),
      addEncodedInto: (sum: Histogram, b64: string) => (read(b64), real.addEncodedInto(sum, b64)),
    }));
    try {
      const { analyzeRun } = await import('./analyze.ts');
      analyzeRun(buildInput(SPEC));
    } finally {
      vi.doUnmock('./histogram.ts');
      vi.resetModules();
    }
    const durations = new Set(merged.map((r) => r.hist.duration));
    const ofDurations = read.mock.calls.filter(([b64]) => durations.has(b64)).length;
    expect(ofDurations).toBeGreaterThan(0);
    expect(ofDurations).toBeLessThanOrEqual(merged.filter((r) => r.ok > 0).length);
  });
});
