/**
 * Each entry of a mix keeps up with its share (entry-delivery.ts): a review's run held a step at
 * delivery 0.96 while "read slow" completed 156.7 of the 180/s offered it, its queue growing, and
 * claimed a capacity the mix does not sustain.
 */
import { describe, expect, it } from 'vitest';
import { ENTRY_MIN_ARRIVALS, entryShort, mixShares } from './entry-delivery.ts';
import { analyzeRun } from './analyze.ts';
import { buildInput, type FakeRunSpec } from './testing/builders.ts';
import { encodeHistogram, newHistogram } from './histogram.ts';
import type { BucketRecord, NameBucket } from './types.ts';

const MIX = mixShares({
  entries: [
    { name: 'read fast', weight: 60, transaction: false },
    { name: 'read slow', weight: 30, transaction: false },
    { name: 'checkout', weight: 10, transaction: true },
  ],
})!;

describe('mixShares', () => {
  it("gives each entry its weight's share of the arrivals; none for one entry or none", () => {
    expect(MIX.map((e) => [e.name, e.share])).toEqual([
      ['read fast', 0.6],
      ['read slow', 0.3],
      ['checkout', 0.1],
    ]);
    expect(mixShares({ entries: [{ name: 'only', weight: 1, transaction: false }] })).toBeUndefined();
    expect(mixShares(undefined)).toBeUndefined();
  });
});

describe('entryShort', () => {
  const completed = (c: Record<string, number>) => (name: string) => c[name] ?? 0;

  it("names the entry furthest behind its share past the bound, with its figures (the review's step 4: 600/s over 3 s)", () => {
    const got = entryShort(600, 3, completed({ 'read fast': 1080, 'read slow': 470, checkout: 180 }), MIX, 0.9);
    expect(got).toEqual({
      name: 'read slow',
      share: 0.3,
      delivery: 470 / 540,
      completedPerSec: 470 / 3,
      offeredPerSec: 180,
    });
  });

  it('passes entries at the bound or above, and none where there is no mix', () => {
    expect(entryShort(600, 3, completed({ 'read fast': 1080, 'read slow': 486, checkout: 162 }), MIX, 0.9)).toBeNull();
    expect(entryShort(600, 3, completed({}), undefined, 0.9)).toBeNull();
  });

  it("leaves out an entry whose median arrival outlasts the step's settle: its completions in the window began at the rate before", () => {
    // checkout: a transaction of 6 s (think time) in a window opened 5 s into the hold: it ended 150 of the 180 offered
    const c = completed({ 'read fast': 1080, 'read slow': 540, checkout: 150 });
    const median = (ms: number) => (name: string) => (name === 'checkout' ? ms : 5);
    expect(entryShort(600, 3, c, MIX, 0.9, median(6000), 5000)).toBeNull();
    expect(entryShort(600, 3, c, MIX, 0.9, median(4000), 5000)?.name).toBe('checkout');
  });

  it(`leaves out an entry offered under ${ENTRY_MIN_ARRIVALS} arrivals in the window: a few at its edges would read as a fall`, () => {
    // checkout: 10% of 300/s over 3 s = 90 arrivals, none completed; read slow: 270 offered, 240 completed (0.89)
    expect(entryShort(300, 3, completed({ 'read fast': 540, 'read slow': 240, checkout: 0 }), MIX, 0.9)?.name).toBe(
      'read slow',
    );
    expect(entryShort(300, 3, completed({ 'read fast': 540, 'read slow': 270, checkout: 0 }), MIX, 0.9)).toBeNull();
  });
});

/** Buckets of a 3-step mix run whose slow entry completes `slowShare` of its share at the top step only. */
function run(slowShare: number) {
  const spec: FakeRunSpec = {
    steps: [
      { ratePerSec: 200, latencyMs: 5 },
      { ratePerSec: 400, latencyMs: 5 },
      { ratePerSec: 600, latencyMs: 5, okPerSec: 600 - Math.round(180 * (1 - slowShare)) },
    ],
    rampS: 0,
    holdS: 5,
    settleS: 2,
  };
  const input = buildInput(spec);
  const EMPTY = encodeHistogram(newHistogram());
  const name = (completed: number, transaction = false): NameBucket => ({
    ...(transaction ? { transaction: true as const } : {}),
    completed,
    ok: completed,
    errors: {},
    duration: EMPTY,
  });
  const records: BucketRecord[] = input.records.map((r) => {
    if (r.phase !== 'steps') return r;
    const rate = r.completed;
    return {
      ...r,
      byName: {
        'read fast': name(Math.round(rate > 500 ? 360 : rate * 0.6)),
        'read slow': name(rate > 500 ? rate - 360 - 60 : Math.round(rate * 0.3)),
        checkout: name(rate > 500 ? 60 : Math.round(rate * 0.1), true),
      },
    };
  });
  return analyzeRun({ ...input, records, rateUnit: 'arrivals/s', mix: MIX });
}

describe('a step whose whole delivered while one entry fell behind its share', () => {
  it('fails, naming the entry; the capacity is the step before, and the stop says the mix is held back by it', () => {
    const r = run(0.87);
    const top = r.steps[2];
    expect(top.delivery).toBeGreaterThan(0.9);
    expect(top.verdict).toBe('fails');
    expect(top.reasons).toContain(
      '"read slow" completed 0.87 < 0.90 of its share: 157.0 of the 180 arrivals/s offered it',
    );
    expect(r.capacityPerSec).toBe(400);
    expect(r.stopReason).toBe('plateau');
    expect(r.stopDetail).toMatch(
      /^step 3 \(600 arrivals\/s\) delivered 0\.96 of it, but "read slow" completed 0\.87 < 0\.90 of its share: 157\.0 of the 180 arrivals\/s offered it: the mix is held back by "read slow", which fell behind while the others kept up: the mix's limit lies between the 400\.0 arrivals\/s held and this step's 600/,
    );
  });

  it('holds where each entry kept up, as before', () => {
    const r = run(0.95);
    expect(r.steps[2].verdict).toBe('holds');
    expect(r.steps[2].entryShort).toBeUndefined();
    expect(r.stopReason).toBe('max-rate-reached');
  });
});
