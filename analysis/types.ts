/**
 * The data model shared by the engine (which produces Buckets), the analysis (which turns a run
 * store into a RunResult) and the renderers (which turn a RunResult into text).
 * Types only: no code, no imports of I/O.
 */

/** k6's http_req_* timing vocabulary, in one place. Every output uses these names. */
export const PHASES = ['blocked', 'connecting', 'sending', 'waiting', 'receiving', 'duration'] as const;
export type Phase = (typeof PHASES)[number];

/**
 * Why a request failed. `http_4xx`/`http_5xx` come from the status; the rest from the transport.
 * `check` is a response the scenario's check() rejected.
 */
export const ERROR_KINDS = ['http_4xx', 'http_5xx', 'timeout', 'refused', 'reset', 'check', 'other'] as const;
export type ErrorKind = (typeof ERROR_KINDS)[number];

/**
 * One second of wall time of one engine instance, as written to buckets.ndjson (one JSON object a
 * line). Histograms are HDR histograms in microseconds, encoded as compressed base64
 * (hdr-histogram-js `encodeIntoCompressedBase64`). Requests are counted in the bucket of the second
 * in which they completed; iterations and drops in the second in which they were due.
 */
export interface BucketRecord {
  /** Format version of this line. */
  v: 1;
  /** Which engine instance wrote it, e.g. "native/0" or "k6". Buckets of several sources merge. */
  source: string;
  /** Start of this second, whole seconds since the start of the load phase (t0 of the plan). */
  tS: number;
  /** Pipeline phase the bucket belongs to: "warmup" or "steps". */
  phase: string;
  /** Iterations started (arrivals that got a VU). */
  started: number;
  /** Arrivals that found no free VU and were dropped (k6's dropped_iterations). */
  dropped: number;
  /**
   * Of `dropped`: arrivals for which the native engine's VU pool, under its maximum, opened no new
   * VU because its thread was saturated and a new VU over TLS costs a handshake
   * (docs/decisions/015); more VUs would not have served them. Absent when 0.
   */
  droppedBusy?: number;
  /** Requests completed in this second, successful or not. */
  completed: number;
  /** Completed requests that succeeded (2xx/3xx and passed the scenario's check). */
  ok: number;
  /** Failed requests by error kind. */
  errors: Partial<Record<ErrorKind, number>>;
  /** Failed requests by HTTP status code, for those that got a response. */
  statuses: Record<string, number>;
  /** First few distinct error messages seen in this second (bounded), for diagnosis. */
  samples?: string[];
  bytesIn: number;
  bytesOut: number;
  /**
   * Requests completed in this second whose VU, in use within the last second, had to open a
   * connection again (the target closed or reset its last one); a new VU's first connect and a
   * reconnect after an idle close are not counted (docs/decisions/014). Absent where not counted
   * (k6, runs recorded before it was).
   */
  reconnects?: number;
  /**
   * ms the generator's cgroup was throttled by its CPU quota in this second (ready to run, not
   * let; summed over CPUs, as cpu.stat counts it); written by one source only. Absent where the
   * generator has no quota (or it was not read).
   */
  throttledMs?: number;
  /**
   * Share (0..1) of all the machine's CPU time the hypervisor gave elsewhere in this second
   * (/proc/stat steal); written by one source only. Absent where not read (not Linux, k6).
   */
  cpuSteal?: number;
  /**
   * Share (0..1) of the CPUs the generator may use (its affinity, capped by a cgroup quota) that
   * its whole process used in this second, every thread (the k6 process under the k6 engine);
   * written by one source of each process; merged buckets (k6 runs of several machines) keep the
   * highest. Absent where not read.
   */
  processCpu?: number;
  /** Highest number of VUs busy at once in this second. */
  vusActiveMax: number;
  /** VUs allocated at the end of this second. */
  vusAllocated: number;
  /** HDR histogram (µs) of scheduler lag: actual start minus intended start of each arrival. */
  lag: string;
  /** Largest event-loop delay observed in this second, in ms (0 when not measured). */
  loopDelayMaxMs: number;
  /**
   * Share (0..1) of this second the source's event loop was busy (Node's event-loop utilisation);
   * absent where not measured (k6). Merged buckets keep the busiest source's.
   */
  busy?: number;
  /** HDR histograms (µs) of successful requests' phases, compressed base64. */
  hist: Record<Phase, string>;
}

