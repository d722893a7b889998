/**
 * Capacity within a latency objective (config `slo`): the throughput of the highest holding step
 * whose quantile met it, beside the plateau's capacity. Pure.
 *
 *   value   client: the step's percentile at the quantile minus the RTT (httpMinMs ?? httpMedianMs,
 *           as the cross-check subtracts); server: the window's histogram percentile (its bucket
 *           bracket kept for the reader)
 *   judged  only a trusted value: enough samples beyond the quantile (percentiles.ts' rule, on the
 *           server's n too), a step that held without the generator over its bounds, no counter
 *           reset. A thin percentile is marked, never trusted: it neither establishes nor refutes.
 *   steps   the holding prefix the plateau's capacity rests on (deciding-steps.ts decidingSteps: neither
 *           transient, contaminated, nor a generator-bound attempt a rerun replaced), up to the knee
 *   capacity the highest such step that met the objective below the first that missed it: a step
 *           that met it again above a miss is not counted (never overstate). With no miss at all,
 *           the plateau came first and the capacity within the objective is at least the figure.
 *
 * Latency never stops a run: nothing here feeds the decision (docs/decisions/031).
 */
import { fmtInt, fmtMs, fmtMsOver, fmtRate, fmtTarget, stepNo, unitOf } from './format.ts';
import { DEFAULT_QUANTILES, percentileLabel, requiredSamples, tailReliable } from './percentiles.ts';
import { SERVER_QUANTILES } from './server-histogram.ts';
import { decidingSteps } from './deciding-steps.ts';
import { generatorFix, generatorFixUnread } from './generator-fix.ts';
import { costPerRequest, type CostResult, type CostSettings } from './models/cost.ts';
import type { RateUnit, Rules, RttFigures, RunResult, SloConfig, SloResult, SloStep, StepResult } from './types.ts';

/** The quantiles (as percentiles, 99 for 0.99) each source's results keep: the only ones an objective can name. */
export const SLO_QUANTILES: Record<SloConfig['source'], readonly number[]> = {
  client: DEFAULT_QUANTILES,
  server: SERVER_QUANTILES,
};

export const SLO_DEFAULTS = { quantile: 0.99, source: 'client' } as const;

/** 0.99 -> 99, 0.999 -> 99.9 (rounded, so that 0.999 x 100 is 99.9 and not 99.900000001). */
export function percentOf(quantile: number): number {
  return Math.round(quantile * 1_000_000) / 10_000;
}

/** Why `quantile` cannot be judged on `source` (with the fix), or null when its results keep it. */
export function sloQuantileProblem(quantile: number, source: SloConfig['source']): string | null {
  const kept = SLO_QUANTILES[source] as readonly number[] | undefined;
  if (kept === undefined)
    return `source ${JSON.stringify(source)} is neither 'client' nor 'server': set slo.source to one of them`;
  if (kept.includes(percentOf(quantile))) return null;
  const shares = kept.map((q) => String(Math.round(q * 10_000) / 1_000_000)).join(', ');
  const other =
    source === 'server' && SLO_QUANTILES.client.includes(percentOf(quantile))
      ? " (the client's results keep it: source 'client')"
      : '';
  return `${quantile} (${percentileLabel(percentOf(quantile))}) is not a quantile the ${source}'s results keep (${kept.map(percentileLabel).join(', ')})${other}: set slo.quantile to one of ${shares}`;
}

/** "p99 <= 300 ms, client minus RTT": the objective as every output names it. */
export function sloObjectiveText(slo: Pick<SloConfig, 'quantile' | 'maxMs' | 'source'>): string {
  const whose = slo.source === 'server' ? "server's histogram" : 'client minus RTT';
  return `${percentileLabel(percentOf(slo.quantile))} <= ${objectiveMs(slo.maxMs)} ms, ${whose}`;
}

/** The objective's bound as configured (300, 1,500, 2.5), never rounded as a measured figure is. */
export function objectiveMs(maxMs: number): string {
  return Number.isInteger(maxMs) ? fmtInt(maxMs) : String(maxMs);
}

/** "p99 minus RTT" or "server p99": what a step's value is. */
export function sloValueLabel(slo: Pick<SloConfig, 'quantile' | 'source'>): string {
  const q = percentileLabel(percentOf(slo.quantile));
  return slo.source === 'server' ? `server ${q}` : `${q} minus RTT`;
}

/** The RTT the client's percentiles lose (as the cross-check subtracts it); null when not measured. */
function rttOf(rtt: RttFigures | null): number | null {
  return rtt === null ? null : (rtt.httpMinMs ?? rtt.httpMedianMs);
}

type Reading = Pick<SloStep, 'valueMs' | 'n' | 'reliable' | 'lowerMs' | 'upperMs'> & { unjudged?: SloStep['unjudged'] };

