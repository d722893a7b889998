import { describe, expect, it } from 'vitest';
import { poolReading } from './pool.ts';
import type { ServerWindow } from './types.ts';

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

describe('poolReading', () => {
  it.each([
    [
      window(1, 1, { poolActiveMax: 4, poolPendingMax: 7, poolMax: 4 }),
      /short of connections: up to 7 requests waited/,
    ],
    [window(1, 1, { poolActiveMax: 4, poolPendingMax: 1, poolMax: 4 }), /short of connections: up to 1 request waited/],
    [window(1, 1, { poolActiveMax: 10, poolPendingMax: 0, poolMax: 10 }), /held by slow work/],
    [window(1, 1, { poolActiveMax: 2, poolPendingMax: 0, poolMax: 10 }), /not a constraint/],
    [
      window(1, 1, { poolActiveMax: 2, poolActiveMean: 1.9, poolPendingMax: 0, poolMax: 2 }),
      /held by slow work: active 1\.9 of 2 on average \(up to 2\)/,
    ],
    // every connection busy at one reading, not at most of them: not "held"
    [window(1, 1, { poolActiveMax: 2, poolActiveMean: 1.1, poolPendingMax: 0, poolMax: 2 }), /not a constraint/],
  ])('reads the gauges', (w, text) => {
    expect(poolReading(w)).toMatch(text);
  });
  it('says nothing without pool series', () => expect(poolReading(window(1, 1))).toBeNull());

  it("says its gauges were sampled, and what the requests keep busy by Little's law, not a max the readings cannot know", () => {
    // 105.4 req/s at 5.26 ms keep about half a connection busy; three readings found none busy
    const w = window(105.4, 5.26, {
      poolActiveMax: 0,
      poolActiveMean: 0,
      poolPendingMax: 0,
      poolMax: 4,
      poolReadings: 3,
    });
    expect(poolReading(w)).toBe(
      "pool not a constraint: active up to 0 of 4 in 3 sampled readings, nobody waiting; 105.4 req/s x 5.26 ms keep at most 0.55 busy on average (Little's law)",
    );
    expect(poolReading({ ...w, poolActiveMax: 4, poolPendingMax: 7, poolReadings: 1 })).toBe(
      'short of connections: up to 7 requests waited for one (active up to 4 of 4) in 1 sampled reading',
    );
    // a run recorded before the readings were counted, and a window without the server's mean
    expect(poolReading({ ...w, poolReadings: undefined, meanMs: null })).toBe(
      'pool not a constraint: active up to 0 of 4 when sampled, nobody waiting',
    );
  });
});
