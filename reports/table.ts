/**
 * The terminal view: a compact fixed-width step table plus capacity and stop lines. Plain text,
 * no colour codes; long target-controlled strings are cut to one line.
 */
import { fmtInt, fmtMs, fmtPercent, fmtRate, fmtTarget, stepNo } from '../analysis/format.ts';
import type { Rules, RunResult, StepResult } from '../analysis/types.ts';
import { capacityText, captureText, deliveryText, peakText, percentileOf, stopLabel, verdictLabel } from './cells.ts';
import { sloLines } from './slo-text.ts';

interface Column {
  header: string;
  width: number;
  cell(s: StepResult, rules: Rules): string;
  left?: boolean;
}

/** Latency cell: value, with "~" and "*" when unreliable. */
function latencyCell(s: StepResult, q: number): string {
  const p = percentileOf(s, q);
  if (!p || p.valueMs === null) return '–';
  return p.reliable ? fmtMs(p.valueMs) : `~${fmtMs(p.valueMs)}*`;
}

const COLUMNS: Column[] = [
  { header: 'step', width: 4, cell: (s) => String(stepNo(s.index)) },
  { header: 'target/s', width: 8, cell: (s) => fmtTarget(s.ratePerSec) },
  { header: 'achieved/s', width: 10, cell: (s) => (s.steadyS > 0 ? fmtRate(s.throughputPerSec) : '–') },
  { header: 'deliv', width: 5, cell: (s, rules) => deliveryText(s, rules) },
  { header: 'capt', width: 5, cell: (s, rules) => captureText(s, rules) },
  { header: 'p50 ms', width: 8, cell: (s) => latencyCell(s, 50) },
  { header: 'p99 ms', width: 8, cell: (s) => latencyCell(s, 99) },
  { header: 'errors', width: 7, cell: (s) => (s.completed > 0 ? fmtPercent(s.errorRate) : '–') },
  { header: 'dropped', width: 7, cell: (s) => fmtInt(s.dropped) },
  { header: 'verdict', width: 10, cell: (s) => verdictLabel(s), left: true },
];

/** One line, control characters flattened, cut to `max` characters. */
export function oneLine(s: string, max = 160): string {
  const flat = s.replace(/[\u0000-\u001f\u007f]+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function row(cells: readonly string[]): string {
  return cells
    .map((c, i) => (COLUMNS[i].left ? c.padEnd(COLUMNS[i].width) : c.padStart(COLUMNS[i].width)))
    .join('  ')
    .trimEnd();
}

export function renderPlateauTable(run: RunResult): string {
  const lines = [
    row(COLUMNS.map((c) => c.header)),
    ...run.steps.map((s) => row(COLUMNS.map((c) => c.cell(s, run.rules)))),
  ];
  if (run.steps.some((s) => s.latency.some((p) => p.valueMs !== null && !p.reliable))) {
    lines.push('(~x* = too few samples to trust)');
  }
  lines.push(
    '',
    `capacity  ${capacityText(run)}; peak ${peakText(run)}`,
    ...sloLines(run),
    `stop      ${run.interrupted ? 'INTERRUPTED' : stopLabel(run.stopReason)}: ${oneLine(run.stopDetail, 400)}`,
  );
  if (run.warnings.length > 0) lines.push(`warnings  ${run.warnings.length} (see report.md)`);
  return lines.join('\n');
}
