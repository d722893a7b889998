/**
 * The downstreams a service calls (metrics.downstreams), per step and over the run: each one's
 * ops/s and fan-out (ops per successful request) over every steady window, its shares by splitBy,
 * which one (if any) limited the service at the knee on its own evidence (downstream-evidence.ts),
 * and the warnings: a fan-out that changed between holding steps, a hot shard.
 *
 *   opsPerSec     = window ops / (window toS - fromS)
 *   opsPerRequest = opsPerSec / requestsPerSec, where
 *   requestsPerSec = the step's successful requests per second (the sum of the request names'
 *                   ok/s when the step records names: a mix, every request of every arrival as
 *                   the server counts them, its transactions' own figures being arrivals; else
 *                   throughputPerSec, each arrival one request), scaled to the downstream's own
 *                   window: x (ok arrivals per second over [fromS, toS] from the per-second
 *                   series, seconds cut where the window cuts them) / throughputPerSec
 *   share[v]      = ops of splitBy value v / ops
 *
 * The scaling matters when a window is not steady: the downstream's edges are its readings'
 * instants (up to a scrape interval inside the steady window), and a backlog caught up after a
 * stall of the machine lands in some seconds only, so the step's whole-window rate would divide
 * one interval's ops by another interval's requests (3.80 for 4 calls per request, seen on a busy
 * machine; 4.0 over the same interval).
 *
 * The window is the PromQL window where run.json holds one, else the direct readings nearest
 * the steady window's edges (downstream-window.ts). A window whose counter went backwards has no
 * figures (counterReset). Pure: values in, values out.
 */
import { backgroundFit } from './downstream-background.ts';
import { downstreamVerdict, evidenceOf, successfulRequestsPerSec } from './downstream-evidence.ts';
import { scrapeDownstreamWindow } from './downstream-window.ts';
import { byCodePoint } from './format.ts';
import { STEPS_PHASE } from './phases.ts';
import { decidingSteps } from './deciding-steps.ts';
import type {
  AnalyzeInput,
  DownstreamConfig,
  DownstreamResult,
  DownstreamStep,
  DownstreamVerdict,
  DownstreamWindow,
  PromqlWindow,
  RunResult,
  SeriesPoint,
  ServerSample,
  StepResult,
  Symptom,
} from './types.ts';

/** A fan-out (ops per request) that moves by more than this share between holding steps is warned about. */
export const FAN_OUT_CHANGE = 0.15;
/** A splitBy value carrying more than this many times the mean share of ops is a hot shard. */
export const HOT_SHARD_FACTOR = 1.5;
/** The hot value "grew alone" when its ops/s grew by at least this share while every other value moved less than FLAT. */
export const HOT_GREW = 0.25;
export const FLAT = 0.1;

export interface DownstreamsInput {
  declared: readonly DownstreamConfig[];
  steps: readonly StepResult[];
  samples: readonly ServerSample[];
  promql?: readonly PromqlWindow[];
  kneeStep: number | null;
  /** The run's per-second series (RunResult.series), to count the requests of a window's own interval. */
  series?: readonly SeriesPoint[];
}

export interface DownstreamAnalysis {
  /** The steps with their downstreams' figures (StepResult.downstreams). */
  steps: StepResult[];
  results: DownstreamResult[];
  verdict: DownstreamVerdict;
  warnings: Symptom[];
}

/** Every declared downstream over the run; null when none is declared (the run's outputs stay as they were). */
export function analyzeDownstreams(input: DownstreamsInput): DownstreamAnalysis | null {
  if (input.declared.length === 0) return null;
  const windows = new Map<StepResult, (DownstreamWindow | null)[]>(
    input.steps.map((s) => [s, input.declared.map((d) => windowOf(input, s, d.name))]),
  );
  const steps = input.steps.map((s) => ({
    ...s,
    downstreams: input.declared.map((d, i) => stepFigures(d, s, windows.get(s)![i], input.series)),
  }));
  const deciding = decidingSteps(steps);
  const results = input.declared.map((d, i) => resultOf(d, i, steps, windows));
  const evidence = input.declared.map((d, i) => evidenceOf(d, i, deciding, input.kneeStep));
  const verdict = downstreamVerdict(input.declared, evidence, deciding, input.kneeStep);
  const warnings: Symptom[] = [];
  results.forEach((r, i) => {
    const e = evidence[i];
    r.evidence = e.text;
    if (e.kind) r.evidenceKind = e.kind;
    r.limiting = verdict.limiting === r.name;
    const fanOut = fanOutWarning(r.name, i, deciding);
    if (fanOut) {
      r.fanOutChanged = true;
      warnings.push(fanOut);
    }
    const hot = hotShardWarning(input.declared[i], i, deciding);
    if (hot) {
      r.hotShard = String(hot.figures.value);
      warnings.push(hot);
    }
  });
  return { steps, results, verdict, warnings };
}

