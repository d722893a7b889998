/**
 * Fake runs for tests: a compact description per step (rate, achieved throughput, latency,
 * errors, drops) becomes real BucketRecords with real HDR encoding, a plan and an AnalyzeInput.
 * Deterministic: no clock, no randomness. Per-second counts spread a fractional rate v as
 * floor((t+1)v) - floor(tv), so any N consecutive seconds hold N x v within one request.
 */
import { analyzeRun } from '../analyze.ts';
import { DEFAULT_RULES } from '../plan.ts';
import { encodeHistogram, newHistogram, recordUs, type Histogram } from '../histogram.ts';
import {
  PHASES,
  type AnalyzeInput,
  type NameResult,
  type BucketRecord,
  type ErrorKind,
  type Phase,
  type Rules,
  type RunResult,
  type SeriesPoint,
  type ServerSample,
  type ServerWindow,
  type StepPlan,
  type StepResult,
} from '../types.ts';

export interface FakeStep {
  ratePerSec: number;
  /** Successful completions per second (default: ratePerSec). */
  okPerSec?: number;
  /** Failed completions per second (default 0). */
  failedPerSec?: number;
  errorKind?: ErrorKind;
  /** HTTP status of the failures (default "503"). */
  status?: string;
  /** Error message recorded as a sample in every second with failures. */
  errorSample?: string;
  /** Median latency of successful requests (default 10 ms); the tail is exponential. */
  latencyMs?: number;
  /** The median by second (tS) where a second's differs from latencyMs (latency that varies inside a window). */
  secondLatencyMs?: Readonly<Record<number, number>>;
  droppedPerSec?: number;
  /** Scheduler lag of every arrival (default 0.1 ms). */
  lagMs?: number;
  /** Event-loop delay of every source in every second (default 0); null: not measured, as under k6. */
  loopDelayMaxMs?: number | null;
  /** Event-loop utilisation of every source in every second (absent: not measured, as under k6). */
  busy?: number;
  /** The generator process's share of its CPUs in every second, on the first source (absent: not read). */
  processCpu?: number;
}

export interface FakeRunSpec {
  steps: FakeStep[];
  rampS?: number;
  holdS?: number;
  settleS?: number;
  /** Seconds of "warmup" buckets before the first step (full of garbage: zero throughput). */
  warmupS?: number;
  /** Engine instances that share each second's work (default 1). */
  sources?: number;
  /** No bucket at or after this second (an interrupted or crashed run). */
  stopAtS?: number;
  /** 'garbage' puts zero throughput in every ramp and settle second (default 'same'). */
  transient?: 'same' | 'garbage';
  interrupted?: boolean;
  rules?: Partial<Rules>;
  target?: string;
}

export { DEFAULT_RULES };
const LEVELS = 50;
const EMPTY = encodeHistogram(newHistogram());

/** Share j of `count` split over `parts`: floor((j+1)c/p) - floor(jc/p). Shares sum to count. */
export function share(count: number, j: number, parts: number): number {
  return Math.floor(((j + 1) * count) / parts) - Math.floor((j * count) / parts);
}

/** Count in second t of a rate v per second. */
function perSecond(v: number, t: number): number {
  return Math.floor((t + 1) * v) - Math.floor(t * v);
}

/** Step layout: ramp, then hold; the steady window is the hold minus the settle time. */
export function buildPlan(spec: FakeRunSpec): StepPlan[] {
  const rampS = spec.rampS ?? 5,
    holdS = spec.holdS ?? 30,
    settleS = spec.settleS ?? 5;
  let t = spec.warmupS ?? 0;
  return spec.steps.map((s, index) => {
    const rampStartS = t,
      holdStartS = t + rampS,
      holdEndS = holdStartS + holdS;
    t = holdEndS;
    return {
      index,
      ratePerSec: s.ratePerSec,
      rampStartS,
      holdStartS,
      holdEndS,
      steadyStartS: holdStartS + settleS,
      steadyEndS: holdEndS,
    };
  });
}

