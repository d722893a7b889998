/**
 * Aggregates one engine instance's events into one-second BucketRecords (HDR histograms, never a
 * list of requests) and hands each finished second to a sink. Requests count in the second they
 * complete; arrivals and drops in the second they were due (the engine holds that second open
 * until they are dispatched).
 */
import { monitorEventLoopDelay, performance, type EventLoopUtilization, type IntervalHistogram } from 'node:perf_hooks';
import type { BucketRecord, ErrorKind } from '../../analysis/types.ts';
import { phasesMs, type PhasesMs } from './phases.ts';
import type { Outcome } from './outcome.ts';
import { OpenBucket } from './open-bucket.ts';
import { cutMessage } from '../cut-message.ts';
import { checkFailureKind } from '../scenario/verdict.ts';
import { httpFailureText } from './failure-text.ts';
import type { HostSample, HostSampler } from './host-sampler.ts';
import { unhandledText } from '../../analysis/scenario-unhandled.ts';

/**
 * A VU that connects again after less idle time than this was dropped by the target in use
 * (Connection: close, a keep-alive request limit, a reset); after longer, by an idle timeout,
 * which a pool of VUs larger than the load needs provokes by itself (docs/decisions/014).
 */
export const RECONNECT_IDLE_MS = 1000;

/**
 * The most of an error message a sample keeps (BucketRecord.samples, five a second at most): a
 * target's own text can be any length; plateau's refusals, a name built from data with its fix, a
 * failed response's status, check message and the start of its body (failure-text.ts), fit.
 */
const MAX_MESSAGE = 300;

/** The event-loop delay monitor's sampling interval (ms). */
const LOOP_RESOLUTION_MS = 10;

export class BucketRecorder {
  private open: OpenBucket;
  private readonly loop: IntervalHistogram;
  private closed = false;
  /** Event-loop utilisation at the last emit: each second's busy share is the difference. */
  private elu: EventLoopUtilization;
  private readonly phases: PhasesMs = { blocked: 0, connecting: 0, sending: 0, waiting: 0, receiving: 0, duration: 0 };
  vusActive = 0;
  vusAllocated = 0;
  /**
   * Called before a second is rolled by what happened after it (a completion, a drop...): the
   * engine dispatches the arrivals already due, which count in the second they were due while it
   * is still open (after a stall, a completion can come before the dispatch timer).
   */
  beforeRoll: (() => void) | null = null;

  constructor(
    private readonly phase: string,
    private readonly source: string,
    /** performance.now() at the phase's t = 0. */
    private readonly t0Ms: number,
    private readonly sink: (r: BucketRecord) => void,
    firstS = 0,
    /** The machine's and container's counters, which one instance samples for all. */
    private readonly host: HostSampler | null = null,
    /** Record requests and names (BucketRecord.requests, byName): the scenario is a mix or has a transaction. */
    named = false,
  ) {
    this.open = new OpenBucket(true, named).reset(firstS);
    this.open.vusActiveMax = 0;
    this.loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
    this.loop.enable();
    this.elu = performance.eventLoopUtilization();
  }

  private at(nowMs: number): OpenBucket {
    const tS = Math.floor((nowMs - this.t0Ms) / 1000);
    if (tS > this.open.tS) {
      this.beforeRoll?.();
      // the arrivals it dispatched may have rolled seconds already
      if (tS > this.open.tS) this.roll(tS);
    }
    return this.open;
  }

