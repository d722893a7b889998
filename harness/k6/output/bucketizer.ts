/**
 * k6 samples -> one-second BucketRecords, streaming, in O(seconds) memory.
 *
 * Time zero (t0.ts): the start of k6's scenario, from its first `vus` point, the end of setup(), or
 * the first iterations; an explicit t0 overrides them.
 *
 * Order: k6 writes samples nearly, not exactly, in time order, and an iteration's start is known
 * only when it ends. A second stays open until the newest sample is `lateS` past its end; a
 * sample for a second already closed is counted in the oldest open one (and in stats.late), so
 * counts stay exact and only its second shifts.
 *
 * Which samples (selection.ts): those of the selected scenarios, never setup()'s or teardown()'s.
 *
 * Arrivals: what `completed` / `ok` / `errors` count (second.ts, ArrivalsFrom): plateau_arrival
 * samples once the output has one, else the `arrivals` option's (requests, or iterations for a
 * user's own script). Names (names.ts): each second's figures by the `name` tag, in `byName`,
 * when the output has several names or plateau_arrival samples (byName 'auto'), or whenever a
 * second has a named sample ('always': the caller drops them if the run had one name).
 *
 * Offered arrivals (offered.ts): iterations started plus dropped, at the second they were due.
 * With whole-second timestamps (CSV timeFormat unix or rfc3339) a sample stamped S happened in
 * [S, S + 1 s): an iteration's start lies in [S - d, S + 1 s - d) for its duration d. Its bucket
 * counts it started at the middle of that (S + 0.5 s - d), so that it falls in the second its drops
 * (stamped in the same way) fall in.
 */
import type { ErrorKind, Phase } from '../../../analysis/types.ts';
import { isOk } from './error-kind.ts';
import type { K6Point } from './point.ts';
import type { K6Second } from './second.ts';
import { NameCatalog } from './names.ts';
import { OpenSeconds } from './open-seconds.ts';
import { FailedIterations } from './failed-iterations.ts';
import { countOutside, countShed, countUnnamed, newIngestStats, type IngestStats } from './ingest-stats.ts';
import type { BucketizerOptions } from './bucketizer-options.ts';
import { MetricTable, phaseOf } from './metric-table.ts';
import { ARRIVAL_METRIC, CHECK_FAILED_METRIC, REFUSED_NAME_METRIC, UNSENT_METRIC } from './plateau-metrics.ts';
import { offer, offerSpread } from './offered.ts';
import { otherScenario, scenarioIterations, scenarioStart, selected } from './selection.ts';
import { leadCheck, T0Finder, type SettledT0 } from './t0.ts';

export class Bucketizer {
  private readonly metrics = new MetricTable();
  readonly stats: IngestStats;
  private t0Ms: number | null;
  private readonly t0: T0Finder;
  private readonly seconds: OpenSeconds;
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
  /** With arrivals 'iterations' and k6's vu and iter: each VU's iteration that had a failed request. */
  private readonly failedIterations = new FailedIterations();
  /** The last `vus` and `vus_max` points' times (k6 writes the two at the same time, vus first). */
  private vusAt = NaN;
  private vusMaxAt = NaN;
  /** Without vu and iter: the failed requests the last closed second's iterations did not take (second.ts). */
  private failedCarried: Partial<Record<ErrorKind, number>> = {};