/** Latency quantile u of an exponential-tailed distribution with median m: m(0.5 + 0.5 ln(1/(1-u)) / ln 2). */
function latencyAtMs(medianMs: number, u: number): number {
  return medianMs * (0.5 + (0.5 * -Math.log(1 - u)) / Math.LN2);
}

/** The histogram of source j of `parts` for `count` requests spread over LEVELS quantiles. */
function latencyHistogram(count: number, medianMs: number, j: number, parts: number): Histogram {
  const h = newHistogram(64);
  for (let level = 0; level < LEVELS; level++) {
    const atLevel = share(share(count, level, LEVELS), j, parts);
    const us = latencyAtMs(medianMs, (level + 0.5) / LEVELS) * 1000;
    for (let i = 0; i < atLevel; i++) recordUs(h, us);
  }
  return h;
}

interface Second {
  tS: number;
  phase: string;
  ok: number;
  failed: number;
  started: number;
  dropped: number;
  step: FakeStep;
}

/** Source j's share of one second. */
function bucketOf(sec: Second, j: number, parts: number): BucketRecord {
  const { step } = sec;
  const ok = share(sec.ok, j, parts),
    failed = share(sec.failed, j, parts),
    started = share(sec.started, j, parts);
  const latencyMs = step.secondLatencyMs?.[sec.tS] ?? step.latencyMs ?? 10;
  const hist = {} as Record<Phase, string>;
  for (const p of PHASES) hist[p] = EMPTY;
  hist.duration = encodeHistogram(latencyHistogram(sec.ok, latencyMs, j, parts));
  hist.waiting = encodeHistogram(latencyHistogram(sec.ok, latencyMs * 0.8, j, parts));
  const lag = newHistogram(64);
  for (let i = 0; i < started; i++) recordUs(lag, (step.lagMs ?? 0.1) * 1000);
  const kind = step.errorKind ?? 'http_5xx';
  return {
    v: 1,
    source: `fake/${j}`,
    tS: sec.tS,
    phase: sec.phase,
    started,
    dropped: share(sec.dropped, j, parts),
    completed: ok + failed,
    ok,
    errors: failed > 0 ? { [kind]: failed } : {},
    statuses: failed > 0 && kind.startsWith('http') ? { [step.status ?? '503']: failed } : {},
    ...(failed > 0 && step.errorSample ? { samples: [step.errorSample] } : {}),
    bytesIn: ok * 200,
    bytesOut: started * 100,
    vusActiveMax: share(Math.ceil((sec.ok * latencyMs) / 1000) + 1, j, parts),
    vusAllocated: share(100, j, parts),
    lag: encodeHistogram(lag),
    ...(step.loopDelayMaxMs === null ? {} : { loopDelayMaxMs: step.loopDelayMaxMs ?? 0 }),
    ...(step.busy === undefined ? {} : { busy: step.busy }),
    ...(step.processCpu === undefined || j > 0 ? {} : { processCpu: step.processCpu }),
    hist,
  };
}

function secondOf(step: FakeStep, tS: number, phase: string, garbage: boolean): Second {
  const dropped = perSecond(step.droppedPerSec ?? 0, tS);
  const started = Math.max(0, perSecond(step.ratePerSec, tS) - dropped);
  if (garbage) return { tS, phase, ok: 0, failed: 0, started, dropped, step };
  return {
    tS,
    phase,
    ok: perSecond(step.okPerSec ?? step.ratePerSec, tS),
    failed: perSecond(step.failedPerSec ?? 0, tS),
    started,
    dropped,
    step,
  };
}

