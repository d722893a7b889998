/**
 * report.md's capacity within the latency objective, right below the headline: the figure beside
 * the plateau's capacity, the sentence with its evidence, and each step's quantile against the
 * objective with its samples. Empty for a run without an objective (stored reports unchanged).
 */
import type { RunResult } from '../analysis/types.ts';
import { mdCell } from './escape.ts';
import { mdTable } from './markdown-steps.ts';
import { rateUnit } from './cells.ts';
import { sloCapacityText, sloHeader, sloLead, sloNotes, sloRows } from './slo-text.ts';

export function sloSection(run: RunResult): string[] {
  const slo = run.slo;
  if (!slo) return [];
  const unit = rateUnit(run);
  const out = [`**${mdCell(sloLead(slo))}: ${mdCell(sloCapacityText(slo, unit))}**: ${mdCell(slo.detail)}`];
  if (slo.steps.length > 0) out.push('', ...mdTable(sloHeader(slo, unit), sloRows(slo)));
  const notes = sloNotes(slo);
  if (notes.length > 0) out.push('', ...notes.map((n) => `- ${mdCell(n)}`));
  return out;
}