function windowOf(input: DownstreamsInput, s: StepResult, name: string): DownstreamWindow | null {
  // with metrics.prometheus a downstream is read through PromQL only (it lives on its exporter, which
  // the run does not scrape): a window with too few scrapes stays empty, its problem saying why
  const pq = input.promql?.find((w) => w.index === s.index && w.attempt === (s.attempt ?? 1));
  return (
    pq?.downstreams?.[name] ?? scrapeDownstreamWindow(input.samples, STEPS_PHASE, name, s.steadyStartS, s.steadyEndS)
  );
}

/** One downstream over one step's window (the formulas of the file comment). */
/** The step's successful requests per second over [fromS, toS] (see the file comment); the step's own rate without a series covering it. */
export function requestsPerSecOver(
  s: StepResult,
  series: readonly SeriesPoint[] | undefined,
  fromS: number,
  toS: number,
): number {
  const base = successfulRequestsPerSec(s);
  if (!series || s.throughputPerSec <= 0 || toS <= fromS) return base;
  let ok = 0;
  let covered = 0;
  for (const p of series) {
    if (p.phase !== STEPS_PHASE) continue;
    const overlap = Math.min(p.tS + 1, toS) - Math.max(p.tS, fromS);
    if (overlap <= 0) continue;
    ok += p.ok * overlap;
    covered += overlap;
  }
  if (covered < 0.9 * (toS - fromS)) return base;
  return (base * (ok / covered)) / s.throughputPerSec;
}

export function stepFigures(
  d: DownstreamConfig,
  s: StepResult,
  w: DownstreamWindow | null,
  series?: readonly SeriesPoint[],
): DownstreamStep {
  const none: DownstreamStep = { name: d.name, opsPerSec: null, opsPerRequest: null };
  if (!w) return none;
  if (w.counterReset) return { ...none, counterReset: true };
  const seconds = w.toS - w.fromS;
  const opsPerSec = w.ops !== null && seconds > 0 ? w.ops / seconds : null;
  const perSec = requestsPerSecOver(s, series, w.fromS, w.toS);
  const out: DownstreamStep = {
    name: d.name,
    opsPerSec,
    opsPerRequest: opsPerSec !== null && perSec > 0 ? opsPerSec / perSec : null,
    requestsPerSec: perSec,
  };
  if (d.saturation) {
    out.saturationStart = w.saturationStart ?? null;
    out.saturationMax = w.saturationMax ?? null;
  }
  if (d.latency) out.latencyMeanMs = w.latencyCount ? ((w.latencySumS ?? 0) / w.latencyCount) * 1000 : null;
  const total = Object.values(w.byLabel ?? {}).reduce((a, v) => a + v, 0);
  if (w.byLabel && total > 0 && seconds > 0) {
    const entries = Object.entries(w.byLabel).sort(([a], [b]) => byCodePoint(a, b));
    out.shares = Object.fromEntries(entries.map(([k, v]) => [k, v / total]));
    out.byLabelPerSec = Object.fromEntries(entries.map(([k, v]) => [k, v / seconds]));
  }
  return out;
}

function resultOf(
  d: DownstreamConfig,
  i: number,
  steps: readonly StepResult[],
  windows: Map<StepResult, (DownstreamWindow | null)[]>,
): DownstreamResult {
  const problems = [...new Set([...windows.values()].flatMap((ws) => ws[i]?.problems ?? []))];
  return {
    name: d.name,
    steps: steps.map((s) => {
      const { name: _, ...figures } = s.downstreams![i];
      return { step: s.index, ...(s.attempt && s.attempt > 1 ? { attempt: s.attempt } : {}), ...figures };
    }),
    limiting: false,
    ...(problems.length > 0 ? { problems } : {}),
  };
}

