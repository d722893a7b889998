/**
 * `plateau plan`: everything the run will do, before it sends anything. Pure: the shell gathers
 * what it knows (harness/cli/plan-text.ts) into a PlanTextInput; text comes out.
 */
import {
  requiredSamples,
  TAIL_PERCENTILES,
  tailTrustByShare,
  trustworthyPercentiles,
} from '../analysis/percentiles.ts';
import { fmtInt, fmtMixShare, unitOf } from '../analysis/format.ts';
import type { Rules, SloConfig, StepPlan, VuSizing } from '../analysis/types.ts';
import { percentOf, sloObjectiveText } from '../analysis/slo.ts';
import type { VusGiven } from '../analysis/plan.ts';
import { planStages, threadsText, type PlanThreads } from './plan-stages.ts';
import { secretNotSetText, transactionsUnmeasuredText } from './plan-warnings.ts';

/** A reset hook as the plan shows it (an SQL hook by its statement count and guarded tables). */
export type PlanTextResetHook =
  | { kind: 'command'; run: string }
  | { kind: 'http'; method: string; url: string }
  | { kind: 'sql'; database: string; statements: number; tables: string[] };

/** What the shell knows of a plan, whichever way it is printed (text here, JSON in plan-json.ts). */
export interface PlanFacts {
  plan: {
    target: string;
    steps: StepPlan[];
    durationS: number;
    settleS: number;
    rules: Rules;
    vus: VuSizing;
    expectedSteadySamples: number[];
  };
  steps: { startPerSec: number; stepPerSec: number; maxPerSec: number; rampS: number; holdS: number };
  warmup: {
    enabled: boolean;
    ratePerSec: number;
    stableWindows: number;
    windowS: number;
    tolerance: number;
    maxS: number;
  };
  reset: PlanTextResetHook[];
  /** The reset stage has something to do (a hook, or a probe read before the run); else the run skips it. */
  resetRuns: boolean;
  /** The threads stage (harness/pipeline/threads.ts): it may run the steps on fewer of the engine's threads, or all run, and why. */
  threads: PlanThreads;
  /** The scenario's data sources, loaded as a run would load them; absent or empty without any. */
  data?: PlanDataSource[];
  /** The steps stage may raise the VUs from the warmup's measured time per arrival (one runs, the config does not give both counts). */
  vusFromWarmup?: boolean;
  /**
   * The mix's transactions, whose time (think time included) only preflight's sample arrivals
   * measure, as no plan sends anything: before load the run sizes the VUs from it where longer than
   * the plan's (arrival-time.ts sampledArrivalMs), and refuses a settle it outlasts
   * (settle-check.ts) or one past transactionTimeoutMs; absent or empty without one.
   */
  transactions?: string[];
  /** http.transactionTimeoutMs: a sample arrival not ended by then is refused at preflight. */
  transactionTimeoutMs?: number;
  /** Which VU counts the config (or --vus, --max-vus) gives: Little's law sizes the others (absent: none). */
  vusGiven?: VusGiven;
  /** limits.maxDurationS: a run that reaches this much load is stopped there (absent: none given). */
  maxDurationS?: number;
  /**
   * The scenario's secrets not set in plan's environment: warned of, not refused (a plan may be
   * made on another machine than its run), as preflight will refuse a run without them.
   */
  secretsNotSet?: string[];
  /** What the run reads of the server (config metrics): its endpoint, Prometheus, downstreams, pool gauges; absent without metrics. */
  metrics?: {
    url: string | null;
    prometheus: string | null;
    preset: string | null;
    downstreams: string[];
    pool: boolean;
  };
  /** The latency objective (config slo), absent without one. */
  slo?: SloConfig;
}

/** The objective's samples: from which step a steady window's expected samples let its percentile be judged. */
export interface PlanSlo {
  objective: string;
  requiredSamples: number;
  /** 0-based; null: no step of this plan expects enough. */
  fromStepIndex: number | null;
}

/** Where the SLO can first be judged: the first step whose expected samples (steady s x rate) reach its percentile's need. */
export function planSlo(input: Pick<PlanFacts, 'plan' | 'slo'>): PlanSlo | null {
  if (!input.slo) return null;
  const need = requiredSamples(percentOf(input.slo.quantile), input.plan.rules.minTailSamples);
  const i = input.plan.expectedSteadySamples.findIndex((n) => n >= need);
  return { objective: sloObjectiveText(input.slo), requiredSamples: need, fromStepIndex: i < 0 ? null : i };
}