  constructor(private readonly o: BucketizerOptions) {
    this.stats = newIngestStats(this.metrics, this.names, o.arrivals ?? 'requests');
    this.t0 = new T0Finder(this.stats);
    this.seconds = new OpenSeconds(this.stats);
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

  push(p: K6Point): void {
    const s = this.stats;
    s.points++;
    const m = this.metrics.info(p.metric);
    m.count++;
    if (s.firstMs === null) leadCheck(this.o.t0Ms, this.o.maxLeadS, p.timeMs);
    if (s.firstMs === null || p.timeMs < s.firstMs) s.firstMs = p.timeMs;
    if (s.lastMs === null || p.timeMs > s.lastMs) s.lastMs = p.timeMs;
    if (this.t0Ms === null) {
      const t0 = this.t0.hold(p, this.stampMidMs);
      if (t0 !== null) this.settleT0(t0);
      return;
    }
    this.add(p, m.phase);
  }

  /** Flushes every open second (the stream ended). */
  end(): void {
    if (this.t0Ms === null) this.settleT0(this.t0.atStart(this.stampMidMs));
    this.closeBefore(Infinity);
  }

  /** t0 is known: the samples held until now are counted. */
  private settleT0({ t0Ms, from, held }: SettledT0): void {
    this.t0Ms = t0Ms;
    this.stats.t0Ms = t0Ms;
    this.stats.t0From = from;
    for (const p of held) this.add(p, phaseOf(p.metric));
  }

  private add(p: K6Point, phase: Phase | undefined): void {
    if (!selected(p, this.scenarios)) {
      this.stats.skipped++;
      if (p.metric === 'iterations') otherScenario(this.stats, p.tags.scenario, p.value);
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
        if (p.tags.name === undefined) countUnnamed(this.stats, p);
        if (failed !== null && p.tags.expected_response === 'true') countShed(this.stats, p);
        if (p.tags.scenario === undefined) countOutside(this.stats, p);
        if (failed !== null) this.iterationFailed(p, failed);
        offer(this.stats.checkTally.requests, this.t0Ms!, p.timeMs, p.value);
        if (failed !== null) offer(this.stats.checkTally.requestsFailed, this.t0Ms!, p.timeMs, p.value);
        return;
      }
      case 'iteration_duration': {
        const startMs = p.timeMs + this.stampMidMs - p.value;
        // whole-second stamps: the end lies anywhere in its second, so the start anywhere in the
        // second from (stamp - duration); shared between the two seconds that overlaps, the
        // offered rate keeps its arrivals where a midpoint guess moved a share of them a second
        // as the durations grew (a collapsing step read 143/s for 150)
        if (this.stampMidMs === 0) offer(this.stats.offeredPerS, this.t0Ms!, startMs, 1);
        else offerSpread(this.stats.offeredPerS, this.t0Ms!, p.timeMs - p.value, 1, this.stats.offeredPhases);
        this.at(startMs).b.started++;
        scenarioStart(this.stats, p.tags.scenario, startMs);
        return;
      }
      case 'iterations': {
        this.loadSeen(p.timeMs);
        scenarioIterations(this.stats, p.tags.scenario, p.value);
        const sec = this.at(p.timeMs);
        sec.iterations += p.value;
        this.stats.iterationsCounted += p.value;
        const { vu, iter } = p.tags;
        if (vu === undefined || iter === undefined || p.value !== 1) return;
        sec.iterationEnded(this.failedIterations.ended(vu, iter));
        this.stats.iterationsKnown++;
        return;
      }
      case 'dropped_iterations':
        // stamped S, it happened in [S, S + 1 s), which a t0 off the whole second (no vus points) shares
        if (this.stampMidMs === 0) offer(this.stats.offeredPerS, this.t0Ms!, p.timeMs, p.value);
        else offerSpread(this.stats.offeredPerS, this.t0Ms!, p.timeMs, p.value, this.stats.offeredPhases);
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
        offer(this.stats.checkTally.checks, this.t0Ms!, p.timeMs, 1);
        if (p.value === 0) {
          this.stats.checksFailed++;
          offer(this.stats.checkTally.checksFailed, this.t0Ms!, p.timeMs, 1);
          this.at(p.timeMs).b.note(`check failed: ${p.tags.check ?? '?'}`);
        }
        return;
      case CHECK_FAILED_METRIC:
        // plateau's own script: its check() failed a request (k6's checks sample, counted above, is explained)
        offer(this.stats.checkTally.requestsFailed, this.t0Ms!, p.timeMs, 1);
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
    const prev = this.seconds.before(sec);
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

  /** A failed request of a user's iteration (arrivals 'iterations') that named its VU and iteration: the iteration failed, by its first failed request. */
  private iterationFailed(p: K6Point, kind: ErrorKind): void {
    const { vu, iter } = p.tags;
    if (this.stats.arrivalsFrom !== 'iterations' || vu === undefined || iter === undefined) return;
    this.failedIterations.failed(vu, iter, kind);
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
    for (const sec of this.seconds.all()) {
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

  /** The open second holding timeMs (late samples land in the oldest open one). */
  private at(timeMs: number): K6Second {
    return this.seconds.at(Math.floor((timeMs - this.t0Ms!) / 1000));
  }

  /** Emits every second before `tS`, silent ones included. */
  private closeBefore(tS: number): void {
    this.seconds.closeBefore(tS, this.emit);
  }

  /** A second closed: its record to the sink. */
  private readonly emit = (sec: K6Second): void => {
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
  };
}
