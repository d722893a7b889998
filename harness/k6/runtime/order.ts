/**
 * The mix's order in k6: laid out once per k6 process into a SharedArray of strings (mix-order.ts
 * orderChunks), which every VU reads a chunk at a time. A table per VU cost each VU's init the
 * whole period (up to 10^6 arrivals x entries steps in k6's interpreter) and its memory. The
 * entry of each arrival is the native engine's: the same mixOrder, read through chunkedEntryOf.
 */
import { SharedArray } from 'k6/data';
import { chunkedEntryOf, mixOrder, orderChunks } from '../../scenario/mix-order.ts';

/** The entry index of global arrival seq (1-based), for these weights. */
export function sharedEntryOf(weights: number[]): (seq: number) => number {
  if (weights.length === 1) return () => 0;
  return chunkedEntryOf(new SharedArray('plateau mix order', () => orderChunks(mixOrder(weights))));
}
