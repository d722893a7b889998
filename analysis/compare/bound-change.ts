/**
 * B's capacity against A's where either may be a lower bound (every planned step held: decision
 * 026), for the gate's headline and compare's table alike. Pure.
 *
 * A bound says only which way the true figure may lie, so the change says which way it may lie:
 * B's bound above A's capacity is "at least +x%" (B may be far higher), below it "a fall of at
 * most x%"; A's bound turns them round. Between two bounds no change can be read: 562 at least
 * against 500 at least (+12.5%, a user's review) says which plan's top rate was higher, nothing of
 * either service.
 */
import { fmtPercent } from '../format.ts';

/** A figure compared: the capacity, or for a run whose every planned step held, what it held at least. */
export interface Bounded {
  perSec: number;
  lowerBound: boolean;
}

/** "+4.20%", "at least +12.51%", "a fall of at most 3.10%"...; null where both are bounds or A is 0. */
export function boundedChangeText(a: Bounded, b: Bounded): string | null {
  if ((a.lowerBound && b.lowerBound) || !(a.perSec > 0)) return null;
  const d = (b.perSec - a.perSec) / a.perSec;
  const x = fmtPercent(Math.abs(d));
  if (b.lowerBound) return d >= 0 ? `at least +${x}` : `a fall of at most ${x}`;
  if (a.lowerBound) return d < 0 ? `a fall of at least ${x}` : `at most +${x}`;
  return `${d < 0 ? '-' : '+'}${x}`;
}

/** Why two lower bounds get no change, with the fix: said by the gate's headline and under compare's table. */
export const BOTH_BOUNDS_TEXT =
  'both held every step they planned: lower bounds, not capacities; raise the top rate of both to compare them';