function at(s: StepResult): Pick<Symptom, 'step' | 'attempt'> {
  return { step: s.index, ...(s.attempt && s.attempt > 1 ? { attempt: s.attempt } : {}) };
}

/** The first holding step whose fan-out moved more than FAN_OUT_CHANGE from the first holding step's; null when none. */
export function fanOutWarning(name: string, i: number, deciding: readonly StepResult[]): Symptom | null {
  const held = deciding.filter((s) => s.verdict === 'holds' && s.downstreams?.[i]?.opsPerRequest != null);
  if (held.length < 2) return null;
  const first = held[0];
  const from = first.downstreams![i].opsPerRequest!;
  const moved = held.slice(1).find((s) => Math.abs(s.downstreams![i].opsPerRequest! - from) > FAN_OUT_CHANGE * from);
  if (!moved) return null;
  // a constant background (an exporter's own commands) makes the fan-out fall with the rate: said as such
  const fit = backgroundFit(
    held.map((s) => ({ perSec: s.downstreams![i].requestsPerSec ?? 0, opsPerSec: s.downstreams![i].opsPerSec! })),
  );
  return {
    code: 'downstream-fan-out',
    ...at(moved),
    figures: {
      name,
      fromStep: first.index,
      fromOpsPerRequest: from,
      toOpsPerRequest: moved.downstreams![i].opsPerRequest!,
      changeShare: FAN_OUT_CHANGE,
      ...(fit ? { ...fit, fitSteps: held.map((s) => s.index) } : {}),
    },
  };
}

/**
 * The step whose busiest splitBy value carried the largest multiple of the mean share, when over
 * HOT_SHARD_FACTOR; `grewAlone` when that value's ops/s grew by HOT_GREW since the first step
 * with shares while every other value's moved less than FLAT.
 */
export function hotShardWarning(d: DownstreamConfig, i: number, deciding: readonly StepResult[]): Symptom | null {
  const withShares = deciding.filter((s) => Object.keys(s.downstreams?.[i]?.shares ?? {}).length >= 2);
  let worst: { s: StepResult; value: string; factor: number } | null = null;
  for (const s of withShares) {
    const shares = Object.entries(s.downstreams![i].shares!);
    const [value, share] = shares.reduce((a, b) => (b[1] > a[1] ? b : a));
    const factor = share * shares.length;
    if (factor > HOT_SHARD_FACTOR && (!worst || factor > worst.factor)) worst = { s, value, factor };
  }
  if (!worst) return null;
  const ds = worst.s.downstreams![i];
  const base = withShares[0].downstreams![i].byLabelPerSec ?? {};
  const now = ds.byLabelPerSec ?? {};
  const grew = (k: string) => (base[k] ? (now[k] ?? 0) / base[k] - 1 : null);
  const hotGrowth = grew(worst.value);
  const others = Object.keys(now).filter((k) => k !== worst!.value);
  const grewAlone =
    withShares[0] !== worst.s &&
    hotGrowth !== null &&
    hotGrowth >= HOT_GREW &&
    others.every((k) => {
      const g = grew(k);
      return g !== null && Math.abs(g) < FLAT;
    });
  return {
    code: 'downstream-hot-shard',
    ...at(worst.s),
    figures: {
      name: d.name,
      splitBy: d.splitBy ?? '',
      value: worst.value,
      share: ds.shares![worst.value],
      values: Object.keys(ds.shares!).length,
      factor: worst.factor,
      bound: HOT_SHARD_FACTOR,
      grewAlone,
      fromStep: withShares[0].index,
      fromPerSec: base[worst.value] ?? null,
      toPerSec: now[worst.value] ?? null,
    },
  };
}

/** The run with its downstreams (steps' figures, results, verdict, warnings); the run itself when none is declared. */
export function withDownstreams(
  input: Pick<AnalyzeInput, 'serverConfig' | 'samples' | 'promqlWindows'>,
  run: RunResult,
): RunResult {
  const ds = analyzeDownstreams({
    declared: input.serverConfig?.downstreams ?? [],
    steps: run.steps,
    samples: input.samples ?? [],
    promql: input.promqlWindows,
    kneeStep: run.kneeStep,
    series: run.series,
  });
  if (!ds) return run;
  return {
    ...run,
    steps: ds.steps,
    downstreams: ds.results,
    downstreamVerdict: ds.verdict,
    warnings: [...run.warnings, ...ds.warnings],
  };
}
