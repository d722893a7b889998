/**
 * `plateau compare A B`: two runs side by side at equal offered rates. Headline figures (capacity,
 * the capacity within the latency objective when either run has one, knee, peak: measured figures
 * only, never the USL's predicted peak, a model's extrapolation that moved 10% and more between
 * runs of one target and settings; each run's report gives it in its Models section, and the gate
 * shows none either), then one row per rate either run offered: achieved X, p50/p99 and error
 * rate of each, with B's change against A; then, when the runs recorded names, each name at the
 * rates both held, the names that regressed first. Warnings first when the runs are not
 * comparable. Pure: two RunResults in, Markdown out.
 */
import { fmtInt, fmtMs, fmtPercent, fmtRate, fmtTarget, stepNo } from '../analysis/format.ts';
import type { RateUnit, RunResult, StepResult } from '../analysis/types.ts';
import { pairUnit, percentileCell, percentileOf, rateUnit, verdictLabel } from './cells.ts';
import { mdCell } from './escape.ts';
import { costLines } from './gate-summary.ts';
import type { CostResult } from '../analysis/models/cost.ts';
import { settingDifferences, sizedDifferences } from '../analysis/compare/differences.ts';
import { BOTH_BOUNDS_TEXT, boundedChangeText, type Bounded } from '../analysis/compare/bound-change.ts';
import { generatorInLatencies, LOOP_DELAY_WARN_MS } from '../analysis/warnings.ts';
import { compareRows } from '../analysis/compare/rows.ts';
import { downstreamRows, fanOutRises } from '../analysis/compare/downstreams.ts';
import { fmtFanOut } from '../analysis/downstream-evidence.ts';
import {
  compareByName,
  figureOf,
  type NameComparison,
  type NameComparisonResult,
} from '../analysis/compare/by-name.ts';
import {
  COMPARE_LABELS,
  nameLabel,
  nameWarnings,
  tailCoverageClause,
  skipText,
  cleanBillText,
  thresholdsText,
  unconfirmedText,
} from '../analysis/compare/name-warnings.ts';
import { kneeResult } from '../analysis/deciding-steps.ts';
import { sloObjectiveText } from '../analysis/slo.ts';
import { sloCapacityText } from './slo-text.ts';

/** The costs per request: at the capacity, and at the capacity within the objective when either run has one. */
export interface CompareCosts {
  a: CostResult;
  b: CostResult;
  slo?: { a: CostResult | null; b: CostResult | null };
}

export { compareRows, type CompareRow } from '../analysis/compare/rows.ts';

/** "+4.2%" of b against a; "–" without both. */
export function changeText(a: number | null | undefined, b: number | null | undefined): string {
  if (a == null || b == null || a === 0) return '–';
  const d = (b - a) / a;
  return `${d >= 0 ? '+' : '-'}${fmtPercent(Math.abs(d))}`;
}

function peakOf(run: RunResult): number | null {
  return run.peakStep === null ? null : run.peakPerSec;
}

function rateText(x: number | null, run: RunResult): string {
  return x === null ? '–' : `${fmtRate(x)} ${rateUnit(run)}`;
}

/** What every planned step held, where no limit was found: a lower bound, as the gate reads it (decision 026). */
function lowerBound(run: RunResult): number | null {
  return run.capacityPerSec === null && run.stopReason === 'max-rate-reached' ? (run.heldAtLeastPerSec ?? null) : null;
}

/** The capacity; "at least N" where every planned step held (the gate judges that bound); "–" otherwise. */
function capacityCell(run: RunResult): string {
  const bound = lowerBound(run);
  return bound === null ? rateText(run.capacityPerSec, run) : `at least ${rateText(bound, run)}`;
}

/** The capacity, or the lower bound where every planned step held; null where neither. */
function bounded(run: RunResult): Bounded | null {
  const bound = lowerBound(run);
  if (bound !== null) return { perSec: bound, lowerBound: true };
  return run.capacityPerSec === null ? null : { perSec: run.capacityPerSec, lowerBound: false };
}

/**
 * B's change, as the gate's headline says it (bound-change.ts): between two capacities; which way
 * it may lie where one is a lower bound ("at least +5.00%", "a fall of at most 25.00%"); none
 * between two bounds, said under the table (bothBoundsNote).
 */
function capacityChange(a: RunResult, b: RunResult): string {
  const [x, y] = [bounded(a), bounded(b)];
  if (x === null || y === null) return '–';
  return boundedChangeText(x, y) ?? '– (both lower bounds)';
}