  /**
   * Emits every second before tS (empty ones included: a silent second is data too). Each second
   * is taken out and the next opened before the sink sees it: a sink that stops the engine (and so
   * closes this recorder) must not see that second twice.
   */
  private roll(tS: number): void {
    // One measure for every second emitted now: after a stall, the seconds it spanned share it.
    const busy = this.busySinceLastEmit();
    const host = this.host?.sample();
    let first = true;
    while (this.open.tS < tS && !this.closed) {
      this.stamp(host, first);
      first = false;
      const r = this.take(this.open, busy);
      this.open.reset(this.open.tS + 1);
      this.open.vusActiveMax = this.vusActive;
      this.sink(r);
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

  /**
   * A VU taken by a transaction's parallel send (borrowed from the pool), counted in the open
   * second's peak without rolling it (no arrival is dispatched from inside a send).
   */
  borrowed(active: number, allocated: number): void {
    this.vusActive = active;
    this.vusAllocated = allocated;
    if (active > this.open.vusActiveMax) this.open.vusActiveMax = active;
  }

  /** @param threadBusy dropped because the thread was saturated, not because the pool was at max. */
  drop(nowMs: number, lagMs: number, threadBusy = false): void {
    const b = this.at(nowMs);
    b.dropped++;
    if (threadBusy) b.droppedBusy++;
    b.lag.recordUs(lagMs * 1000);
  }

  /**
   * A one-request arrival ended: the arrival and its request (named when the recorder records
   * names). `check`: the entry's, run on a response that failed by its status only when the second
   * keeps its sample, for the message it rejects with (failure-text.ts).
   */
  complete(
    nowMs: number,
    o: Outcome,
    checkFailure: string | null,
    name?: string,
    check?: (o: Outcome) => string | null,
  ): void {
    if (this.closed) return;
    const b = this.at(nowMs);
    const kind = this.request(b, o, checkFailure);
    const named = name !== undefined && b.byName !== null;
    if (named) b.name(name, false).record(this.phases.duration, kind, o.status);
    b.completed++;
    if (kind === undefined) {
      b.ok++;
      return;
    }
    // in a mix, the sample says which entry failed (a transaction's messages name their send)
    const sampleName = named ? name : undefined;
    if (!b.wants(kind, o.status || undefined, sampleName)) return b.fail(kind, o.status || undefined, null);
    const message =
      o.message ?? checkFailure ?? httpFailureText(o.status, check ? check(o) : null, o.bodyChunks, o.bytesIn);
    this.fail(b, kind, o.status, message, sampleName);
  }

  /**
   * Whether a failure of this kind, status and name at nowMs would add a sample to its second
   * (OpenBucket.wants): a transaction builds its failure's words (its check's message, the start of
   * the body) only then, as a one-request arrival does (complete).
   */
  wantsSample(nowMs: number, kind: ErrorKind, status: number, name?: string): boolean {
    return !this.closed && this.at(nowMs).wants(kind, status || undefined, name);
  }

  /** A request of a transaction ended (the arrival goes on): counted as a request and under its name. */
  sent(nowMs: number, name: string, o: Outcome, checkFailure: string | null): void {
    if (this.closed) return;
    const b = this.at(nowMs);
    const kind = this.request(b, o, checkFailure);
    b.name(name, false).record(this.phases.duration, kind, o.status);
  }

  /**
   * A transaction's arrival ended: ok, or failed with the kind, status and message of what failed
   * it (its first failed request or check, or what run threw).
   */
  transaction(
    nowMs: number,
    name: string,
    durationMs: number,
    failure: { kind: ErrorKind; status: number; message: string; send?: string } | null,
    borrowedMs = 0,
  ): void {
    if (this.closed) return;
    const b = this.at(nowMs);
    b.name(name, true).record(durationMs, failure?.kind, failure?.status ?? 0, borrowedMs);
    b.completed++;
    if (failure === null) b.ok++;
    else this.fail(b, failure.kind, failure.status, failure.message, undefined, failure.send);
  }

  /** A request's own figures (bytes, reconnects, phases when it succeeded); its error kind, if any. */
  private request(b: OpenBucket, o: Outcome, checkFailure: string | null): ErrorKind | undefined {
    b.requests++;
    b.bytesIn += o.bytesIn;
    b.bytesOut += o.bytesOut;
    if (o.times.connectStartMs !== 0 && o.connections > 1 && o.idleMs < RECONNECT_IDLE_MS) b.reconnects++;
    const kind: ErrorKind | undefined = o.kind ?? (checkFailure !== null ? checkFailureKind(checkFailure) : undefined);
    if (kind === undefined) b.recordPhases(phasesMs(o.times, this.phases));
    return kind;
  }

  /**
   * A send its transaction made after the arrival had ended (run did not await it): never sent, its
   * arrival already counted, so it is counted only under its name, failed (kind other), and its
   * message kept among the second's samples: the scenario's bug is seen, no count of arrivals or
   * requests changes. `name` null: a name http.send refuses (built from data, past the limit).
   */
  sentAfterEnd(nowMs: number, name: string | null, message: string): void {
    if (this.closed) return;
    const b = this.at(nowMs);
    // a name http.send would refuse gets no row of its own: only the message is kept
    if (name !== null) b.name(name, false).record(0, 'other', 0);
    b.note(cutMessage(`other: ${message}`, MAX_MESSAGE));
  }

  /**
   * A send refused for its name (NameBook: built from data, past the limit, a mix entry's): counted
   * apart, so that a run says its arrivals failed at plateau's hand, not the target's. The arrival's
   * failure itself is recorded as any (kind other) when it ends.
   */
  nameRefused(nowMs: number, message: string): void {
    if (this.closed) return;
    const b = this.at(nowMs);
    if (b.refusedNames++ === 0) b.refusedName = cutMessage(message, MAX_MESSAGE);
  }

  /**
   * A rejection of a promise the scenario's code left unhandled (unhandled.ts): counted apart, its
   * first message kept and noted among the second's samples; no arrival's count changes.
   */
  unhandled(nowMs: number, message: string): void {
    if (this.closed) return;
    const b = this.at(nowMs);
    if (b.unhandled++ === 0) {
      b.unhandledFirst = cutMessage(message, MAX_MESSAGE);
      // not "other:": it failed no arrival, and the errors table and the stop quote other failures by that prefix
      b.note(cutMessage(`unhandled, no arrival failed: ${unhandledText(message)}`, MAX_MESSAGE));
    }
  }

  /** An arrival that failed before sending (the scenario threw); under its entry's name when names are recorded. */
  iterationError(nowMs: number, message: string, name?: string, transaction = false): void {
    if (this.closed) return;
    const b = this.at(nowMs);
    const named = name !== undefined && b.byName !== null;
    if (named) b.name(name, transaction).record(0, 'other', 0);
    else if (!b.byName) b.unsent++; // no request: the cross-check with the server counts requests
    b.completed++;
    this.fail(b, 'other', 0, message, named ? name : undefined);
  }

  /** `keyName`: the name its kind is told apart by (the send that failed a transaction's arrival), `name` by default. */
  private fail(b: OpenBucket, kind: ErrorKind, status: number, message: string, name?: string, keyName = name): void {
    // once the second holds its samples, a message is counted, not built (an error storm's thousands a second)
    if (!b.wants(kind, status || undefined, keyName)) return b.fail(kind, status || undefined, null);
    b.fail(
      kind,
      status || undefined,
      cutMessage(name === undefined ? `${kind}: ${message}` : `${kind}: ${name}: ${message}`, MAX_MESSAGE),
      keyName,
    );
  }

  /** Flushes the open second and stops recording. */
  close(nowMs: number): void {
    if (this.closed) return;
    this.at(nowMs);
    if (this.closed) return; // a sink called while rolling closed it
    this.stamp(this.host?.sample(), true);
    const r = this.take(this.open, this.busySinceLastEmit());
    this.closed = true;
    this.loop.disable();
    this.sink(r);
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

  /**
   * The host's figures on the open second: the steal and process CPU shares on every second a
   * sample spans, the throttled ms all on the first of them (after a stall, the second it began in).
   */
  private stamp(host: HostSample | undefined, first: boolean): void {
    this.open.cpuSteal = host?.cpuSteal ?? -1;
    this.open.processCpu = host?.processCpu ?? -1;
    this.open.throttledMs = host?.throttledMs == null ? -1 : first ? host.throttledMs : 0;
  }

  /** The record of second b, the loop-delay monitor restarted for the next. */
  private take(b: OpenBucket, busy: number): BucketRecord {
    // The monitor's timer fires every LOOP_RESOLUTION_MS, and each delay it records includes that
    // wait (an idle loop reads 10.1 to 10.7 ms): only what lies beyond it is a stall.
    const loopMaxMs = this.loop.count > 0 ? Math.max(0, this.loop.max / 1e6 - LOOP_RESOLUTION_MS) : 0;
    this.loop.reset();
    b.vusActiveMax = Math.max(b.vusActiveMax, this.vusActive);
    b.vusAllocated = this.vusAllocated;
    return b.toRecord(
      this.source,
      this.phase,
      { active: this.vusActive, allocated: this.vusAllocated },
      Math.round(loopMaxMs * 100) / 100,
      busy,
    );
  }
}