function clientReading(s: StepResult, q: number, rttMs: number | null): Reading {
  const p = s.latency.find((x) => x.q === q);
  if (!p || p.valueMs === null) return { valueMs: null, n: p?.n ?? 0, reliable: false, unjudged: 'no-data' };
  return { valueMs: Math.max(0, p.valueMs - (rttMs ?? 0)), n: p.n, reliable: p.reliable };
}

function serverReading(s: StepResult, q: number, minTailSamples: number): Reading {
  const p = s.server?.percentiles?.find((x) => x.q === q);
  // a counter that went backwards in the window leaves it no figure, or none to trust
  if (!p)
    return {
      valueMs: null,
      n: 0,
      reliable: false,
      unjudged: s.server?.counterReset ? 'counter-reset' : 'no-server-percentiles',
    };
  const bracket = { lowerMs: p.lowerMs, upperMs: p.upperMs };
  const reliable = tailReliable(q, p.n, minTailSamples);
  if (p.valueMs === null) return { valueMs: null, n: p.n, reliable, ...bracket, unjudged: 'no-data' };
  return {
    valueMs: p.valueMs,
    n: p.n,
    reliable,
    ...bracket,
    ...(s.server?.counterReset ? { unjudged: 'counter-reset' } : {}),
  };
}

function stepReading(s: StepResult, slo: SloConfig, rttMs: number | null, rules: Rules, holds: boolean): SloStep {
  const q = percentOf(slo.quantile);
  const needed = requiredSamples(q, rules.minTailSamples);
  const r = slo.source === 'server' ? serverReading(s, q, rules.minTailSamples) : clientReading(s, q, rttMs);
  const unjudged = r.unjudged ?? (!r.reliable ? 'thin' : holds && s.generatorLimited ? 'generator-limited' : undefined);
  return {
    step: s.index,
    ...(s.attempt !== undefined && s.attempt > 1 ? { attempt: s.attempt } : {}),
    ratePerSec: s.ratePerSec,
    throughputPerSec: s.throughputPerSec,
    valueMs: r.valueMs,
    ...(r.lowerMs !== undefined ? { lowerMs: r.lowerMs, upperMs: r.upperMs ?? null } : {}),
    n: r.n,
    requiredSamples: needed,
    reliable: r.reliable,
    met: unjudged !== undefined || r.valueMs === null ? null : r.valueMs <= slo.maxMs,
    ...(unjudged !== undefined ? { unjudged } : {}),
    holds,
  };
}

/** "step 6 (600 req/s)". */
function stepName(s: SloStep, unit: RateUnit): string {
  return `step ${stepNo(s.step)} (${fmtTarget(s.ratePerSec)} ${unit})`;
}

/** "212 ms (n 15,000)", over the objective never printed equal to it. */
function valueText(s: SloStep, maxMs: number): string {
  const v = s.valueMs === null ? '–' : s.met === false ? fmtMsOver(s.valueMs, maxMs) : fmtMs(s.valueMs);
  return `${v} ms (n ${fmtInt(s.n)})`;
}

/** Why nothing in the holding prefix was judged, with the fix; `generatorFixOf` words the generator's (generator-fix.ts). */
function unjudgedWhy(
  prefix: readonly SloStep[],
  q: string,
  unit: RateUnit,
  generatorFixOf: (s: SloStep) => string,
): string {
  if (prefix.every((s) => s.unjudged === 'no-server-percentiles'))
    return `no holding step has a server ${q}: the target's request series has no histogram buckets over the steady windows (read a histogram, e.g. metrics.requests.preset 'otel' or 'prometheus-client', or judge the client: slo.source 'client')`;
  const thin = prefix.filter((s) => s.unjudged === 'thin');
  if (thin.length > 0) {
    const top = thin.reduce((a, b) => (b.n > a.n ? b : a));
    return `every holding step's ${q} rests on too few samples (at most n ${fmtInt(top.n)} at ${stepName(top, unit)}, of the ${fmtInt(top.requiredSamples)} a ${q} needs): hold the steps longer (steps.holdS) or offer higher rates`;
  }
  if (prefix.some((s) => s.unjudged === 'counter-reset'))
    return `a server counter went backwards (a restart of the target) in the holding windows that had a server ${q}: their figures are not trusted; rerun with the target steady`;
  const limited = prefix.filter((s) => s.unjudged === 'generator-limited').at(-1);
  if (limited)
    return `the generator was over its bounds in every holding step it could be judged in: to judge them, ${generatorFixOf(limited)}`;
  return `no holding step measured a ${q} (no successful request in its window)`;
}

