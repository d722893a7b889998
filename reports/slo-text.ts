/**
 * The capacity within the latency objective (RunResult.slo) in words, for every renderer: the
 * headline beside the plateau's capacity, never more than the evidence ("at least" when no holding
 * step missed it, "not established" with the reason), and each step's quantile against the
 * objective with its samples. Nothing at all for a run without an objective. Pure.
 */
import { fmtInt, fmtMs, fmtMsOver, fmtRate, fmtTarget, stepNo } from '../analysis/format.ts';
import { objectiveMs, sloObjectiveText, sloValueLabel } from '../analysis/slo.ts';
import type { RunResult, SloResult, SloStep } from '../analysis/types.ts';
import { rateUnit, type RateUnit } from './cells.ts';

/** "Capacity within SLO (p99 <= 300 ms, client minus RTT)". */
export function sloLead(slo: SloResult): string {
  return `Capacity within SLO (${sloObjectiveText(slo)})`;
}

/** Why no step established it, in a few words. */
function notEstablishedWhy(slo: SloResult): string {
  if (slo.problem) return 'the quantile cannot be judged';
  const prefix = slo.steps.filter((s) => s.holds);
  if (prefix.length === 0) return 'no step held';
  const miss = prefix.find((s) => s.met === false);
  if (miss) return `step ${stepNo(miss.step)}, the first judged holding step, missed it`;
  if (prefix.every((s) => s.unjudged === 'no-server-percentiles')) return 'no server percentiles';
  if (prefix.some((s) => s.unjudged === 'thin')) return 'too few samples to trust in every holding step';
  return 'no holding step could be judged';
}

/**
 * "600.0 req/s (step 6)"; "at least 600.0 req/s (step 6; no holding step missed it: the plateau
 * came first)"; "not established (why)".
 */
export function sloCapacityText(slo: SloResult, unit: RateUnit = 'req/s'): string {
  if (slo.capacityPerSec === null || slo.step === null) return `not established (${notEstablishedWhy(slo)})`;
  const at = `step ${stepNo(slo.step)}`;
  return slo.atLeast
    ? `at least ${fmtRate(slo.capacityPerSec)} ${unit} (${at}; no holding step missed it: the plateau came first)`
    : `${fmtRate(slo.capacityPerSec)} ${unit} (${at})`;
}

/** The terminal's line below the capacity: "slo       p99 <= 300 ms, client minus RTT: capacity 600.0 req/s (step 6)"; none without an objective. */
export function sloLines(run: RunResult): string[] {
  if (!run.slo) return [];
  return [`slo       ${sloObjectiveText(run.slo)}: capacity ${sloCapacityText(run.slo, rateUnit(run))}`];
}

export function sloHeader(slo: SloResult, unit: RateUnit = 'req/s'): string[] {
  return [
    'Step',
    `Target ${unit}`,
    `Achieved ${unit}`,
    sloValueLabel(slo),
    ...(slo.source === 'server' ? ['Bucket'] : []),
    'Samples',
    'Objective',
  ];
}

/** "250–500 ms", "2,000 ms – +Inf": the bucket the server's value was interpolated in. */
function bucketText(s: SloStep): string {
  if (s.lowerMs === undefined) return '–';
  return s.upperMs == null ? `${fmtMs(s.lowerMs)} ms – +Inf` : `${fmtMs(s.lowerMs)}–${fmtMs(s.upperMs)} ms`;
}

const UNJUDGED: Record<NonNullable<SloStep['unjudged']>, string> = {
  thin: 'too few samples: not trusted',
  'no-data': 'no value',
  'no-server-percentiles': 'no server percentiles',
  'generator-limited': 'generator over its bounds: not trusted',
  'counter-reset': 'server counter reset: not trusted',
};

function objectiveCell(s: SloStep, slo: SloResult): string {
  const bound = `${objectiveMs(slo.maxMs)} ms`;
  const judged =
    s.met === null ? UNJUDGED[s.unjudged ?? 'no-data'] : s.met ? `met (<= ${bound})` : `missed (> ${bound})`;
  if (!s.holds) return `past the knee, not counted: ${judged}`;
  // one holding attempt per step: a rerun follows only a failure, which the prefix ends at or sets aside
  return slo.step === s.step && s.met === true ? `${judged}: capacity within SLO` : judged;
}

function valueCell(s: SloStep, maxMs: number): string {
  if (s.valueMs === null) return '–';
  const v = s.met === false ? fmtMsOver(s.valueMs, maxMs) : fmtMs(s.valueMs);
  return s.reliable ? `${v} ms` : `~${v} ms*`;
}

export function sloRows(slo: SloResult): string[][] {
  return slo.steps.map((s) => [
    s.attempt ? `${stepNo(s.step)} (attempt ${s.attempt})` : String(stepNo(s.step)),
    fmtTarget(s.ratePerSec),
    fmtRate(s.throughputPerSec),
    valueCell(s, slo.maxMs),
    ...(slo.source === 'server' ? [bucketText(s)] : []),
    s.reliable ? fmtInt(s.n) : `${fmtInt(s.n)} (needs ${fmtInt(s.requiredSamples)})`,
    objectiveCell(s, slo),
  ]);
}

/** What to read the table with: the RTT subtracted (or not measured), thin percentiles, a bucket that straddles the bound. */
export function sloNotes(slo: SloResult): string[] {
  const out: string[] = [];
  if (slo.source === 'client')
    out.push(
      slo.rttMs === null
        ? "The RTT was not measured: the client's percentiles are judged as measured, the network's round trip included."
        : `The client's percentiles minus the RTT (${fmtMs(slo.rttMs)} ms, the fastest round trip measured before the load), as the server cross-check subtracts it.`,
    );
  if (slo.steps.some((s) => !s.reliable && s.valueMs !== null))
    out.push(
      `~x* rests on too few samples to trust (fewer than the tail a ${sloValueLabel(slo).replace(/ minus RTT$/, '')} needs): marked, never counted for or against the objective.`,
    );
  const straddles = slo.steps.filter(
    (s) => s.lowerMs !== undefined && s.lowerMs < slo.maxMs && (s.upperMs == null || s.upperMs > slo.maxMs),
  );
  if (straddles.length > 0)
    out.push(
      `Server percentiles are interpolated within their histogram bucket; at step ${straddles.map((s) => stepNo(s.step)).join(', ')} the bucket holds the objective's ${objectiveMs(slo.maxMs)} ms, so met or missed is only as exact as the interpolation: a bucket bound at the objective would settle it.`,
    );
  return out;
}
