/**
 * Buckets combine exactly: counts add, HDR histograms add, so any split of the same requests
 * (worker threads, processes, machines) merges back into the same numbers, per name too. Memory
 * stays O(seconds x sources x names), never O(requests).
 */
import {
  addEncodedInto,
  encodeHistogram,
  sumEncoded,
  newHistogram,
  type Histogram,
  type HistogramLayout,
} from './histogram.ts';
import { capSamples } from './error-samples.ts';
import type { AnalysedRecord, BucketRecord, ErrorKind, NameBucket } from './types.ts';

/** Distinct error messages kept per merged bucket (diagnosis only, so bounded). */
export const MAX_SAMPLES = 10;

/** Layout of the histograms the analysis sums into: fast to add and query (see histogram.ts). */
export const SUM_LAYOUT: HistogramLayout = 64;
/** An empty histogram's encoding: skipped without decoding (most phase histograms of most buckets). */
const EMPTY_ENCODED = encodeHistogram(newHistogram(SUM_LAYOUT));

/** Adds an encoded histogram into `sum` (mutates sum). */
export function addInto(sum: Histogram, b64: string): void {
  if (b64 && b64 !== EMPTY_ENCODED) addEncodedInto(sum, b64);
}

/** Sums of a set of buckets (one phase, a window of seconds) with decoded, merged histograms. */
export interface Aggregate {
  phase: string;
  /** Window [fromS, toS) in whole seconds since load start. */
  fromS: number;
  toS: number;
  /** Distinct seconds (tS) in the window that have at least one bucket. */
  seconds: number;
  started: number;
  dropped: number;
  /** Of dropped: refused a new VU because the generator's thread was saturated (BucketRecord.droppedBusy). */
  droppedBusy: number;
  completed: number;
  ok: number;
  /** completed - ok. */
  failed: number;
  errors: Partial<Record<ErrorKind, number>>;
  statuses: Record<string, number>;
  /** Distinct error messages, at most MAX_SAMPLES, each kind's first before a second of any (error-samples.ts). */
  samples: string[];
  bytesIn: number;
  bytesOut: number;
  /** Requests whose VU opened a connection again; null when no bucket counted them (k6, older runs). */
  reconnects: number | null;
  /** ms the generator's cgroup was throttled; null when no bucket read it. */
  throttledMs: number | null;
  /** Mean over the seconds of the machine's CPU steal share; null when no bucket read it. */
  cpuSteal: number | null;
  /** Mean over the seconds of the generator process's share of its CPUs; null when no bucket read it. */
  processCpu: number | null;
  /** Highest per-second sum over sources of vusActiveMax (instances' VUs are disjoint). */
  vusActiveMax: number;
  /** Highest per-second sum over sources of vusAllocated. */
  vusAllocatedMax: number;
  /** Largest event-loop delay of any bucket (ms); null when no bucket measured it (k6). */
  loopDelayMaxMs: number | null;
  /**
   * Mean over the seconds of the busiest source's event-loop utilisation (0..1): how close the
   * generator's busiest thread ran to saturation. Null when no bucket measured it (k6).
   */
  busy: number | null;
  /** Merged histogram (µs) of successful requests' durations (the other phases are stored, not read: AnalysedRecord). */
  hist: { duration: Histogram };
  /** Merged scheduler-lag histogram (µs). */
  lag: Histogram;
  /** Requests completed, every request of every arrival: the sum of each bucket's `requests ?? completed`. */
  requests: number;
  /** True when some bucket counted its requests apart from its arrivals (BucketRecord.requests). */
  requestsCounted: boolean;
  /** The buckets' failed requests (BucketRecord.requestsFailed); null when none counted them. */
  requestsFailed: number | null;
  /** The window by name (request names and transactions); empty when no bucket recorded names. */
  byName: Map<string, NameAggregate>;
}

/**
 * One name's sums over a window. Its duration histogram is decoded when first read (the warmup
 * aggregates its windows every second, and most never read a name's latency); until then it keeps
 * the buckets' encoded histograms, which the records hold anyway.
 */
export class NameAggregate {
  /** A transaction (a mix entry of several requests): its figures are arrivals. */
  transaction = false;
  completed = 0;
  ok = 0;
  /** completed - ok. */
  failed = 0;
  errors: Partial<Record<ErrorKind, number>> = {};
  statuses: Record<string, number> = {};
  /** ms the successful ones held borrowed VUs (NameBucket.borrowedMs), summed. */
  borrowedMs = 0;
  private encoded: string[] = [];
  private decoded: Histogram | null = null;

