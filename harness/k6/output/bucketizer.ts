/**
 * k6 samples -> one-second BucketRecords, streaming, in O(seconds) memory.
 *
 * Time zero: the plan's t = 0 is the start of k6's scenario. k6 writes `vus`/`vus_max` once a
 * second from the start of the test (a 1 s ticker), so t0 = first `vus` point - 1000 ms (within
 * ~10 ms on the fixtures). Without `vus` points t0 falls back to the earliest iteration start
 * (time - iteration_duration) seen in the first seconds; an explicit t0 overrides both.
 *
 * Order: k6 writes samples nearly, not exactly, in time order, and an iteration's start is known
 * only when it ends. A second stays open until the newest sample is `lateS` past its end; a
 * sample for a second already closed is counted in the oldest open one (and in stats.late), so
 * counts stay exact and only its second shifts.
 *
 * Which samples: those of the selected scenarios (all by default); setup/teardown samples
 * (group ::setup / ::teardown) never count; vus/vus_max (no scenario tag) always do.
 *
 * Arrivals: what `completed` / `ok` / `errors` count (second.ts, ArrivalsFrom): plateau_arrival
 * samples once the output has one, else the `arrivals` option's (requests, or iterations for a
 * user's own script). Names (names.ts): each second's figures by the `name` tag, in `byName`,
 * when the output has several names or plateau_arrival samples (byName 'auto'), or whenever a
 * second has a named sample ('always': the caller drops them if the run had one name).
 *
 * Offered arrivals: each second's iterations started plus dropped are also tallied apart, at
 * the second they were due, for the whole run (stats.offeredPerS, one number a second): an
 * iteration that ran longer than lateS is counted late in the buckets, never here, so deriving
 * the steps of a collapsed step does not depend on how long its iterations took. With
 * whole-second timestamps (CSV timeFormat unix or rfc3339) a sample stamped S happened in
 * [S, S + 1 s): an iteration's start lies in [S - d, S + 1 s - d) for its duration d. Its bucket
 * counts it started at the middle of that (S + 0.5 s - d), so that it falls in the second its drops
 * (stamped in the same way) fall in; the offered tally shares it between the seconds that span
 * overlaps, in proportion, which keeps a step's rate when durations grow (a collapsing step), where
 * the middle moved a share of its arrivals a second and read 143/s for 150 (import/plan-fit.ts
 * allows for the blur this leaves).
 */
import type { BucketRecord, ErrorKind, Phase } from '../../../analysis/types.ts';
import { isOk } from './error-kind.ts';
import type { K6Point } from './point.ts';
import type { HostTimeline } from './host-timeline.ts';
import { K6Second, type ArrivalsFrom } from './second.ts';
import { NameCatalog, type NamesSummary, type NameTally } from './names.ts';

/** Scenario tags whose iterations are counted apiece (IngestStats.scenarioIterations); k6 runs a handful. */
export const MAX_SCENARIOS = 20;

/** Custom counter the generated script adds when the scenario's check rejects a 2xx/3xx response. */
export const CHECK_FAILED_METRIC = 'plateau_check_failed';
/** Custom trend plateau's k6 runtime writes once per arrival of a mix (second.ts). */
export const ARRIVAL_METRIC = 'plateau_arrival';
/**
 * A Counter of plateau's one-request k6 scripts: an arrival whose request(ctx) threw, so that no
 * request was sent (a mix says so with plateau_arrival's transaction tag 'unsent').
 */
export const UNSENT_METRIC = 'plateau_unsent';
/** A send plateau's k6 runtime refused for its name, its message in the `error` tag (BucketRecord.refusedNames). */
export const REFUSED_NAME_METRIC = 'plateau_refused_name';

const PHASE_OF: Record<string, Phase> = {
  http_req_duration: 'duration',
  http_req_blocked: 'blocked',
  http_req_connecting: 'connecting',
  http_req_sending: 'sending',
  http_req_waiting: 'waiting',
  http_req_receiving: 'receiving',
};

/** PHASE_OF's own keys only (a custom metric may be called `constructor` or `toString`). */
function phaseOf(metric: string): Phase | undefined {
  return Object.hasOwn(PHASE_OF, metric) ? PHASE_OF[metric] : undefined;
}

/** Without `vus` points, how much data (ms of sample time) to see before settling t0. */
const T0_FALLBACK_SPAN_MS = 3000;

