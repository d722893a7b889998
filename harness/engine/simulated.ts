/**
 * A LoadEngine in simulated time over a ModelTarget: the open model's arrivals come from the same
 * Schedule as the native engine's, an arrival with no free VU is dropped (k6 semantics; the VUs in
 * use are the requests in the target, N = X x W), and each second becomes real BucketRecords (HDR
 * histograms, one per instance) that the pipeline judges as it judges any engine's. The model runs
 * as a fluid in ticks of a few ms: memory and time are O(seconds), whatever the rate.
 */
import type { BucketRecord, Phase } from '../../analysis/types.ts';
import { encodeHistogram, newHistogram, type Histogram } from '../../analysis/histogram.ts';
import type { Clock, Timer } from '../clock.ts';
import { NATIVE_CAPABILITIES, type LegOptions, type LoadEngine } from './load-engine.ts';
import type { EngineRun } from './native.ts';
import type { ModelTarget } from './model-target.ts';
import { Schedule } from '../../analysis/schedule.ts';
import type { Preconnected } from './vu-pool.ts';

export interface SimulatedEngineOptions {
  clock: Clock;
  target: ModelTarget;
  preAllocatedVUs: number;
  /** VUs over all instances; the steps stage raises it to rerun a step that dropped arrivals. */
  maxVUs: number;
  /** Instances (threads) that split each second, as worker stripes do (default 1). */
  instances?: number;
  /** Thread time each arrival costs (µs): each second's busy share. Absent: busy not measured. */
  costUsPerArrival?: number;
  /** Resolution of the fluid (ms; default min(10, serviceMs / 4)). */
  tickMs?: number;
}

/** The latency of a tick's completions is spread over W x these (mean 1), so percentiles differ. */
const SPREAD = [0.6, 0.8, 1, 1.2, 1.4];
/** While draining after a stop, the engine looks every this many ms whether its requests are done. */
const DRAIN_LOOK_MS = 100;
const EMPTY = encodeHistogram(newHistogram());
const REQUEST_BYTES = 100;
const RESPONSE_BYTES = 200;

export class SimulatedEngine implements LoadEngine {
  readonly name = 'simulated';
  /** It does everything the native engine does (the model keeps its schedule and reports lag and loop figures). */
  readonly capabilities = NATIVE_CAPABILITIES;
  readonly whyNot = {};
  instances: number;
  maxVUs: number;
  /** VUs allocated so far (they stay, as a pool's do). */
  allocated: number;
  /** Requests still in the target from a leg that finished: their completions belong to no leg. */
  orphans = 0;
  readonly tickMs: number;
  /** The runs started, newest last (tests read what each was asked). */
  readonly legs: LegOptions[] = [];

  constructor(readonly o: SimulatedEngineOptions) {
    this.instances = o.instances ?? 1;
    this.maxVUs = o.maxVUs;
    this.allocated = Math.min(o.preAllocatedVUs, o.maxVUs);
    this.tickMs = o.tickMs ?? Math.max(0.25, Math.min(10, o.target.shortestServiceMs / 4));
  }

  get label(): string {
    const t = this.o.target.o;
    return `simulated (${this.instances} instance${this.instances === 1 ? '' : 's'}) over a ${t.overload} model of ${t.capacityPerSec} req/s`;
  }

  start(leg: LegOptions): EngineRun {
    this.legs.push(leg);
    return new SimRun(this, leg).handle();
  }

  async preconnect(): Promise<Preconnected> {
    return { ready: this.allocated, failed: 0 };
  }

  reserve(n: number): void {
    this.allocated = Math.max(this.allocated, Math.min(n, this.maxVUs));
  }

  async shrink(count: number): Promise<void> {
    if (count >= 1 && count < this.instances) this.instances = count;
  }

  async close(): Promise<void> {}
}

/** One instance's share of the open second. */
class InstanceSecond {
  started = 0;
  dropped = 0;
  completed = 0;
  ok = 0;
  rejected = 0;
  vusActiveMax = 0;
  readonly duration: Histogram = newHistogram(64);
  readonly lag: Histogram = newHistogram(64);

  reset(): void {
    this.started = this.dropped = this.completed = this.ok = this.rejected = this.vusActiveMax = 0;
    this.duration.reset();
    this.lag.reset();
  }
}

/** count of n in (a, b] with (n - 1) mod k = i: instance i's stripe of the global arrivals. */
function stripeCount(a: number, b: number, i: number, k: number): number {
  const upTo = (x: number) => (x >= i + 1 ? Math.floor((x - 1 - i) / k) + 1 : 0);
  return upTo(b) - upTo(a);
}

/** n split over k parts as evenly as whole counts allow, the odd ones from `from` on. */
function split(n: number, k: number, from: number): number[] {
  const base = Math.floor(n / k);
  const out = new Array<number>(k).fill(base);
  for (let j = 0; j < n - base * k; j++) out[(from + j) % k]++;
  return out;
}