/** Under the table where both runs held every planned step: why their capacities get no change. */
function bothBoundsNote(a: RunResult, b: RunResult): string[] {
  if (lowerBound(a) === null || lowerBound(b) === null) return [];
  const said = BOTH_BOUNDS_TEXT.replace(/^both/, 'Both runs');
  return ['', `${said}.`];
}

/** The knee where the run established a capacity; else only the highest step it held, never called a knee. */
function kneeText(run: RunResult): string {
  const k = kneeResult(run);
  if (!k) return '–';
  const rate = `${fmtTarget(k.ratePerSec)} ${rateUnit(run)}`;
  return run.capacityPerSec === null
    ? `– (held up to step ${stepNo(k.index)}, ${rate})`
    : `step ${stepNo(k.index)} (${rate})`;
}

function row(cells: string[]): string {
  return `| ${cells.map(mdCell).join(' | ')} |`;
}

/** The capacity within the objective of each run, when either has one; the objective beside each when they differ. */
function sloRows(a: RunResult, b: RunResult): string[] {
  if (!a.slo && !b.slo) return [];
  const objective = (r: RunResult) => (r.slo ? sloObjectiveText(r.slo) : null);
  // a run without an objective has nothing to differ by: the other's names the row
  const objectives = [...new Set([objective(a), objective(b)].filter((o) => o !== null))];
  const same = objectives.length === 1;
  const cell = (r: RunResult) =>
    r.slo ? `${sloCapacityText(r.slo, rateUnit(r))}${same ? '' : ` at ${objective(r)}`}` : 'no objective (slo not set)';
  return [
    row([
      same ? `Capacity within SLO (${objectives[0]})` : 'Capacity within SLO (objectives differ)',
      cell(a),
      cell(b),
      same ? changeText(a.slo?.capacityPerSec, b.slo?.capacityPerSec) : '',
    ]),
  ];
}

function headline(a: RunResult, b: RunResult): string[] {
  return [
    '| | A | B | B vs A |',
    '|---|---|---|---|',
    row(['Run', a.runId, b.runId, '']),
    row(['Capacity', capacityCell(a), capacityCell(b), capacityChange(a, b)]),
    ...sloRows(a, b),
    row(['Knee', kneeText(a), kneeText(b), '']),
    // a run with no step of data has no peak (peakStep null), not a peak of 0
    row(['Peak', rateText(peakOf(a), a), rateText(peakOf(b), b), changeText(peakOf(a), peakOf(b))]),
    row(['Stop reason', a.stopReason, b.stopReason, '']),
    row(['Engine', a.engine, b.engine, '']),
  ];
}

function p99Ms(s: StepResult | null): number | null {
  return s === null ? null : (percentileOf(s, 99)?.valueMs ?? null);
}

/** A shown percentile of the step rests on too few samples beyond it (its cell reads "~… ms*"). */
function shaky(s: StepResult | null): boolean {
  return s !== null && [50, 99].some((q) => percentileOf(s, q)?.reliable === false);
}

/** The p99's change, marked as its cells are where either p99 is unreliable: no evidence of a regression. */
function p99Change(a: StepResult | null, b: StepResult | null): string {
  const c = changeText(p99Ms(a), p99Ms(b));
  const unreliable = [a, b].some((s) => s !== null && percentileOf(s, 99)?.reliable === false);
  return c !== '–' && unreliable ? `~${c}*` : c;
}

function unreliableNote(a: RunResult, b: RunResult): string {
  const tails = [...new Set([a, b].map((r) => fmtInt(r.rules.minTailSamples)))].join(' and ');
  return `\\* unreliable: fewer than ${tails} samples lie beyond that percentile in its step's window; shown for diagnosis only, and a change involving one is no evidence either way.`;
}

function stepCells(s: StepResult | null): string[] {
  if (s === null) return ['–', '–', '–', '–'];
  return [
    fmtRate(s.throughputPerSec),
    percentileCell(percentileOf(s, 50)),
    percentileCell(percentileOf(s, 99)),
    fmtPercent(s.errorRate),
  ];
}

function p99CellOf(n: NameComparison['a']): string {
  return percentileCell(n.latency.find((p) => p.q === 99));
}

/** A confirmed regression's name, rate and figure as one key. */
function confirmedKey(name: string, ratePerSec: number, figure: 'tail' | 'error-rate'): string {
  return JSON.stringify([name, ratePerSec, figure]);
}

/** Whether a rise of this name at this rate is a confirmed regression (by-name.ts confirmed), by figure. */
type Confirmed = (name: string, figure: 'tail' | 'error-rate') => boolean;