/** The first sample came more than BucketizerOptions.maxLeadS after the t0 given. */
export class T0TooEarly extends Error {
  constructor(
    readonly leadS: number,
    readonly firstMs: number,
  ) {
    super(`the first sample came ${Math.round(leadS)} s after t0`);
  }
}

export interface BucketizerOptions {
  source: string;
  phase: string;
  /** Seconds a bucket stays open after the newest sample passed its end. */
  lateS: number;
  /** Epoch ms of t = 0; derived from the data when absent. */
  t0Ms?: number;
  /**
   * With t0Ms: the most seconds the first sample may come after it. Past this the ingest stops with
   * T0TooEarly before it fills the seconds between them (a --t0 years off would fill memory).
   */
  maxLeadS?: number;
  /** Scenario names to keep; all when absent. */
  scenarios?: readonly string[];
  /** The host's figures sampled while k6 ran (the k6 engine; not an imported file). */
  host?: HostTimeline;
  /**
   * What an arrival is: 'requests' (default) or 'iterations' until a plateau_arrival sample is
   * seen; 'plateau_arrival' from the first second (a mix: its seconds that close before the
   * first arrival ends, a transaction with think time, are not counted as requests).
   */
  arrivals?: ArrivalsFrom;
  /** When seconds carry byName: 'auto' (default) or 'always' (see the top of this file). */
  byName?: 'auto' | 'always';
  sink(r: BucketRecord): void;
}

export interface IngestStats {
  points: number;
  byMetric: Record<string, number>;
  /** Samples outside the selected scenarios, or of setup/teardown. */
  skipped: number;
  /**
   * Requests and iteration ends that came before t0, and how far (ms) the earliest did; 0 when
   * none did. Not the gauges: k6 writes them from the run's start, before a scenario's startTime.
   */
  loadBeforeT0: number;
  loadBeforeT0Ms: number;
  /** Samples that arrived after their second had closed (counted in a later second). */
  late: number;
  /** Samples stamped before t0 (counted in second 0). */
  beforeT0: number;
  checksFailed: number;
  t0Ms: number | null;
  t0From: 'option' | 'vus' | 'setup-end' | 'first-iteration' | null;
  firstMs: number | null;
  lastMs: number | null;
  buckets: number;
  /** Iterations started plus dropped, by the second they were due (index tS). */
  offeredPerS: number[];
  /** What the arrivals were: plateau_arrival once one was seen, else the option's. */
  arrivalsFrom: ArrivalsFrom;
  /**
   * Seconds already written when the first plateau_arrival came, which counted the option's
   * arrivals (a mix's engine passes arrivals 'plateau_arrival' so that there are none); else 0.
   */
  closedBeforeArrivals: number;
  /**
   * `iterations` samples that named their VU and iteration (k6 run with vu and iter in
   * `--system-tags`): with arrivals 'iterations', a second whose every iteration did has exact
   * outcomes (second.ts).
   */
  iterationsKnown: number;
  /**
   * http_reqs samples with neither a `status` nor an `expected_response` tag (k6 run with
   * `--system-tags` that left both out): nothing tells whether they succeeded.
   */
  requestsWithoutOutcome: number;
  /** http_reqs samples without a `name` tag (k6 run with `--system-tags` that left it out): in no name's row. */
  requestsWithoutName: number;
  /** The first two distinct `url` tags of those; and how many of them had no `url` tag either. */
  unnamedUrls: string[];
  unnamedWithoutUrl: number;
  /**
   * With arrivals 'iterations' (an import): k6's `vus` and `vus_max` points of the same time (k6
   * writes them together, once a second), with the second since t0 they fall in, flat:
   * [tS, vus, vusMax, tS, vus, vusMax, ...] (import/closed-model.ts). One reading a second of the run.
   */
  vusReadings: number[];
  /**
   * Iterations counted by their `scenario` tag (of the selected scenarios; an iteration with no tag
   * is counted under ""), the first MAX_SCENARIOS tags only: an import's closed-model check wants
   * one scenario, and a run of several is told which ones its arrivals mix.
   */
  scenarioIterations: Record<string, number>;
  /** With `scenarios` kept: the scenarios of the iterations left out (the first MAX_SCENARIOS), for a flag that kept none. */
  otherScenarios: string[];
  /** `iterations` and `http_reqs` samples counted (of the selected scenarios, setup and teardown left out). */
  iterationsCounted: number;
  requestsCounted: number;
  /** The timestamps were whole seconds (CSV timeFormat unix or rfc3339). */
  wholeSeconds: boolean;
  /** The names seen, kept and folded. */
  readonly names: NamesSummary;
}

