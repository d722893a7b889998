/**
 * What the analysis derives from a store: per-step results, symptoms, the run's result (what
 * summary.json holds) and the analysis's input.
 * Types only, no I/O.
 */
import type {
  DownstreamResult,
  DownstreamStep,
  DownstreamVerdict,
  ServerConfigInput,
  ServerPercentile,
  SloConfig,
  SloResult,
} from './server.ts';
import type { Models } from './models.ts';
import type { DecisionPolicy, MixShare, RateUnit, Rules, StepPlan } from './plan.ts';
import type {
  AttemptRecord,
  BucketRecord,
  ErrorKind,
  NextAction,
  PromqlWindow,
  RttFigures,
  ServerSample,
  StageOutcome,
  TrafficRecord,
  VuSizing,
} from './records.ts';

/** A percentile with the sample count behind it. */
export interface Percentile {
  /** 50, 90, 99, 99.9 */
  q: number;
  valueMs: number | null;
  n: number;
  /** False when n is too small for this percentile to mean anything (e.g. p99.9 from 3,000 samples). */
  reliable: boolean;
}

export type StepVerdict = 'holds' | 'fails' | 'incomplete' | 'not-run';

export interface StepResult {
  index: number;
  ratePerSec: number;
  steadyStartS: number;
  steadyEndS: number;
  /** Seconds of the steady window actually covered by data (less than planned when interrupted). */
  steadyS: number;
  /**
   * Sends plateau refused for their name from the attempt's ramp to its hold's end (not its steady
   * window alone): its arrivals failed at plateau's hand, so the run stops and establishes no
   * capacity (analysis/stop.ts). Absent where none was.
   */
  refusedNames?: { count: number; first: string };
  /**
   * The scenario's names counted over every engine thread passed MAX_NAMES by the attempt's hold's
   * end (analysis/names-spread.ts), each thread under its own limit: distinct names by then, and
   * the first past the limit. The run stops there as at a refused send. Absent otherwise.
   */
  namesSpread?: { names: number; first: string };
  /** Successful completions per second over the steady window only. */
  throughputPerSec: number;
  /** All completions (successful or failed) per second over the steady window. */
  completedPerSec: number;
  /** throughput / target rate. */
  delivery: number;
  /** (X_i - X_{i-1}) / (rate_i - rate_{i-1}); null for the first step. */
  capture: number | null;
  completed: number;
  ok: number;
  failed: number;
  errorRate: number;
  errors: Partial<Record<ErrorKind, number>>;
  dropped: number;
  /** Of `dropped`: refused a new VU because the generator's thread was saturated (BucketRecord.droppedBusy); absent when 0. */
  droppedBusy?: number;
  started: number;
  latency: Percentile[];
  meanMs: number | null;
  maxMs: number | null;
  /**
   * Requests of the steady window whose VU had to open a connection again; their connect (and TLS
   * handshake) time is not in the duration percentiles (nor in k6's http_req_duration). Null or
   * absent when not counted (k6, runs recorded before it was).
   */
  reconnects?: number | null;
  /** ms the generator's cgroup was throttled by its CPU quota in the steady window; null or absent when not read. */
  throttledMs?: number | null;
  /** Mean share of the machine's CPU time stolen by the hypervisor over the steady window; null or absent when not read. */
  cpuSteal?: number | null;
  /** Scheduler lag p99 over the window (ms). */
  lagP99Ms: number | null;
  /** Scheduler lag p90 (ms), the fallback when too few arrivals lie beyond the p99; absent in older runs. */
  lagP90Ms?: number | null;
  /** Arrivals behind the lag percentiles; absent in older runs (their p99 is then taken as it is). */
  lagSamples?: number;
  /**
   * Largest event-loop delay of plateau's generator over the window (ms); null where the engine
   * does not measure it (k6, k6-operator: summary.json schema 2 wrote 0 there before 2026-12-06).
   */
  loopDelayMaxMs: number | null;
  /**
   * The generator's busiest thread: its event-loop utilisation (0..1) each second, averaged over
   * the window. Null or absent when not measured (k6, runs written before it was).
   */
  generatorBusy?: number | null;
  /**
   * Share (0..1) of the CPUs it may use that the generator's process used (k6's, under the k6
   * engine), averaged over the window. Null or absent when not read.
   */
  generatorCpu?: number | null;
  vusActiveMax: number;
  vusAllocatedMax: number;
  verdict: StepVerdict;
  /** Why it fails, in words with numbers; empty when it holds. */
  reasons: string[];
  /** Failed requests by HTTP status code over the steady window (added by analysis; optional for older producers). */
  statuses?: Record<string, number>;
  /** First few distinct error messages seen in the steady window (bounded, target-controlled text: escape it). */
  errorSamples?: string[];
  /** 1 for the first attempt at this rate; 2 for a confirmation or a generator-resized rerun. */
  attempt?: number;
  /** A failed attempt whose rerun at the same rate held: not a limit of the target. */
  transient?: boolean;
  /** The step failed because the load generator could not keep up (never capacity). */
  generatorBound?: boolean;
  /**
   * The step held, but the generator was over its bounds (dropped arrivals with the target's tail
   * low, scheduler lag or event-loop delay): the target served the rate, yet arrivals did not
   * follow the schedule. Drops the target's grown tail caused are not the generator's (waitedOnTarget).
   * Counted; the gate refuses to judge a capacity that rests on such a step. The symptom's value.
   */
  generatorLimited?: Symptom;
  /** The generator's symptom a failed attempt showed (whoever's limit it was), as a value. */
  generatorSymptom?: Symptom;
  /**
   * The generator was at its own CPU ceiling in the window (its busiest thread or its process over
   * verdicts.generatorBusyMax: generator-symptoms.ts generatorSaturated): its client times hold its
   * own queue, and its drops are that queue's, not a want of VUs.
   */
  generatorSaturated?: true;
  /** A failed attempt's classification in words (whose limit it was and why), for display. */
  verdictDetail?: string;
  /** The topology readings seen during a contaminated attempt. */
  topologyValues?: number[];
  /**
   * The one topology value (replicas, instances) read over an attempt's ramp and hold, where the
   * topology probe read one and it held still; absent without a probe, a reading, or when it changed.
   */
  topology?: number;
  /**
   * The step failed at the target, and the generator's symptom (dropped arrivals, lag) came with
   * it: the target's tail grew, so its VUs were waiting on the target (verdicts.ts classifyFailure);
   * or the step held and its dropped arrivals came from the target's grown tail (verdicts.ts
   * heldSymptoms: not generator-limited for them; decision 046).
   */
  waitedOnTarget?: boolean;
  /**
   * The step failed with a generator symptom, and no step had held before it to tell whether the
   * target's tail grew: neither side is blamed (verdicts.ts classifyFailure).
   */
  inconclusive?: boolean;
  /** The topology changed during the step: excluded from the capacity decision. */
  contaminated?: boolean;
  /**
   * Requests completed per second over the steady window, every request of every arrival; absent
   * where each arrival is one request (then it is completedPerSec). The server counts these.
   */
  requestsPerSec?: number;
  /**
   * Failed requests over the steady window, where the buckets count them apart from the failed
   * arrivals (a k6 import's iterations); fewer than `failed` where iterations ending in the window
   * failed by requests sent before it (decision 063).
   */
  requestsFailed?: number;
  /** The steady window by name (request names and transactions); absent where the run recorded one name. */
  byName?: Record<string, NameResult>;
  /** The mix's entry furthest behind its share of the arrivals past the delivery bound (entry-delivery.ts): it failed the step. */
  entryShort?: EntryShort;
  /** The target's own view of the steady window, when its metrics were read. */
  server?: ServerWindow | null;
  crossCheck?: CrossCheck | null;
  /** What the pool gauges say about the window, in words (present when the series exist). */
  poolReading?: string | null;
  /** Each declared downstream over the window (metrics.downstreams). */
  downstreams?: DownstreamStep[];
}

