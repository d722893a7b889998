/**
 * One second being summed, by any producer (the native engine's recorder, the k6 ingest): counts
 * and HDR histograms (µs) of successful requests' phases and of scheduler lag. Buckets are
 * recycled (histograms reset, not reallocated): the 64-bit layout encodes ~5x faster than
 * 'packed', and a producer closes one every second.
 */
import { BufferedHistogram, encodeHistogram, newHistogram } from '../../analysis/histogram.ts';
import { PHASES, type BucketRecord, type ErrorKind, type NameBucket, type Phase } from '../../analysis/types.ts';
import type { PhasesMs } from './phases.ts';

const MAX_SAMPLES = 5;
/** Failures a second words at most (wants; a caller asks once or twice a failure): its samples' room, a few times over. */
const MAX_WORDED = 4 * MAX_SAMPLES;
/** A second without lag samples (k6 does not report lag) carries the one empty histogram. */
const EMPTY_LAG = encodeHistogram(newHistogram());

/** One name's second being summed (BucketRecord.byName); recycled like its bucket. */
export class OpenName {
  completed = 0;
  ok = 0;
  errors: Partial<Record<ErrorKind, number>> = {};
  statuses: Record<string, number> = {};
  readonly duration = new BufferedHistogram();
  /** NameBucket.borrowedMs. */
  borrowedMs = 0;
  constructor(readonly transaction: boolean) {}

  reset(): void {
    this.completed = this.ok = this.borrowedMs = 0;
    this.errors = {};
    this.statuses = {};
    this.duration.reset();
  }

  /** One completion: ok with its duration (ms) and the ms it held borrowed VUs, or failed by kind (and status). */
  record(durationMs: number, kind: ErrorKind | undefined, status: number, borrowedMs = 0): void {
    this.completed++;
    if (kind === undefined) {
      this.ok++;
      this.duration.recordUs(durationMs * 1000);
      this.borrowedMs += borrowedMs;
      return;
    }
    this.errors[kind] = (this.errors[kind] ?? 0) + 1;
    if (status) this.statuses[status] = (this.statuses[status] ?? 0) + 1;
  }

  toRecord(): NameBucket {
    return {
      ...(this.transaction ? { transaction: true as const } : {}),
      completed: this.completed,
      ok: this.ok,
      errors: this.errors,
      ...(Object.keys(this.statuses).length ? { statuses: this.statuses } : {}),
      duration: this.duration.totalCount > 0 ? encodeHistogram(this.duration.flush()) : EMPTY_LAG,
      ...(this.borrowedMs > 0 ? { borrowedMs: Math.round(this.borrowedMs * 1000) / 1000 } : {}),
    };
  }
}

export class OpenBucket {
  tS = 0;
  started = 0;
  dropped = 0;
  /** Of `dropped`: arrivals refused a new VU because the thread was saturated (BucketRecord.droppedBusy). */
  droppedBusy = 0;
  completed = 0;
  ok = 0;
  errors: Partial<Record<ErrorKind, number>> = {};
  statuses: Record<string, number> = {};
  samples: string[] = [];
  /**
   * Each sample's kind of failure (its error kind, status and name; a plain note's: its message),
   * so that a kind the samples lack is kept before a second message of another: a body that holds
   * an id makes every message of one kind distinct, and must not crowd the others out.
   */
  private sampleKinds: string[] = [];
  private sampleStatuses: Array<string | number | undefined> = [];
  private sampleNames: Array<string | undefined> = [];
  /** Samples whose kind an earlier sample has: what a new kind displaces once the second is full. */
  private repeats = 0;
  /** Failures this second a caller was told to word (wants): MAX_WORDED at most. */
  private worded = 0;
  bytesIn = 0;
  bytesOut = 0;
  /** Requests of this second whose VU, in use, had to connect again (BucketRecord.reconnects). */
  reconnects = 0;
  /** Sends refused for their name this second, and the first one's message (BucketRecord.refusedNames). */
  refusedNames = 0;
  refusedName = '';
  /** Rejections the scenario's code left unhandled this second, and the first one's message (BucketRecord.unhandled). */
  unhandled = 0;
  unhandledFirst = '';
  vusActiveMax = -1;
  vusAllocated = -1;
  /** ms the generator's cgroup was throttled in this second (BucketRecord.throttledMs); -1 when not read. */
  throttledMs = -1;
  /** Share of the machine's CPU time stolen by the hypervisor in this second (BucketRecord.cpuSteal); -1 when not read. */
  cpuSteal = -1;
  /** Share of its CPUs the generator's process used in this second (BucketRecord.processCpu); -1 when not read. */
  processCpu = -1;
  readonly hist = Object.fromEntries(PHASES.map((p) => [p, new BufferedHistogram()])) as Record<
    Phase,
    BufferedHistogram
  >;
  /** Scheduler lag (µs) of the arrivals of this second. */
  readonly lag = new BufferedHistogram();
  /** Requests completed (BucketRecord.requests), counted when the producer records names. */
  requests = 0;
  /**
   * Arrivals that failed before sending (the scenario threw), counted when the producer records no
   * names: the second's requests are then its completions less these (BucketRecord.requests).
   */
  unsent = 0;
  /** The names of this second (BucketRecord.byName); null when the producer records none. */
  readonly byName: Map<string, OpenName> | null;