/** A metric name seen in the input: its count, its phase (if a phase), the metric that came after it. */
interface MetricInfo {
  name: string;
  count: number;
  phase: Phase | undefined;
  next: MetricInfo;
}

export class Bucketizer {
  /** Counted per MetricInfo; byMetric is built when read. */
  private readonly metrics = new Map<string, MetricInfo>();
  readonly stats: IngestStats;
  /** The MetricInfo of the previous sample; `none` (no metric's) before the first. */
  private lastMetric: MetricInfo;
  private readonly none: MetricInfo;
  private t0Ms: number | null;
  private held: K6Point[] = [];
  /** Before t0 is settled: the first `vus` point less a second, and the last setup() sample. */
  private vusT0: number | null = null;
  private setupEndMs = -Infinity;
  /** The earliest held sample (setup()'s samples are not held). */
  private heldFirstMs = Infinity;
  /** A sample of the scenarios' iterations (any scenario) has been seen. */
  private iterated = false;
  /** open[i] is second firstOpenS + i. */
  private open: K6Second[] = [];
  private firstOpenS = 0;
  private spare: K6Second[] = [];
  private readonly spareNames: NameTally[] = [];
  private maxMs = -Infinity;
  private readonly vus = { active: 0, allocated: 0 };
  private readonly scenarios: Set<string> | null;
  private readonly names = new NameCatalog();
  /** Added to a sample's time to get the middle of where it can have happened (500 for whole seconds). */
  private stampMidMs = 0;
  /**
   * Names' durations are recorded (byName will be written). Until then (byName 'auto', one name
   * so far, no plateau_arrival) only their counts are: a histogram per name and second costs
   * several percent of the ingest's CPU, for nothing in a one-request run.
   */
  private namesLive: boolean;
  /**
   * With arrivals 'iterations' and k6's vu and iter: each VU's iteration that had a failed request,
   * with the first such request's kind, until its `iterations` sample. k6 writes a VU's samples in
   * the order they happened (its requests', then its iteration's, through one channel), so an entry
   * a VU is enough: O(VUs), never O(requests). An iteration k6 cut short writes no `iterations`
   * sample; its entry is replaced by the VU's next failed iteration.
   */
  private readonly failedIteration = new Map<string, { iter: string; kind: ErrorKind }>();
  /** The last `vus` and `vus_max` points' times (k6 writes the two at the same time, vus first). */
  private vusAt = NaN;
  private vusMaxAt = NaN;
  /** Without vu and iter: the failed requests the last closed second's iterations did not take (second.ts). */
  private failedCarried: Partial<Record<ErrorKind, number>> = {};

  constructor(private readonly o: BucketizerOptions) {
    this.none = { name: '', count: 0, phase: undefined } as MetricInfo;
    this.none.next = this.none;
    this.lastMetric = this.none;
    this.stats = Bucketizer.newStats(this.metrics, this.names, o.arrivals ?? 'requests');
    this.namesLive = o.byName === 'always' || o.arrivals === 'plateau_arrival';
    this.t0Ms = o.t0Ms ?? null;
    if (this.t0Ms !== null) {
      this.stats.t0Ms = this.t0Ms;
      this.stats.t0From = 'option';
    }
    this.scenarios = o.scenarios?.length ? new Set(o.scenarios) : null;
  }

  /** Seconds since t0 of the newest sample (0 before t0 is known). */
  get elapsedS(): number {
    return this.t0Ms === null || this.maxMs === -Infinity ? 0 : (this.maxMs - this.t0Ms) / 1000;
  }

  /** The input's timestamps are whole seconds (call before the first push). */
  timesAreWholeSeconds(): void {
    this.stampMidMs = 500;
    this.stats.wholeSeconds = true;
  }

