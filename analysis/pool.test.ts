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
});