/** A mix's entry that fell behind its share: its completions over the steady window against its offered arrivals. */
export interface EntryShort {
  name: string;
  share: number;
  /** Completed / offered over the steady window. */
  delivery: number;
  completedPerSec: number;
  offeredPerSec: number;
}

/** One name's steady window (StepResult.byName): the same fields as a step's latency and errors. */
export interface NameResult {
  /** A transaction (a mix entry of several requests): its figures are arrivals; absent for a request name. */
  transaction?: true;
  /** Completions (successful or not) per second over the steady window. */
  completedPerSec: number;
  /** Successful completions per second over the steady window. */
  throughputPerSec: number;
  completed: number;
  ok: number;
  failed: number;
  errorRate: number;
  errors: Partial<Record<ErrorKind, number>>;
  statuses?: Record<string, number>;
  /** Duration percentiles of the successful ones (a transaction's whole duration, think time included). */
  latency: Percentile[];
  meanMs: number | null;
  maxMs: number | null;
  /** The route's own server window and cross-check, where metrics.requests.routes maps this name. */
  server?: ServerWindow | null;
  crossCheck?: CrossCheck | null;
}

/** The target's own figures over one steady window. */
export interface ServerWindow {
  source: 'scrape' | 'promql';
  fromS: number;
  toS: number;
  /**
   * How far (s) the window's length may be off from its edges' own readings: half of each edge
   * reading's time (ServerSample.readMs). Absent where the readings carry no time of their own.
   */
  edgeSpreadS?: number;
  /** Requests the server counted per second over the window. */
  throughputPerSec: number | null;
  /** Mean server time (ms): delta sum / delta count. */
  meanMs: number | null;
  maxMs: number | null;
  poolActiveMax: number | null;
  /** Mean of the active gauge over the window's readings; absent in runs recorded before it (poolReading then reads the max). */
  poolActiveMean?: number | null;
  poolPendingMax: number | null;
  poolMax: number | null;
  /**
   * The readings the pool's figures come from (its active gauge's, at the edges and between):
   * sampled, they can miss every busy moment between them. Absent in runs recorded before it was
   * kept, and where the gauge was not read.
   */
  poolReadings?: number;
  /** Server p50, p90, p99 from the histogram's bucket deltas over the window; absent without buckets. */
  percentiles?: ServerPercentile[] | null;
  /** A counter went backwards inside the window (a restart): its deltas are not trusted. */
  counterReset?: boolean;
  /** Problems the window's readings reported, a line each (deduplicated). */
  problems?: string[];
}