function metricsText(m: NonNullable<PlanFacts['metrics']>): string {
  const read = [
    ...(m.url ? [`${m.url} at each steady window's edges`] : []),
    ...(m.prometheus ? [`Prometheus ${m.prometheus} over each steady window`] : []),
  ];
  return `${read.join(' and ')}${m.preset ? ` (preset ${m.preset})` : ''}; downstreams ${m.downstreams.length ? m.downstreams.join(', ') : 'none declared'}; pool gauges ${m.pool ? 'read' : 'not configured'}`;
}

function sloText(input: PlanFacts): string | null {
  const s = planSlo(input);
  if (!s) return null;
  const need = `the ${fmtInt(s.requiredSamples)} samples its percentile needs in a steady window`;
  if (s.fromStepIndex === null)
    return `${s.objective}: judged at no step of this plan (none expects ${need}); hold longer (--hold) or offer more`;
  const step = input.plan.steps[s.fromStepIndex];
  return `${s.objective}: judged from step ${s.fromStepIndex + 1} (${step.ratePerSec}/s), the first to expect ${need}; below it, not judged`;
}

/**
 * The most load a run of this plan makes: its steps, as much again if each is rerun once, and the
 * warmup's bound plus its 1 s ramp (harness/pipeline/warmup.ts RAMP_S), at most limits.maxDurationS,
 * where the run is stopped (`capped`: the reruns could reach it).
 */
export function loadAtMostS(input: Pick<PlanFacts, 'plan' | 'warmup' | 'maxDurationS'>): {
  atMostS: number;
  warmupS: number;
  capped: boolean;
} {
  const warmupS = input.warmup.enabled ? input.warmup.maxS + 1 : 0;
  const totalS = 2 * input.plan.durationS + warmupS;
  const cap = input.maxDurationS ?? Infinity;
  return { atMostS: Math.min(totalS, cap), warmupS, capped: totalS > cap };
}

/** A data source as the plan shows it: its rows, its order and, for a unique one, what the plan may take. */
export interface PlanDataSource {
  name: string;
  /** Its file, as the user would name it (relative to the working directory). */
  file: string;
  rows: number;
  /** Rows the load may use (a unique source keeps some for preflight's sample arrivals). */
  usable: number;
  order: 'sequential' | 'unique' | 'random';
  /** Arrivals the plan can make at most: warmup (when one runs), steps and a rerun of each step. */
  maxArrivals: number;
  /** A warmup runs (enabled, on an engine that has one): its arrivals are in maxArrivals. */
  withWarmup?: boolean;
  /** A unique source's readBy: the mix entries whose arrivals alone take its rows. */
  readBy?: string[];
  /** Of maxArrivals, those of the readBy's entries: the rows the plan can take. */
  readerArrivals?: number;
  /** A random source's seed, as the scenario gives it; absent: its draws follow the run id. */
  seed?: string | number;
}

function dataText(d: PlanDataSource): string {
  const head = `${d.name} (${d.file}): ${fmtInt(d.rows)} ${d.rows === 1 ? 'row' : 'rows'}`;
  // an entry's arrivals walk the rows, not the global arrival number (mix-order.ts: an entry on
  // every 4th arrival would read 4 rows of 16)
  if (d.order === 'sequential') return `${head}, sequential (each entry's arrivals read them in turn, wrapping)`;
  if (d.order === 'random')
    return d.seed === undefined
      ? `${head}, random (seeded by the run id: a run of another id draws other rows; give the source a seed to draw the same in runs you compare)`
      : `${head}, random (seeded by its seed ${JSON.stringify(d.seed)}: every run given it draws the same rows)`;
  const readers =
    d.readBy && d.readerArrivals !== undefined
      ? `, ${fmtInt(d.readerArrivals)} of them of its readBy (${d.readBy.map((n) => `"${n}"`).join(', ')}), which alone take rows`
      : '';
  return `${head}, unique: ${fmtInt(d.usable)} for the load (${fmtInt(d.rows - d.usable)} kept for preflight's sample arrivals) and the plan makes at most ${fmtInt(d.maxArrivals)} arrivals (${d.withWarmup === false ? 'steps' : 'warmup, steps'} and a rerun of each step)${readers}`;
}

