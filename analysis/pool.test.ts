import { describe, expect, it } from 'vitest';
import { serverWindowOf } from './testing/builders.ts';
import { HELD_FACTOR, poolAtLimit, poolReading } from './pool.ts';
import type { ServerWindow } from './types.ts';

const window = serverWindowOf;

describe('poolReading', () => {
  it.each([
    [
      window(1, 1, { poolActiveMax: 4, poolPendingMax: 7, poolMax: 4 }),
      /short of connections: up to 7 requests waited/,
    ],
    [window(1, 1, { poolActiveMax: 4, poolPendingMax: 1, poolMax: 4 }), /short of connections: up to 1 request waited/],
    // a run recorded before the mean was kept: at its limit by the max, no cause named
    [
      window(1, 1, { poolActiveMax: 10, poolPendingMax: 0, poolMax: 10 }),
      /^near its limit: active up to 10 of 10 when sampled, nobody waiting$/,
    ],
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
      "pool not a constraint: active up to 0 of 4 in 3 sampled readings, nobody waiting; 105.4 req/s x 5.26 ms: 0.55 requests in the server on average (Little's law), at most that many connections busy on average",
    );
    expect(poolReading({ ...w, poolActiveMax: 4, poolPendingMax: 7, poolReadings: 1 })).toBe(
      'short of connections: up to 7 requests waited for one (active up to 4 of 4) in 1 sampled reading',
    );
    // a run recorded before the readings were counted, and a window without the server's mean
    expect(poolReading({ ...w, poolReadings: undefined, meanMs: null })).toBe(
      'pool not a constraint: active up to 0 of 4 when sampled, nobody waiting',
    );
  });

  it("names connections held by slow work only when they are busy well beyond what the requests keep busy by Little's law", () => {
    // step 14 of the run a user read: 3.7 of 4 on average, and 735.6 req/s x 5.65 ms keep 4.16 busy: the load's own
    const step14 = window(735.6, 5.65, {
      poolActiveMax: 4,
      poolActiveMean: 11 / 3,
      poolPendingMax: 0,
      poolMax: 4,
      poolReadings: 3,
    });
    expect(poolReading(step14)).toBe(
      "near its limit from the load: active 3.7 of 4 on average (up to 4) in 3 sampled readings, nobody waiting; 735.6 req/s x 5.65 ms: 4.16 requests in the server on average (Little's law), at most that many connections busy on average",
    );
    // the boundary: 100 req/s x 12.5 ms keep 1.25 busy; held from 1.5 x 1.25 = 1.875 active on average
    expect(HELD_FACTOR).toBe(1.5);
    const at = (mean: number) =>
      poolReading(
        window(100, 12.5, { poolActiveMax: 2, poolActiveMean: mean, poolPendingMax: 0, poolMax: 2, poolReadings: 4 }),
      );
    expect(at(1.875)).toBe(
      "connections held by slow work: active 1.9 of 2 on average (up to 2) in 4 sampled readings with nobody waiting, 1.5x the 1.25 its requests keep busy (100.0 req/s x 12.5 ms, Little's law): they are held longer than the requests last (work outside them, another client of the pool, a leak)",
    );
    expect(at(1.874)).toMatch(/^near its limit from the load: active 1\.9 of 2 on average/);
    // without the server's rate or mean no cause is named
    expect(
      poolReading(window(null, null, { poolActiveMax: 2, poolActiveMean: 1.9, poolPendingMax: 0, poolMax: 2 })),
    ).toBe('near its limit: active 1.9 of 2 on average (up to 2) when sampled, nobody waiting');
  });

  it('is at its limit on the mean from 90% of the pool (the max in older runs): what the downstream verdict points at', () => {
    expect(poolAtLimit(window(1, 1, { poolActiveMax: 4, poolActiveMean: 3.6, poolMax: 4 }))).toBe(true);
    expect(poolAtLimit(window(1, 1, { poolActiveMax: 4, poolActiveMean: 3.5, poolMax: 4 }))).toBe(false);
    expect(poolAtLimit(window(1, 1, { poolActiveMax: 4, poolMax: 4 }))).toBe(true);
    expect(poolAtLimit(window(1, 1, { poolActiveMax: 4, poolActiveMean: 4, poolMax: null }))).toBe(false);
    expect(poolAtLimit(null)).toBe(false);
  });
});