class SimRun {
  private readonly clock: Clock;
  private readonly target: ModelTarget;
  private readonly schedule: Schedule;
  private readonly phaseT0Ms: number;
  private readonly legT0Ms: number;
  private readonly legEndMs: number;
  private readonly k: number;
  private readonly seconds: InstanceSecond[];
  private openS: number;
  /** Up to when the leg has been simulated (ms on the clock). */
  private simMs: number;
  private begun = false;
  /** Arrivals offered so far (dispatched or dropped): the global sequence within the leg. */
  private offered = 0;
  /** This leg's requests in the target. */
  private own = 0;
  private rot = 0;
  /** Where the next completion falls in SPREAD, so a trickle of one per tick covers all of it. */
  private spreadAt = 0;
  private stopped = false;
  private finished = false;
  private finishAtMs = Infinity;
  private timer: Timer | null = null;
  private inProcess = false;
  private resolveDone!: (v: { dispatched: number; lastSeq: number }) => void;
  private readonly done = new Promise<{ dispatched: number; lastSeq: number }>((r) => (this.resolveDone = r));

  constructor(
    private readonly engine: SimulatedEngine,
    private readonly leg: LegOptions,
  ) {
    this.clock = engine.o.clock;
    this.target = engine.o.target;
    this.schedule = new Schedule(leg.segments);
    this.phaseT0Ms = leg.t0Ms ?? this.clock.now();
    const offsetS = leg.offsetS ?? 0;
    this.legT0Ms = this.phaseT0Ms + offsetS * 1000;
    this.legEndMs = this.legT0Ms + this.schedule.durationS * 1000;
    this.k = engine.instances;
    this.seconds = Array.from({ length: this.k }, () => new InstanceSecond());
    this.openS = Math.floor(offsetS);
    this.simMs = Math.max(this.clock.now(), this.legT0Ms);
    this.wakeAt(this.nextBoundaryMs());
  }

  handle(): EngineRun {
    return {
      stop: (graceMs) => this.stop(graceMs),
      done: this.done,
      elapsedS: () => (this.clock.now() - this.legT0Ms) / 1000,
    };
  }

  private nextBoundaryMs(): number {
    return this.phaseT0Ms + (this.openS + 1) * 1000;
  }

  private wakeAt(tMs: number): void {
    this.clock.clear(this.timer);
    this.timer = this.clock.setTimeout(() => this.wake(), Math.max(0, tMs - this.clock.now()));
  }

  private wake(): void {
    this.timer = null;
    if (this.finished) return;
    const now = this.clock.now();
    this.process(now);
    if (!this.stopped && now >= this.legEndMs) this.stop(this.leg.gracefulStopMs);
    if (this.finished) return;
    if (this.stopped && (this.own === 0 || now >= this.finishAtMs)) {
      this.finish();
      return;
    }
    const next = this.stopped
      ? Math.min(this.nextBoundaryMs(), now + DRAIN_LOOK_MS, this.finishAtMs)
      : Math.min(this.nextBoundaryMs(), Math.max(this.legEndMs, now + 1));
    this.wakeAt(next);
  }

  /** Arrivals due before tMs (leg time): n with I(t) > n; all of them once the schedule has ended. */
  private dueBefore(tMs: number): number {
    if (tMs >= this.legEndMs) return this.schedule.totalArrivals;
    if (tMs <= this.legT0Ms) return 0;
    const i = this.schedule.integral((tMs - this.legT0Ms) / 1000);
    return Math.min(this.schedule.totalArrivals, Math.max(0, Math.ceil(i - 1e-9) - 1));
  }

  /** Simulates the leg up to tMs in ticks, emitting each second as its end is reached. */
  private process(tMs: number): void {
    if (this.finished) return;
    this.inProcess = true;
    if (!this.begun) {
      this.begun = true;
      this.target.idleUntil(this.simMs, this.engine.tickMs);
    }
    while (this.simMs < tMs && !this.finished) {
      const boundary = this.nextBoundaryMs();
      const end = Math.min(tMs, this.simMs + this.engine.tickMs, boundary);
      this.tick(this.simMs, end);
      this.simMs = end;
      if (end >= boundary) this.emit();
    }
    this.inProcess = false;
  }