  private static newStats(metrics: Map<string, MetricInfo>, names: NameCatalog, arrivals: ArrivalsFrom): IngestStats {
    return {
      points: 0,
      get byMetric() {
        const by: Record<string, number> = {};
        // defined, not assigned: a metric called __proto__ is a key like any other
        for (const m of metrics.values())
          Object.defineProperty(by, m.name, { value: m.count, enumerable: true, writable: true, configurable: true });
        return by;
      },
      skipped: 0,
      late: 0,
      beforeT0: 0,
      loadBeforeT0: 0,
      loadBeforeT0Ms: 0,
      checksFailed: 0,
      t0Ms: null,
      t0From: null,
      firstMs: null,
      lastMs: null,
      buckets: 0,
      offeredPerS: [],
      arrivalsFrom: arrivals,
      closedBeforeArrivals: 0,
      iterationsKnown: 0,
      requestsWithoutOutcome: 0,
      requestsWithoutName: 0,
      unnamedUrls: [],
      unnamedWithoutUrl: 0,
      iterationsCounted: 0,
      vusReadings: [],
      scenarioIterations: Object.create(null) as Record<string, number>,
      otherScenarios: [],
      requestsCounted: 0,
      wholeSeconds: false,
      get names() {
        return names.summary();
      },
    };
  }

  /**
   * The MetricInfo of a metric name. k6 writes a request's and an iteration's samples in a fixed
   * order, so the metric that followed this one's predecessor last time is tried first: one
   * compare of two constant strings, instead of a keyed lookup on every sample.
   */
  private metricInfo(name: string): MetricInfo {
    const last = this.lastMetric;
    let m = last.next;
    if (m.name !== name || m === this.none) {
      m = this.metrics.get(name) ?? this.newMetric(name);
      last.next = m;
    }
    this.lastMetric = m;
    return m;
  }

  private newMetric(name: string): MetricInfo {
    const m = { name, count: 0, phase: phaseOf(name) } as MetricInfo;
    m.next = m;
    this.metrics.set(name, m);
    return m;
  }

  push(p: K6Point): void {
    const s = this.stats;
    s.points++;
    const m = this.metricInfo(p.metric);
    m.count++;
    if (s.firstMs === null) this.leadCheck(p.timeMs);
    if (s.firstMs === null || p.timeMs < s.firstMs) s.firstMs = p.timeMs;
    if (s.lastMs === null || p.timeMs > s.lastMs) s.lastMs = p.timeMs;
    if (this.t0Ms === null) {
      this.hold(p);
      return;
    }
    this.add(p, m.phase);
  }

  /** A first sample too long after a given t0 (maxLeadS): stop before filling the seconds between. */
  private leadCheck(firstMs: number): void {
    const { t0Ms, maxLeadS } = this.o;
    if (t0Ms !== undefined && maxLeadS !== undefined && firstMs - t0Ms > maxLeadS * 1000)
      throw new T0TooEarly((firstMs - t0Ms) / 1000, firstMs);
  }

  /** Flushes every open second (the stream ended). */
  end(): void {
    if (this.t0Ms === null) this.settleT0AtStart();
    this.closeBefore(Infinity);
  }

  /**
   * Points wait here until t0 is known. k6 writes its first `vus` point a second after the test
   * starts, but setup() runs before the scenarios do, with `vus` points all along: t0 is settled
   * once a scenario's own sample has come too, at the later of that second and setup()'s last
   * sample (the votacao fixture: 0.24 s later; a setup() of 30 s, 30 s later). setup()'s own
   * samples are skipped here, never held.
   */
  private hold(p: K6Point): void {
    const g = p.tags.group;
    if (g !== undefined && g.charCodeAt(0) === 58 /* : */ && lifecycle(p, g, '::setup')) {
      this.setupEndMs = Math.max(this.setupEndMs, p.timeMs);
      this.stats.skipped++;
      return;
    }
    this.held.push(p);
    if (p.timeMs < this.heldFirstMs) this.heldFirstMs = p.timeMs;
    if (p.metric === 'vus') this.vusT0 ??= p.timeMs - 1000;
    // any sample that is not setup()'s says setup() is over, whatever scenario it belongs to
    else if (p.metric !== 'vus_max') this.iterated = true;
    if (this.vusT0 !== null && this.iterated) this.settleT0AtStart();
    else if (this.vusT0 === null && this.stats.lastMs! - this.heldFirstMs > T0_FALLBACK_SPAN_MS)
      this.settleT0(this.fallbackT0());
  }

