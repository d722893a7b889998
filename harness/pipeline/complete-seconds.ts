/**
 * Buckets of one second arrive from every engine instance (worker threads, k6) at slightly
 * different moments. A second may be judged, or shown on the progress line, only once every
 * instance has reported it: this tracks the latest second each source has closed, answers the
 * latest complete one, and hands back all the instances' buckets of a second when its last one
 * arrives (a single worker's bucket is only its stripe: half the rate on two workers). They are
 * not merged here: that decodes every histogram, and the progress line needs one.
 */
import type { BucketRecord } from '../../analysis/types.ts';

export interface Added {
  /** The latest tS that every instance has reported (-1 before that). */
  doneS: number;
  /** Every instance's bucket of r's second, when r was its last missing one; else null. */
  second: readonly BucketRecord[] | null;
}

export class CompleteSeconds {
  private readonly latest = new Map<string, number>();
  /** The buckets of seconds not yet reported by every instance (a few at most). */
  private readonly pending = new Map<number, BucketRecord[]>();

  constructor(private readonly instances: number) {}

  add(r: BucketRecord): Added {
    this.latest.set(r.source, Math.max(this.latest.get(r.source) ?? -1, r.tS));
    const doneS = this.latest.size < this.instances ? -1 : Math.min(...this.latest.values());
    const group = this.pending.get(r.tS) ?? [];
    group.push(r);
    let second: BucketRecord[] | null = null;
    if (group.length >= this.instances) {
      second = group;
      this.pending.delete(r.tS);
    } else {
      this.pending.set(r.tS, group);
    }
    // A second every instance has passed will get no more buckets (one missed by a stopped instance).
    for (const tS of this.pending.keys()) if (tS < doneS) this.pending.delete(tS);
    return { doneS, second };
  }
}