  /**
   * @param countsReconnects the producer counts reconnects (the native engine; k6 cannot tell a VU's first connect).
   * @param named the producer records requests and names (a mix or a transaction).
   */
  constructor(
    private readonly countsReconnects = false,
    named = false,
  ) {
    this.byName = named ? new Map() : null;
  }

  /** The open figures of a name this second (made on its first use, then recycled). */
  name(name: string, transaction: boolean): OpenName {
    let n = this.byName!.get(name);
    if (!n) {
      n = new OpenName(transaction);
      this.byName!.set(name, n);
    }
    return n;
  }

  reset(tS: number): this {
    this.tS = tS;
    this.started =
      this.dropped =
      this.droppedBusy =
      this.completed =
      this.ok =
      this.bytesIn =
      this.bytesOut =
      this.reconnects =
      this.refusedNames =
      this.unhandled =
      this.requests =
      this.unsent =
        0;
    if (this.byName) for (const n of this.byName.values()) n.reset();
    this.errors = {};
    this.statuses = {};
    this.samples = [];
    this.sampleKinds = [];
    this.sampleStatuses = [];
    this.sampleNames = [];
    this.repeats = 0;
    this.worded = 0;
    this.refusedName = '';
    this.vusActiveMax = this.vusAllocated = this.throttledMs = this.cpuSteal = this.processCpu = -1;
    for (const p of PHASES) this.hist[p].reset();
    this.lag.reset();
    return this;
  }

  record(phase: Phase, ms: number): void {
    this.hist[phase].recordUs(ms * 1000);
  }

  /** A successful request's phases (ms), each to its histogram (named, not looked up by key: the hot path). */
  recordPhases(ph: PhasesMs): void {
    const h = this.hist;
    h.blocked.recordUs(ph.blocked * 1000);
    h.connecting.recordUs(ph.connecting * 1000);
    h.sending.recordUs(ph.sending * 1000);
    h.waiting.recordUs(ph.waiting * 1000);
    h.receiving.recordUs(ph.receiving * 1000);
    h.duration.recordUs(ph.duration * 1000);
  }

  /**
   * A failure counted; its message (null: not built, the second wants none of its kind) kept as a
   * sample when it is new and the second has room, or when its kind (kind, status and `name`, the
   * entry or send that failed) is one the samples lack and one of theirs repeats.
   */
  fail(kind: ErrorKind, status: string | number | undefined, message: string | null, name?: string): void {
    this.errors[kind] = (this.errors[kind] ?? 0) + 1;
    const st = status && status !== '0' ? status : undefined;
    if (st !== undefined) this.statuses[st] = (this.statuses[st] ?? 0) + 1;
    if (message !== null) this.keep(message, kind, st, name);
  }

  /**
   * Whether a failure of this kind, status and name would add a sample this second (MAX_SAMPLES):
   * a caller may skip building its message (an error storm's thousands a second) when it would not.
   * Compares fields, builds nothing.
   */
  wants(kind: ErrorKind, status: string | number | undefined, name?: string): boolean {
    // a message that repeats one kept adds nothing, and the room stays: bounded per second, so an
    // error storm of one message words (and runs a check for) a few, not every failure (a review)
    if (this.worded >= MAX_WORDED) return false;
    const wanted =
      this.samples.length < MAX_SAMPLES ||
      (this.repeats > 0 && this.kindAt(kind, status && status !== '0' ? status : undefined, name) < 0);
    if (wanted) this.worded++;
    return wanted;
  }