function detailOf(
  r: Omit<SloResult, 'detail'>,
  prefix: readonly SloStep[],
  miss: SloStep | undefined,
  unit: RateUnit,
  generatorFixOf: (s: SloStep) => string,
): string {
  const named = (steps: readonly SloStep[]) => steps.map((s) => stepName(s, unit)).join(', ');
  const q = sloValueLabel(r);
  const objective = `${objectiveMs(r.maxMs)} ms`;
  if (r.problem) return `the objective cannot be judged: ${r.problem}`;
  if (prefix.length === 0) return 'no step held, so no rate was served within the objective either';
  const at = r.steps.find((s) => s.holds && s.step === r.step) ?? null;
  const above = miss ? prefix.filter((s) => s.step > miss.step && s.met === true) : [];
  const again = above.length > 0 ? `; ${named(above)} met it again above the miss: not counted` : '';
  if (at === null) {
    if (miss)
      return `${stepName(miss, unit)}, the first judged holding step, already missed the objective: ${q} ${valueText(miss, r.maxMs)} > ${objective}${again}; start lower to find the rate within it`;
    return unjudgedWhy(prefix, percentileLabel(percentOf(r.quantile)), unit, generatorFixOf);
  }
  const met = `${stepName(at, unit)} met it: ${q} ${valueText(at, r.maxMs)} <= ${objective}`;
  if (miss) return `${met}; ${stepName(miss, unit)} missed it: ${valueText(miss, r.maxMs)} > ${objective}${again}`;
  const unjudged = prefix.filter((s) => s.met === null && s.step > at.step);
  const over =
    unjudged.length > 0
      ? `; ${named(unjudged)} could not be judged (${unjudged.map((s) => s.unjudged).join(', ')})`
      : '';
  return `${met}, and no holding step missed it${over}: the plateau came first, so the capacity within the objective is at least ${fmtRate(r.capacityPerSec ?? 0)} ${unit}`;
}

/** The capacity within the objective over the run's judged steps (RunResult.steps). */
export function sloOf(config: SloConfig, all: readonly StepResult[], rtt: RttFigures | null, rules: Rules): SloResult {
  const slo: SloConfig = {
    quantile: config.quantile ?? SLO_DEFAULTS.quantile,
    maxMs: config.maxMs,
    source: config.source ?? SLO_DEFAULTS.source,
  };
  const rttMs = slo.source === 'client' ? rttOf(rtt) : null;
  const problem = sloQuantileProblem(slo.quantile, slo.source);
  // the holding prefix as deciding-steps.ts finds it (an attempt with no data ends it too), then the steps with data
  const deciding = decidingSteps(all);
  const firstBad = deciding.findIndex((s) => s.verdict !== 'holds');
  const steps = problem
    ? []
    : deciding
        .map((s, i) => ({ s, holds: firstBad === -1 || i < firstBad }))
        .filter(({ s }) => s.steadyS > 0 && s.verdict !== 'not-run')
        .map(({ s, holds }) => stepReading(s, slo, rttMs, rules, holds));
  const prefix = steps.filter((s) => s.holds);
  const missAt = prefix.findIndex((s) => s.met === false);
  const below = missAt === -1 ? prefix : prefix.slice(0, missAt);
  const at = [...below].reverse().find((s) => s.met === true) ?? null;
  const result: Omit<SloResult, 'detail'> = {
    ...slo,
    // at most its offered rate, as the plateau's capacity (decision 043)
    capacityPerSec: at === null ? null : Math.min(at.throughputPerSec, at.ratePerSec),
    step: at?.step ?? null,
    atLeast: at !== null && missAt === -1,
    rttMs,
    ...(problem ? { problem } : {}),
    steps,
  };
  // the fix read from the step's own symptom, as the stop reason and the gate give it
  const generatorFixOf = (s: SloStep) => {
    const at = deciding.find((d) => d.index === s.step && (d.attempt ?? 1) === (s.attempt ?? 1));
    return at ? generatorFix(at, rules.imported) : generatorFixUnread(rules.imported);
  };
  const miss = missAt === -1 ? undefined : prefix[missAt];
  return { ...result, detail: detailOf(result, prefix, miss, unitOf(rules), generatorFixOf) };
}

/**
 * The run as if its capacity were the one within the objective (its step the knee), for what is
 * read at the capacity (the cost per request); null when the objective established none.
 */
export function atSloCapacity<T extends { capacityPerSec: number | null; kneeStep: number | null; slo?: SloResult }>(
  run: T,
): T | null {
  const slo = run.slo;
  if (!slo || slo.capacityPerSec === null || slo.step === null) return null;
  return { ...run, capacityPerSec: slo.capacityPerSec, kneeStep: slo.step };
}

/**
 * The cost per request at the capacity within the objective (its step's usage, its throughput's
 * fixed price); the notes say why a figure is missing when it established none. Null without an
 * objective.
 */
export function costAtSloCapacity(run: RunResult, c: CostSettings): CostResult | null {
  if (!run.slo) return null;
  const cost = costPerRequest(atSloCapacity(run) ?? { ...run, capacityPerSec: null, kneeStep: null }, c);
  // a capacity of "at least N" makes a price per request of "at most": never a figure it is not
  return run.slo.atLeast && cost.fixedPerRequest !== null ? { ...cost, fixedAtMost: true } : cost;
}