/** `tailsLeftOut`: the rate was left out of the latency comparison (its error rates compared). */
function nameRow(c: NameComparison, confirmed: Confirmed, tailsLeftOut: boolean): string {
  // a p90 stood in for p99s on too few samples: the change says which it is of
  const tail = c.tail.compared
    ? `${changeText(c.tail.aMs, c.tail.bMs)}${c.tail.q === 99 ? '' : ` (p${c.tail.q}: ${fmtMs(c.tail.aMs!)} → ${fmtMs(c.tail.bMs!)} ms)`}`
    : tailsLeftOut
      ? 'not compared (rate left out)'
      : c.tail.aMs === null || c.tail.bMs === null
        ? '–'
        : 'not compared (few samples)';
  // a rise the other rates did not confirm is said as one, not flagged
  const said = (what: string, figure: 'tail' | 'error-rate') =>
    confirmed(c.name, figure) ? what : `${what} rose (unconfirmed)`;
  const regressed = [
    c.tail.regressed ? said(`p${c.tail.q}`, 'tail') : '',
    c.errorRate.regressed ? said('error rate', 'error-rate') : '',
  ].filter(Boolean);
  const flagged =
    (c.tail.regressed && confirmed(c.name, 'tail')) || (c.errorRate.regressed && confirmed(c.name, 'error-rate'));
  return row([
    nameLabel(c.name, c.transaction),
    fmtRate(c.a.throughputPerSec),
    fmtRate(c.b.throughputPerSec),
    p99CellOf(c.a),
    p99CellOf(c.b),
    tail,
    fmtPercent(c.a.errorRate),
    fmtPercent(c.b.errorRate),
    regressed.length === 0 ? '' : `${flagged ? '⚠️ ' : ''}${regressed.join(', ')}`,
  ]);
}

function namesNotes(r: NameComparisonResult, unit: RateUnit): string[] {
  const out: string[] = [];
  if (r.withoutNames !== null) {
    const other = r.withoutNames === 'a' ? 'B' : 'A';
    out.push(
      `- ${r.withoutNames.toUpperCase()} recorded no per-name results (one name, or a summary written before names were recorded): ${other}'s names are listed, not compared.`,
    );
  }
  if (r.added.length > 0) out.push(`- Only in B (added, not compared): ${r.added.map(mdCell).join(', ')}`);
  if (r.removed.length > 0) out.push(`- Only in A (removed, not compared): ${r.removed.map(mdCell).join(', ')}`);
  for (const s of r.skipped) out.push(`- ${mdCell(skipText(s, COMPARE_LABELS, unit))}`);
  return out;
}

/** The per-name section: the rule, the names that regressed, what was not compared, a table per rate both held. */
export function byNameLines(r: NameComparisonResult | null, unit: RateUnit): string[] {
  if (r === null) return [];
  const confirmed = new Set(r.regressions.map((x) => confirmedKey(x.name, x.ratePerSec, figureOf(x.metric))));
  const warnings = nameWarnings(r, COMPARE_LABELS, unit);
  const lines = ['', '## By name at equal offered rates', '', thresholdsText(r.thresholds, COMPARE_LABELS), ''];
  if (warnings.length > 0)
    lines.push('**Names that regressed at rates both runs held:**', '', ...warnings.map((w) => `- ${mdCell(w)}`));
  else lines.push(cleanBillText(r));
  const unconfirmed = unconfirmedText(r, COMPARE_LABELS, unit);
  if (unconfirmed !== null) lines.push('', mdCell(unconfirmed));
  const notes = namesNotes(r, unit);
  if (notes.length > 0) lines.push('', ...notes);
  for (const rate of r.rates) {
    lines.push(
      '',
      `### ${fmtTarget(rate.ratePerSec)} ${unit} (A step ${stepNo(rate.aIndex)}, B step ${stepNo(rate.bIndex)}${rate.tailsLeftOut ? '; error rates only: left out of the latency comparison, said above' : ''})`,
      '',
      '| Name | A ok/s | B ok/s | A p99 | B p99 | p99 change (else p90) | A errors | B errors | Regressed |',
      `|${Array(9).fill('---').join('|')}|`,
      ...rate.names.map((c) =>
        nameRow(
          c,
          (name, figure) => confirmed.has(confirmedKey(name, rate.ratePerSec, figure)),
          rate.tailsLeftOut === true,
        ),
      ),
    );
  }
  return lines;
}