/** One step of the plan. All times are seconds since the start of the load phase. */
export interface StepPlan {
  index: number;
  ratePerSec: number;
  rampStartS: number;
  holdStartS: number;
  holdEndS: number;
  steadyStartS: number;
  steadyEndS: number;
}

/**
 * One attempt at a step as the steps stage ran it (run.json `attempts`): the step's plan on the
 * steps phase's clock, which attempt at its rate it was, the maxVUs it ran with and the action the
 * live run took after judging it. Nothing else: every classification is re-derived from the
 * evidence (analysis/decision.ts).
 */
export interface AttemptRecord extends StepPlan {
  /** 1 for the first attempt at this rate; 2 for a rerun. */
  attempt: number;
  maxVUs: number;
  /**
   * What the live run did next; null when the attempt was never decided (an interruption cut it
   * short); absent where no action was stored (runs of schema 1, tests): then it is derived.
   */
  action?: NextAction | null;
}

/** What the steps stage does after an attempt: go on to the next step, rerun this rate, or stop. */
export type NextAction = { kind: 'go-on' } | { kind: 'rerun'; maxVUs: number } | { kind: 'stop' } | { kind: 'none' };

/** The thresholds of the stop rule. */
export interface Rules {
  /** A step holds only when steady throughput / target rate is at least this (0.90). */
  deliveryMin: number;
  /** ... and when throughput gained / rate added is at least this (0.60). */
  captureMin: number;
  /** Samples below which a percentile is marked unreliable: n * (1 - q) must reach this tail count. */
  minTailSamples: number;
}

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
  loopDelayMaxMs: number;
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
   * The step held, but the generator was over its bounds (dropped arrivals, scheduler lag or
   * event-loop delay): the target served the rate, yet arrivals did not follow the schedule.
   * Counted; the gate refuses to judge a capacity that rests on such a step. The symptom's value.
   */
  generatorLimited?: Symptom;
  /** The generator's symptom a failed attempt showed (whoever's limit it was), as a value. */
  generatorSymptom?: Symptom;
  /** A failed attempt's classification in words (whose limit it was and why), for display. */
  verdictDetail?: string;
  /** The topology readings seen during a contaminated attempt. */
  topologyValues?: number[];
  /**
   * The step failed at the target, and the generator's symptom (dropped arrivals, lag) came with
   * it: the target's tail grew, so its VUs were waiting on the target (verdicts.ts classifyFailure).
   */
  waitedOnTarget?: boolean;
  /**
   * The step failed with a generator symptom, and no step had held before it to tell whether the
   * target's tail grew: neither side is blamed (verdicts.ts classifyFailure).
   */
  inconclusive?: boolean;
  /** The topology changed during the step: excluded from the capacity decision. */
  contaminated?: boolean;
  /** The target's own view of the steady window, when its metrics were read. */
  server?: ServerWindow | null;
  crossCheck?: CrossCheck | null;
  /** What the pool gauges say about the window, in words (present when the series exist). */
  poolReading?: string | null;
}

/**
 * One reading of the target's Prometheus metrics (the configured series only), as written to
 * probes.ndjson. tS is seconds since the load phase's t0 (fractional: the moment of the reading).
 */
export interface ServerSample {
  kind: 'scrape';
  phase: string;
  tS: number;
  /** Cumulative request count/sum (s) and the window max (s) of the configured request series. */
  requestsCount: number | null;
  requestsSumS: number | null;
  requestsMaxS: number | null;
  poolActive: number | null;
  poolPending: number | null;
  poolMax: number | null;
  /** Extra gauges the user asked to chart, by name. */
  gauges: Record<string, number>;
  /** The topology probe's value (replicas, instances...), when configured. */
  topology: number | null;
}