  add(b: NameBucket): void {
    if (b.transaction) this.transaction = true;
    this.completed += b.completed;
    this.ok += b.ok;
    this.failed = this.completed - this.ok;
    addCounts(this.errors, b.errors);
    if (b.statuses) addCounts(this.statuses, b.statuses);
    this.borrowedMs += b.borrowedMs ?? 0;
    if (b.duration && b.duration !== EMPTY_ENCODED) {
      if (this.decoded) addInto(this.decoded, b.duration);
      else this.encoded.push(b.duration);
    }
  }

  /** Merged histogram (µs) of the successful ones' durations. */
  get duration(): Histogram {
    if (!this.decoded) {
      this.decoded = newHistogram(SUM_LAYOUT);
      for (const b64 of this.encoded) addInto(this.decoded, b64);
      this.encoded = [];
    }
    return this.decoded;
  }
}

/** Adds every key of `b` into `a` (a is mutated). */
function addCounts<K extends string>(a: Partial<Record<K, number>>, b: Partial<Record<K, number>>): void {
  for (const key of Object.keys(b) as K[]) a[key] = (a[key] ?? 0) + (b[key] ?? 0);
}

/** Per-key sums of several count maps. */
function sumCounts<K extends string>(maps: readonly Partial<Record<K, number>>[]): Record<K, number> {
  const out = {} as Record<K, number>;
  for (const m of maps) addCounts<K>(out, m);
  return out;
}

/** MAX_SAMPLES distinct messages, each kind's first before a second of any (error-samples.ts). */
function samplesOf(samples: readonly string[]): string[] {
  return capSamples(samples, MAX_SAMPLES);
}

/** Sum of encoded histograms, re-encoded (by their counts: histogram.ts sumEncoded). */
function addEncoded(encoded: readonly string[]): string {
  return sumEncoded(encoded.filter((b64) => b64 !== EMPTY_ENCODED));
}

/** A count a bucket keeps with the first one's message: sends refused for their name, rejections left unhandled. */
type Counted = 'refusedNames' | 'unhandled';

/** The `key` counts of `records` summed, with the first message; {} where none was counted. */
function countedOf<K extends Counted>(records: readonly AnalysedRecord[], key: K): Pick<BucketRecord, K> {
  const with_ = records.filter((r) => r[key] !== undefined);
  if (with_.length === 0) return {} as Pick<BucketRecord, K>;
  const count = with_.reduce((n, r) => n + r[key]!.count, 0);
  // a k6 VU tags only its first refusal with the message: the first record that has one
  const first = with_.find((r) => r[key]!.first !== '')?.[key]!.first ?? '';
  return { [key]: { count, first } } as Pick<BucketRecord, K>;
}

/**
 * The sends refused for their name in `records` (any phase and seconds: the caller picks them),
 * with the first refusal's message; {} where none was.
 */
export function refusedNamesOf(records: readonly AnalysedRecord[]): Pick<BucketRecord, 'refusedNames'> {
  return countedOf(records, 'refusedNames');
}

/** The rejections the scenario's code left unhandled in `records`, with the first one's message; {} where none was. */
export function unhandledOf(records: readonly AnalysedRecord[]): Pick<BucketRecord, 'unhandled'> {
  return countedOf(records, 'unhandled');
}

/** Sorted, de-duplicated source names joined with "+" (so merging is order-independent). */
function joinSources(records: readonly AnalysedRecord[]): string {
  const names = new Set(records.flatMap((r) => r.source.split('+')));
  return [...names].sort().join('+');
}

/** One bucket from several buckets of the same (phase, tS). */
function mergeGroup(group: readonly AnalysedRecord[]): AnalysedRecord {
  const [first] = group;
  if (group.length === 1) return first;
  const sum = (pick: (r: AnalysedRecord) => number): number => group.reduce((acc, r) => acc + pick(r), 0);
  const highest = (k: Highest): Partial<Record<Highest, number>> => {
    const v = highestOf(group, k);
    return v === undefined ? {} : { [k]: v };
  };
  const samples = samplesOf(group.flatMap((r) => r.samples ?? []));
  return {
    v: 1,
    source: joinSources(group),
    tS: first.tS,
    phase: first.phase,
    started: sum((r) => r.started),
    dropped: sum((r) => r.dropped),
    ...(group.some((r) => r.droppedBusy) ? { droppedBusy: sum((r) => r.droppedBusy ?? 0) } : {}),
    completed: sum((r) => r.completed),
    ok: sum((r) => r.ok),
    errors: sumCounts<ErrorKind>(group.map((r) => r.errors)),
    statuses: sumCounts<string>(group.map((r) => r.statuses)),
    ...(samples.length > 0 ? { samples } : {}),
    bytesIn: sum((r) => r.bytesIn),
    bytesOut: sum((r) => r.bytesOut),
    ...(group.some((r) => r.reconnects !== undefined) ? { reconnects: sum((r) => r.reconnects ?? 0) } : {}),
    ...(group.some((r) => r.throttledMs !== undefined) ? { throttledMs: sum((r) => r.throttledMs ?? 0) } : {}),
    ...refusedNamesOf(group),
    ...unhandledOf(group),
    ...highest('cpuSteal'),
    ...highest('processCpu'),
    vusActiveMax: sum((r) => r.vusActiveMax),
    vusAllocated: sum((r) => r.vusAllocated),
    lag: addEncoded(group.map((r) => r.lag)),
    ...highest('loopDelayMaxMs'),
    ...highest('busy'),
    // the analysis reads no other phase: summing the five more cost most of a report's merge
    hist: { duration: addEncoded(group.map((r) => r.hist.duration)) },
    ...(group.some((r) => r.requests !== undefined) ? { requests: sum((r) => r.requests ?? r.completed) } : {}),
    // a source without it (one request an arrival, or stored before it) counts its failed arrivals
    ...(group.some((r) => r.requestsFailed !== undefined)
      ? { requestsFailed: sum((r) => r.requestsFailed ?? r.completed - r.ok) }
      : {}),
    ...mergedNames(group),
  };
}

