import { describe, expect, it } from 'vitest';
import { crossCheck, poolReading, serverWindow } from './server.ts';
import type { ServerSample, ServerWindow } from './types.ts';

const sample = (tS: number, count: number, sumS: number, extra: Partial<ServerSample> = {}): ServerSample => ({
  kind: 'scrape',
  phase: 'steps',
  tS,
  requestsCount: count,
  requestsSumS: sumS,
  requestsMaxS: 0.02,
  poolActive: 2,
  poolPending: 0,
  poolMax: 4,
  gauges: {},
  topology: null,
  ...extra,
});

const window = (x: number | null, meanMs: number | null, pool: Partial<ServerWindow> = {}): ServerWindow => ({
  source: 'scrape',
  fromS: 0,
  toS: 5,
  throughputPerSec: x,
  meanMs,
  maxMs: null,
  poolActiveMax: null,
  poolPendingMax: null,
  poolMax: null,
  ...pool,
});

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
  });

  it('is null without a reading near both edges, or from another phase', () => {
    expect(serverWindow([sample(10, 1, 1)], 'steps', 10, 15)).toBeNull();
    expect(
      serverWindow([sample(10, 1, 1, { phase: 'warmup' }), sample(15, 2, 2, { phase: 'warmup' })], 'steps', 10, 15),
    ).toBeNull();
    expect(serverWindow([sample(7, 1, 1), sample(15, 2, 2)], 'steps', 10, 15)).toBeNull();
  });
});

describe('crossCheck', () => {
  it.each([
    ['consistent', 200, 10.6, 0.5, window(199, 10.0), 'consistent'],
    ['within the 0.5 ms floor', 200, 1.9, 0.5, window(200, 1.0), 'consistent'],
    ['client queueing', 200, 40, 0.5, window(200, 10), 'client-queueing'],
    ['traffic missing', 200, 10, 0.5, window(150, 10), 'traffic-missing'],
    ['traffic extra', 200, 10, 0.5, window(260, 10), 'traffic-extra'],
    ['server between client - RTT and client', 200, 10.4, 0.9, window(200, 10.0), 'consistent'],
    ['server slower than the client saw', 200, 10, 0.5, window(200, 12), 'traffic-extra'],
    ['no data', 200, 10, 0.5, null, 'no-data'],
  ] as const)('%s', (_n, clientX, clientMean, rtt, w, verdict) => {
    const c = crossCheck(clientX, clientMean, rtt, w);
    expect(c.verdict).toBe(verdict);
    expect(c.detail.length).toBeGreaterThan(10);
  });

  it("does not compare means when requests failed: the client's mean is of its successes, the server's of every request", () => {
    // half fast 503s at the server: its mean 50.5 ms against the client's 100 ms of successes
    const c = crossCheck(200, 100.5, 0.5, window(200, 50.5), 0.5);
    expect(c.verdict).toBe('consistent');
    expect(c.detail).toMatch(/latency not compared: 50\.0% of requests failed/);
    expect(crossCheck(200, 100.5, 0.5, window(200, 50.5), 0.005).verdict).toBe('client-queueing');
  });

  it('says how much time the generator added', () => {
    expect(crossCheck(200, 40, 0.5, window(200, 10)).detail).toMatch(/29\.50 ms per request is spent in the generator/);
  });
});

describe('poolReading', () => {
  it.each([
    [window(1, 1, { poolActiveMax: 4, poolPendingMax: 7, poolMax: 4 }), /short of connections: up to 7/],
    [window(1, 1, { poolActiveMax: 10, poolPendingMax: 0, poolMax: 10 }), /held by slow work/],
    [window(1, 1, { poolActiveMax: 2, poolPendingMax: 0, poolMax: 10 }), /not a constraint/],
  ])('reads the gauges', (w, text) => {
    expect(poolReading(w)).toMatch(text);
  });
  it('says nothing without pool series', () => expect(poolReading(window(1, 1))).toBeNull());
});
