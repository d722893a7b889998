/**
 * How long an arrival holds its VU, from a window of buckets (the warmup's): the service time of
 * Little's law for sizing the steps' VUs (VUs = rate x time per arrival, the round trip inside it), measured rather
 * than taken from `vus.expectedServiceMs`.
 *
 *   with names:     mean = sum_e (ok_e x mean_e) / sum_e ok_e   over the mix's entries e
 *   without names:  mean = the top-level duration histogram's mean (each arrival is one request)
 *
 * An entry's duration is its whole arrival: a one-request entry's request, a transaction's start to
 * its end, think time included. The inner requests of a transaction are not
 * entries (their time is inside the transaction's), so only the entries' names are read; but sends
 * a transaction made together held VUs borrowed beside its own, and that time (borrowedMs) adds
 * to its arrivals' VU time.
 */
import type { Aggregate } from './buckets.ts';

/**
 * Mean ms a successful arrival held VUs over `agg` (its own, and those its sends borrowed),
 * weighted by each entry's successes (its duration histogram's count, which is its `ok`); null
 * when no arrival succeeded. `entryNames`
 * are the mix's entry names (TrafficRecord entries); names of `agg` outside them are ignored.
 * Null too when `agg` has names but none of them is an entry's (no arrival ended in the window).
 */
export function meanArrivalMs(agg: Aggregate, entryNames: readonly string[]): number | null {
  if (agg.byName.size === 0) {
    const h = agg.hist.duration;
    return agg.ok > 0 && h.totalCount > 0 ? h.mean / 1000 : null;
  }
  const entries = [...new Set(entryNames)].filter((name) => agg.byName.has(name));
  // none of the entries ended in the window (a transaction longer than the warmup's windows: only
  // its inner requests did): no time per arrival was measured
  if (entries.length === 0) return null;
  let sumUs = 0;
  let ok = 0;
  for (const name of entries) {
    const n = agg.byName.get(name)!;
    if (n.ok === 0) continue;
    const h = n.duration;
    if (h.totalCount === 0) continue;
    sumUs += h.mean * h.totalCount + n.borrowedMs * 1000;
    ok += h.totalCount;
  }
  return ok > 0 ? sumUs / ok / 1000 : null;
}