export interface CrossCheck {
  /**
   * `consistent`: what was compared agrees; the detail says what was not (the means, where over 1%
   * of requests failed or the server's rests on fewer than rules.minTailSamples: decision 061).
   * `client-timeouts`: the server counted fewer requests than the client by no more than the client
   * timed out itself (abandoned, so not in the server's count): no traffic shown missing (decision 059).
   */
  verdict: 'consistent' | 'client-queueing' | 'traffic-missing' | 'traffic-extra' | 'client-timeouts' | 'no-data';
  /** One sentence with the numbers. */
  detail: string;
  clientPerSec: number;
  serverPerSec: number | null;
  clientMeanMinusRttMs: number | null;
  serverMeanMs: number | null;
}

/** How throughput behaves past the knee, with its evidence and what it usually means. */
export interface OverloadShape {
  /** shortfall: throughput still rose past the knee, short of the offered rate (its capture held, its delivery did not). */
  shape: 'plateau' | 'collapse' | 'errors' | 'shortfall' | 'generator-bound' | 'none';
  evidence: string;
  meaning: string;
}

export type StopReason =
  | 'plateau'
  | 'max-rate-reached'
  | 'interrupted'
  | 'failed-first-step'
  | 'generator-bound'
  | 'error'
  /** An imported k6 run of a closed model (constant-vus, ramping-vus...): it offered no rate, so it establishes no capacity. */
  | 'closed-model'
  /**
   * An imported k6 run's failure nothing confirmed (an import cannot rerun a step): a later step
   * held (the failure was no limit), or none after it failed too (one window, the run's last
   * failure). No capacity is established.
   */
  | 'unconfirmed'
  /**
   * The step the run stopped on failed mostly of refused connections (other-failures.ts
   * refusedDominates): nothing listened at the target, which stopped or restarted; no capacity.
   */
  | 'target-unreachable'
  /**
   * The step the run stopped on failed mostly of kind other, the scenario's own errors (its code
   * threw, a send came late), which served would have carried its delivery (no-limit-stops.ts
   * scenarioErrorsReason): no limit of the target, no capacity.
   */
  | 'scenario-errors'
  /**
   * The topology changed during every attempt at a step's rate (a rerun contaminated too: an
   * autoscaler reacting to each step): it never held still, so the run stopped there with no
   * capacity (analysis/topology-unsteady.ts, docs/decisions/091).
   */
  | 'topology-unsteady'
  /** A stage before the steps failed (its name first): the run never offered its load. */
  | 'preflight-failed'
  | 'reset-failed'
  | 'rtt-failed'
  | 'warmup-failed'
  | 'threads-failed';

/**
 * A symptom or warning as a value: made in analysis/, worded only in reports/. `step` is the
 * 0-based step index it concerns (null for the run); `figures` carry the numbers the words need.
 */
export interface Symptom {
  code: string;
  step: number | null;
  attempt?: number;
  figures: Record<string, number | string | boolean | null | number[]>;
}