/**
 * The rates at which a run's generator had its own delays in the latencies (generatorInLatencies:
 * its loop stalled, or it held generator-limited): a p99 change there says as much of the
 * generator as of the target (a user's compare read -84% at two rates where run A had stalled).
 */
function generatorDelayedNote(rows: ReturnType<typeof compareRows>, unit: RateUnit): string | null {
  const at = (side: 'a' | 'b') =>
    rows.filter((r) => r[side] !== null && generatorInLatencies(r[side]!)).map((r) => fmtTarget(r.ratePerSec));
  const [inA, inB] = [at('a'), at('b')];
  if (inA.length === 0 && inB.length === 0) return null;
  const said = (label: string, rates: string[]) =>
    rates.length === 0 ? [] : [`${label} at ${rates.join(', ')} ${unit}`];
  return `The generator's own delays are in the latencies of ${[...said('A', inA), ...said('B', inB)].join(' and of ')} (event-loop delay over ${LOOP_DELAY_WARN_MS} ms, or held generator-limited): a latency change there says as much of the generator as of the target.`;
}

/** Each downstream's ops per request at equal rates, and any rise past FAN_OUT_RISE (compare/downstreams.ts). */
function downstreamLines(a: RunResult, b: RunResult, unit: RateUnit): string[] {
  const rows = downstreamRows(a, b);
  if (rows.length === 0) return [];
  const cell = (x: number | null) => (x === null ? '–' : fmtFanOut(x));
  return [
    '',
    '## Downstreams at equal offered rates',
    '',
    `| Downstream | Offered ${unit} | A ops per request | B ops per request | Change |`,
    '|---|---|---|---|---|',
    ...rows.map((r) => row([mdCell(r.name), fmtTarget(r.ratePerSec), cell(r.a), cell(r.b), changeText(r.a, r.b)])),
    ...fanOutRises(a, b).map((w) => `\n> **${mdCell(w)}**`),
  ];
}

export function renderCompare(a: RunResult, b: RunResult, cost?: CompareCosts | null): string {
  const warnings = settingDifferences(a, b);
  const unit = pairUnit(a, b);
  const lines = [`# plateau compare: A ${mdCell(a.runId)} vs B ${mdCell(b.runId)}`, ''];
  if (warnings.length > 0) {
    lines.push(
      '> **The runs differ in their settings; read the comparison with care:**',
      '>',
      ...warnings.map((w) => `> - ${mdCell(w)}`),
      '',
    );
  }
  const sized = sizedDifferences(a, b);
  if (sized.length > 0) lines.push('Derived by plateau, not set:', '', ...sized.map((w) => `- ${mdCell(w)}`), '');
  lines.push(...headline(a, b), ...bothBoundsNote(a, b), '', '## At equal offered rates', '');
  lines.push(
    `| Offered ${unit} | A X ${unit} | B X ${unit} | X change | A p50 | B p50 | A p99 | B p99 | p99 change | A errors | B errors | A verdict | B verdict |`,
  );
  lines.push(`|${Array(13).fill('---').join('|')}|`);
  const rows = compareRows(a, b);
  for (const r of rows) {
    const [ax, ap50, ap99, aerr] = stepCells(r.a);
    const [bx, bp50, bp99, berr] = stepCells(r.b);
    lines.push(
      row([
        fmtTarget(r.ratePerSec),
        ax,
        bx,
        changeText(r.a?.throughputPerSec, r.b?.throughputPerSec),
        ap50,
        bp50,
        ap99,
        bp99,
        p99Change(r.a, r.b),
        aerr,
        berr,
        r.a ? verdictLabel(r.a) : 'not run',
        r.b ? verdictLabel(r.b) : 'not run',
      ]),
    );
  }
  if (rows.some((r) => [r.a, r.b].some(shaky))) lines.push('', unreliableNote(a, b));
  const delayed = generatorDelayedNote(rows, unit);
  if (delayed !== null) lines.push('', delayed);
  lines.push(...byNameLines(compareByName(a, b), unit));
  lines.push(...downstreamLines(a, b, unit));
  if (cost) {
    lines.push(...costLines(cost.a).map((l) => l.replace('### Cost per request', '### Cost per request (A)')));
    lines.push(...costLines(cost.b).map((l) => l.replace('### Cost per request', '### Cost per request (B)')));
    if (cost.slo) {
      lines.push(...costLines(cost.slo.a, 'Cost per request at the capacity within SLO (A)'));
      lines.push(...costLines(cost.slo.b, 'Cost per request at the capacity within SLO (B)'));
    }
  }
  return `${lines.join('\n')}\n`;
}