/** What the text adds (narrow: no harness type crosses into reports/). */
export interface PlanTextInput extends PlanFacts {
  /** The scenario as named to the user, e.g. "orders (./scenario.ts)"; absent for a GET on the target. */
  scenario?: string;
  /** Lines the engine adds (k6's execution segment), already worded by its kind. */
  engineLines: string[];
  /** A mix's entries and their shares of the arrivals (0 to 1); absent for one request per arrival. */
  entries?: { name: string; share: number; transaction: boolean }[];
}

/**
 * The VU sizing's reason as plan shows it (its text and --json): what sized the counts, then what
 * re-sizes them before the steps, for the counts the config does not give (nothing where it gives
 * both): the measured RTT; a mix's transactions' time in preflight's sample arrivals, which makes
 * the plan's figure provisional (a review: plan said 20 VUs from 50 ms requests, the run 226 from
 * a transaction's 1 s think time); the warmup's measured time per arrival where one runs.
 */
export function vusReasonText(input: Pick<PlanFacts, 'plan' | 'vusFromWarmup' | 'vusGiven' | 'transactions'>): string {
  const reason = input.plan.vus.reason;
  const given = input.vusGiven ?? 'none';
  if (given === 'both') return reason;
  const which = given === 'max' ? 'the preallocated ' : given === 'preAllocated' ? 'the max ' : '';
  const raised = input.vusFromWarmup
    ? `, and raised after the warmup where its measured time per arrival is longer${given === 'max' ? ', at most to the given max' : ''}`
    : '';
  const transactions = input.transactions ?? [];
  // the RTT alone moves the figure by a round trip; a transaction's time or the warmup's may replace it
  const provisional = transactions.length > 0 || input.vusFromWarmup ? 'provisional: ' : '';
  if (transactions.length === 0)
    return `${reason}; ${provisional}${which}re-sized with the measured RTT before load${raised}`;
  const named = transactions.map((n) => JSON.stringify(n)).join(', ');
  return `${reason}; ${provisional}${which}re-sized before load with the measured RTT and, where longer, the time per arrival of preflight's sample arrivals, each transaction's own (${named}, think time included, which only sending them measures)${raised}`;
}

/**
 * A mix's tail percentiles by name: from which step each entry's share of a steady window's
 * expected samples makes its p99, then its p90, trustworthy (the report's finding of which entry
 * degraded first judges p99 where two steps have it, else p90: decision 036).
 */
function byNameLines(plan: PlanFacts['plan'], entries: NonNullable<PlanTextInput['entries']>): string[] {
  const trust = entries.map((e) => tailTrustByShare(plan.expectedSteadySamples, e.share, plan.rules.minTailSamples));
  const lines = TAIL_PERCENTILES.map((q, k) => {
    const at = entries.map((e, j) => ({ e, step: trust[j][k].fromStepIndex }));
    const named = (e: (typeof entries)[number]) => (k === 0 ? `${e.name} (${fmtMixShare(e.share)})` : e.name);
    const some = at.filter((a) => a.step !== null).map((a) => `${named(a.e)} from step ${a.step! + 1}`);
    const none = at.filter((a) => a.step === null).map((a) => named(a.e));
    const parts = [...some, ...(none.length ? [`${none.join(', ')} at no step of this plan`] : [])];
    return `  p${q} (${fmtInt(requiredSamples(q, plan.rules.minTailSamples))} a window): ${parts.join('; ')}`;
  });
  return [
    '',
    "by name: each entry gets its share of a step's expected samples (a transaction's requests as many as it sends)",
    ...lines,
    '  longer holds (--hold) collect more; which entry degraded first is judged by p99 where two steps have it, else p90',
  ];
}

function resetText(h: PlanTextResetHook): string {
  if (h.kind === 'command') return `command \`${h.run}\``;
  if (h.kind === 'http') return `${h.method} ${h.url}`;
  return `sql on ${h.database} (${h.statements} statements, tables ${h.tables.join(', ')})`;
}