/** One second of the run, all sources merged (analysis/series.ts). tS restarts at 0 in each phase. */
export interface SeriesPoint {
  tS: number;
  /** "warmup" or "steps": the clock of each phase starts at its own t0. */
  phase: string;
  /** Successful completions in this second. */
  ok: number;
  /** Failed completions in this second. */
  failed: number;
  /** Arrivals due in this second: started and dropped (the schedule as the generator offered it, ramps included); absent in older results. */
  offered?: number;
  /** Arrivals dropped for want of a free VU in this second. */
  dropped: number;
  /** VUs busy at once at most in this second (summed over sources). */
  vusActive: number;
  vusAllocated: number;
  /** p99 of successful requests completed in this second (ms); null without any. */
  p99Ms: number | null;
}

/** A server-side gauge sampled through the run (e.g. a pool's active connections), for the time series. */
export interface GaugeSeries {
  /** Series name as the probe reported it (target-controlled text: escape it). */
  name: string;
  /** Samples on the "steps" clock: seconds since the load phase's t0. */
  points: { tS: number; value: number }[];
}

/** Where an interruption cut the steps: the attempt running (index, attempt number, rate) and its part (analysis/cut.ts). */
export interface Cut {
  index: number;
  attempt: number;
  ratePerSec: number;
  /** Before the attempt's ramp began (between two attempts), in its ramp, or in its hold. */
  phase: 'before' | 'ramp' | 'hold';
}

/**
 * A stage as the run's result shows it: its recorded outcome, but `warn` for a warmup that ran its
 * course without the target becoming stable (recorded `pass`, its `warmup.stable` false: it ran,
 * and the steps go on, on a target that did not settle). `warn` is derived, never recorded, so a
 * run stored before it reads it too (analysis/stage-shown.ts, docs/decisions/056).
 */
export interface StageShown extends Omit<StageOutcome, 'status'> {
  status: StageOutcome['status'] | 'warn';
}

export interface RunResult {
  schemaVersion: 2;
  runId: string;
  target: string;
  engine: string;
  startedAt: string;
  rules: Rules;
  /** The stages as shown (a warmup that never settled reads `warn`); run.json keeps them as recorded. */
  stages: StageShown[];
  vus: VuSizing;
  /** Round-trip time to the target measured before load (ms), when measured. */
  rtt: RttFigures | null;
  environment: Record<string, string>;
  /** The traffic offered (run.json `traffic`: mix entries, weights, how the VUs were sized); absent in runs recorded before mixes. */
  traffic?: TrafficRecord;
  /**
   * The scenario offered (run.json `scenario`: its name, else its module's path; an import's k6
   * scenarios), and a digest of its own code and data files (run.json `scenarioDigest`, since
   * 12-07); absent in summaries written before: unknown, never a difference.
   */
  scenario?: string;
  scenarioDigest?: string;
  /**
   * The deadlines the run judged its requests and transactions by (run.json config.http), what
   * counts as a timeout; absent for an import (k6's own, unknown) and in runs recorded before.
   */
  http?: { timeoutMs: number; transactionTimeoutMs: number };
  steps: StepResult[];
  /**
   * Throughput of the last holding step (successful req/s), only where the evidence establishes it:
   * a step failed at the target after it. Null when no step held, every planned step held, the
   * generator was the limit, the first step was inconclusive, or the run stopped before a knee.
   */
  capacityPerSec: number | null;
  /** Throughput of the last step of the holding prefix, established or not: the run held at least this. Null when no step held. */
  heldAtLeastPerSec: number | null;
  /**
   * Index (0-based, as steps[].index) of the last holding step, after which throughput bent. The
   * reports and `plateau gate --json` number steps from 1: summary.json's kneeStep 10 is their step 11.
   */
  kneeStep: number | null;
  /**
   * Highest throughput of a whole steady window: a step cut short (incomplete) is never the peak
   * (analysis/peak.ts, docs/decisions/049). 0 when no step has a whole window (peakStep null).
   */
  peakPerSec: number;
  /** The request series the server figures came from ("otel (http_server_request_duration_seconds, seconds)"), when metrics were read. */
  requestSeries?: string;
  /** Each declared downstream over the run (metrics.downstreams), when any. */
  downstreams?: DownstreamResult[];
  /** The downstream verdict at the knee, when downstreams were declared or metrics read. */
  downstreamVerdict?: DownstreamVerdict;
  /** Capacity within the latency objective, when `slo` is set. */
  slo?: SloResult;
  /** Index (0-based) of the step of peakPerSec; null when no step has a whole steady window. */
  peakStep: number | null;
  stopReason: StopReason;
  /** One sentence that explains the stop. */
  stopDetail: string;
  interrupted: boolean;
  /**
   * Where the interruption cut the steps, when it cut an attempt short; absent when every attempt
   * had ended, when the run was not interrupted, and in runs analysed before 2026-12-06.
   */
  cut?: Cut;
  /**
   * It was limits.maxDurationS that stopped the run, after this many seconds of load (not a
   * signal); absent otherwise, and in runs analysed before 2026-12-06. Its fix is to raise it.
   */
  durationCapS?: number;
  /** What limits the numbers' meaning, as values (reports/warning-text.ts words them). */
  warnings: Symptom[];
  /** Per-second series of the run, all sources merged (optional for older producers). */
  series?: SeriesPoint[];
  /** Server-side gauges sampled through the run, when a probe recorded any. */
  gauges?: GaugeSeries[];
  /** Little's law, USL fit, utilisation (optional for older producers). */
  models?: Models;
  /** True when the limit reached was the load generator's, not the target's: capacity cannot be judged. */
  generatorBound?: boolean;
  /** True when something outside the test changed the target during a judged step (topology, foreign traffic). */
  contaminated?: boolean;
  overload?: OverloadShape;
  /** The run's bound on the generator's busy share (verdicts.generatorBusyMax), when its config said. */
  generatorBusyMax?: number;
  /** Attempts whose action, replayed from the stored evidence, differs from the one the live run took. */
  replayDiffers?: { index: number; attempt: number; recorded: NextAction; derived: NextAction }[];
}