  /** t0 from the first `vus` point and the end of setup(), or from the iterations without either. */
  private settleT0AtStart(): void {
    if (this.vusT0 === null) {
      this.settleT0(this.fallbackT0());
      return;
    }
    if (this.setupEndMs > this.vusT0) this.settleT0(this.setupEndMs, 'setup-end');
    else this.settleT0(this.vusT0, 'vus');
  }

  /** Without `vus` points: the earliest iteration start or held sample, never inside setup(). */
  private fallbackT0(): number {
    if (this.held.length === 0) return Number.isFinite(this.setupEndMs) ? this.setupEndMs : (this.stats.firstMs ?? 0);
    let t0 = this.heldFirstMs;
    // any scenario's first iteration started the test, as its first held sample may be another scenario's
    for (const p of this.held)
      if (p.metric === 'iteration_duration') t0 = Math.min(t0, p.timeMs + this.stampMidMs - p.value);
    return Math.max(t0, this.setupEndMs);
  }

  private settleT0(t0Ms: number, from: IngestStats['t0From'] = 'first-iteration'): void {
    this.t0Ms = t0Ms;
    this.stats.t0Ms = t0Ms;
    this.stats.t0From = from;
    const held = this.held;
    this.held = [];
    for (const p of held) this.add(p, phaseOf(p.metric));
  }

  private selected(p: K6Point): boolean {
    const g = p.tags.group;
    // most samples carry group "" (the root group): look at the text only when it could match
    if (
      g !== undefined &&
      g.charCodeAt(0) === 58 /* : */ &&
      (lifecycle(p, g, '::setup') || lifecycle(p, g, '::teardown'))
    )
      return false;
    return (
      this.scenarios === null ||
      p.metric === 'vus' ||
      p.metric === 'vus_max' ||
      (p.tags.scenario !== undefined && this.scenarios.has(p.tags.scenario))
    );
  }

  private add(p: K6Point, phase: Phase | undefined): void {
    if (!this.selected(p)) {
      this.stats.skipped++;
      if (p.metric === 'iterations') this.otherScenario(p.tags.scenario);
      return;
    }
    if (p.timeMs > this.maxMs) this.maxMs = p.timeMs;
    if (phase !== undefined) {
      if (isOk(p.tags)) {
        const sec = this.at(p.timeMs);
        const key = phase === 'duration' ? this.keyOf(p) : null;
        sec.b.record(phase, p.value);
        if (key !== null && this.namesLive) sec.name(key).duration.recordUs(p.value * 1000);
      }
    } else {
      this.count(p);
    }
    this.closeBefore(Math.floor((this.maxMs - this.t0Ms!) / 1000) - this.o.lateS);
  }

