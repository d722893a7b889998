/**
 * The arrivals of a k6-operator run by runner, pure: the share the operator's equal segments give
 * each runner (what a silent runner's missing arrivals are counted by), and each runner's share of
 * what the buckets hold (named in run.json).
 */
import type { AnalysedRecord } from './types.ts';

/** Each source's share of the arrivals (started + dropped) in these buckets, by source, with the count. */
export function sharesOf(records: readonly AnalysedRecord[]): Record<string, { arrivals: number; share: number }> {
  const by = new Map<string, number>();
  for (const r of records) by.set(r.source, (by.get(r.source) ?? 0) + r.started + r.dropped);
  const total = [...by.values()].reduce((a, b) => a + b, 0);
  return Object.fromEntries(
    [...by.entries()].sort().map(([k, n]) => [k, { arrivals: n, share: total > 0 ? n / total : 0 }]),
  );
}

/**
 * Runner r's (0-based) arrivals among the global arrivals [fromN, toN) when N equal segments share
 * them round-robin (k6's striping of the operator's equal segments): the k with k mod N = r.
 */
export function stripeCount(r: number, n: number, fromN: number, toN: number): number {
  const upTo = (x: number) => (x - r <= 0 ? 0 : Math.floor((x - r - 1) / n) + 1);
  return upTo(toN) - upTo(fromN);
}