/** Everything `analyzeRun` needs: the run store's contents, with raw (unmerged) buckets. */
export interface AnalyzeInput {
  runId: string;
  target: string;
  engine: string;
  startedAt: string;
  rules: Rules;
  steps: StepPlan[];
  /** Raw buckets of every source and phase; merged inside the analysis. */
  records: BucketRecord[];
  stages: StageOutcome[];
  vus: VuSizing;
  rtt: RunResult['rtt'];
  environment: Record<string, string>;
  /** True when the run was stopped (signal, stage failure) before the stop rule ended it. */
  interrupted: boolean;
  /** It was limits.maxDurationS that stopped it, after this many seconds of load (not a signal). */
  durationCapS?: number;
  /** Server-side gauges recorded by a probe (probes.ndjson), passed through to the time series. */
  gauges?: GaugeSeries[];
  /** The configured bound on the generator's busy share, for the report's generator table. */
  generatorBusyMax?: number;
  /** Readings of the target's metrics (probes.ndjson), for the server-side view of each step. */
  samples?: ServerSample[];
  /** Steady windows read through a Prometheus server; preferred to `samples` where present. */
  promqlWindows?: PromqlWindow[];
  /** The run's metrics config beyond the samples (request series, routes, downstreams), from run.json. */
  serverConfig?: ServerConfigInput;
  /** The latency objective (config `slo`), when set. */
  slo?: SloConfig;
  /** The unit of the run's rates, from its traffic (format.ts rateUnitOf); the texts say req/s without it. */
  rateUnit?: RateUnit;
  /** Rules.okLowerBound, from the traffic. */
  okLowerBound?: boolean;
  /** Rules.imported: a run imported from k6 output. */
  imported?: boolean;
  /** The mix's entry names (run.json traffic): Little's law takes the time of their arrivals, not of every request. */
  entryNames?: readonly string[];
  /** The mix's shares (run.json traffic, entry-delivery.ts mixShares): each entry keeps up with its share, or the step fails. */
  mix?: readonly MixShare[];
  /** An imported k6 run of a closed model (run.json traffic.iterations.closedModel): offered no rate, so it establishes no capacity. */
  closedModel?: boolean;
  /** Distinct steps of the plan, when `steps` lists executed attempts (reruns included). */
  plannedSteps?: number;
  /** The attempts as the steps stage ran them; without them every step of `steps` is one first attempt. */
  attempts?: AttemptRecord[];
  /** The rules and bounds the live decision used; the defaults when absent. */
  policy?: DecisionPolicy;
  /**
   * The client's deadline per request (config http.timeoutMs) the run was loaded with, for the
   * words of what its own timeouts caused; absent where not known (an imported k6 run: its script's).
   */
  clientTimeoutMs?: number;
}