  private count(p: K6Point): void {
    switch (p.metric) {
      case 'http_reqs': {
        this.loadSeen(p.timeMs);
        const key = this.keyOf(p);
        const failed = this.at(p.timeMs).request(p, key, this.namesLive);
        this.stats.requestsCounted += p.value;
        if (p.tags.status === undefined && p.tags.expected_response === undefined)
          this.stats.requestsWithoutOutcome += p.value;
        if (p.tags.name === undefined) this.unnamed(p);
        if (failed !== null) this.iterationFailed(p, failed);
        return;
      }
      case 'iteration_duration': {
        const startMs = p.timeMs + this.stampMidMs - p.value;
        // whole-second stamps: the end lies anywhere in its second, so the start anywhere in the
        // second from (stamp - duration); shared between the two seconds that overlaps, the
        // offered rate keeps its arrivals where a midpoint guess moved a share of them a second
        // as the durations grew (a collapsing step read 143/s for 150)
        if (this.stampMidMs === 0) this.offer(startMs, 1);
        else this.offerSpread(p.timeMs - p.value, 1);
        this.at(startMs).b.started++;
        return;
      }
      case 'iterations': {
        this.loadSeen(p.timeMs);
        this.scenarioIterations(p.tags.scenario, p.value);
        const sec = this.at(p.timeMs);
        sec.iterations += p.value;
        this.stats.iterationsCounted += p.value;
        const { vu, iter } = p.tags;
        if (vu === undefined || iter === undefined || p.value !== 1) return;
        const f = this.failedIteration.get(vu);
        const failed = f !== undefined && f.iter === iter ? f.kind : null;
        if (failed !== null) this.failedIteration.delete(vu);
        sec.iterationEnded(failed);
        this.stats.iterationsKnown++;
        return;
      }
      case 'dropped_iterations':
        this.offer(p.timeMs, p.value);
        this.at(p.timeMs).b.dropped += p.value;
        return;
      case 'data_sent':
        this.at(p.timeMs).b.bytesOut += p.value;
        return;
      case 'data_received':
        this.at(p.timeMs).b.bytesIn += p.value;
        return;
      case 'vus': {
        const b = this.at(p.timeMs).b;
        b.vusActiveMax = Math.max(b.vusActiveMax, p.value);
        this.vus.active = p.value;
        this.vusAt = p.timeMs;
        if (p.timeMs === this.vusMaxAt) this.gaugeReading(p.timeMs);
        return;
      }
      case 'vus_max': {
        const b = this.at(p.timeMs).b;
        b.vusAllocated = p.value;
        this.vus.allocated = p.value;
        this.vusMaxAt = p.timeMs;
        if (p.timeMs === this.vusAt) this.gaugeReading(p.timeMs);
        return;
      }
      case 'checks':
        if (p.value === 0) {
          this.stats.checksFailed++;
          this.at(p.timeMs).b.note(`check failed: ${p.tags.check ?? '?'}`);
        }
        return;
      case CHECK_FAILED_METRIC:
        this.checkFailed(p);
        this.iterationFailed(p, p.tags.kind === 'other' ? 'other' : 'check');
        return;
      case ARRIVAL_METRIC:
        this.arrival(p);
        return;
      case UNSENT_METRIC:
        this.at(p.timeMs).unsent(p);
        return;
      case REFUSED_NAME_METRIC:
        this.at(p.timeMs).refusedName(p);
        return;
      default:
    }
  }

  /**
   * A check rejected a request that ended just before it: in the check's own second, or, when a
   * second began between the two (that second has no successful request of the name yet), in the
   * one before, while it is open. Taking it from neither would leave that request counted ok.
   */
  private checkFailed(p: K6Point): void {
    const key = this.keyOf(p);
    const sec = this.at(p.timeMs);
    const i = sec.tS - this.firstOpenS;
    const prev = i > 0 ? this.open[i - 1] : null;
    (prev !== null && !sec.hasOk(key) && prev.hasOk(key) ? prev : sec).checkFailed(p, key, this.namesLive);
  }

  /** A `vus` and `vus_max` of the same time, with the second they fall in (IngestStats.vusReadings). */
  private gaugeReading(timeMs: number): void {
    if (this.stats.arrivalsFrom !== 'iterations') return;
    const tS = Math.max(0, Math.floor((timeMs - this.t0Ms!) / 1000));
    this.stats.vusReadings.push(tS, this.vus.active, this.vus.allocated);
  }

  /** A request or an iteration's end at timeMs: counted when it came before t0 (IngestStats.loadBeforeT0). */
  private loadSeen(timeMs: number): void {
    const early = this.t0Ms! - timeMs;
    if (early <= 0) return;
    this.stats.loadBeforeT0++;
    if (early > this.stats.loadBeforeT0Ms) this.stats.loadBeforeT0Ms = early;
  }

  private otherScenario(name = ''): void {
    const seen = this.stats.otherScenarios;
    if (seen.length < MAX_SCENARIOS && !seen.includes(name)) seen.push(name);
  }

  private scenarioIterations(name = '', n: number): void {
    const by = this.stats.scenarioIterations;
    if (Object.hasOwn(by, name)) by[name] += n;
    else if (Object.keys(by).length < MAX_SCENARIOS) by[name] = n;
  }

  /** A failed request of a user's iteration (arrivals 'iterations') that named its VU and iteration: the iteration failed, by its first failed request. */
  private iterationFailed(p: K6Point, kind: ErrorKind): void {
    const { vu, iter } = p.tags;
    if (this.stats.arrivalsFrom !== 'iterations' || vu === undefined || iter === undefined) return;
    const f = this.failedIteration.get(vu);
    if (f === undefined) this.failedIteration.set(vu, { iter, kind });
    else if (f.iter !== iter) {
      f.iter = iter;
      f.kind = kind;
    }
  }

