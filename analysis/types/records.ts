/**
 * What is stored: the buckets and probe samples of a run (buckets.ndjson, probes.ndjson) and the
 * records run.json keeps (stage outcomes, the warmup's record, the attempts as run, RTT, VU sizing).
 * Types only (and the constant lists of the two vocabularies), no I/O.
 */
import type { DownstreamReading, DownstreamWindow, HistogramReading, RouteReading } from './server.ts';
import type { StepPlan } from './plan.ts';
import type { ServerWindow } from './results.ts';

/** k6's http_req_* timing vocabulary, in one place. Every output uses these names. */
export const PHASES = ['blocked', 'connecting', 'sending', 'waiting', 'receiving', 'duration'] as const;
export type Phase = (typeof PHASES)[number];

/**
 * A bucket as the analysis reads it: of the phase histograms only `duration` (the stored records
 * keep every phase; the merge of several sources sums only what the analysis reads: buckets.ts).
 * A BucketRecord is one.
 */
export type AnalysedRecord = Omit<BucketRecord, 'hist'> & { hist: Pick<BucketRecord['hist'], 'duration'> };

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
  /**
   * First few distinct error messages seen in this second (bounded), for diagnosis; a failed
   * response's ends with the start of its body (error-samples.ts SAMPLE_BODY), and a kind of
   * failure it has none of yet is kept before a second message of another.
   */
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
  /**
   * Sends plateau refused in this second for their name (built from data, past the run's limit, a
   * mix entry's: harness/scenario/names.ts), each failing its arrival at plateau's hand, not the
   * target's; `first` is one refusal's message with its fix ('' where none of the second's came
   * with one: a k6 VU tags its first refusal only). Absent where none was refused.
   */
  refusedNames?: { count: number; first: string };
  /**
   * Rejections of promises the scenario's code left unhandled this second (harness/engine/unhandled.ts),
   * and the first one's message: they failed no arrival. Absent where none was.
   */
  unhandled?: { count: number; first: string };
  /** Highest number of VUs busy at once in this second. */
  vusActiveMax: number;
  /** VUs allocated at the end of this second. */
  vusAllocated: number;
  /** HDR histogram (µs) of scheduler lag: actual start minus intended start of each arrival. */
  lag: string;
  /**
   * Largest event-loop delay observed in this second, in ms; absent where not measured (k6,
   * k6-operator: plateau's loop sends nothing there). k6 runs stored before 2026-12-06 wrote 0,
   * read back as absent (harness/store/run-store.ts).
   */
  loopDelayMaxMs?: number;
  /**
   * Share (0..1) of this second the source's event loop was busy (Node's event-loop utilisation);
   * absent where not measured (k6). Merged buckets keep the busiest source's.
   */
  busy?: number;
  /** HDR histograms (µs) of successful requests' phases, compressed base64 (every request of every arrival). */
  hist: Record<Phase, string>;
  /**
   * Requests completed in this second, every request of every arrival. Absent where each arrival
   * is one request (then it is `completed`): `completed` and `ok` count arrivals (transactions).
   */
  requests?: number;
  /**
   * Of `requests`, the failed ones (a k6 import's iterations: its errors are the iterations'). An
   * iteration counts where it ended, so a second may have more failed arrivals than failed
   * requests: the rest failed by requests of earlier seconds (decision 063).
   */
  requestsFailed?: number;
  /**
   * The same second by name: each request name, and each transaction (a mix entry that sends
   * several requests). Absent where the scenario has one name. Keys are at most MAX_NAMES.
   */
  byName?: Record<string, NameBucket>;
}

