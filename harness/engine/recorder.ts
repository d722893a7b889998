/**
 * Aggregates one engine instance's events into one-second BucketRecords (HDR histograms, never a
 * list of requests) and hands each finished second to a sink. Requests count in the second they
 * complete; arrivals and drops in the second they were dispatched.
 */
import { monitorEventLoopDelay, performance, type EventLoopUtilization, type IntervalHistogram } from 'node:perf_hooks';
import type { BucketRecord, ErrorKind } from '../../analysis/types.ts';
import { phasesMs, type PhasesMs } from './phases.ts';
import type { Outcome } from './http.ts';
import { OpenBucket } from './open-bucket.ts';
import { stealShare, type CpuTimes } from '../cpu-steal.ts';

/**
 * A VU that connects again after less idle time than this was dropped by the target in use
 * (Connection: close, a keep-alive request limit, a reset); after longer, by an idle timeout,
 * which a pool of VUs larger than the load needs provokes by itself (docs/decisions/014).
 */
export const RECONNECT_IDLE_MS = 1000;

/** Counters of the generator's machine and container, read by one engine instance for all. */
export interface HostCounters {
  /** Cumulative ms the generator's cgroup was throttled by its CPU quota. */
  throttledMs?: (() => number | null) | null;
  /** The machine's cumulative CPU times, for steal. */
  cpuTimes?: (() => CpuTimes | null) | null;
}

export class BucketRecorder {
  private open: OpenBucket;
  private readonly loop: IntervalHistogram;
  private closed = false;
  /** Event-loop utilisation at the last emit: each second's busy share is the difference. */
  private elu: EventLoopUtilization;
  private readonly phases: PhasesMs = { blocked: 0, connecting: 0, sending: 0, waiting: 0, receiving: 0, duration: 0 };
  vusActive = 0;
  vusAllocated = 0;
  /** The throttled counter at the last emit. */
  private throttledMark: number | null;
  private readonly throttled: (() => number | null) | null;
  /** The machine's CPU times at the last emit (for steal). */
  private cpuTimesMark: CpuTimes | null;
  private readonly cpuTimes: (() => CpuTimes | null) | null;

  constructor(
    private readonly phase: string,
    private readonly source: string,
    /** performance.now() at the phase's t = 0. */
    private readonly t0Ms: number,
    private readonly sink: (r: BucketRecord) => void,
    firstS = 0,
    /** The machine's counters, which one instance reads for all. */
    host: HostCounters = {},
  ) {
    this.throttled = host.throttledMs ?? null;
    this.throttledMark = this.throttled?.() ?? null;
    this.cpuTimes = host.cpuTimes ?? null;
    this.cpuTimesMark = this.cpuTimes?.() ?? null;
    this.open = new OpenBucket(true).reset(firstS);
    this.open.vusActiveMax = 0;
    this.loop = monitorEventLoopDelay({ resolution: 10 });
    this.loop.enable();
    this.elu = performance.eventLoopUtilization();
  }

  private at(nowMs: number): OpenBucket {
    const tS = Math.floor((nowMs - this.t0Ms) / 1000);
    if (tS > this.open.tS) this.roll(tS);
    return this.open;
  }

  /** Emits every second before tS (empty ones included: a silent second is data too). */
  private roll(tS: number): void {
    // One measure for every second emitted now: after a stall, the seconds it spanned share it.
    const busy = this.busySinceLastEmit();
    let throttled = this.throttledSinceLastEmit();
    const steal = this.stealSinceLastEmit();
    while (this.open.tS < tS) {
      this.open.throttledMs = throttled;
      this.open.cpuSteal = steal;
      throttled = throttled === -1 ? -1 : 0; // after a stall, all of it to the first second it spanned
      this.emit(this.open, busy);
      this.open.reset(this.open.tS + 1);
      this.open.vusActiveMax = this.vusActive;
    }
  }

  tick(nowMs: number): void {
    if (!this.closed) this.at(nowMs);
  }

