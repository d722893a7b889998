import { describe, expect, it } from 'vitest';
import { serverSampleOf } from './testing/builders.ts';
import { crossCheck } from './cross-check.ts';
import { routeWindow, serverWindow } from './server-window.ts';

const sample = serverSampleOf;

describe('serverWindow', () => {
  it('takes deltas between the readings nearest the window edges, over their real times', () => {
    const samples = [
      sample(9.98, 1000, 10),
      sample(12.5, 1500, 15, { poolPending: 3 }),
      sample(15.02, 2008, 20.08),
      sample(20, 3000, 30),
    ];
    const w = serverWindow(samples, 'steps', 10, 15)!;
    expect(w.throughputPerSec).toBeCloseTo(1008 / 5.04, 6);
    expect(w.meanMs).toBeCloseTo((10.08 / 1008) * 1000, 6);
    expect(w.poolPendingMax).toBe(3);
    expect(w.maxMs).toBeCloseTo(20, 6);
    // the pool's figures rest on the three readings inside the window, the edges among them
    expect(w.poolReadings).toBe(3);
    expect(
      serverWindow(
        samples.map((s) => ({ ...s, poolActive: null })),
        'steps',
        10,
        15,
      )!.poolReadings,
    ).toBeUndefined();
  });

  it('is null without a reading near both edges, or from another phase', () => {
    expect(serverWindow([sample(10, 1, 1)], 'steps', 10, 15)).toBeNull();
    expect(
      serverWindow([sample(10, 1, 1, { phase: 'warmup' }), sample(15, 2, 2, { phase: 'warmup' })], 'steps', 10, 15),
    ).toBeNull();
    expect(serverWindow([sample(7, 1, 1), sample(15, 2, 2)], 'steps', 10, 15)).toBeNull();
  });
});

describe('serverWindow: percentiles from the histogram, counters that go backwards', () => {
  const buckets = (c5: number, c25: number, c50: number, all: number) => ({
    boundsMs: [5, 25, 50],
    cumulative: [c5, c25, c50, all],
  });

  it("takes p50, p90 and p99 from the bucket deltas between the edges, each with its bucket's bounds", () => {
    const w = serverWindow(
      [
        sample(10, 1000, 10, { requestsBuckets: buckets(500, 900, 1000, 1000) }),
        sample(12, 1100, 11, { requestsBuckets: buckets(520, 960, 1100, 1100) }),
        sample(15, 1200, 12, { requestsBuckets: buckets(540, 1020, 1190, 1200) }),
      ],
      'steps',
      10,
      15,
    )!;
    // the window's 200 requests: 40 <= 5 ms, 80 in (5, 25], 70 in (25, 50], 10 above 50 ms
    expect(w.percentiles!.map((p) => [p.q, p.lowerMs, p.upperMs, p.n])).toEqual(
      [
        [50, 5, 25],
        [90, 25, 50],
        [99, 50, null],
      ].map(([q, lo, hi]) => [q, lo, hi, 200]),
    );
    expect(w.percentiles![0].valueMs).toBeCloseTo(5 + 20 * (60 / 80), 9);
    expect(w.percentiles![1].valueMs).toBeCloseTo(25 + 25 * (60 / 70), 9);
    expect(w.percentiles![2].valueMs).toBe(50);
    expect(w.counterReset).toBeUndefined();
  });

  it('a histogram born inside the window counts from zero; without buckets there are no percentiles', () => {
    const w = serverWindow(
      [sample(10, 0, 0), sample(15, 100, 1, { requestsBuckets: buckets(10, 100, 100, 100) })],
      'steps',
      10,
      15,
    )!;
    expect(w.percentiles![0]).toMatchObject({ lowerMs: 5, upperMs: 25, n: 100 });
    expect(serverWindow([sample(10, 0, 0), sample(15, 100, 1)], 'steps', 10, 15)!.percentiles).toBeUndefined();
  });

  it('a restart inside the window marks it and gives no figure, never a negative one; the cross-check says why', () => {
    const samples = [
      sample(10, 1000, 10, { requestsBuckets: buckets(500, 900, 1000, 1000) }),
      sample(12, 30, 0.3, { requestsBuckets: buckets(10, 25, 30, 30) }),
      sample(15, 1500, 15, { requestsBuckets: buckets(700, 1300, 1500, 1500) }),
    ];
    const w = serverWindow(samples, 'steps', 10, 15)!;
    expect(w).toMatchObject({ counterReset: true, throughputPerSec: null, meanMs: null, percentiles: null });
    const c = crossCheck(100, 10, 0.5, w);
    expect(c.verdict).toBe('no-data');
    expect(c.detail).toMatch(/counters went backwards inside the window.*keep the target up/);
    // a count that drops with the buckets unread is a reset too
    expect(
      serverWindow([sample(10, 50, 1), sample(12, 5, 0.1), sample(15, 60, 1.2)], 'steps', 10, 15)!.counterReset,
    ).toBe(true);
  });

  it("keeps the readings' problem lines once each, and leaves the downstreams' lines to them", () => {
    const bad = 'x_bucket has no le="+Inf" bucket: ...';
    const w = serverWindow(
      [sample(10, 0, 0, { problems: [bad, 'downstream redis: no series'] }), sample(15, 10, 0.1, { problems: [bad] })],
      'steps',
      10,
      15,
    )!;
    expect(w.problems).toEqual([bad]);
  });
});

describe('routeWindow', () => {
  const route = (count: number, sumS: number) => ({
    count,
    sumS,
    buckets: { boundsMs: [10], cumulative: [count, count] },
  });
  it("reads one mapped name's route from the readings, with its own problem lines only", () => {
    const samples = [
      sample(10, 1000, 10, { routes: { read: route(100, 1) } }),
      sample(15, 2000, 20, {
        routes: { read: route(350, 3.5) },
        problems: ['metrics.requests.routes["write"] ...', 'other'],
      }),
    ];
    const w = routeWindow(samples, 'steps', 10, 15, 'read')!;
    expect(w.throughputPerSec).toBe(50);
    expect(w.meanMs).toBeCloseTo(10, 9);
    expect(w.percentiles![0]).toMatchObject({ lowerMs: 0, upperMs: 10, n: 250 });
    expect(w.poolMax).toBeNull();
    expect(w.problems).toBeUndefined();
    expect(routeWindow(samples, 'steps', 10, 15, 'write')).toBeNull();
  });
});
