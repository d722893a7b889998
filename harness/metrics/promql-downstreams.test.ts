import { describe, expect, it } from 'vitest';
import type { DownstreamConfig } from '../../analysis/types.ts';
import { downstreamWindowOf, type DownstreamRaw } from './promql-downstreams.ts';
import type { RawSeries } from './promql.ts';

// a window of [10 s, 20 s] on a clock whose t0 is 0; samples every 2 s
const FROM = 10_000;
const TO = 20_000;
const series = (labels: Record<string, string>, points: [number, number][]): RawSeries => ({
  labels,
  samples: points.map(([tS, v]) => [tS * 1000, v]),
});
const redis: DownstreamConfig = { name: 'redis', ops: 'redis_commands_processed_total', splitBy: 'instance' };
const raw = (over: Partial<DownstreamRaw>): DownstreamRaw => ({
  ops: [],
  saturation: null,
  latencySum: null,
  latencyCount: null,
  ...over,
});

describe('downstreamWindowOf', () => {
  it('a series scraped less often than twice a window: no ops, and the reason is the scrape interval, not the name', () => {
    // Prometheus's default 15 s interval against a 10 s window: one sample inside it
    const sparse = downstreamWindowOf(
      redis,
      raw({
        ops: [
          series({ instance: 'a' }, [
            [-20, 0],
            [-5, 100],
            [10, 300],
            [25, 500],
          ]),
        ],
      }),
      FROM,
      TO,
      0,
    );
    expect(sparse.ops).toBeNull();
    expect(sparse.problems).toEqual([
      'downstream redis: Prometheus holds 1 sample of redis_commands_processed_total inside the 10.0 s steady window (it scraped it every 15.0 s): a rate needs two; scrape the target at least every 5.0 s (scrape_interval) or lengthen the hold',
    ]);
    // a series that matches nothing at all: check its name and labels
    const none = downstreamWindowOf(redis, raw({ ops: [] }), FROM, TO, 0);
    expect(none.problems![0]).toMatch(
      /holds no samples of redis_commands_processed_total in the window: check metrics\.downstreams' ops/,
    );
  });

  it('an exporter gone mid-run: its scrapes stopped, which neither the name nor a shorter scrape interval explains', () => {
    // scraped every 2 s until 13 s, then nothing: the exporter went away inside the [10 s, 20 s] window
    const gone = downstreamWindowOf(
      { ...redis, saturation: 'redis_blocked_clients' },
      raw({
        ops: [
          series({ instance: 'a' }, [
            [7, 0],
            [9, 100],
            [11, 200],
            [13, 300],
          ]),
        ],
        saturation: [
          series({ instance: 'a' }, [
            [3, 0],
            [5, 0],
            [7, 0],
            [9, 0],
          ]),
        ],
      }),
      FROM,
      TO,
      0,
    );
    expect(gone.ops).not.toBeNull(); // two samples inside: still a rate, over [11 s, 13 s]
    expect(gone.problems).toEqual([
      "downstream redis: Prometheus's samples of redis_blocked_clients stop 11.0 s before the end of the 10.0 s steady window (0 inside it), though it scraped it every 2.0 s: its scrapes stopped (the exporter or target that exports it went away or stopped answering: its up series in Prometheus reads 0 from then); keep it up for the whole run",
    ]);
    const before = downstreamWindowOf(
      redis,
      raw({
        ops: [
          series({ instance: 'a' }, [
            [3, 0],
            [5, 10],
            [7, 20],
            [9, 30],
            [11, 40],
          ]),
        ],
      }),
      FROM,
      TO,
      0,
    );
    expect(before.ops).toBeNull();
    expect(before.problems![0]).toMatch(
      /samples of redis_commands_processed_total stop 9\.0 s before the end of the 10\.0 s steady window \(1 inside it\), though it scraped it every 2\.0 s: its scrapes stopped/,
    );
  });

  it('sums the increase of every series between the first and last samples inside the window, by splitBy', () => {
    const w = downstreamWindowOf(
      redis,
      raw({
        ops: [
          series({ instance: 'a' }, [
            [8, 0],
            [10, 100],
            [12, 300],
            [20, 1100],
          ]),
          series({ instance: 'b' }, [
            [8, 50],
            [10, 60],
            [20, 160],
          ]),
        ],
      }),
      FROM,
      TO,
      0,
    );
    expect(w).toEqual({ source: 'promql', fromS: 10, toS: 20, ops: 1100, byLabel: { a: 1000, b: 100 } });
  });

  it.each([
    { what: 'two exporters at 50 ops/s, scraped every 5 s at offsets 1 s and 4 s (read 62.5 before)', b: [9, 14, 19] },
    { what: 'one of them with one sample inside: from its sample before the window', b: [7, 14] },
  ])('ops at each series’ own rate, summed: $what', ({ b }) => {
    const at50 = (name: string, times: number[]) =>
      series(
        { instance: name },
        times.map((t) => [t, 50 * t]),
      );
    const w = downstreamWindowOf(redis, raw({ ops: [at50('a', [6, 11, 16]), at50('b', b)] }), FROM, TO, 0);
    expect(w.ops! / (w.toS - w.fromS)).toBeCloseTo(100, 9);
    expect(w.byLabel!.a! / (w.toS - w.fromS)).toBeCloseTo(50, 9);
  });

  it('a counter that goes backwards marks the window and never counts negative (Prometheus counts its value after the reset)', () => {
    const w = downstreamWindowOf(
      redis,
      raw({
        ops: [
          series({ instance: 'a' }, [
            [10, 500],
            [14, 900],
            [16, 30],
            [20, 230],
          ]),
        ],
      }),
      FROM,
      TO,
      0,
    );
    expect(w.counterReset).toBe(true);
    expect(w.ops).toBe(400 + 30 + 200);
  });

  it('a series born inside the window (nothing in the lookback) started at 0', () => {
    const w = downstreamWindowOf(
      { name: 'redis', ops: 'redis_commands_total' },
      raw({
        ops: [
          series({ cmd: 'get' }, [
            [2, 0],
            [10, 10],
            [20, 110],
          ]),
          series({ cmd: 'eval' }, [
            [14, 40],
            [20, 100],
          ]),
        ],
      }),
      FROM,
      TO,
      0,
    );
    expect(w.ops).toBe(100 + 100);
  });

  it('saturation: the sum over series at the window start and its max; latency: the delta of _sum and _count', () => {
    const w = downstreamWindowOf(
      { ...redis, saturation: 'redis_blocked_clients', latency: 'app_redis_call_seconds' },
      raw({
        ops: [
          series({ instance: 'a' }, [
            [10, 0],
            [20, 1000],
          ]),
        ],
        saturation: [
          series({ instance: 'a' }, [
            [10, 1],
            [16, 40],
            [20, 5],
          ]),
          series({ instance: 'b' }, [
            [10, 0],
            [16, 1],
          ]),
        ],
        latencySum: [
          series({}, [
            [6, 1],
            [10, 2],
            [20, 4.5],
          ]),
        ],
        latencyCount: [
          series({}, [
            [6, 100],
            [10, 200],
            [20, 1200],
          ]),
        ],
      }),
      FROM,
      TO,
      0,
    );
    expect(w).toMatchObject({ saturationStart: 1, saturationMax: 41, latencySumS: 2.5, latencyCount: 1000 });
    expect(w.problems).toBeUndefined();
  });

  it('the latency series scraped at other instants (the service, not the exporter) is read between its own samples', () => {
    const w = downstreamWindowOf(
      { ...redis, latency: 'app_redis_call_seconds' },
      raw({
        ops: [
          series({ instance: 'a' }, [
            [10.2, 0],
            [11.2, 500],
          ]),
        ],
        latencySum: [
          series({}, [
            [9.7, 1],
            [10.7, 2],
            [11.7, 3.5],
          ]),
        ],
        latencyCount: [
          series({}, [
            [9.7, 100],
            [10.7, 200],
            [11.7, 1200],
          ]),
        ],
      }),
      FROM,
      TO,
      0,
    );
    expect(w).toMatchObject({ ops: 500, latencySumS: 1.5, latencyCount: 1000 });
  });

  it.each([
    [
      'no samples of the ops series',
      raw({}),
      /downstream redis: Prometheus holds no samples of redis_commands_processed_total in the window: check/,
    ],
    [
      'a saturation series with nothing in the window',
      raw({
        ops: [
          series({}, [
            [10, 0],
            [20, 5],
          ]),
        ],
        saturation: [],
      }),
      /no samples of redis_blocked_clients .*saturation/,
    ],
    [
      'samples that are not numbers',
      raw({
        ops: [
          series({}, [
            [10, 0],
            [12, NaN],
            [20, 5],
          ]),
        ],
      }),
      /redis_commands_processed_total holds samples that are not numbers/,
    ],
  ])('%s: a problem line naming the fix', (_, r, line) => {
    const w = downstreamWindowOf({ ...redis, splitBy: undefined, saturation: 'redis_blocked_clients' }, r, FROM, TO, 0);
    expect(w.problems?.join('\n')).toMatch(line);
  });
});
