/**
 * How many engine threads a plan needs, from what the warmup cost: each warm second's busy time
 * over all threads divided by the arrivals it started is the thread-seconds an arrival costs, and
 * the plan's top rate times that is how busy one thread would be (docs/decisions/022).
 *
 * The cost is a ratio at the warmup's rate, so a thread's fixed costs (its timer ticks, its
 * bucket a second) are charged to every arrival: at a higher rate the estimate runs high, the
 * safe side. It was measured on all the threads, which on a machine also running the target cost
 * more per arrival than one thread does: high again.
 */
import type { BucketRecord } from './types.ts';

/** Seconds of the warmup not used: its ramp and the first second at rate (connections, JIT). */
const COLD_S = 2;
/** The warm seconds the estimate is the median of (the latest ones). */
const WARM_SECONDS = 6;

export interface ThreadSizing {
  /** Threads the plan needs, at least 1 and at most `threads`; `threads` when not measurable. */
  threads: number;
  /** Median thread-seconds of busy time per started arrival, in µs; null when not measurable. */
  costUs: number | null;
  /** How busy one thread would be at the top rate (cost x rate); null when not measurable. */
  oneThreadBusy: number | null;
  /** Warm seconds the median was taken over. */
  seconds: number;
  detail: string;
}

/**
 * @param records the warmup's buckets, one per thread (source) and second
 * @param threads the threads that ran the warmup
 * @param topRatePerSec the plan's highest step rate
 * @param busyBound the busy share a thread is sized for
 */
export function threadsForPlan(records: readonly BucketRecord[], threads: number, topRatePerSec: number, busyBound: number): ThreadSizing {
  const bySecond = new Map<number, BucketRecord[]>();
  for (const r of records) {
    const list = bySecond.get(r.tS) ?? [];
    list.push(r);
    bySecond.set(r.tS, list);
  }
  // the last second is the one cut short when the warmup stopped
  const lastS = Math.max(-1, ...bySecond.keys());
  const costs: number[] = [];
  for (const [tS, rs] of [...bySecond].sort((a, b) => a[0] - b[0])) {
    if (tS < COLD_S || tS === lastS || rs.length < threads || rs.some((r) => r.busy === undefined)) continue;
    const started = rs.reduce((a, r) => a + r.started, 0);
    if (started > 0) costs.push(rs.reduce((a, r) => a + r.busy!, 0) / started);
  }
  const warm = costs.slice(-WARM_SECONDS);
  if (warm.length === 0) {
    return { threads, costUs: null, oneThreadBusy: null, seconds: 0, detail: `no warm second of the warmup measured every thread's busy share: all ${threads} threads` };
  }
  const cost = median(warm);
  const oneThreadBusy = cost * topRatePerSec;
  const need = Math.min(threads, Math.max(1, Math.ceil(oneThreadBusy / busyBound)));
  const pct = (x: number) => `${Math.round(x * 100)}%`;
  const detail = `the warmup cost ${(cost * 1e6).toFixed(1)} µs of thread time per arrival (median of ${warm.length} warm seconds on ${threads} threads): ` +
    `the top rate, ${topRatePerSec.toLocaleString('en-US')} req/s, would keep one thread ${pct(oneThreadBusy)} busy (an estimate on the high side), so ` +
    (need < threads ? `the steps run on ${need} of the ${threads} threads (each under ${pct(busyBound)} busy)` : `all ${threads} threads run the steps`);
  return { threads: need, costUs: cost * 1e6, oneThreadBusy, seconds: warm.length, detail };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}
