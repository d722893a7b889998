import { describe, expect, it } from 'vitest';
import { windowFromSamples, type RawSeries } from './promql.ts';

/**
 * Several replicas (series) scraped at their own instants: each contributes its own rate over its
 * own samples, and the throughput is the sum of those rates (decision 048). A counter of a constant
 * rate is exact here, so those rows hold to floating point; the floored row's counters are whole
 * requests, which moves a series' rate by under 1 / its span (5 s: 0.2 req/s) per series.
 */
const at =
  (perSec: number, offset = 0, floor = false) =>
  (t: number) => {
    const v = offset + (perSec * t) / 1000;
    return floor ? Math.floor(v) : v;
  };
const replica = (name: string, times: number[], value: (t: number) => number): RawSeries => ({
  labels: { instance: name },
  samples: times.map((t): [number, number] => [t, value(t)]),
});
const none = { sum: [], max: [], active: null, pending: null, poolMax: null };

describe('the server throughput through PromQL: the sum of each replica’s own rate', () => {
  // the window is [0, 10 s]; samples before 0 are the lookback's
  it.each([
    {
      what: 'two replicas at 50 req/s, scraped every 5 s at offsets 1 s and 4 s (read 62.5 before)',
      count: [replica('a', [-4000, 1000, 6000], at(50, 1000)), replica('b', [-1000, 4000, 9000], at(50, 700))],
      perSec: 100,
      within: 1e-9,
      reset: false,
    },
    {
      what: 'the same at 37 and 63 req/s, whole-request counters and jittered scrapes',
      count: [replica('a', [-3980, 1020, 6010], at(37, 12, true)), replica('b', [-1010, 3990, 9005], at(63, 5, true))],
      perSec: 100,
      within: 1 / 4.99 + 1 / 5.015,
      reset: false,
    },
    {
      what: 'a replica with one sample inside: its rate from the sample just before the window',
      count: [replica('a', [-4000, 1000, 6000], at(50, 1000)), replica('b', [-3000, 4000], at(50, 300))],
      perSec: 100,
      within: 1e-9,
      reset: false,
    },
    {
      what: 'a replica born mid-window (no sample in the lookback): from 0 at the window’s first sample',
      count: [replica('a', [-4000, 1000, 6000], at(50, 1000)), replica('c', [4000, 9000], at(20, -20))],
      perSec: 50 + 20,
      within: 1e-9,
      reset: false,
    },
    {
      what: 'a counter reset (a restart at 3 s): what Prometheus counts, the value after it',
      count: [
        replica('a', [-4000, 1000, 6000], (t) => (t < 3000 ? at(50, 200)(t) : at(50, -150)(t))),
        replica('b', [-1000, 4000, 9000], at(50, 700)),
      ],
      perSec: 150 / 5 + 50,
      within: 1e-9,
      reset: true,
    },
    {
      what: 'a reset between the sample before the window and the one inside',
      count: [
        replica('a', [-4000, 1000, 6000], at(50, 1000)),
        replica('b', [-3000, 4000], (t) => (t < 0 ? 5000 : at(50, 0)(t))),
      ],
      perSec: 50 + 200 / 7,
      within: 1e-9,
      reset: true,
    },
  ])('$what', ({ count, perSec, within, reset }) => {
    const w = windowFromSamples({ ...none, count }, 0, 10_000, 0);
    expect(Math.abs(w.throughputPerSec! - perSec)).toBeLessThanOrEqual(within);
    expect(w.counterReset ?? false).toBe(reset);
  });

  it('weighs each replica’s mean and buckets by its rate, whatever its scrape interval', () => {
    // a: 80 req/s, all 2 ms, every 5 s; b: 20 req/s, all 20 ms, every 2 s (their deltas span 5 s and 6 s)
    const aT = [-4000, 1000, 6000];
    const bT = [0, 2000, 4000, 6000, 8000];
    const le = (l: string, s: RawSeries): RawSeries => ({ ...s, labels: { ...s.labels, le: l } });
    const count = [replica('a', aT, at(80)), replica('b', bT, at(20))];
    const sum = [replica('a', aT, at(80 * 0.002)), replica('b', bT, at(20 * 0.02))];
    const bucket = [
      le('0.005', count[0]!),
      le('0.025', count[0]!),
      le('+Inf', count[0]!),
      le(
        '0.005',
        replica('b', bT, () => 0),
      ),
      le('0.025', count[1]!),
      le('+Inf', count[1]!),
    ];
    const w = windowFromSamples({ ...none, count, sum, bucket }, 0, 10_000, 0);
    expect(w.throughputPerSec).toBeCloseTo(100, 9);
    expect(w.meanMs).toBeCloseTo((80 * 2 + 20 * 20) / 100, 9);
    // 80 of every 100 requests at or below 5 ms: p50 at 5 x 50/80, p90 at 5 + 20 x 10/20
    expect(w.percentiles!.map((p) => p.valueMs)).toEqual([
      expect.closeTo(5 * (50 / 80), 9),
      expect.closeTo(15, 9),
      expect.closeTo(5 + 20 * (19 / 20), 9),
    ]);
    // the requests behind them: the throughput over the span read (0 to 8 s)
    expect([w.fromS, w.toS]).toEqual([0, 8]);
    expect(w.percentiles![0]!.n).toBeCloseTo(800, 9);
  });
});