  /** A request without a name: counted, and its URL among the first two distinct ones. */
  private unnamed(p: K6Point): void {
    const st = this.stats;
    st.requestsWithoutName += p.value;
    const url = p.tags.url;
    if (url === undefined) st.unnamedWithoutUrl += p.value;
    else if (st.unnamedUrls.length < 2 && !st.unnamedUrls.includes(url)) st.unnamedUrls.push(url);
  }

  /** The key of a sample's name tag (names.ts), or null when it has none. */
  private keyOf(p: K6Point): string | null {
    if (p.tags.name === undefined) return null;
    const key = this.names.keyOf(p.tags.name);
    if (!this.namesLive && this.names.size > 1) this.goLive();
    return key;
  }

  /**
   * From now on names' durations are recorded. In each open second, every successful request so
   * far had the one name seen before this one (or none): its durations are the second's.
   */
  private goLive(): void {
    this.namesLive = true;
    for (const sec of this.open) {
      if (sec.names.size !== 1) continue;
      const [t] = sec.names.values();
      t.duration.flush().add(sec.b.hist.duration.flush());
    }
  }

  private arrival(p: K6Point): void {
    if (this.stats.arrivalsFrom !== 'plateau_arrival') {
      this.stats.arrivalsFrom = 'plateau_arrival';
      this.stats.closedBeforeArrivals = this.stats.buckets;
      if (!this.namesLive) this.goLive();
    }
    this.at(p.timeMs).arrival(p, this.keyOf(p));
  }

  /** Arrivals due at timeMs (iterations started, dropped): stats.offeredPerS, never shifted by lateness. */
  private offer(timeMs: number, n: number): void {
    const tS = Math.max(0, Math.floor((timeMs - this.t0Ms!) / 1000));
    const out = this.stats.offeredPerS;
    while (out.length <= tS) out.push(0);
    out[tS] += n;
  }

  /** n arrivals due anywhere in the second from fromMs: shared by the seconds it overlaps, in proportion. */
  private offerSpread(fromMs: number, n: number): void {
    const at = (fromMs - this.t0Ms!) / 1000;
    const tS = Math.floor(at);
    const later = at - tS;
    this.offer(this.t0Ms! + tS * 1000, n * (1 - later));
    if (later > 0) this.offer(this.t0Ms! + (tS + 1) * 1000, n * later);
  }

  /** The open second holding timeMs (late samples land in the oldest open one). */
  private at(timeMs: number): K6Second {
    let tS = Math.floor((timeMs - this.t0Ms!) / 1000);
    if (tS < 0) {
      this.stats.beforeT0++;
      tS = 0;
    }
    if (tS < this.firstOpenS) {
      this.stats.late++;
      tS = this.firstOpenS;
    }
    const i = tS - this.firstOpenS;
    while (this.open.length <= i) this.open.push(this.newSecond(this.firstOpenS + this.open.length));
    return this.open[i];
  }

  private newSecond(tS: number): K6Second {
    return (this.spare.pop() ?? new K6Second(this.spareNames)).reset(tS);
  }

  /** Emits every second before `tS`, silent ones included. */
  private closeBefore(tS: number): void {
    while (this.firstOpenS < tS && (this.open.length > 0 || tS !== Infinity)) {
      const sec = this.open.shift() ?? this.newSecond(this.firstOpenS);
      const startMs = this.t0Ms! + sec.tS * 1000;
      this.o.host?.stamp(sec.b, startMs, startMs + 1000);
      const arrivals = this.stats.arrivalsFrom;
      const withNames = arrivals === 'plateau_arrival' || this.o.byName === 'always' || this.names.size > 1;
      const r = sec.toRecord(this.o.source, this.o.phase, this.vus, arrivals, withNames, this.failedCarried);
      this.failedCarried = sec.failedLeft;
      this.vus.active = r.vusActiveMax;
      this.vus.allocated = r.vusAllocated;
      this.o.sink(r);
      this.stats.buckets++;
      this.firstOpenS++;
      this.spare.push(sec);
    }
  }
}

/**
 * k6's setup() or teardown() group, or one nested in it: never a scenario's, so its samples carry
 * no scenario tag. Not a user's group('setupCart') ("::setupCart"), nor a user's own
 * group('setup') inside the default function, which k6 also tags "::setup", with its scenario.
 */
function lifecycle(p: K6Point, group: string, name: string): boolean {
  return p.tags.scenario === undefined && (group === name || group.startsWith(`${name}::`));
}