  /** A message of no failure kind of its own (its kind is the message). */
  note(message: string): void {
    this.keep(message, message, undefined, undefined);
  }

  private keep(message: string, kind: string, status: string | number | undefined, name: string | undefined): void {
    if (this.samples.includes(message)) return;
    const at = this.kindAt(kind, status, name);
    if (this.samples.length >= MAX_SAMPLES) {
      if (at >= 0 || this.repeats === 0) return;
      // a kind the samples lack displaces the latest message whose kind an earlier one has
      for (let i = this.samples.length - 1; i > 0; i--) {
        if (this.kindAt(this.sampleKinds[i], this.sampleStatuses[i], this.sampleNames[i]) < i) {
          this.samples.splice(i, 1);
          this.sampleKinds.splice(i, 1);
          this.sampleStatuses.splice(i, 1);
          this.sampleNames.splice(i, 1);
          this.repeats--;
          break;
        }
      }
    } else if (at >= 0) this.repeats++;
    this.samples.push(message);
    this.sampleKinds.push(kind);
    this.sampleStatuses.push(status);
    this.sampleNames.push(name);
  }

  /** The first sample of this kind of failure, or -1. */
  private kindAt(kind: string, status: string | number | undefined, name: string | undefined): number {
    for (let i = 0; i < this.sampleKinds.length; i++)
      if (this.sampleKinds[i] === kind && this.sampleStatuses[i] === status && this.sampleNames[i] === name) return i;
    return -1;
  }

  /** The BucketRecord of this second; VU figures fall back to the last ones seen before it. */
  toRecord(
    source: string,
    phase: string,
    vus: { active: number; allocated: number },
    loopDelayMaxMs?: number,
    busy?: number,
  ): BucketRecord {
    return {
      v: 1,
      source,
      tS: this.tS,
      phase,
      started: this.started,
      dropped: this.dropped,
      ...(this.droppedBusy > 0 ? { droppedBusy: this.droppedBusy } : {}),
      completed: this.completed,
      ok: this.ok,
      errors: this.errors,
      statuses: this.statuses,
      ...(this.samples.length ? { samples: this.samples } : {}),
      bytesIn: this.bytesIn,
      bytesOut: this.bytesOut,
      ...(this.countsReconnects ? { reconnects: this.reconnects } : {}),
      ...(this.refusedNames > 0 ? { refusedNames: { count: this.refusedNames, first: this.refusedName } } : {}),
      ...(this.unhandled > 0 ? { unhandled: { count: this.unhandled, first: this.unhandledFirst } } : {}),
      vusActiveMax: this.vusActiveMax >= 0 ? this.vusActiveMax : vus.active,
      vusAllocated: this.vusAllocated >= 0 ? this.vusAllocated : vus.allocated,
      lag: this.lag.totalCount > 0 ? encodeHistogram(this.lag.flush()) : EMPTY_LAG,
      ...(loopDelayMaxMs !== undefined ? { loopDelayMaxMs } : {}),
      ...(busy !== undefined ? { busy } : {}),
      ...(this.throttledMs >= 0 ? { throttledMs: this.throttledMs } : {}),
      ...(this.cpuSteal >= 0 ? { cpuSteal: this.cpuSteal } : {}),
      ...(this.processCpu >= 0 ? { processCpu: this.processCpu } : {}),
      hist: Object.fromEntries(PHASES.map((p) => [p, encodeHistogram(this.hist[p].flush())])) as Record<Phase, string>,
      ...(this.byName
        ? { requests: this.requests, byName: this.namesRecord() }
        : this.unsent > 0
          ? { requests: this.completed - this.unsent }
          : {}),
    };
  }

  /** The names that completed something this second, sorted (a stable file). */
  private namesRecord(): Record<string, NameBucket> {
    // fromEntries defines each key, so a name such as __proto__ stays a name (an assignment would set the prototype)
    return Object.fromEntries(
      [...this.byName!.keys()]
        .sort()
        .map((k) => [k, this.byName!.get(k)!] as const)
        .filter(([, n]) => n.completed > 0)
        .map(([k, n]) => [k, n.toRecord()]),
    );
  }
}
