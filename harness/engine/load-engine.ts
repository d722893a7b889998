/**
 * What the pipeline drives: an engine that keeps its VUs (and their connections) across runs
 * (warmup, then the steps' legs) and starts one schedule at a time, emitting BucketRecords to the
 * sink. Each engine declares what it can do (EngineCapabilities); the pipeline asks those, never
 * the engine's name, and only the factory (create.ts) knows which engine it made. The native
 * engine runs in this thread (here) or striped over worker threads (workers.ts); k6 runs in its
 * own process (harness/k6/engine/k6-engine.ts).
 */
import type { BucketRecord } from '../../analysis/types.ts';
import type { PlateauConfig } from '../config/schema.ts';
import type { Plan } from '../../analysis/plan.ts';
import type { StageResult } from '../pipeline/stage.ts';
import type { Segment } from '../../analysis/schedule.ts';
import { Schedule } from '../../analysis/schedule.ts';
import { startNative, type EngineRun } from './native.ts';
import type { Preconnected, VuPool } from './vu-pool.ts';
import type { Arrivals } from '../scenario/arrivals.ts';

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

/** What an engine can do. A stage that needs a capability the engine lacks is skipped, saying why (EngineTraits.whyNot). */
export interface EngineCapabilities {
  /** It runs the warmup's schedule and keeps the VUs it warmed for the steps. */
  warmup: boolean;
  /** preconnect() opens every preallocated VU's connection before load. */
  preconnect: boolean;
  /** shrink() runs the next legs on fewer threads, so the threads stage may size it. */
  threadSizing: boolean;
  /** Its buckets carry its own scheduler lag and event-loop figures. */
  schedulerLag: boolean;
  /** stop() ends a leg while it runs (the live stop rule, an interruption). */
  liveStop: boolean;
}

export type Capability = keyof EngineCapabilities;

export const NATIVE_CAPABILITIES: Readonly<EngineCapabilities> = Object.freeze({
  warmup: true,
  preconnect: true,
  threadSizing: true,
  schedulerLag: true,
  liveStop: true,
});

/** What an engine can do, and for each thing it cannot, why: the words the run records when it skips a stage. */
export interface EngineTraits {
  readonly capabilities: Readonly<EngineCapabilities>;
  readonly whyNot: Readonly<Partial<Record<Capability, string>>>;
}

/** Why `t` lacks capability `c` (its own words, else a plain statement). */
export function whyNot(t: EngineTraits, c: Capability): string {
  return t.whyNot[c] ?? `the engine has no ${c} capability`;
}

/**
 * An engine known before it starts (config checks, `plateau plan`, preflight, the plan each
 * instance runs): what createLoadEngine will make for a config, from engineKind(config).
 */
export interface EngineKind extends EngineTraits {
  /** The plan one instance of this engine runs (under a k6 execution segment: its share of every rate). */
  planForInstance(plan: Plan): Plan;
  /** The largest maxVUs a rerun may raise to (verdicts.maxVUsBound within limits.maxInFlight, or what the engine can honour within it). */
  rerunVusBound(): number;
  /** Lines `plateau plan` prints about this engine (none when it adds nothing to the plan). */
  planLines(): string[];
  /** The preflight stage: the common checks (`base`), with whatever this engine needs checked around them. */
  preflight<T>(env: NodeJS.ProcessEnv, base: () => Promise<StageResult<T>>): Promise<StageResult<T>>;
}

/** The bound on VUs every engine keeps: verdicts.maxVUsBound within limits.maxInFlight (one request in flight per VU). */
export function vusBound(config: PlateauConfig): number {
  return Math.min(config.verdicts.maxVUsBound, config.limits.maxInFlight);
}

export interface LoadEngine extends EngineTraits {
  readonly name: string;
  /** How the generator is shaped (threads, HTTP client), as the progress line and run.json's environment.engine say it. */
  readonly label: string;
  /** Engine instances whose buckets make up one second (1, or the worker count). */
  readonly instances: number;
  /** Upper bound of VUs over all instances; raising it lets a generator-bound step be rerun. */
  maxVUs: number;
  start(o: LegOptions): EngineRun;
  /** Opens every preallocated VU's connection, so the first step's arrivals do not pay for connects. */
  preconnect(): Promise<Preconnected>;
  /** Allocates VUs up to n (within maxVUs) ahead of the load (re-sized after the warmup); preconnect() opens them. */
  reserve(n: number): void;
  /** Runs the next legs on `count` instances (fewer than now; otherwise nothing changes). */
  shrink(count: number): Promise<void>;
  close(): Promise<void>;
}

export class InThreadEngine implements LoadEngine {
  readonly name = 'native (1 thread)';
  readonly instances = 1;
  readonly capabilities = NATIVE_CAPABILITIES;
  readonly whyNot = {};

  constructor(
    private readonly pool: VuPool,
    private readonly arrivals: Arrivals,
    /** config.http.client, named in the label. */
    private readonly httpClient: string,
  ) {}

  get label(): string {
    return `${this.name}, ${this.httpClient} HTTP client`;
  }

  get maxVUs(): number {
    return this.pool.max;
  }
  set maxVUs(n: number) {
    this.pool.max = n;
  }

  start(o: LegOptions): EngineRun {
    return startNative({
      ...o,
      schedule: new Schedule(o.segments),
      source: 'native/0',
      pool: this.pool,
      arrivals: this.arrivals,
    });
  }

  preconnect(): Promise<Preconnected> {
    return this.pool.preconnect();
  }

  reserve(n: number): void {
    this.pool.reserve(n);
  }

  /** One thread is already the fewest. */
  async shrink(): Promise<void> {}

  close(): Promise<void> {
    return this.pool.close();
  }
}
