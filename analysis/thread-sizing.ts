/**
 * How many engine threads a plan needs, from what the warmup cost: each warm second's busy time
 * over all threads divided by the arrivals it started is the thread-seconds an arrival costs, and
 * the plan's top rate (or the warmup's, if higher) times that is how busy one thread would be
 * (docs/decisions/022).
 *
 * The cost is a ratio at the warmup's rate, so the threads' fixed costs (timer ticks, a bucket a
 * second) are charged to every arrival. With F that fixed cost over all threads, r the warmup's
 * rate and R the rate judged, the estimate carries F x R / r of it where one thread has about
 * F / threads: high whenever R >= r / threads, which judging at least the warmup's rate
 * guarantees. It was also measured on all the threads, which on a machine also running the
 * target cost more per arrival than one thread does: high again.
 */
import type { AnalysedRecord, RateUnit, StageOutcome } from './types.ts';

/** Seconds of the warmup not used: its ramp and the first second at rate (connections, JIT). */
const COLD_S = 2;
/** The warm seconds the estimate is the median of (the latest ones, up to this many). */
const WARM_SECONDS = 6;
/** Fewer warm seconds than this and the estimate is not trusted: every thread runs. */
const MIN_WARM_SECONDS = 3;

export interface ThreadSizing {
  /** Threads the plan needs, at least 1 and at most `threads`; `threads` when not measurable. */
  threads: number;
  /** Median thread-seconds of busy time per started arrival, in µs; null when not measurable. */
  costUs: number | null;
  /** How busy one thread would be at the rate judged (cost x rate); null when not measurable. */
  oneThreadBusy: number | null;
  /** The rate judged: the plan's top rate, or the warmup's when that is higher. */
  ratePerSec: number;
  /** Warm seconds found (the median is over the latest WARM_SECONDS of them). */
  seconds: number;
  detail: string;
}

/**
 * @param records the warmup's buckets, one per thread (source) and second
 * @param threads the threads that ran the warmup
 * @param topRatePerSec the plan's highest step rate
 * @param busyBound the busy share a thread is sized for
 */
export function threadsForPlan(
  records: readonly AnalysedRecord[],
  threads: number,
  topRatePerSec: number,
  busyBound: number,
  unit: RateUnit = 'req/s',
): ThreadSizing {
  const bySecond = new Map<number, AnalysedRecord[]>();
  const lastBySource = new Map<string, number>();
  for (const r of records) {
    const list = bySecond.get(r.tS) ?? [];
    list.push(r);
    bySecond.set(r.tS, list);
    lastBySource.set(r.source, Math.max(r.tS, lastBySource.get(r.source) ?? -1));
  }
  // each source's last bucket was cut short when the warmup stopped; they need not share a second
  const cutS = Math.min(...lastBySource.values());
  const costs: number[] = [];
  const rates: number[] = [];
  for (const [tS, rs] of [...bySecond].sort((a, b) => a[0] - b[0])) {
    if (tS < COLD_S || tS >= cutS || rs.length < threads || rs.some((r) => r.busy === undefined)) continue;
    const started = rs.reduce((a, r) => a + r.started, 0);
    if (started === 0) continue;
    costs.push(rs.reduce((a, r) => a + r.busy!, 0) / started);
    rates.push(started);
  }
  const all = `all ${threads} threads run the steps`;
  if (costs.length < MIN_WARM_SECONDS) {
    return {
      threads,
      costUs: null,
      oneThreadBusy: null,
      ratePerSec: topRatePerSec,
      seconds: costs.length,
      detail: `the warmup had ${costs.length} warm second${costs.length === 1 ? '' : 's'} with every thread's busy share, under the ${MIN_WARM_SECONDS} an estimate needs: ${all}`,
    };
  }
  const cost = median(costs.slice(-WARM_SECONDS));
  const ratePerSec = Math.max(topRatePerSec, median(rates.slice(-WARM_SECONDS)));
  const oneThreadBusy = cost * ratePerSec;
  const need = Math.min(threads, Math.max(1, Math.ceil(oneThreadBusy / busyBound)));
  const pct = (x: number) => `${Math.round(x * 100)}%`;
  const rateText =
    ratePerSec === topRatePerSec
      ? `the top rate, ${topRatePerSec.toLocaleString('en-US')} ${unit},`
      : `the warmup's rate, ${Math.round(ratePerSec).toLocaleString('en-US')} ${unit} (above the top rate),`;
  const detail =
    `the warmup cost ${(cost * 1e6).toFixed(1)} µs of thread time per arrival (median of ${Math.min(costs.length, WARM_SECONDS)} warm seconds on ${threads} threads): ` +
    `${rateText} would keep one thread ${pct(oneThreadBusy)} busy (an estimate on the high side), so ` +
    (need < threads ? `the steps run on ${need} of the ${threads} threads (each under ${pct(busyBound)} busy)` : all);
  return { threads: need, costUs: cost * 1e6, oneThreadBusy, ratePerSec, seconds: costs.length, detail };
}

/** The threads a passed threads stage kept, or null when it kept all (or did not run). */
export function threadsKept(stages: readonly StageOutcome[]): { kept: number; of: number } | null {
  const t = stages.find((x) => x.name === 'threads' && x.status === 'pass')?.threads;
  return t && t.kept < t.of ? t : null;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}
