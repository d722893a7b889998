/**
 * The terminal view: a compact fixed-width step table plus capacity and stop lines. Plain text,
 * no colour codes; long target-controlled strings are cut to one line.
 */
import { cutMiddle, fmtInt, fmtMs, fmtPercent, fmtRate, fmtTarget, quoted, stepNo } from '../analysis/format.ts';
import type { NameResult, Percentile, Rules, RunResult, StepResult } from '../analysis/types.ts';
import { kneeResult } from '../analysis/deciding-steps.ts';
import { captureText, deliveryText, percentileOf, rateUnit, verdictLabel } from './cells.ts';
import { capacityText, stopLineLabel, peakText } from './headline-text.ts';
import { nameOrder, namesKneeSentence } from './names-text.ts';
import { sloLines } from './slo-text.ts';
import { capacityCaveats } from './warning-text.ts';

interface Column {
  header: string;
  width: number;
  cell(s: StepResult, rules: Rules): string;
  left?: boolean;
}

/** A percentile's cell: value, with "~" and "*" when unreliable. */
function percentileText(p: Percentile | undefined): string {
  if (!p || p.valueMs === null) return '–';
  return p.reliable ? fmtMs(p.valueMs) : `~${fmtMs(p.valueMs)}*`;
}

/** Latency cell of a step. */
function latencyCell(s: StepResult, q: number): string {
  return percentileText(percentileOf(s, q));
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

/** One line, control characters flattened, cut to `max` characters (at a word, with an ellipsis). */
export function oneLine(s: string, max = 160): string {
  return quoted(flat(s), max);
}

/**
 * One line of the console, cut to `max` characters as oneLine is, its end saying where the whole
 * sentence is (`where`: report.md's section), so a CI log that holds only the console is not left
 * with half a sentence and no pointer.
 */
export function consoleLine(s: string, max: number, where: string): string {
  const line = flat(s);
  if (line.length <= max) return line;
  const pointer = ` (the rest in report.md, ${where})`;
  return `${quoted(line, max - pointer.length)}${pointer}`;
}

/** Control characters flattened to a space. */
function flat(s: string): string {
  return s.replace(/[\u0000-\u001f\u007f]+/g, ' ');
}

function row(cells: readonly string[]): string {
  return cells
    .map((c, i) => (COLUMNS[i].left ? c.padEnd(COLUMNS[i].width) : c.padStart(COLUMNS[i].width)))
    .join('  ')
    .trimEnd();
}

/** A percentile of a name's row. */
function namePercentile(r: NameResult, q: number): string {
  return percentileText(r.latency.find((x) => x.q === q));
}

/**
 * For a run with names, each name at the knee (the last holding step; the step held last when no
 * limit was found), and the entry that degraded first: what report.md tabulates at every step.
 */
function namesAtKnee(run: RunResult): string[] {
  const knee = kneeResult(run);
  if (!knee?.byName || Object.keys(knee.byName).length === 0) return [];
  const width = Math.min(28, Math.max(4, ...Object.keys(knee.byName).map((n) => n.length)));
  const line = (cells: string[]) =>
    [cells[0].padEnd(width), cells[1].padEnd(11), ...cells.slice(2).map((c, i) => c.padStart(i === 0 ? 10 : 8))]
      .join('  ')
      .trimEnd();
  const rows = nameOrder(run).flatMap((name) => {
    const r = knee.byName?.[name];
    if (!r) return [];
    return [
      line([
        // cut in the middle: names that differ only at their end (URLs) stay apart
        cutMiddle(flat(name), width),
        r.transaction ? 'transaction' : 'request',
        fmtRate(r.throughputPerSec),
        namePercentile(r, 50),
        namePercentile(r, 99),
        fmtPercent(r.errorRate),
      ]),
    ];
  });
  const finding = namesKneeSentence(run);
  return [
    '',
    `by name ${run.capacityPerSec === null ? 'at the highest step held' : 'at the knee'}, step ${stepNo(knee.index)} (${fmtTarget(knee.ratePerSec)} ${rateUnit(run)}):`,
    line(['name', 'kind', 'ok/s', 'p50 ms', 'p99 ms', 'errors']),
    ...rows,
    ...(finding === null ? [] : [consoleLine(finding, 400, 'Steps by name')]),
  ];
}

/** How the terminal shows the table around it. */
export interface TableOptions {
  /**
   * The run's error is printed in full, with its fix, right after the table (plateau run): the stop
   * line of a failed stage, whose detail is that error's message, points to it instead of repeating
   * it. Re-rendering a stored run (plateau report) has no error below, and keeps the detail.
   */
  errorBelow?: boolean;
}

export function renderPlateauTable(run: RunResult, o: TableOptions = {}): string {
  const lines = [
    row(COLUMNS.map((c) => c.header)),
    ...run.steps.map((s) => row(COLUMNS.map((c) => c.cell(s, run.rules)))),
  ];
  if (run.steps.some((s) => s.latency.some((p) => p.valueMs !== null && !p.reliable))) {
    lines.push('(~x* = too few samples to trust)');
  }
  lines.push(...namesAtKnee(run));
  lines.push(
    '',
    `capacity  ${capacityText(run)}; peak ${peakText(run)}`,
    // whole: it says why the gate will not judge the capacity, what a CI log reader needs most
    ...capacityCaveats(run).map((c) => `          but ${flat(c)}`),
    ...sloLines(run),
    // a failed stage's stop detail is its error's message (analysis/stop.ts)
    o.errorBelow && run.stopReason.endsWith('-failed')
      ? `stop      ${stopLineLabel(run)} (see below)`
      : `stop      ${stopLineLabel(run)}: ${consoleLine(run.stopDetail, 400, 'Stop reason')}`,
  );
  if (run.warnings.length > 0) lines.push(`warnings  ${run.warnings.length} (see report.md)`);
  return lines.join('\n');
}