/**
 * The union of the group's names, each summed exactly (counts, statuses and duration histograms
 * add); names sorted so that the merge is order-independent. Nothing when no record has names.
 */
function mergedNames(group: readonly AnalysedRecord[]): Pick<BucketRecord, 'byName'> {
  const parts = new Map<string, NameBucket[]>();
  for (const r of group) {
    for (const [name, b] of Object.entries(r.byName ?? {})) {
      const list = parts.get(name);
      if (list) list.push(b);
      else parts.set(name, [b]);
    }
  }
  if (parts.size === 0) return group.some((r) => r.byName) ? { byName: {} } : {};
  const names = [...parts.keys()].sort();
  return { byName: Object.fromEntries(names.map((name) => [name, mergeNameBuckets(parts.get(name)!)])) };
}

/** One name's buckets of one second, summed (exactly: counts, statuses and duration histograms add). */
export function mergeNameBuckets(parts: readonly NameBucket[]): NameBucket {
  if (parts.length === 1) return parts[0];
  const statuses = sumCounts<string>(parts.map((b) => b.statuses ?? {}));
  return {
    ...(parts.some((b) => b.transaction) ? { transaction: true as const } : {}),
    completed: parts.reduce((a, b) => a + b.completed, 0),
    ok: parts.reduce((a, b) => a + b.ok, 0),
    errors: sumCounts<ErrorKind>(parts.map((b) => b.errors)),
    ...(Object.keys(statuses).length > 0 ? { statuses } : {}),
    duration: addEncoded(parts.map((b) => b.duration)),
    ...(parts.some((b) => b.borrowedMs) ? { borrowedMs: parts.reduce((a, b) => a + (b.borrowedMs ?? 0), 0) } : {}),
  };
}

/** A second's shares (0..1) that merge to the highest source's: a thread's busy share, CPU steal, the process's CPU. */
export type Share = 'busy' | 'cpuSteal' | 'processCpu';

/** A second's figures that merge to the highest source's: the shares, and the event-loop delay. */
type Highest = Share | 'loopDelayMaxMs';

/** The highest source's figure among records of one second; undefined when none measured it. */
export function highestOf(records: readonly AnalysedRecord[], k: Highest): number | undefined {
  const measured = records.flatMap((r) => (r[k] === undefined ? [] : [r[k]]));
  return measured.length > 0 ? Math.max(...measured) : undefined;
}

/** The mean over seconds of each second's highest share; null when no second measured it. */
function meanOfHighest(seconds: Iterable<readonly AnalysedRecord[]>, k: Share): number | null {
  let sum = 0;
  let n = 0;
  for (const records of seconds) {
    const v = highestOf(records, k);
    if (v !== undefined) {
      sum += v;
      n++;
    }
  }
  return n > 0 ? sum / n : null;
}

function compareBuckets(a: AnalysedRecord, b: AnalysedRecord): number {
  if (a.phase !== b.phase) return a.phase < b.phase ? -1 : 1;
  return a.tS - b.tS;
}

/**
 * Merges buckets of equal (phase, tS) from different sources into one, exactly; the result is
 * sorted by phase, then tS. Associative and commutative (except which samples survive the cap).
 */
export function mergeRecords(records: readonly AnalysedRecord[]): AnalysedRecord[] {
  const groups = new Map<string, AnalysedRecord[]>();
  for (const r of records) {
    const key = `${r.phase}\u0000${r.tS}`;
    const group = groups.get(key);
    if (group) group.push(r);
    else groups.set(key, [r]);
  }
  return [...groups.values()].map(mergeGroup).sort(compareBuckets);
}

