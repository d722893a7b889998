import { describe, expect, it } from 'vitest';
import { stepResult } from '../testing/builders.ts';
import type { NameResult } from '../types.ts';
import { littleRows } from './little.ts';

/** A name's steady figures: its successes and their mean. */
const row = (ok: number, meanMs: number, transaction = false): NameResult =>
  ({ ...(transaction ? { transaction: true } : {}), ok, meanMs }) as NameResult;

describe("Little's law per step", () => {
  // 90 reads of 5 ms and 10 checkouts of 50 ms (think time included), whose inner requests took 10 ms each
  const step = stepResult({
    index: 0,
    steadyS: 10,
    throughputPerSec: 10,
    meanMs: (90 * 5 + 20 * 10) / 110,
    byName: {
      read: row(90, 5),
      checkout: row(10, 50, true),
      'checkout: create': row(10, 10),
      'checkout: pay': row(10, 10),
    },
  });

  it("with a mix, W is the entries' mean time per arrival, weighted by their successes: of one unit with X (arrivals/s)", () => {
    const [r] = littleRows([step], ['read', 'checkout']);
    expect(r.meanMs).toBeCloseTo((90 * 5 + 10 * 50) / 100, 9);
    expect(r.concurrency).toBeCloseTo((10 * 9.5) / 1000, 9);
  });

  it("one request per arrival (no entry names), W is the requests' mean", () => {
    expect(littleRows([step])[0].meanMs).toBe(step.meanMs);
    // names of no entry with successes: the requests' mean too
    expect(littleRows([step], ['refund'])[0].meanMs).toBe(step.meanMs);
  });
});
