/**
 * The per-step sections of the Markdown report: the step table, the reasons of failing steps,
 * and errors by kind.
 */
import { fmtInt, fmtPercent, rateUnitOf, stepNo, unitCounts } from '../analysis/format.ts';
import { requiredSamples } from '../analysis/percentiles.ts';
import type { RunResult } from '../analysis/types.ts';
import { anyUnreliable, errorRows, stepCell, stepHeader, stepCells, verdictBrief } from './cells.ts';
import { mdCell } from './escape.ts';

/** One Markdown table row; every cell escaped. */
export function mdRow(cells: readonly string[]): string {
  return `| ${cells.map(mdCell).join(' | ')} |`;
}

export function mdTable(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  return [mdRow(header), `|${header.map(() => '---').join('|')}|`, ...rows.map(mdRow)];
}

/** The step table, its footnote, and why each non-holding step did not hold. */
export function stepsSection(run: RunResult): string[] {
  const out = [
    '## Steps',
    '',
    ...mdTable(
      stepHeader(run),
      run.steps.map((s) => stepCells(s, run.rules)),
    ),
  ];
  if (anyUnreliable(run)) {
    const minTail = fmtInt(run.rules.minTailSamples);
    out.push(
      '',
      `\\* unreliable: fewer than ${minTail} samples lie beyond this percentile (p99 needs ${fmtInt(requiredSamples(99, run.rules.minTailSamples))} samples in the window, p99.9 ${fmtInt(requiredSamples(99.9, run.rules.minTailSamples))}); shown for diagnosis only.`,
    );
  }
  const failing = run.steps.filter((s) => s.reasons.length > 0);
  if (failing.length > 0) {
    out.push(
      '',
      ...failing.map((s) => `- **step ${stepNo(s.index)}** (${verdictBrief(s)}): ${s.reasons.map(mdCell).join('; ')}`),
    );
  }
  return out;
}

/**
 * The errors table's first columns. Where the rates count arrivals (a transaction) the failures are
 * arrivals, and say so; a k6 import's statuses are its failed requests' (an iteration of several
 * counts each), so an import of such iterations says which counts are which (it read "Failed 88"
 * beside "400 89"). The native engine counts one kind and status per failed arrival, its failing
 * request's.
 */
export function errorHeaders(run: RunResult): string[] {
  if (unitCounts(rateUnitOf(run.traffic)) !== 'arrivals')
    return ['Step', 'Failed', 'Error rate', 'By kind', 'By status'];
  if (!run.rules.imported) return ['Step', 'Failed arrivals', 'Error rate', 'By kind', 'By status'];
  return ['Step', 'Failed arrivals', 'Error rate', 'By kind (arrivals)', 'By status (requests)'];
}

/** Errors by kind and status per step, with the first messages the target sent. */
export function errorsSection(run: RunResult): string[] {
  // one message a line (mdCell makes each line break a <br>)
  const rows = errorRows(run);
  if (rows.length === 0) return ['## Errors', '', 'No failed requests in any steady window.'];
  return ['## Errors', '', ...mdTable([...errorHeaders(run), 'Sample messages'], rows)];
}