/** Every second of the run (warmup, then each step's ramp and hold). */
function secondsOf(spec: FakeRunSpec, plan: readonly StepPlan[]): Second[] {
  const out: Second[] = [];
  const first = spec.steps[0] ?? { ratePerSec: 0 };
  for (let tS = 0; tS < (spec.warmupS ?? 0); tS++) out.push(secondOf(first, tS, 'warmup', true));
  plan.forEach((p, i) => {
    for (let tS = p.rampStartS; tS < p.holdEndS; tS++) {
      const transient = tS < p.steadyStartS && spec.transient === 'garbage';
      out.push(secondOf(spec.steps[i], tS, 'steps', transient));
    }
  });
  if (spec.stopAtS === undefined) return out;
  const kept = out.filter((s) => s.tS < spec.stopAtS!);
  // the second a stop fell in: a third of its arrivals, due before the stop (the analysis leaves it out)
  const cut = out.find((s) => s.tS === spec.stopAtS && s.phase === 'steps');
  if (cut)
    kept.push({
      ...cut,
      ok: Math.floor(cut.ok / 3),
      failed: Math.floor(cut.failed / 3),
      started: Math.floor(cut.started / 3),
      dropped: Math.floor(cut.dropped / 3),
    });
  return kept;
}

/** Raw buckets of the run: one per second per source, sources interleaved. */
export function buildRecords(spec: FakeRunSpec): BucketRecord[] {
  const parts = spec.sources ?? 1;
  return secondsOf(spec, buildPlan(spec)).flatMap((sec) =>
    Array.from({ length: parts }, (_, j) => bucketOf(sec, j, parts)),
  );
}

/** A complete AnalyzeInput with plausible stages, VU sizing, RTT and environment. */
export function buildInput(spec: FakeRunSpec): AnalyzeInput {
  return {
    runId: 'run-test',
    target: spec.target ?? 'http://127.0.0.1:8080/orders',
    engine: 'native',
    startedAt: '2025-01-01T00:00:00.000Z',
    rules: { ...DEFAULT_RULES, ...spec.rules },
    steps: buildPlan(spec),
    records: buildRecords(spec),
    stages: [
      { name: 'preflight', status: 'pass', durationMs: 120, detail: 'config valid; target healthy', evidence: [] },
      {
        name: 'steps',
        status: spec.interrupted ? 'interrupted' : 'pass',
        durationMs: 60_000,
        detail: 'stepped load',
        evidence: [],
      },
    ],
    vus: { preAllocatedVUs: 50, maxVUs: 200, reason: 'rate x (service time + RTT) x 2' },
    rtt: { connectMedianMs: 0.2, httpMedianMs: 0.5, httpP90Ms: 0.8, samples: 20 },
    environment: { node: 'v20.19.0', engine: 'native' },
    interrupted: spec.interrupted ?? false,
  };
}

/** analyzeRun over a fake run. */
export function fakeRun(spec: FakeRunSpec): RunResult {
  return analyzeRun(buildInput(spec));
}

/** Steps 100, 200, ... with throughput equal to the rate: a target that keeps up. */
export function followingSteps(count: number, stepPerSec = 100): FakeStep[] {
  return Array.from({ length: count }, (_, i) => ({ ratePerSec: stepPerSec * (i + 1) }));
}

/** One judged step that held at 100 req/s with a fast, clean generator; `over` changes any field. */
export function stepResult(over: Partial<StepResult> = {}): StepResult {
  return {
    index: 0,
    ratePerSec: 100,
    steadyStartS: 0,
    steadyEndS: 5,
    steadyS: 5,
    throughputPerSec: 100,
    completedPerSec: 100,
    delivery: 1,
    capture: null,
    completed: 500,
    ok: 500,
    failed: 0,
    errorRate: 0,
    errors: {},
    dropped: 0,
    started: 500,
    latency: [{ q: 50, valueMs: 10, n: 500, reliable: true }],
    meanMs: 10,
    maxMs: 20,
    lagP99Ms: 1,
    loopDelayMaxMs: 5,
    vusActiveMax: 3,
    vusAllocatedMax: 10,
    verdict: 'holds',
    reasons: [],
    ...over,
  };
}

