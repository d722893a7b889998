/**
 * report.html's capacity within the latency objective, below the headline: the same figure,
 * sentence, per-step table and notes as report.md (slo-text.ts), escaped. '' for a run without an
 * objective (stored reports unchanged).
 */
import type { RunResult } from '../analysis/types.ts';
import { esc, htmlList, htmlSection, htmlTable } from './html-escape.ts';
import { sloCapacityText, sloHeader, sloLead, sloNotes, sloRows } from './slo-text.ts';
import { rateUnit } from './cells.ts';

export function sloHtml(run: RunResult): string {
  const slo = run.slo;
  if (!slo) return '';
  const parts = [
    `<p class="capacity">${esc(sloLead(slo))}: <strong>${esc(sloCapacityText(slo, rateUnit(run)))}</strong></p>`,
    `<p>${esc(slo.detail)}</p>`,
  ];
  if (slo.steps.length > 0) parts.push(htmlTable(sloHeader(slo, rateUnit(run)), sloRows(slo)));
  const notes = sloNotes(slo);
  if (notes.length > 0) parts.push(htmlList(notes));
  return htmlSection('slo', 'Capacity within SLO', parts.join('\n'));
}