  private tick(fromMs: number, toMs: number): void {
    const served = this.target.serveUntil(toMs);
    // completions of a finished leg's requests come first: no leg records them
    const orphan = Math.min(served.completed, this.engine.orphans);
    this.engine.orphans -= orphan;
    const mine = served.completed - orphan;
    this.own -= mine;
    this.record(mine, served.latencyMs);
    if (this.stopped) return;
    const before = this.offered;
    const due = this.dueBefore(toMs) - before;
    if (due <= 0) return;
    this.offered += due;
    const free = Math.max(0, this.engine.maxVUs - this.target.inSystem);
    const started = Math.min(due, free);
    const offer = this.target.offer(started, fromMs);
    this.own += offer.admitted;
    const inUse = Math.min(this.engine.maxVUs, this.target.inSystem + offer.rejected);
    this.engine.allocated = Math.max(this.engine.allocated, Math.min(this.engine.maxVUs, inUse));
    // in a tick, the last arrivals are the ones that find no VU (and, of those started, the last get the 503s)
    const startedTo = before + started;
    const active = split(inUse, this.k, this.rot);
    for (let i = 0; i < this.k; i++) {
      const s = this.seconds[i];
      const arrivals = stripeCount(before, this.offered, i, this.k);
      const rejected = stripeCount(startedTo - offer.rejected, startedTo, i, this.k);
      s.started += stripeCount(before, startedTo, i, this.k);
      s.dropped += stripeCount(startedTo, this.offered, i, this.k);
      s.completed += rejected;
      s.rejected += rejected;
      s.vusActiveMax = Math.max(s.vusActiveMax, active[i]);
      // the model keeps its schedule exactly: every arrival's lag is the histogram's floor (1 µs)
      if (arrivals > 0) s.lag.recordValueWithCount(1, arrivals);
    }
    this.rot = (this.rot + 1) % this.k;
  }

  /** n successful completions of latency W, over the instances and the spread of W. */
  private record(n: number, latencyMs: number): void {
    if (n <= 0) return;
    const perInstance = split(n, this.k, this.rot);
    for (let i = 0; i < this.k; i++) {
      const s = this.seconds[i];
      s.completed += perInstance[i];
      s.ok += perInstance[i];
      const parts = split(perInstance[i], SPREAD.length, this.spreadAt);
      this.spreadAt = (this.spreadAt + perInstance[i]) % SPREAD.length;
      for (let j = 0; j < SPREAD.length; j++) {
        if (parts[j] > 0)
          s.duration.recordValueWithCount(Math.max(1, Math.round(latencyMs * SPREAD[j] * 1000)), parts[j]);
      }
    }
  }

  /** Hands every instance's record of the open second to the sink and opens the next. */
  private emit(): void {
    const tS = this.openS;
    const records = this.seconds.map((s, i) => this.toRecord(s, i, tS));
    this.openS++;
    for (const s of this.seconds) s.reset();
    for (const r of records) this.leg.sink(r);
  }

  private toRecord(s: InstanceSecond, i: number, tS: number): BucketRecord {
    const duration = s.ok > 0 ? encodeHistogram(s.duration) : EMPTY;
    const hist: Record<Phase, string> = {
      blocked: EMPTY,
      connecting: EMPTY,
      sending: EMPTY,
      waiting: duration,
      receiving: EMPTY,
      duration,
    };
    const cost = this.engine.o.costUsPerArrival;
    return {
      v: 1,
      source: `sim/${i}`,
      tS,
      phase: this.leg.phase,
      started: s.started,
      dropped: s.dropped,
      completed: s.completed,
      ok: s.ok,
      errors: s.rejected ? { http_5xx: s.rejected } : {},
      statuses: s.rejected ? { 503: s.rejected } : {},
      ...(s.rejected ? { samples: ['http_5xx: HTTP 503'] } : {}),
      bytesIn: s.completed * RESPONSE_BYTES,
      bytesOut: s.started * REQUEST_BYTES,
      vusActiveMax: s.vusActiveMax,
      vusAllocated: split(this.engine.allocated, this.k, 0)[i],
      lag: s.lag.totalCount > 0 ? encodeHistogram(s.lag) : EMPTY,
      loopDelayMaxMs: 0,
      ...(cost !== undefined ? { busy: Math.min(1, Math.round(((s.started + s.dropped) * cost) / 1e3) / 1e3) } : {}),
      hist,
    };
  }

  private stop(graceMs: number): void {
    if (this.finished) return;
    if (!this.stopped && !this.inProcess) this.process(this.clock.now());
    this.stopped = true;
    this.finishAtMs = Math.min(this.finishAtMs, this.clock.now() + Math.max(0, graceMs));
    // finish after the current call returns: a stop may come from the sink inside emit()
    if (this.own === 0 || graceMs <= 0) {
      queueMicrotask(() => this.finish());
      return;
    }
    if (!this.inProcess) this.wakeAt(Math.min(this.finishAtMs, this.clock.now() + DRAIN_LOOK_MS));
  }

  private finish(): void {
    if (this.finished) return;
    this.process(this.clock.now());
    if (this.finished) return; // a sink called while processing finished it
    this.finished = true;
    this.clock.clear(this.timer);
    this.engine.orphans += this.own;
    // the open second, cut short, as the native recorder's close() writes it
    const records = this.seconds.map((s, i) => this.toRecord(s, i, this.openS));
    for (const r of records) this.leg.sink(r);
    this.resolveDone({ dispatched: this.offered, lastSeq: this.leg.seqOffset + this.offered });
  }
}