function emptyAggregate(phase: string, fromS: number, toS: number): Aggregate {
  return {
    phase,
    fromS,
    toS,
    seconds: 0,
    started: 0,
    dropped: 0,
    droppedBusy: 0,
    completed: 0,
    ok: 0,
    failed: 0,
    errors: {},
    statuses: {},
    samples: [],
    bytesIn: 0,
    bytesOut: 0,
    reconnects: null,
    throttledMs: null,
    cpuSteal: null,
    processCpu: null,
    vusActiveMax: 0,
    vusAllocatedMax: 0,
    loopDelayMaxMs: null,
    busy: null,
    hist: { duration: newHistogram(SUM_LAYOUT) },
    lag: newHistogram(SUM_LAYOUT),
    requests: 0,
    requestsCounted: false,
    requestsFailed: null,
    byName: new Map(),
  };
}

/** Adds one bucket's counts and histograms into `agg` (mutates agg). */
function addBucket(agg: Aggregate, r: AnalysedRecord, withDuration: boolean): void {
  agg.started += r.started;
  agg.dropped += r.dropped;
  agg.droppedBusy += r.droppedBusy ?? 0;
  agg.completed += r.completed;
  agg.ok += r.ok;
  agg.bytesIn += r.bytesIn;
  agg.bytesOut += r.bytesOut;
  if (r.reconnects !== undefined) agg.reconnects = (agg.reconnects ?? 0) + r.reconnects;
  if (r.throttledMs !== undefined) agg.throttledMs = (agg.throttledMs ?? 0) + r.throttledMs;
  addCounts(agg.errors, r.errors);
  addCounts(agg.statuses, r.statuses);
  // a full list still takes a kind it lacks (in place of a second message of another kind)
  if (r.samples) agg.samples = samplesOf([...agg.samples, ...r.samples]);
  if (r.loopDelayMaxMs !== undefined) agg.loopDelayMaxMs = Math.max(agg.loopDelayMaxMs ?? 0, r.loopDelayMaxMs);
  if (withDuration) addInto(agg.hist.duration, r.hist.duration);
  addInto(agg.lag, r.lag);
  agg.requests += r.requests ?? r.completed;
  if (r.requests !== undefined) agg.requestsCounted = true;
  if (r.requestsFailed !== undefined) agg.requestsFailed = (agg.requestsFailed ?? 0) + r.requestsFailed;
  if (r.byName) addNames(agg.byName, r.byName);
}

/** Adds one bucket's names into `sums` (mutates sums). Object.entries: a name such as "__proto__" is a key like any other. */
function addNames(sums: Map<string, NameAggregate>, byName: Record<string, NameBucket>): void {
  for (const [name, b] of Object.entries(byName)) {
    let sum = sums.get(name);
    if (!sum) sums.set(name, (sum = new NameAggregate()));
    sum.add(b);
  }
}

/**
 * Sums the buckets of `phase` with tS in [fromS, toS). Works on raw or merged buckets alike:
 * VU figures are summed per second across sources before taking the maximum over seconds.
 * `duration`: the window's durations already summed (durations.ts decodeDurations, from the same
 * records), so they are not decoded a second time.
 */
export function aggregate(
  records: readonly AnalysedRecord[],
  phase: string,
  fromS: number,
  toS: number,
  duration?: Histogram,
): Aggregate {
  const agg = emptyAggregate(phase, fromS, toS);
  if (duration) agg.hist.duration = duration;
  const bySecond = new Map<number, AnalysedRecord[]>();
  for (const r of records) {
    if (r.phase !== phase || r.tS < fromS || r.tS >= toS) continue;
    addBucket(agg, r, duration === undefined);
    const sec = bySecond.get(r.tS);
    if (sec) sec.push(r);
    else bySecond.set(r.tS, [r]);
  }
  agg.seconds = bySecond.size;
  agg.failed = agg.completed - agg.ok;
  for (const sec of bySecond.values()) {
    agg.vusActiveMax = Math.max(
      agg.vusActiveMax,
      sec.reduce((a, r) => a + r.vusActiveMax, 0),
    );
    agg.vusAllocatedMax = Math.max(
      agg.vusAllocatedMax,
      sec.reduce((a, r) => a + r.vusAllocated, 0),
    );
  }
  agg.busy = meanOfHighest(bySecond.values(), 'busy');
  agg.cpuSteal = meanOfHighest(bySecond.values(), 'cpuSteal');
  agg.processCpu = meanOfHighest(bySecond.values(), 'processCpu');
  return agg;
}
