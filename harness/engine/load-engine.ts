/**
 * What the pipeline drives: an engine that keeps its VUs (and their connections) across runs
 * (warmup, then the steps' legs) and starts one schedule at a time. Two kinds: in this thread, or
 * striped over worker threads (workers.ts). Both emit BucketRecords to the sink.
 */
import type { BucketRecord } from '../../analysis/types.ts';
import type { Segment } from './schedule.ts';
import { Schedule } from './schedule.ts';
import { startNative, type EngineRun } from './native.ts';
import type { Preconnected, VuPool } from './vu-pool.ts';
import type { PreparedRequest, Outcome } from './http.ts';

export interface LegOptions {
  segments: Segment[];
  phase: string;
  /** Global sequence numbers of this run start after this one. */
  seqOffset: number;
  /** performance.now() of the phase's t = 0 in this thread (default: now). */
  t0Ms?: number;
  offsetS?: number;
  gracefulStopMs: number;
  sink(r: BucketRecord): void;
}

export interface LoadEngine {
  readonly name: string;
  /** Engine instances whose buckets make up one second (1, or the worker count). */
  readonly instances: number;
  /** Upper bound of VUs over all instances; raising it lets a generator-bound step be rerun. */
  maxVUs: number;
  start(o: LegOptions): EngineRun;
  /** Opens every preallocated VU's connection, so the first step's arrivals do not pay for connects. */
  preconnect(): Promise<Preconnected>;
  /** Runs the next legs on `count` instances (fewer than now; otherwise nothing changes). */
  shrink(count: number): Promise<void>;
  close(): Promise<void>;
}

export class InThreadEngine implements LoadEngine {
  readonly name = 'native (1 thread)';
  readonly instances = 1;

  constructor(
    private readonly pool: VuPool,
    private readonly build: (seq: number) => PreparedRequest,
    private readonly check: (o: Outcome) => string | null,
  ) {}

  get maxVUs(): number { return this.pool.max; }
  set maxVUs(n: number) { this.pool.max = n; }

  start(o: LegOptions): EngineRun {
    return startNative({ ...o, schedule: new Schedule(o.segments), source: 'native/0', pool: this.pool, build: this.build, check: this.check });
  }

  preconnect(): Promise<Preconnected> {
    return this.pool.preconnect();
  }

  /** One thread is already the fewest. */
  async shrink(): Promise<void> {}

  close(): Promise<void> {
    return this.pool.close();
  }
}
