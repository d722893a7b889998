/**
 * Whether an imported k6 run was a closed model: a constant-vus, ramping-vus, per-vu-iterations
 * or shared-iterations scenario, where each VU starts its next iteration when its last one ends,
 * so the VUs set the load and the rate of iterations started is the run's own throughput. plateau
 * judges an open model (delivery and capture against an offered rate); such a run offers none.
 *
 * k6's `vus` gauge (once a second) counts the VUs busy in an iteration in every executor since
 * v0.27 (lib/executor/ramping_arrival_rate.go's activeVUPool: an arrival-rate VU counts only while
 * it runs an iteration). Under an arrival rate that count moves with the arrivals and their
 * durations, like a Poisson count (two seconds in a row read the same number of busy VUs in about
 * 1 / (2 sqrt(pi x mean)) of the pairs: 16% at a mean of 3, 9% at 10), and it is pinned only at
 * maxVUs, where arrivals are dropped. Under a closed model it is the executor's VU count: the same
 * number second after second through each hold, and no iteration is ever dropped. Pure.
 */
import type { BucketRecord } from '../../../analysis/types.ts';

/** Below this many busy VUs a Poisson count repeats too often to tell the models apart. */
const MIN_BUSY = 3;
/** Pairs of loaded seconds needed before anything is said. */
const MIN_PAIRS = 10;
/** The share of pairs that must read the same busy VUs: a ramping-vus run with holds three times its ramps reads 0.75. */
const MIN_SAME_SHARE = 0.6;

export interface ClosedModel {
  /** Pairs of consecutive seconds with at least MIN_BUSY busy VUs, and those that read the same count. */
  pairs: number;
  same: number;
  /** The busy VU counts held (those repeated), lowest first, at most five. */
  levels: number[];
}

/** The evidence of a closed model in an imported k6 run's buckets, or null (an open model, or too little to tell). */
export function closedModelOf(records: readonly BucketRecord[]): ClosedModel | null {
  // one bucket a second in an import; a second k6 wrote no vus point for breaks the pairs
  const bySecond = new Map<number, BucketRecord>();
  let dropped = 0;
  for (const r of records) {
    dropped += r.dropped;
    bySecond.set(r.tS, r);
  }
  if (dropped > 0) return null;
  let pairs = 0;
  let same = 0;
  const held = new Set<number>();
  for (const [tS, r] of bySecond) {
    const prev = bySecond.get(tS - 1);
    if (!prev || r.vusActiveMax < MIN_BUSY || prev.vusActiveMax < MIN_BUSY) continue;
    pairs++;
    if (r.vusActiveMax === prev.vusActiveMax) {
      same++;
      held.add(r.vusActiveMax);
    }
  }
  if (pairs < MIN_PAIRS || same < MIN_SAME_SHARE * pairs) return null;
  return { pairs, same, levels: [...held].sort((a, b) => a - b).slice(0, 5) };
}

/** "5 VUs" or "10, 20 and 30 VUs". */
function levelsText(levels: readonly number[]): string {
  const n = levels.map(String);
  return `${n.length > 1 ? `${n.slice(0, -1).join(', ')} and ${n[n.length - 1]}` : n[0]} VUs`;
}

/** What the evidence says, for the refusal and the note. */
export function closedModelText(file: string, c: ClosedModel): string {
  return `${file} looks like a closed-model run (constant-vus, ramping-vus or a per-VU iteration count): ${levelsText(c.levels)} stayed busy through ${c.same} of ${c.pairs} pairs of consecutive seconds, and no iteration was ever dropped, so the VUs set its load and the rate of iterations started is its own throughput, not a rate it was offered`;
}

export const CLOSED_MODEL_FIX =
  'run the load as a ramping-arrival-rate scenario (plateau k6-script writes one from a plateau config); or give the step flags (--start-rate, --step-rate, --max-rate, --ramp, --hold) to import it for its tables by name and by step, its capacity then not established';
