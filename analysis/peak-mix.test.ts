import { describe, expect, it } from 'vitest';
import { kneeMixDrift, peakMixDrift } from './peak-mix.ts';
import { nameResult, stepResult } from './testing/builders.ts';
import { capacityText, peakText } from '../reports/headline-text.ts';
import type { NameResult, RunResult } from './types.ts';

/** `completed` arrivals that ended in the window (a transaction's, when told). */
const ended = (completed: number, transaction = false): NameResult =>
  nameResult(completed, transaction ? { transaction: true } : {});
const traffic = {
  entries: [
    { name: 'read order', weight: 70, transaction: false },
    { name: 'create order', weight: 25, transaction: false },
    { name: 'checkout', weight: 5, transaction: true },
  ],
};
/** An audit's peak window (b4 step 5, attempt 2): 479 reads, 168 creates, 28 checkouts. */
const run = (checkouts: number) =>
  ({
    steps: [
      stepResult({
        index: 4,
        throughputPerSec: 168.8,
        byName: {
          'read order': ended(479),
          'create order': ended(168),
          checkout: ended(checkouts, true),
          'checkout: create': ended(checkouts),
        },
      }),
    ],
    peakStep: 4,
    peakPerSec: 168.8,
    traffic,
  }) as unknown as RunResult;

describe("the mix the peak's window served (an audit: a peak of 168.8 above the demo's 163 served a lighter mix)", () => {
  it('names the entry that drifted most past 2% of its weight, beside the peak', () => {
    expect(peakMixDrift(run(28))).toEqual({ name: 'checkout', served: 28 / 675, weight: 0.05 });
    expect(
      peakText({
        ...run(28),
        rules: { deliveryMin: 0.9, captureMin: 0.6, minTailSamples: 30, rateUnit: 'arrivals/s' },
      } as RunResult),
    ).toBe(
      '168.8 arrivals/s (step 5; its window served "checkout" at 4.15% of its ended arrivals against a weight of 5.00%: the peak is of the mix it served)',
    );
  });
  it('says nothing of a window served in its weights, a drift under 2 arrivals, or a run of one entry', () => {
    // 479 : 168 : 34 is 70.3 : 24.7 : 5.0
    expect(peakMixDrift(run(34))).toBeNull();
    expect(peakMixDrift({ ...run(28), traffic: { entries: [traffic.entries[0]] } })).toBeNull();
    expect(peakMixDrift({ ...run(28), peakStep: null })).toBeNull();
  });
});

describe("the mix the capacity's window served (a review: the knee served 'read slow' at 27.2% against 30%, said of the peak only)", () => {
  const knee = (checkouts: number, verdict: 'holds' | 'fails' = 'holds') =>
    ({
      ...run(checkouts),
      steps: run(checkouts).steps.map((s) => ({ ...s, verdict })),
      kneeStep: 4,
      capacityPerSec: 168.8,
      stopReason: 'plateau',
      rules: { deliveryMin: 0.9, captureMin: 0.6, minTailSamples: 30, rateUnit: 'arrivals/s' },
    }) as unknown as RunResult;

  it("names the held knee's entry that drifted past 2% of its weight, beside the capacity", () => {
    expect(kneeMixDrift(knee(28))).toEqual({ name: 'checkout', served: 28 / 675, weight: 0.05 });
    expect(capacityText(knee(28))).toBe(
      '168.8 arrivals/s (step 5; its window served "checkout" at 4.15% of its ended arrivals against a weight of 5.00%: the capacity is of the mix it served)',
    );
  });

  it('says nothing of a knee served in its weights, or of a window that did not hold', () => {
    expect(capacityText(knee(34))).toBe('168.8 arrivals/s (step 5)');
    expect(kneeMixDrift(knee(28, 'fails'))).toBeNull();
  });
});