export function planText(input: PlanTextInput): string {
  const { plan, warmup: w, steps: c } = input;
  const unit = unitOf(plan.rules);
  const lines = [
    `target   ${plan.target}`,
    `scenario ${input.scenario ?? `GET ${plan.target} (no scenario module)`}`,
    ...(input.data ?? []).map((d) => `data     ${dataText(d)}`),
    `stages   ${planStages(input)
      .map((name) => (name === 'steps' ? `${plan.steps.length} step${plan.steps.length === 1 ? '' : 's'}` : name))
      .join(' -> ')}`,
    `reset    ${input.reset.length ? input.reset.map(resetText).join('; ') : 'none configured'}`,
    `warmup   ${w.enabled ? `${w.ratePerSec} ${unit} until stable over ${w.stableWindows} windows of ${w.windowS} s (±${w.tolerance * 100}%), at most ${w.maxS} s` : 'disabled'}`,
    `threads  ${threadsText(input.threads, Math.max(...plan.steps.map((s) => s.ratePerSec)), unit)}`,
    `steps    ${c.rampS} s ramp + ${c.holdS} s hold each; judged on the last ${c.holdS - plan.settleS} s of the hold (settle ${plan.settleS} s)`,
    `rule     a step holds when delivery >= ${plan.rules.deliveryMin} and capture >= ${plan.rules.captureMin}; the run stops at the first that does not`,
    ...input.engineLines,
    `VUs      ${plan.vus.preAllocatedVUs} preallocated, max ${plan.vus.maxVUs} (${vusReasonText(input)})`,
    ...(input.metrics ? [`metrics  ${metricsText(input.metrics)}`] : []),
    ...(input.slo ? [`slo      ${sloText(input)}`] : []),
    '',
    'step  rate/s  ramp from  steady window   expected samples  trustworthy percentiles',
  ];
  plan.steps.forEach((s, i) => {
    const trust = trustworthyPercentiles(plan.expectedSteadySamples[i], plan.rules.minTailSamples);
    const ok =
      trust
        .filter((t) => t.trusted)
        .map((t) => `p${t.q}`)
        .join(' ') || 'none';
    const not = trust
      .filter((t) => !t.trusted)
      .map((t) => `p${t.q} needs ${t.requiredSamples}`)
      .join(', ');
    lines.push(
      `${String(i + 1).padStart(4)}  ${String(s.ratePerSec).padStart(6)}  ${String(s.rampStartS).padStart(7)} s  ${`${s.steadyStartS}-${s.steadyEndS} s`.padEnd(14)}  ${String(plan.expectedSteadySamples[i]).padStart(16)}  ${ok}${not ? ` (${not})` : ''}`,
    );
  });
  // a step's percentiles are of its requests: a transaction sends several for its one arrival
  if (input.entries?.some((e) => e.transaction))
    lines.push(
      "(expected samples count one request per arrival; a transaction's requests add theirs, so a step's percentiles rest on more)",
    );
  if (input.entries && input.entries.length > 1) lines.push(...byNameLines(plan, input.entries));
  const last = plan.steps.at(-1)?.ratePerSec;
  if (last !== undefined && last < c.maxPerSec - 1e-9) {
    lines.push(
      `note: the last step is ${last} ${unit}: maxPerSec ${c.maxPerSec} is not startPerSec ${c.startPerSec} plus a whole number of stepPerSec ${c.stepPerSec}`,
    );
  }
  // a note, not a warning: it shows for every transaction, on a plan with nothing wrong (decision 089)
  const unmeasured = transactionsUnmeasuredText({ ...input, settleS: plan.settleS, holdS: c.holdS });
  if (unmeasured !== null) lines.push(`note: ${unmeasured}`);
  // a rerun of each step counted, as in the arrivals a unique data source must cover (data lines above)
  const { atMostS, warmupS, capped } = loadAtMostS(input);
  const cap = capped
    ? `; limits.maxDurationS stops a run at ${fmtDuration(atMostS)} of load, so one that reruns many of its steps is cut there (raise limits.maxDurationS to let every rerun run)`
    : '';
  lines.push(
    '',
    `at most ${fmtDuration(atMostS)} of load (${fmtDuration(plan.durationS)} of steps, as much again if each step is rerun once${w.enabled ? `, + warmup up to ${fmtDuration(warmupS)}, its 1 s ramp included` : ''}${cap}); the run stops earlier at the plateau.`,
  );
  // last, where the eye lands: what would stop the run before any load, or may
  const warnings = (input.secretsNotSet ?? []).map(secretNotSetText);
  if (warnings.length) lines.push('', ...warnings.map((w) => `warning: ${w}`));
  return lines.join('\n');
}

function fmtDuration(s: number): string {
  return s >= 60 ? `${Math.floor(s / 60)} min ${Math.round(s % 60)} s` : `${Math.round(s)} s`;
}