/** A name's steady window (StepResult.byName) of `completed` successes over stepResult's 5 s; `over` replaces any field. */
export function nameResult(completed: number, over: Partial<NameResult> = {}): NameResult {
  return {
    completedPerSec: completed / 5,
    throughputPerSec: completed / 5,
    completed,
    ok: completed,
    failed: 0,
    errorRate: 0,
    errors: {},
    latency: [],
    meanMs: null,
    maxMs: null,
    ...over,
  };
}

/** A stepResult whose latency is a p50 of 10 ms and a p99 of `p99` ms (12 by default), each from 500 samples. */
export function stepWithP99(over: Partial<StepResult> & { p99?: number } = {}): StepResult {
  const { p99 = 12, ...rest } = over;
  return stepResult({
    latency: [
      { q: 50, valueMs: 10, n: 500, reliable: true },
      { q: 99, valueMs: p99, n: 500, reliable: false },
    ],
    ...rest,
  });
}

/**
 * The input's fake steps as the attempts the steps stage would store: position i reran step
 * `reruns[i].index` as attempt `reruns[i].attempt` (2 by default); the others are first attempts
 * at their own index. `plannedSteps` is the number of distinct steps.
 */
export function withAttempts(
  input: AnalyzeInput,
  reruns: Record<number, { index: number; attempt?: number }> = {},
): AnalyzeInput {
  let next = 0;
  const attempts = input.steps.map((s, i) => {
    const r = reruns[i];
    const index = r ? r.index : next++;
    return { ...s, index, attempt: r ? (r.attempt ?? 2) : 1, maxVUs: input.vus.maxVUs };
  });
  return { ...input, attempts, plannedSteps: next };
}

/** One second of a run's time series (RunResult.series), steps phase, nothing in it but `over`. */
export function seriesPoint(over: Partial<SeriesPoint> = {}): SeriesPoint {
  return { tS: 0, phase: 'steps', ok: 0, failed: 0, dropped: 0, vusActive: 1, vusAllocated: 1, p99Ms: 1, ...over };
}

/** A probe sample of the steps phase at tS that read nothing but what `over` gives. */
export function emptySample(tS: number, over: Partial<ServerSample> = {}): ServerSample {
  return {
    kind: 'scrape',
    phase: 'steps',
    tS,
    requestsCount: null,
    requestsSumS: null,
    requestsMaxS: null,
    poolActive: null,
    poolPending: null,
    poolMax: null,
    gauges: {},
    topology: null,
    ...over,
  };
}

/** A probe sample of the steps phase at tS that read the request series (count, sum), a max of 20 ms and a pool of 2 of 4 busy, and what `over` gives. */
export function serverSampleOf(
  tS: number,
  count: number,
  sumS: number,
  over: Partial<ServerSample> = {},
): ServerSample {
  return emptySample(tS, {
    requestsCount: count,
    requestsSumS: sumS,
    requestsMaxS: 0.02,
    poolActive: 2,
    poolPending: 0,
    poolMax: 4,
    ...over,
  });
}

/** Probe samples of the steps phase that read only a topology value, one per [tS, value]. */
export function topologySamples(readings: [number, number][]): ServerSample[] {
  return readings.map(([tS, topology]) => emptySample(tS, { topology }));
}

/** A scrape's steady window of the server's figures: its throughput and mean, the pool's gauges as given. */
export function serverWindowOf(
  x: number | null,
  meanMs: number | null,
  pool: Partial<ServerWindow> = {},
): ServerWindow {
  return {
    source: 'scrape',
    fromS: 0,
    toS: 5,
    throughputPerSec: x,
    meanMs,
    maxMs: null,
    poolActiveMax: null,
    poolPendingMax: null,
    poolMax: null,
    ...pool,
  };
}
