/**
 * The PromQL window's arithmetic on raw samples as Prometheus's HTTP API returns them (rates per
 * series, counter resets, the pool's max over time, histogram buckets) and the selectors it sends:
 * pure. Against a real Prometheus server: test/promql.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { PlateauError } from '../errors.ts';
import { mostInWindow, selector, windowFromSamples, type RawSeries } from './promql.ts';

describe('PromQL window arithmetic (pure)', () => {
  const series = (labels: Record<string, string>, samples: Array<[number, number]>): RawSeries => ({ labels, samples });
  const none = { max: [], active: null, pending: null, poolMax: null };

  it("takes each series' exact rate over its own raw samples, and adds them", () => {
    const count = [
      series({ status: '201' }, [
        [0, 5],
        [1000, 10],
        [2000, 110],
        [3000, 210],
      ]),
      series({ status: '503' }, [
        [0, 1],
        [3000, 4],
      ]),
    ];
    const sum = [
      series({ status: '201' }, [
        [0, 0],
        [1000, 0.1],
        [2000, 1.1],
        [3000, 2.1],
      ]),
      series({ status: '503' }, [
        [0, 0],
        [3000, 0.3],
      ]),
    ];
    const w = windowFromSamples({ ...none, count, sum }, 1000, 3000, 0);
    // the 503s' one sample inside reads its rate from its sample before the window: 3 over 3 s
    expect(w).toMatchObject({ source: 'promql', fromS: 0, toS: 3, throughputPerSec: 200 / 2 + 3 / 3 });
    expect(w.meanMs).toBeCloseTo(((2.0 / 2 + 0.3 / 3) / (200 / 2 + 3 / 3)) * 1000, 10);
  });

  it('reads no rate from replicas scraped once each inside the window at staggered offsets (a review read 0 req/s there)', () => {
    const count = [
      series({ instance: 'a' }, [
        [88_000, 1000],
        [103_000, 2500],
      ]),
      series({ instance: 'b' }, [
        [86_000, 900],
        [101_000, 2400],
      ]),
    ];
    const w = windowFromSamples({ ...none, count, sum: [] }, 100_000, 105_000, 0);
    expect(w.throughputPerSec).toBeNull();
    expect(mostInWindow(count, 100_000, 105_000)).toBe(1);
  });

  it('counts a counter reset as Prometheus does, and a series born inside the window from 0', () => {
    const count = [
      series({ a: '1' }, [
        [1000, 100],
        [2000, 150],
        [3000, 20],
      ]),
      series({ a: '2' }, [
        [2000, 7],
        [3000, 9],
      ]),
    ];
    const sum = [
      series({ a: '1' }, [
        [1000, 1],
        [2000, 1.5],
        [3000, 0.2],
      ]),
      series({ a: '2' }, [
        [2000, 0.07],
        [3000, 0.09],
      ]),
    ];
    const w = windowFromSamples({ ...none, count, sum }, 1000, 3000, 1000);
    expect(w.throughputPerSec).toBe((50 + 20 + 9) / 2);
    expect(w.fromS).toBe(0);
  });

  it('reads the pool as the max over time of the sum over series; max only after the first sample', () => {
    const count = [
      series({}, [
        [0, 0],
        [1000, 10],
      ]),
    ];
    const pool = (a: number, b: number) => [
      series({ r: '1' }, [
        [0, a],
        [1000, b],
      ]),
      series({ r: '2' }, [
        [0, b],
        [1000, a],
      ]),
    ];
    const w = windowFromSamples(
      {
        count,
        sum: count,
        max: [
          series({}, [
            [0, 9],
            [1000, 0.02],
          ]),
        ],
        active: pool(1, 3),
        pending: pool(0, 0),
        poolMax: pool(4, 4),
      },
      0,
      1000,
      0,
    );
    expect(w).toMatchObject({ maxMs: 20, poolActiveMax: 4, poolPendingMax: 0, poolMax: 8, poolReadings: 2 });
  });

  it("reads the histogram's percentiles from the reset-aware bucket deltas per le, bounds and _sum by the unit", () => {
    const b = (le: string, samples: Array<[number, number]>) => series({ __name__: 'rq_bucket', le }, samples);
    // envoy-style milliseconds: 100 requests in the window, 60 <= 5 ms, 30 in (5, 25], 10 above
    const bucket = [
      b('5', [
        [0, 10],
        [1000, 40],
        [2000, 70],
      ]),
      b('25', [
        [0, 20],
        [1000, 65],
        [2000, 110],
      ]),
      b('+Inf', [
        [0, 25],
        [1000, 75],
        [2000, 125],
      ]),
    ];
    const count = [series({}, bucket[2]!.samples)];
    const sum = [
      series({}, [
        [0, 100],
        [1000, 600],
        [2000, 1100],
      ]),
    ];
    const w = windowFromSamples({ ...none, count, sum, bucket, toSeconds: 0.001, toMs: 1 }, 0, 2000, 0);
    expect(w.meanMs).toBeCloseTo(10, 9); // 1000 ms of _sum over 100 requests, not 10 s
    expect(w.percentiles!.map((p) => [p.q, p.lowerMs, p.upperMs, p.n])).toEqual([
      [50, 0, 5, 100],
      [90, 5, 25, 100],
      [99, 25, null, 100],
    ]);
    expect(w.percentiles![0]!.valueMs).toBeCloseTo(5 * (50 / 60), 9);
    expect(w.counterReset).toBeUndefined();
    // a restart between the samples: Prometheus's reset-aware deltas (never negative), the window marked
    const restarted = bucket.map((x) => ({
      ...x,
      samples: x.samples.map(([t, v]): [number, number] => [t, t === 2000 ? v - 60 : v]),
    }));
    const r = windowFromSamples(
      { ...none, count: [series({}, restarted[2]!.samples)], sum, bucket: restarted },
      0,
      2000,
      0,
    );
    expect(r.counterReset).toBe(true);
    expect(r.percentiles!.every((p) => p.n > 0 && p.valueMs! >= 0)).toBe(true);
    // no +Inf bucket: a line naming the fix instead of percentiles
    const noInf = windowFromSamples({ ...none, count, sum, bucket: bucket.slice(0, 2) }, 0, 2000, 0);
    expect(noInf.percentiles).toBeUndefined();
    expect(noInf.problems).toEqual([
      expect.stringMatching(/rq_bucket have no le="\+Inf" bucket.*expose the histogram with its \+Inf bucket/),
    ]);
  });

  it('escapes label values and refuses names PromQL cannot take', () => {
    expect(selector('x_count', { uri: '/a"b\\c' })).toBe('x_count{uri="/a\\"b\\\\c"}');
    expect(() => selector('bad-name')).toThrow(PlateauError);
  });
});
