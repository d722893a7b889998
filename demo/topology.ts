/**
 * The demo's topology: how many replicas serve it, shown as the gauge `demo_replicas` so a
 * topology probe has something to watch. Each replica brings its own pool of `slotsPerReplica`
 * (as each Spring instance has its own HikariCP pool), so the pool's slots follow the replicas:
 * total slots = slotsPerReplica x replicas, and a scale-out mid-step really changes capacity,
 * which is why such a step must not be judged. The coherency penalty (coherency.ts) counts every
 * busy slot of every replica: they share one database, as replicas of a real service do.
 */
import type { Pool } from './pool.ts';

export interface ReplicasChange {
  /** Seconds after the demo started listening. */
  atS: number;
  replicas: number;
}

export function validReplicas(n: number): number {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`replicas must be an integer >= 1, got ${n}`);
  return n;
}

export class Topology {
  private count: number;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly pool: Pool,
    readonly slotsPerReplica: number,
    replicas: number,
  ) {
    this.count = validReplicas(replicas);
  }

  get replicas(): number {
    return this.count;
  }

  /** Scale to n replicas now: the pool grows or shrinks to slotsPerReplica x n. */
  set(n: number): void {
    this.count = validReplicas(n);
    this.pool.resize(this.slotsPerReplica * n);
  }

  /** Scale once, change.atS seconds from now (the timer does not keep the process alive). */
  schedule(change: ReplicasChange): void {
    validReplicas(change.replicas);
    if (!(change.atS >= 0) || !Number.isFinite(change.atS))
      throw new RangeError(`replicasChangeAtS must be >= 0, got ${change.atS}`);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.set(change.replicas), change.atS * 1000);
    this.timer.unref();
  }

  close(): void {
    clearTimeout(this.timer);
  }
}
