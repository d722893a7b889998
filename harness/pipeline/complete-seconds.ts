/**
 * Buckets of one second arrive from every engine instance (worker threads, k6) at slightly
 * different moments. A second may be judged only once every instance has reported it: this
 * tracks the latest second each source has closed and answers the latest complete one.
 */
import type { BucketRecord } from '../../analysis/types.ts';

export class CompleteSeconds {
  private readonly latest = new Map<string, number>();

  constructor(private readonly instances: number) {}

  /** Records r and returns the latest tS that every instance has reported (-1 before that). */
  add(r: BucketRecord): number {
    this.latest.set(r.source, Math.max(this.latest.get(r.source) ?? -1, r.tS));
    if (this.latest.size < this.instances) return -1;
    return Math.min(...this.latest.values());
  }
}
