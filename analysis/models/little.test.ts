import { describe, expect, it } from 'vitest';
import { stepResult } from '../testing/builders.ts';
import type { LittleRow, NameResult, StepResult } from '../types.ts';
import { littleRows, requestRows, requestsInFlight } from './little.ts';

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

describe('requests in flight at the target, where an arrival is several requests', () => {
  // 10 checkouts/s of two 20 ms requests with 500 ms of think time between them, and 30 reads/s of 10 ms
  const withThink = (over: Partial<StepResult> = {}) =>
    stepResult({
      index: 0,
      steadyS: 10,
      throughputPerSec: 40,
      byName: {
        read: { ...row(300, 10), throughputPerSec: 30 },
        checkout: { ...row(100, 540, true), throughputPerSec: 10 },
        'checkout: create': { ...row(100, 20), throughputPerSec: 10 },
        'checkout: pay': { ...row(100, 20), throughputPerSec: 10 },
      },
      ...over,
    });

  it("N is the sum over request names of requests/s x mean latency, the transaction's own row (think time in it) left out", () => {
    const s = withThink();
    // 30 x 10 ms + 10 x 20 ms + 10 x 20 ms = 0.7 requests, where the arrivals' time gives 40 x 142.5 ms = 5.7
    expect(requestsInFlight(s)).toBeCloseTo(0.7, 9);
    expect(littleRows([s], ['read', 'checkout'])[0].concurrency).toBeCloseTo(5.7, 9);
    const { rows } = requestRows([s]) as { rows: LittleRow[] };
    expect(rows[0].concurrency).toBeCloseTo(0.7, 9);
    // W = N / X: an arrival's time at the target, 17.5 ms, not its 142.5 ms with the think time
    expect(rows[0].meanMs).toBeCloseTo(17.5, 9);
    expect((rows[0].throughputPerSec * rows[0].meanMs) / 1000).toBeCloseTo(rows[0].concurrency, 9);
  });

  it('where each arrival is one request (no transaction), it is the N of X x W the requests mean gives', () => {
    const s = stepResult({
      steadyS: 10,
      throughputPerSec: 40,
      meanMs: (30 * 10 + 10 * 20) / 40,
      byName: { read: { ...row(300, 10), throughputPerSec: 30 }, write: { ...row(100, 20), throughputPerSec: 10 } },
    });
    expect(requestsInFlight(s)).toBeCloseTo(littleRows([s], ['read', 'write'])[0].concurrency, 9);
  });

  it('none where a step records no mean per request name (an import without names): the first such step is named', () => {
    expect(requestsInFlight(stepResult({ byName: undefined }))).toBeNull();
    const noMean = withThink({ index: 1, byName: { ...withThink().byName, 'checkout: pay': row(100, null as never) } });
    expect(requestsInFlight(noMean)).toBeNull();
    expect(requestRows([withThink(), noMean])).toEqual({ missing: noMean });
    // a step without data is no row and no hole
    expect(requestRows([withThink({ throughputPerSec: 0, byName: undefined })])).toEqual({ rows: [] });
  });
});