/** The target's own figures over one steady window. */
export interface ServerWindow {
  source: 'scrape' | 'promql';
  fromS: number;
  toS: number;
  /** Requests the server counted per second over the window. */
  throughputPerSec: number | null;
  /** Mean server time (ms): delta sum / delta count. */
  meanMs: number | null;
  maxMs: number | null;
  poolActiveMax: number | null;
  poolPendingMax: number | null;
  poolMax: number | null;
}

/** A steady window read through PromQL, for one executed step (index and attempt). */
export interface PromqlWindow {
  index: number;
  attempt: number;
  window: ServerWindow;
}

export interface CrossCheck {
  verdict: 'consistent' | 'client-queueing' | 'traffic-missing' | 'traffic-extra' | 'no-data';
  /** One sentence with the numbers. */
  detail: string;
  clientPerSec: number;
  serverPerSec: number | null;
  clientMeanMinusRttMs: number | null;
  serverMeanMs: number | null;
}

/** How throughput behaves past the knee, with its evidence and what it usually means. */
export interface OverloadShape {
  shape: 'plateau' | 'collapse' | 'errors' | 'generator-bound' | 'none';
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
  /** A stage before the steps failed (its name first): the run never offered its load. */
  | 'preflight-failed'
  | 'reset-failed'
  | 'rtt-failed'
  | 'warmup-failed'
  | 'threads-failed';

/** A pipeline stage's outcome, recorded in run.json and shown in the report. */
export interface StageOutcome {
  name: 'preflight' | 'reset' | 'rtt' | 'warmup' | 'threads' | 'steps' | 'report';
  status: 'pass' | 'fail' | 'skipped';
  durationMs: number;
  /** One line that says what happened, with numbers. */
  detail: string;
  /** Evidence lines (checks made, figures measured). */
  evidence: string[];
  /** The threads stage, when it passed: the engine threads it left for the steps, of those started. */
  threads?: { kept: number; of: number };
  /** The warmup stage, when it ran: whether it settled, how long it took, and its windows. */
  warmup?: WarmupRecord;
}

/** What the warmup measured, kept structured so the analysis can compare the steps with it. */
export interface WarmupRecord {
  stable: boolean;
  tookS: number;
  ratePerSec: number;
  windows: { fromS: number; throughputPerSec: number; p50Ms: number | null }[];
}

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

export interface VuSizing {
  preAllocatedVUs: number;
  maxVUs: number;
  /** How the numbers were chosen, in words. */
  reason: string;
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

/** Little's law for one step: mean concurrency N = X x W (X successful req/s, W mean latency in s). */
export interface LittleRow {
  index: number;
  /** The step's attempt (StepResult.attempt, 1 when absent): a rerun at the same index is its own row. Absent in older runs. */
  attempt?: number;
  ratePerSec: number;
  throughputPerSec: number;
  meanMs: number;
  concurrency: number;
}

/** Gunther's Universal Scalability Law fitted to (N, X): X(N) = gamma N / (1 + alpha (N-1) + beta N (N-1)). */
export interface UslFit {
  /** Contention (serialisation), >= 0. */
  alpha: number;
  /** Coherency (crosstalk), >= 0. */
  beta: number;
  /** Throughput per unit of concurrency without contention (req/s at N = 1). */
  gamma: number;
  /** N* = sqrt((1 - alpha) / beta): the concurrency of peak throughput; null when beta is 0 or alpha >= 1. */
  nStar: number | null;
  /** X(N*), the predicted peak (req/s); null without N*. */
  peakPerSec: number | null;
  /** Coefficient of determination of the fit on X. */
  r2: number;
  /** Points the fit rests on. */
  points: number;
}

/** Utilisation of one step against capacity and the queueing amplification 1 / (1 - rho). */
export interface UtilisationRow {
  index: number;
  /** The attempt of the LittleRow it was computed from (1 when absent). Absent in older runs. */
  attempt?: number;
  /** rho = X / capacity. */
  rho: number;
  /** 1 / (1 - rho); null at or beyond saturation (rho >= 1). */
  amplification: number | null;
  /** Measured mean latency over the first step's mean, to set beside the amplification; null without data. */
  latencyInflation: number | null;
}

/** The models section (analysis/models). */
export interface Models {
  little: LittleRow[];
  /** Null when fewer than 4 steps have data, or the fit failed; `uslNote` says which. */
  usl: UslFit | null;
  uslNote: string;
  /** Capacity used as the denominator of rho (req/s); null when no step held. */
  utilisationBasePerSec: number | null;
  utilisation: UtilisationRow[];
}

/** Round-trip time to the target measured before load (ms). */
export interface RttFigures {
  connectMedianMs: number;
  httpMedianMs: number;
  httpP90Ms: number;
  /** The fastest round trip: the floor the cross-check subtracts (docs/decisions/005); absent in older runs. */
  httpMinMs?: number;
  samples: number;
}

export interface RunResult {
  schemaVersion: 2;
  runId: string;
  target: string;
  engine: string;
  startedAt: string;
  rules: Rules;
  stages: StageOutcome[];
  vus: VuSizing;
  /** Round-trip time to the target measured before load (ms), when measured. */
  rtt: RttFigures | null;
  environment: Record<string, string>;
  steps: StepResult[];
  /**
   * Throughput of the last holding step (successful req/s), only where the evidence establishes it:
   * a step failed at the target after it. Null when no step held, every planned step held, the
   * generator was the limit, the first step was inconclusive, or the run stopped before a knee.
   */
  capacityPerSec: number | null;
  /** Throughput of the last step of the holding prefix, established or not: the run held at least this. Null when no step held. */
  heldAtLeastPerSec: number | null;
  /** Index of the last holding step, after which throughput bent. */
  kneeStep: number | null;
  /** Highest steady throughput of any step. */
  peakPerSec: number;
  peakStep: number | null;
  stopReason: StopReason;
  /** One sentence that explains the stop. */
  stopDetail: string;
  interrupted: boolean;
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
  /** Server-side gauges recorded by a probe (probes.ndjson), passed through to the time series. */
  gauges?: GaugeSeries[];
  /** The configured bound on the generator's busy share, for the report's generator table. */
  generatorBusyMax?: number;
  /** Readings of the target's metrics (probes.ndjson), for the server-side view of each step. */
  samples?: ServerSample[];
  /** Steady windows read through a Prometheus server; preferred to `samples` where present. */
  promqlWindows?: PromqlWindow[];
  /** Distinct steps of the plan, when `steps` lists executed attempts (reruns included). */
  plannedSteps?: number;
  /** The attempts as the steps stage ran them; without them every step of `steps` is one first attempt. */
  attempts?: AttemptRecord[];
  /** The rules and bounds the live decision used; the defaults when absent. */
  policy?: DecisionPolicy;
}

/** Bounds on the generator's symptoms, from config.verdicts. */
export interface GeneratorBounds {
  /** Scheduler lag p99 above which the generator is late (ms). */
  lagP99MaxMs: number;
  /** Event-loop delay above which the generator's thread is saturated (ms). */
  loopDelayMaxMs: number;
  /**
   * Event-loop utilisation (0..1) of the generator's busiest thread, averaged over the window,
   * above which it is saturated even if it still kept its schedule; also the bound on the share of
   * its CPUs the generator's process used (k6's, under the k6 engine). Optional: older configs.
   */
  generatorBusyMax?: number;
  /** How much the tail may grow over the first step's and still count as low. */
  tailFactor: number;
}

/** Everything the step decision depends on besides the evidence: the run's rules and bounds, stored in run.json. */
export interface DecisionPolicy {
  rules: Rules;
  bounds: GeneratorBounds;
  confirmFailedStep: boolean;
  rerunContaminated: boolean;
  /** Highest maxVUs a rerun may ask for. */
  maxVUsBound: number;
}
