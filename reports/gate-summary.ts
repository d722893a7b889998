/**
 * The gate's decision in Markdown: for the terminal, a file, and GitHub's job summary
 * ($GITHUB_STEP_SUMMARY). Target-controlled text goes through mdCell. Pure.
 */
import { fmtPercent, fmtRate, fmtTarget } from '../analysis/format.ts';
import type { CostResult } from '../analysis/models/cost.ts';
import type { RunResult } from '../analysis/types.ts';
import { mdCell } from './escape.ts';
import type { GateDecision } from '../analysis/gate/decide.ts';

const ICON = { pass: '✅ PASS', regression: '❌ REGRESSION', invalid: '⚠️ CANNOT JUDGE' } as const;

function rate(x: number | null): string {
  return x === null ? '–' : `${fmtRate(x)} req/s`;
}

/** "0.000012 USD" with enough digits to read a per-request price. */
export function priceText(x: number | null, currency: string): string {
  return x === null ? '–' : `${x.toPrecision(3)}${currency ? ` ${currency}` : ''}`;
}

export function costLines(cost: CostResult | null): string[] {
  if (cost === null) return [];
  const out = ['', '### Cost per request', ''];
  if (cost.fixedPerRequest !== null)
    out.push(
      `- fixed price (monthly cost / (capacity × seconds in a month)): ${mdCell(priceText(cost.fixedPerRequest, cost.currency))}`,
    );
  if (cost.unitsPerRequest !== null)
    out.push(
      `- usage: ${mdCell(cost.unitsPerRequest.toPrecision(3))} units per request${cost.usagePerRequest === null ? '' : `, ${mdCell(priceText(cost.usagePerRequest, cost.currency))} per request`}`,
    );
  for (const n of cost.notes) out.push(`- ${mdCell(n)}`);
  return out;
}

export function renderGateSummary(
  d: GateDecision,
  run: RunResult,
  baseline: RunResult,
  cost: CostResult | null,
): string {
  const lines = [
    `## plateau gate: ${ICON[d.status]}`,
    '',
    mdCell(d.headline),
    '',
    '| | Baseline | This run |',
    '|---|---|---|',
    `| Run | ${mdCell(baseline.runId)} | ${mdCell(run.runId)} |`,
    `| Capacity | ${rate(d.baselinePerSec)} | ${rate(d.currentPerSec)} |`,
    `| Knee step | ${baseline.kneeStep === null ? '–' : baseline.kneeStep + 1} | ${run.kneeStep === null ? '–' : run.kneeStep + 1} |`,
    `| Stop reason | ${mdCell(baseline.stopReason)} | ${mdCell(run.stopReason)} |`,
    '',
    `A regression needs the knee at least one step (${fmtTarget(d.stepPerSec)} req/s) lower and capacity more than ${fmtPercent(d.tolerance)} lower.`,
  ];
  if (d.reasons.length > 0)
    lines.push('', '### Why this run cannot be judged', '', ...d.reasons.map((r) => `- ${mdCell(r)}`));
  if (d.warnings.length > 0)
    lines.push('', '### Differences from the baseline', '', ...d.warnings.map((w) => `- ${mdCell(w)}`));
  lines.push(...costLines(cost));
  return `${lines.join('\n')}\n`;
}
