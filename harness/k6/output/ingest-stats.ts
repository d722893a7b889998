/**
 * What an ingest of k6 samples counted besides its buckets (IngestStats): the samples by metric,
 * those skipped, late or before t0, how t0 was found, the offered arrivals a second, the
 * scenarios and names seen; what the import checks and reports read.
 */
import type { K6Point } from './point.ts';
import type { ArrivalsFrom } from './second.ts';
import type { MetricTable } from './metric-table.ts';
import type { NameCatalog, NamesSummary } from './names.ts';
import type { OfferedPhases } from './offered.ts';

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
  /**
   * k6 `checks` samples and http_reqs, each with those that failed, by the second since t0 they
   * fall in (the buckets' seconds): a failed check() fails no request, so the import tells the
   * steps whose windows had more failed checks than their failed requests explain
   * (import/checks-note.ts).
   */
  checkTally: CheckTally;
  t0Ms: number | null;
  t0From: 'option' | 'vus' | 'setup-end' | 'first-iteration' | null;
  firstMs: number | null;
  lastMs: number | null;
  buckets: number;
  /** Iterations started plus dropped, by the second they were due (index tS). */
  offeredPerS: number[];
  /** With whole-second timestamps: where the spans of the offered arrivals lie (offered.ts); else empty. */
  offeredPhases: OfferedPhases;
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
  /**
   * http_reqs samples k6 marked expected (the script's responseCallback) whose status is a 5xx,
   * 429 or 0 (no answer), counted failed all the same (error-kind.ts shed), by status: the import says so.
   */
  expectedShed: Record<string, number>;
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
  /**
   * The first and last iteration start (epoch ms) of each scenario counted in scenarioIterations:
   * scenarios that ran one after another (a constant-arrival-rate scenario a rate, each with its
   * startTime) are one run's steps, not a load beside another (import/scenarios-note.ts).
   */
  scenarioStartsMs: Record<string, [number, number]>;
  /**
   * With `scenarios` kept: the iterations left out, by their scenario tag (the first MAX_SCENARIOS
   * tags), for a flag that kept none: its fix names the one with the most.
   */
  otherScenarios: Record<string, number>;
  /**
   * http_reqs samples counted that carry no `scenario` tag: k6's setup() and teardown() when their
   * `::setup` group is not there to leave them out (--system-tags without group); with the
   * requests of each name (the first MAX_OUTSIDE_NAMES names). In a run whose iterations carry a
   * scenario tag they belong to no iteration, and the import says so (import/outside-note.ts).
   */
  requestsOutsideScenarios: number;
  outsideNames: Record<string, number>;
  /** `iterations` and `http_reqs` samples counted (of the selected scenarios, setup and teardown left out). */
  iterationsCounted: number;
  requestsCounted: number;
  /** The timestamps were whole seconds (CSV timeFormat unix or rfc3339). */
  wholeSeconds: boolean;
  /** The names seen, kept and folded. */
  readonly names: NamesSummary;
}

/** Counts a second (index tS since t0), as offeredPerS: IngestStats.checkTally. */
export interface CheckTally {
  checks: number[];
  checksFailed: number[];
  requests: number[];
  requestsFailed: number[];
}

export function newIngestStats(metrics: MetricTable, names: NameCatalog, arrivals: ArrivalsFrom): IngestStats {
  return {
    points: 0,
    get byMetric() {
      return metrics.byMetric();
    },
    skipped: 0,
    late: 0,
    beforeT0: 0,
    loadBeforeT0: 0,
    loadBeforeT0Ms: 0,
    checksFailed: 0,
    checkTally: { checks: [], checksFailed: [], requests: [], requestsFailed: [] },
    t0Ms: null,
    t0From: null,
    firstMs: null,
    lastMs: null,
    buckets: 0,
    offeredPerS: [],
    offeredPhases: [],
    arrivalsFrom: arrivals,
    closedBeforeArrivals: 0,
    iterationsKnown: 0,
    requestsWithoutOutcome: 0,
    requestsWithoutName: 0,
    expectedShed: Object.create(null) as Record<string, number>,
    requestsOutsideScenarios: 0,
    outsideNames: Object.create(null) as Record<string, number>,
    unnamedUrls: [],
    unnamedWithoutUrl: 0,
    iterationsCounted: 0,
    vusReadings: [],
    scenarioIterations: Object.create(null) as Record<string, number>,
    scenarioStartsMs: Object.create(null) as Record<string, [number, number]>,
    otherScenarios: Object.create(null) as Record<string, number>,
    requestsCounted: 0,
    wholeSeconds: false,
    get names() {
      return names.summary();
    },
  };
}

/** A request without a name: counted, and its URL among the first two distinct ones. */
export function countUnnamed(st: IngestStats, p: K6Point): void {
  st.requestsWithoutName += p.value;
  const url = p.tags.url;
  if (url === undefined) st.unnamedWithoutUrl += p.value;
  else if (st.unnamedUrls.length < 2 && !st.unnamedUrls.includes(url)) st.unnamedUrls.push(url);
}

/** Names of requests outside any scenario counted apiece (IngestStats.outsideNames); setup() sends a few. */
const MAX_OUTSIDE_NAMES = 20;

/** A request counted that carries no scenario tag: counted, under its name. */
export function countOutside(st: IngestStats, p: K6Point): void {
  st.requestsOutsideScenarios += p.value;
  const name = p.tags.name;
  if (name === undefined) return;
  const by = st.outsideNames;
  if (Object.hasOwn(by, name)) by[name] += p.value;
  else if (Object.keys(by).length < MAX_OUTSIDE_NAMES) by[name] = p.value;
}

/** A request k6 marked expected that failed for its status (IngestStats.expectedShed). */
export function countShed(st: IngestStats, p: K6Point): void {
  const by = st.expectedShed;
  // a handful of statuses: one a hostile file makes up a line past them adds none
  const status =
    p.tags.status !== undefined && (Object.hasOwn(by, p.tags.status) || Object.keys(by).length < 10)
      ? p.tags.status
      : 'other';
  by[status] = (by[status] ?? 0) + p.value;
}