/** The traffic a run offered (run.json `traffic`): its mix entries, their weights, which are transactions. */
export interface TrafficRecord {
  entries: { name: string; weight: number; transaction: boolean }[];
  /**
   * An imported k6 run (no entries): an arrival is one iteration of the user's own script, or one
   * entry of plateau's own script's mix (`of: 'plateau-mix'`, its plateau_arrival samples), which
   * sent this many requests on average; over 1, its rates count arrivals (arrivals/s).
   * `exactOutcomes`: every iteration named its VU and iteration (k6's vu and iter, enabled in
   * `--system-tags`), so each failed exactly when one of its requests did; absent, `ok` counts each
   * failed request as a failed iteration of its second (a lower bound at several requests an
   * iteration).
   */
  iterations?: {
    requestsPerArrival: number;
    of?: 'plateau-mix';
    exactOutcomes?: true;
    /**
     * The user's run was a closed model (harness/k6/import/closed-model.ts: all `vus` of its VUs
     * active through `heldS` seconds in a row, of `readings`, none dropped): no rate was offered,
     * so its capacity is not established (stop reason closed-model).
     */
    closedModel?: { heldS: number; readings: number; vus: number };
  };
  /**
   * How the steps' VUs were sized: from the warmup's measured time per arrival, from preflight's
   * sample arrivals (a transaction's own time, where longer than the plan's: `samples`), or from
   * vus.expectedServiceMs (with `vusGiven`, only the count the config did not give), or both counts
   * as the config gives them ('given').
   */
  sizedFrom?: 'warmup' | 'samples' | 'expectedServiceMs' | 'given';
  /**
   * What each random data source's draws followed (harness/scenario/traffic.ts randomDrawsOf): its
   * `seed`, or the run id where it had none (decision 057). Two runs whose texts differ drew other
   * rows (compare and the gate say so); absent without random sources and in runs recorded before.
   */
  randomDraws?: Record<string, { by: 'seed' | 'run id'; text: string }>;
  /**
   * The one VU count the config (or --vus, --max-vus) gave, kept as given while `sizedFrom` sized
   * the other (a given max caps the sized preallocated); absent when it gave neither or both.
   */
  vusGiven?: 'preAllocated' | 'max';
}

/** One name's figures in one second (BucketRecord.byName). */
export interface NameBucket {
  /** A transaction's figures are its arrivals (duration: from the arrival's start to its last answer, think time included); absent for a request name. */
  transaction?: true;
  /** Completed in this second, successful or not. */
  completed: number;
  ok: number;
  errors: Partial<Record<ErrorKind, number>>;
  /** Failed ones by HTTP status code; absent when none. */
  statuses?: Record<string, number>;
  /** HDR histogram (µs) of the successful ones' durations, compressed base64. */
  duration: string;
  /**
   * A transaction's: ms its successful arrivals held VUs borrowed for sends made together, beside
   * their own VU for their whole duration (Little's law's VU time per arrival); absent when none.
   */
  borrowedMs?: number;
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

/**
 * One reading of the target's Prometheus metrics (the configured series only), as written to
 * probes.ndjson. tS is seconds since the load phase's t0 (fractional: the moment of the reading).
 */
export interface ServerSample {
  kind: 'scrape';
  phase: string;
  tS: number;
  /**
   * How long the reading took (ms, from sending the scrape to its parsed answer): tS is its
   * midpoint, so the moment the counters stood for lies within readMs / 2 of it. Absent in runs
   * recorded before 2026-12-06 and in simulated readings.
   */
  readMs?: number;
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
  /** The request histogram's cumulative buckets, when the series has them. */
  requestsBuckets?: HistogramReading | null;
  /** Per route (metrics.requests.routes), by the mix's name. */
  routes?: Record<string, RouteReading>;
  /** Per downstream (metrics.downstreams), by its name. */
  downstreams?: Record<string, DownstreamReading>;
  /** What was wrong with the series in this reading (a histogram without +Inf, a non-numeric sample, labels that match nothing), a line each. */
  problems?: string[];
}

/** A steady window read through PromQL, for one executed step (index and attempt). */
export interface PromqlWindow {
  index: number;
  attempt: number;
  window: ServerWindow;
  /** Each declared downstream over the window through PromQL (metrics.downstreams), by its name. */
  downstreams?: Record<string, DownstreamWindow>;
  /** Each mapped name's route window (metrics.requests.routes), read with the route label added to the request series' labels. */
  routes?: Record<string, ServerWindow>;
}

/**
 * The pipeline's stages, in the order a run goes through them (harness/pipeline/run.ts): the one
 * list, which `plateau plan` shows (a review found plan's own copy without threads).
 */
export const STAGE_NAMES = ['preflight', 'reset', 'rtt', 'warmup', 'threads', 'steps', 'report'] as const;
export type StageName = (typeof STAGE_NAMES)[number];

/** A pipeline stage's outcome, recorded in run.json and shown in the report. */
export interface StageOutcome {
  name: StageName;
  /** interrupted: a Ctrl-C (or limits.maxDurationS) ended the stage early; what it measured is kept. */
  status: 'pass' | 'fail' | 'skipped' | 'interrupted';
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
  windows: {
    fromS: number;
    throughputPerSec: number;
    p50Ms: number | null;
    /** A mix's median by name and its successful count (the warmup judges a mix by these). */
    byName?: Record<string, { p50Ms: number | null; n: number }>;
  }[];
}

export interface VuSizing {
  preAllocatedVUs: number;
  maxVUs: number;
  /** How the numbers were chosen, in words. */
  reason: string;
  /** vus.max as the config set it; absent when Little's law sized it (and in runs before 12-06). */
  configuredMax?: number;
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
