/** The demo's theoretical capacity for a mix: capacity = slots / mean pool hold per arrival. */
import { describe, expect, it } from 'vitest';
import { demoMixCapacity, demoMixEntries, mixCapacity, mixCapacityLine, type MixHoldEntry } from './capacity.ts';
import { peakOf } from './coherency.ts';
import { DEMO_MIX } from './mix.ts';

const DEMO_HOLDS = { readMs: 2, writeMs: 10, confirmMs: 10 };

describe('mixCapacity', () => {
  it.each<[string, number, MixHoldEntry[], number, number, number]>([
    // name, slots, entries, H ms, R requests/arrival, arrivals/s
    ['one request: slots / hold', 4, [{ name: 'w', weight: 1, holdsMs: [10] }], 10, 1, 400],
    [
      'the demo mix 70/25/5: 0.7 x 2 + 0.25 x 10 + 0.05 x (10 + 10) = 4.9 ms',
      4,
      demoMixEntries(DEMO_HOLDS),
      4.9,
      1.05,
      4000 / 4.9,
    ],
    [
      'weights are shares: 7/2.5/0.5 is 70/25/5',
      4,
      [
        { name: 'r', weight: 7, holdsMs: [2] },
        { name: 'c', weight: 2.5, holdsMs: [10] },
        { name: 't', weight: 0.5, holdsMs: [10, 10] },
      ],
      4.9,
      1.05,
      4000 / 4.9,
    ],
    [
      'a transaction counts each of its requests: half reads, half read-then-write',
      2,
      [
        { name: 'r', weight: 1, holdsMs: [4] },
        { name: 't', weight: 1, holdsMs: [4, 10] },
      ],
      9,
      1.5,
      2000 / 9,
    ],
  ])('%s', (_name, slots, entries, holdMs, requests, arrivalsPerSec) => {
    const c = mixCapacity(slots, entries);
    expect(c.holdPerArrivalMs).toBeCloseTo(holdMs, 12);
    expect(c.requestsPerArrival).toBeCloseTo(requests, 12);
    expect(c.arrivalsPerSec).toBeCloseTo(arrivalsPerSec, 9);
    expect(c.requestsPerSec).toBeCloseTo(arrivalsPerSec * requests, 9);
    expect(c.peakConcurrency).toBe(slots);
  });

  it('under a coherency penalty every hold stretches alike: the peak of the mean hold', () => {
    const model = { contentionAlpha: 0, coherencyBeta: 0.02 };
    const c = demoMixCapacity(32, DEMO_HOLDS, model);
    const peak = peakOf(4.9, model, 32);
    expect(c.peakConcurrency).toBe(7);
    expect(c.arrivalsPerSec).toBeCloseTo(peak.perSec, 9);
    expect(c.arrivalsPerSec).toBeLessThan(demoMixCapacity(32, DEMO_HOLDS).arrivalsPerSec / 4);
  });

  it('is the write capacity when every hold is the write hold, and grows as reads get cheaper', () => {
    expect(demoMixCapacity(4, { readMs: 10, writeMs: 10, confirmMs: 10 }).arrivalsPerSec).toBeCloseTo(400 / 1.05, 9);
    const cheap = demoMixCapacity(4, { readMs: 1, writeMs: 10, confirmMs: 10 }).arrivalsPerSec;
    expect(cheap).toBeGreaterThan(demoMixCapacity(4, DEMO_HOLDS).arrivalsPerSec);
  });

  it.each<[string, number, MixHoldEntry[], RegExp]>([
    ['no slot', 0, [{ name: 'w', weight: 1, holdsMs: [10] }], /slots must be an integer >= 1, got 0/],
    ['no entry', 4, [], /a mix needs at least one entry/],
    [
      'a zero weight',
      4,
      [{ name: 'w', weight: 0, holdsMs: [10] }],
      /the weight of "w" must be a finite number > 0, got 0/,
    ],
    [
      'a request-less entry',
      4,
      [{ name: 'w', weight: 1, holdsMs: [] }],
      /"w" sends no request: give it at least one hold/,
    ],
    [
      'a negative hold',
      4,
      [{ name: 'w', weight: 1, holdsMs: [-1] }],
      /a hold of "w" \(ms\) must be a finite number > 0, got -1/,
    ],
  ])('refuses %s, naming it', (_name, slots, entries, message) => {
    expect(() => mixCapacity(slots, entries)).toThrow(message);
  });
});

describe('the demo mix', () => {
  it('has the names and weights of DEMO_MIX (those demo/scenario.ts sends), checkout a write then a confirm', () => {
    const entries = demoMixEntries({ readMs: 1, writeMs: 2, confirmMs: 3 });
    expect(entries.map((e) => [e.name, e.weight])).toEqual(Object.entries(DEMO_MIX));
    expect(entries.map((e) => e.holdsMs)).toEqual([[1], [2], [2, 3]]);
  });

  it('states its capacity in one line', () => {
    expect(mixCapacityLine(4, DEMO_HOLDS, demoMixCapacity(4, DEMO_HOLDS))).toBe(
      'demo: pool 4, hold read 2 ms / write 10 ms / confirm 10 ms: its own mix (demo/scenario.ts) 70/25/5 -> theoretical capacity about 816 arrivals/s (857 req/s)',
    );
    const holds = { readMs: 1.9, writeMs: 9.5, confirmMs: 9.5 };
    expect(mixCapacityLine(2, holds, demoMixCapacity(2, holds))).toBe(
      'demo: pool 2, hold read 1.9 ms / write 9.5 ms / confirm 9.5 ms: its own mix (demo/scenario.ts) 70/25/5 -> theoretical capacity about 430 arrivals/s (451 req/s)',
    );
    const model = { contentionAlpha: 0, coherencyBeta: 0.02 };
    expect(mixCapacityLine(32, DEMO_HOLDS, demoMixCapacity(32, DEMO_HOLDS, model))).toMatch(
      /-> theoretical capacity about 776 arrivals\/s \(815 req\/s\) at its peak of 7 busy slots$/,
    );
  });
});