  arrival(nowMs: number, lagMs: number): void {
    const b = this.at(nowMs);
    b.started++;
    b.lag.recordUs(lagMs * 1000);
    if (this.vusActive > b.vusActiveMax) b.vusActiveMax = this.vusActive;
  }

  /** @param threadBusy dropped because the thread was saturated, not because the pool was at max. */
  drop(nowMs: number, lagMs: number, threadBusy = false): void {
    const b = this.at(nowMs);
    b.dropped++;
    if (threadBusy) b.droppedBusy++;
    b.lag.recordUs(lagMs * 1000);
  }

  complete(nowMs: number, o: Outcome, checkFailure: string | null): void {
    if (this.closed) return;
    const b = this.at(nowMs);
    b.completed++;
    b.bytesIn += o.bytesIn;
    b.bytesOut += o.bytesOut;
    if (o.times.connectStartMs !== 0 && o.connections > 1 && o.idleMs < RECONNECT_IDLE_MS) b.reconnects++;
    const kind: ErrorKind | undefined = o.kind ?? (checkFailure !== null ? 'check' : undefined);
    if (kind === undefined) {
      b.ok++;
      b.recordPhases(phasesMs(o.times, this.phases));
      return;
    }
    this.fail(b, kind, o.status, o.message ?? checkFailure ?? `HTTP ${o.status}`);
  }

  /** An iteration that failed before sending (the scenario threw). */
  iterationError(nowMs: number, message: string): void {
    const b = this.at(nowMs);
    b.completed++;
    this.fail(b, 'other', 0, message);
  }

  private fail(b: OpenBucket, kind: ErrorKind, status: number, message: string): void {
    b.fail(kind, status || undefined, `${kind}: ${message}`.slice(0, 200));
  }

  /** Flushes the open second and stops recording. */
  close(nowMs: number): void {
    if (this.closed) return;
    this.at(nowMs);
    this.open.throttledMs = this.throttledSinceLastEmit();
    this.open.cpuSteal = this.stealSinceLastEmit();
    this.emit(this.open, this.busySinceLastEmit());
    this.closed = true;
    this.loop.disable();
  }

  /**
   * Share of the wall time since the last emit that this thread's event loop spent working
   * (callbacks, JS, GC, syscalls) rather than waiting for I/O: Node's event-loop utilisation.
   */
  private busySinceLastEmit(): number {
    const now = performance.eventLoopUtilization();
    const d = performance.eventLoopUtilization(now, this.elu);
    this.elu = now;
    return Math.round(Math.min(1, Math.max(0, d.utilization)) * 1000) / 1000;
  }

  /** ms throttled since the last emit, rounded to 0.1 ms; -1 when not read. */
  private throttledSinceLastEmit(): number {
    if (this.throttledMark === null) return -1;
    const now = this.throttled?.() ?? null;
    if (now === null) return -1;
    const d = Math.max(0, now - this.throttledMark);
    this.throttledMark = now;
    return Math.round(d * 10) / 10;
  }

  /** Share of the machine's CPU time stolen since the last emit; -1 when not read. */
  private stealSinceLastEmit(): number {
    if (this.cpuTimesMark === null) return -1;
    const now = this.cpuTimes?.() ?? null;
    if (now === null) return -1;
    const share = stealShare(this.cpuTimesMark, now);
    if (share === null) return -1;
    this.cpuTimesMark = now;
    return share;
  }

  private emit(b: OpenBucket, busy: number): void {
    const loopMaxMs = this.loop.count > 0 ? this.loop.max / 1e6 : 0;
    this.loop.reset();
    b.vusActiveMax = Math.max(b.vusActiveMax, this.vusActive);
    b.vusAllocated = this.vusAllocated;
    this.sink(b.toRecord(this.source, this.phase, { active: this.vusActive, allocated: this.vusAllocated }, Math.round(loopMaxMs * 100) / 100, busy));
  }
}
