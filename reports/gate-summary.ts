/**
 * The gate's decision in Markdown: for the terminal, a file, and GitHub's job summary
 * ($GITHUB_STEP_SUMMARY). When the run was judged (pass or regression) and the runs recorded names,
 * the names whose p99 or error rate regressed at rates both held are warnings (the title counts them; the exit code stays
 * about capacity). Target-controlled text goes through mdCell. Pure.
 */
import { fmtPercent, fmtRate, fmtTarget } from '../analysis/format.ts';
import type { CostResult } from '../analysis/models/cost.ts';
import type { RateUnit, RunResult } from '../analysis/types.ts';
import { pairUnit, rateUnit } from './cells.ts';
import { mdCell } from './escape.ts';
import { gateCapacity, warningsBesideReasons, type GateDecision } from '../analysis/gate/decide.ts';
import type { NameComparisonResult } from '../analysis/compare/by-name.ts';
import {
  GATE_LABELS,
  cleanBillText,
  skipText,
  unconfirmedText,
  thresholdsText,
} from '../analysis/compare/name-warnings.ts';
import { sloObjectiveText } from '../analysis/slo.ts';
import { sloCapacityText } from './slo-text.ts';
import { whereCutAfterLimit, establishedCapacity } from '../analysis/interrupted-stop.ts';

const ICON = { pass: '✅ PASS', regression: '❌ REGRESSION', invalid: '⚠️ CANNOT JUDGE' } as const;

function rate(x: number | null, unit: RateUnit): string {
  return x === null ? '–' : `${fmtRate(x)} ${unit}`;
}

/** "0.000012 USD" with enough digits to read a per-request price. */
export function priceText(x: number | null, currency: string): string {
  return x === null ? '–' : `${x.toPrecision(3)}${currency ? ` ${currency}` : ''}`;
}

export function costLines(cost: CostResult | null, title = 'Cost per request'): string[] {
  if (cost === null) return [];
  const out = ['', `### ${title}`, ''];
  if (cost.fixedPerRequest !== null)
    out.push(
      `- fixed price (monthly cost / (capacity × seconds in a month)): ${cost.fixedAtMost ? 'at most ' : ''}${mdCell(priceText(cost.fixedPerRequest, cost.currency))}${cost.fixedAtMost ? ' (the capacity within SLO is a lower bound: no holding step missed the objective)' : ''}`,
    );
  if (cost.unitsPerRequest !== null)
    out.push(
      `- usage: ${mdCell(cost.unitsPerRequest.toPrecision(3))} units per request${cost.usagePerRequest === null ? '' : `, ${mdCell(priceText(cost.usagePerRequest, cost.currency))} per request`}`,
    );
  for (const n of cost.notes) out.push(`- ${mdCell(n)}`);
  return out;
}

function plural(n: number, one: string): string {
  return `${n} ${one}${n === 1 ? '' : 's'}`;
}

/** What the per-name comparison did not cover: names only one run recorded, rates not compared. */
function namesNotes(r: NameComparisonResult, unit: RateUnit): string[] {
  const out: string[] = [];
  if (r.withoutNames !== null)
    out.push(
      `- ${r.withoutNames === 'a' ? 'The baseline' : 'This run'} recorded no per-name results (one name, or a summary written before names were recorded): the other's names are listed, not compared.`,
    );
  if (r.added.length > 0) out.push(`- Only in this run (added, not compared): ${r.added.map(mdCell).join(', ')}`);
  if (r.removed.length > 0)
    out.push(`- Only in the baseline (removed, not compared): ${r.removed.map(mdCell).join(', ')}`);
  for (const s of r.skipped) out.push(`- ${mdCell(skipText(s, GATE_LABELS, unit))}`);
  return out;
}

/** The per-name section of a judged decision (pass or regression); none when the runs recorded no names. */
export function nameLines(d: GateDecision, unit: RateUnit): string[] {
  const r = d.names;
  if (r === undefined) return [];
  const warnings = d.nameWarnings ?? [];
  const out = ['', '### Names at the rates both runs held (warnings, not the exit code)', ''];
  if (warnings.length > 0) out.push(...warnings.map((w) => `- ⚠️ ${mdCell(w)}`));
  else out.push(cleanBillText(r));
  // a rise at one rate alone is no warning, but a clean bill must not hide it (compare says it too)
  const unconfirmed = unconfirmedText(r, GATE_LABELS, unit);
  if (unconfirmed !== null) out.push('', mdCell(unconfirmed));
  const notes = namesNotes(r, unit);
  if (notes.length > 0) out.push('', ...notes);
  out.push('', thresholdsText(r.thresholds, GATE_LABELS));
  return out;
}

