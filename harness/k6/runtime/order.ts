/**
 * The mix's order in k6: laid out once per k6 process into a SharedArray of numbers (mix-order.ts
 * packedOrder: several arrivals' entries in each), which every VU reads a number at a time. A
 * table per VU cost each VU's init the whole period (up to 10^6 arrivals x entries steps in k6's
 * interpreter) and its memory. The entry of each arrival is the native engine's: the same
 * mixOrder, read through packedEntryOf.
 */
import { SharedArray } from 'k6/data';
import {
  entrySeqOf,
  groupRanksOf,
  mixOrder,
  packedEntryOf,
  packedOrder,
  ranksOf,
  wholeWeights,
} from '../../scenario/mix-order.ts';
import { readerSeqOf } from '../../scenario/data-rows.ts';

/** The entry index of global arrival seq (1-based), for these weights (valid: trafficOf checked them). */
export function sharedEntryOf(weights: number[]): (seq: number) => number {
  if (weights.length === 1) return () => 0;
  const whole = wholeWeights(weights);
  if (typeof whole === 'string') throw new Error(`mix weights: ${whole}`);
  const period = whole.reduce((a, b) => a + b, 0);
  const packed = new SharedArray('plateau mix order', () => packedOrder(mixOrder(weights)));
  return packedEntryOf(packed, weights.length, period);
}

/**
 * Arrival seq's number among its entry's (mix-order.ts entrySeqOf), for a sequential data source:
 * the ranks laid out once per k6 process into a SharedArray, as the order is. `entryOf`: sharedEntryOf's.
 */
export function sharedEntrySeqOf(weights: number[], entryOf: (seq: number) => number): (seq: number) => number {
  if (weights.length === 1) return (seq) => seq;
  const whole = wholeWeights(weights);
  if (typeof whole === 'string') throw new Error(`mix weights: ${whole}`);
  const rank = new SharedArray('plateau mix ranks', () => Array.from(ranksOf(mixOrder(weights))));
  return (seq) => entrySeqOf(whole, rank, entryOf(seq), seq);
}

/**
 * Arrival seq's number among the readers of a unique source with a readBy (data-rows.ts
 * readerSeqOf): their ranks laid out once per k6 process into a SharedArray, as the order is.
 * `names`: the mix's entries; `entryOf`: sharedEntryOf's.
 */
export function sharedReaderSeqOf(
  source: string,
  readBy: readonly string[],
  weights: number[],
  names: readonly string[],
  entryOf: (seq: number) => number,
): (seq: number) => number {
  const whole = wholeWeights(weights);
  if (typeof whole === 'string') throw new Error(`mix weights: ${whole}`);
  const inGroup = names.map((n) => readBy.includes(n));
  const perPeriod = whole.reduce((sum, w, i) => (inGroup[i] ? sum + w : sum), 0);
  const rank = new SharedArray(`plateau readers: ${source}`, () =>
    Array.from(groupRanksOf(mixOrder(weights), inGroup).rank),
  );
  return readerSeqOf(source, readBy, names, entryOf, rank, perPeriod);
}
