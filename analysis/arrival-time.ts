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
import { meanUs } from './histogram.ts';
import type { Aggregate } from './buckets.ts';

/** The fewest successful arrivals a measured time per arrival may rest on to size the steps' VUs. */
export const MIN_SIZING_ARRIVALS = 20;

/** A time per arrival and the successful arrivals it rests on, or why none was measured. */
export type ArrivalTime = { ms: number; arrivals: number } | { why: 'none-ended' | 'none-ok' };

/**
 * Mean ms a successful arrival held VUs over `agg` (its own, and those its sends borrowed),
 * weighted by each entry's successes (its duration histogram's count, which is its `ok`), with that
 * count. `entryNames` are the mix's entry names (TrafficRecord entries); names of `agg` outside
 * them are ignored. none-ended: `agg` has names but none of them is an entry's (no arrival ended in
 * the window: a transaction longer than it, only its inner requests did); none-ok: no arrival
 * succeeded.
 */
export function arrivalTime(agg: Aggregate, entryNames: readonly string[]): ArrivalTime {
  if (agg.byName.size === 0) {
    const h = agg.hist.duration;
    return agg.ok > 0 && h.totalCount > 0 ? { ms: meanUs(h) / 1000, arrivals: h.totalCount } : { why: 'none-ok' };
  }
  const entries = [...new Set(entryNames)].filter((name) => agg.byName.has(name));
  if (entries.length === 0) return { why: 'none-ended' };
  let sumUs = 0;
  let ok = 0;
  for (const name of entries) {
    const n = agg.byName.get(name)!;
    if (n.ok === 0) continue;
    const h = n.duration;
    if (h.totalCount === 0) continue;
    sumUs += meanUs(h) * h.totalCount + n.borrowedMs * 1000;
    ok += h.totalCount;
  }
  return ok > 0 ? { ms: sumUs / ok / 1000, arrivals: ok } : { why: 'none-ok' };
}

/** arrivalTime's mean alone; null when none was measured. */
export function meanArrivalMs(agg: Aggregate, entryNames: readonly string[]): number | null {
  const t = arrivalTime(agg, entryNames);
  return 'ms' in t ? t.ms : null;
}

/**
 * The measured time per arrival that sizes the steps' VUs, or why the plan's sizing is kept (its
 * words close the VU reason: "(kept: ...)"): none measured (`t` null: the warmup recorded no
 * window), fewer than MIN_SIZING_ARRIVALS successes behind it, or not above `plannedMs` (the
 * plan's expectedServiceMs plus the round trip: a faster measure keeps the larger sizing).
 */
export function sizingArrivalMs(t: ArrivalTime | null, plannedMs: number): { ms: number } | { kept: string } {
  if (t === null) return { kept: 'the warmup recorded no window' };
  if ('why' in t)
    return {
      kept:
        t.why === 'none-ended'
          ? "no arrival ended within the warmup's last windows (a transaction longer than they are?)"
          : 'no arrival of the warmup succeeded',
    };
  if (t.arrivals < MIN_SIZING_ARRIVALS)
    return {
      kept: `only ${t.arrivals} arrivals of the warmup succeeded, fewer than the ${MIN_SIZING_ARRIVALS} a time per arrival needs`,
    };
  if (t.ms <= plannedMs) return { kept: `the warmup measured ${t.ms.toFixed(1)} ms per arrival, less` };
  return { ms: t.ms };
}

/**
 * The time per arrival preflight's sample arrivals give (ms), for the VUs sized before a warmup
 * measured one: a transaction's own sample time (its think time and round trips, unloaded), a
 * one-request entry's the plan's (`plannedMs`: vus.expectedServiceMs plus the RTT), by the mix's
 * weights; null where no transaction was sampled or it is not longer than `plannedMs`. A review's
 * 6 s sessions, 30% of the mix, were sized for 50 ms requests: the warmup ended before any did,
 * and the steps ran out of VUs.
 */
export function sampledArrivalMs(
  entries: readonly { name: string; weight: number; transaction: boolean }[],
  lasted: ReadonlyMap<string, number>,
  plannedMs: number,
): number | null {
  const weights = entries.reduce((a, e) => a + e.weight, 0);
  if (!(weights > 0) || !entries.some((e) => e.transaction && lasted.has(e.name))) return null;
  const ms = entries.reduce((a, e) => a + e.weight * (lasted.get(e.name) ?? plannedMs), 0) / weights;
  return ms > plannedMs ? ms : null;
}