/**
 * The capacity rows: the one judged first. On the plateau's (the default) a run with an objective
 * shows its capacity within it too, not judged; on `--on slo` the plateau's is shown, not judged.
 */
function capacityRows(d: GateDecision, run: RunResult, baseline: RunResult): string[] {
  // each run's figures in its own unit: a gate of runs whose units differ cannot judge, and says so
  const sloText = (r: RunResult) => (r.slo ? mdCell(sloCapacityText(r.slo, rateUnit(r))) : '–');
  const slo = run.slo ?? baseline.slo;
  if (d.on === 'slo')
    return [
      `| ${mdCell(d.judged ?? 'capacity within SLO')} (judged) | ${sloText(baseline)} | ${sloText(run)} |`,
      `| Capacity (plateau, not judged) | ${rate(gateCapacity(baseline), rateUnit(baseline))} | ${rate(gateCapacity(run), rateUnit(run))} |`,
    ];
  // every planned step held: a lower bound, not a capacity (decision 026)
  const cap = (r: RunResult, x: number | null) =>
    `${x !== null && r.stopReason === 'max-rate-reached' ? 'at least ' : ''}${rate(x, rateUnit(r))}`;
  const plateau = `| Capacity | ${cap(baseline, d.baselinePerSec)} | ${cap(run, d.currentPerSec)} |`;
  if (!slo) return [plateau];
  return [
    plateau,
    `| Capacity within SLO (${mdCell(sloObjectiveText(slo))}; not judged: --on slo) | ${sloText(baseline)} | ${sloText(run)} |`,
  ];
}

/** The knee's step; a run that established no capacity has none, only the highest step it held. */
function kneeCell(r: RunResult): string {
  if (r.kneeStep === null) return '–';
  return establishedCapacity(r) === null ? `– (held up to step ${r.kneeStep + 1})` : String(r.kneeStep + 1);
}

/** The stop reason, and for a run cut short after its limit was confirmed, that it was cut. */
function stopCell(r: RunResult): string {
  return `${mdCell(r.stopReason)}${whereCutAfterLimit(r) === null ? '' : ' (then cut short)'}`;
}

/** The rule that judged, in words. */
function ruleLine(d: GateDecision, unit: RateUnit): string {
  const step = `${fmtTarget(d.stepPerSec)} ${unit}`;
  return d.on === 'slo'
    ? `A regression needs the highest step within the objective at least one step (${step}) lower and the capacity within it more than ${fmtPercent(d.tolerance)} lower.`
    : `A regression needs the knee at least one step (${step}) lower and capacity more than ${fmtPercent(d.tolerance)} lower, and where this run failed at the baseline's knee rate, its throughput there more than ${fmtPercent(d.tolerance)} below the baseline's capacity too.`;
}

export function renderGateSummary(
  d: GateDecision,
  run: RunResult,
  baseline: RunResult,
  cost: CostResult | null,
): string {
  const nameWarnings = d.nameWarnings?.length ?? 0;
  const unit = pairUnit(run, baseline);
  const lines = [
    `## plateau gate: ${ICON[d.status]}${nameWarnings > 0 ? `, ⚠️ ${plural(nameWarnings, 'name warning')}` : ''}`,
    '',
    mdCell(d.headline),
    '',
    '| | Baseline | This run |',
    '|---|---|---|',
    `| Run | ${mdCell(baseline.runId)} | ${mdCell(run.runId)} |`,
    ...capacityRows(d, run, baseline),
    `| Knee step | ${kneeCell(baseline)} | ${kneeCell(run)} |`,
    `| Stop reason | ${stopCell(baseline)} | ${stopCell(run)} |`,
    '',
    ruleLine(d, unit),
  ];
  if (d.reasons.length > 0)
    lines.push('', '### Why this run cannot be judged', '', ...d.reasons.map((r) => `- ${mdCell(r)}`));
  lines.push(...nameLines(d, unit));
  // a difference that is why the run cannot be judged is said once, above
  const warnings = warningsBesideReasons(d);
  if (warnings.length > 0)
    lines.push('', '### Differences from the baseline', '', ...warnings.map((w) => `- ${mdCell(w)}`));
  lines.push(...costLines(cost, d.on === 'slo' ? 'Cost per request at the capacity within SLO' : undefined));
  return `${lines.join('\n')}\n`;
}
