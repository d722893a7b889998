/**
 * A mix's entries each keep up with their share. A step's delivery sums the mix: where one entry
 * cannot keep up (its requests queue, its completions fall behind its share of the arrivals) while
 * the others are served at once, the sum can still read 0.96, and the step held while that entry's
 * queue grew without bound (a review: "read slow" completed 156.7 of the 180/s offered it, its p50
 * 6.7 -> 442 ms, and the run claimed 576.7 arrivals/s for a mix that sustains about 520). So a step
 * holds only where every entry offered enough arrivals in its window to judge completes at least
 * deliveryMin of its share. Completions, not successes: failures are the step's delivery's to judge,
 * an entry falling behind is the queue. Pure.
 */
import type { EntryShort, MixShare, RateUnit, TrafficRecord } from './types.ts';
import { fmtRatio, fmtRatioBelow, fmtRate, fmtTarget, quoted } from './format.ts';

/** Arrivals an entry's share must offer over the window to judge it: a few either side of its edges read as nothing. */
export const ENTRY_MIN_ARRIVALS = 100;

/** The mix's entries and their shares of the arrivals (a mix of two entries or more), else undefined. */
export function mixShares(traffic: Pick<TrafficRecord, 'entries'> | undefined | null): MixShare[] | undefined {
  const entries = traffic?.entries ?? [];
  const total = entries.reduce((a, e) => a + e.weight, 0);
  if (entries.length < 2 || !(total > 0)) return undefined;
  return entries.map((e) => ({ name: e.name, share: e.weight / total }));
}

/** The entry furthest behind its share past deliveryMin, of those offered ENTRY_MIN_ARRIVALS or more in the window; null where none. */
export function entryShort(
  ratePerSec: number,
  steadyS: number,
  completedOf: (name: string) => number,
  mix: readonly MixShare[] | undefined,
  deliveryMin: number,
  /**
   * Each entry's median duration in the window (ms, null without one) and the step's settle (ms
   * from its hold's start to its window's): an arrival longer than the settle (a transaction's
   * think time of seconds) ends in the window having started before the rate was reached, so its
   * completions read the lower rate before: such an entry is not judged by its share.
   */
  medianMsOf: (name: string) => number | null = () => null,
  settleMs = Infinity,
): EntryShort | null {
  if (!mix || steadyS <= 0 || ratePerSec <= 0) return null;
  let worst: EntryShort | null = null;
  for (const { name, share } of mix) {
    const offered = ratePerSec * share * steadyS;
    if (offered < ENTRY_MIN_ARRIVALS || (medianMsOf(name) ?? 0) > settleMs) continue;
    const delivery = completedOf(name) / offered;
    if (delivery >= deliveryMin || (worst !== null && delivery >= worst.delivery)) continue;
    worst = { name, share, delivery, completedPerSec: completedOf(name) / steadyS, offeredPerSec: ratePerSec * share };
  }
  return worst;
}

/** The step's reason: '"read slow" completed 0.87 < 0.90 of its share: 156.7 of 180 arrivals/s offered it'. */
export function entryShortText(e: EntryShort, unit: RateUnit, deliveryMin: number): string {
  return `"${quoted(e.name, 60)}" completed ${fmtRatioBelow(e.delivery, deliveryMin)} < ${fmtRatio(deliveryMin)} of its share: ${fmtRate(e.completedPerSec)} of the ${fmtTarget(e.offeredPerSec)} ${unit} offered it`;
}
