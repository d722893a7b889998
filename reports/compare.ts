/**
 * `plateau compare A B`: two runs side by side at equal offered rates. Headline figures (capacity,
 * knee, peak, USL peak), then one row per rate either run offered: achieved X, p50/p99 and error
 * rate of each, with B's change against A. Warnings first when the runs are not comparable.
 * Pure: two RunResults in, Markdown out.
 */
import { fmtPercent, fmtRate, fmtTarget, stepNo } from '../analysis/format.ts';
import type { RunResult, StepResult } from '../analysis/types.ts';
import { percentileCell, percentileOf } from './cells.ts';
import { mdCell } from './escape.ts';
import { costLines } from './gate-summary.ts';
import type { CostResult } from '../analysis/models/cost.ts';
import { settingDifferences } from '../analysis/compare/differences.ts';
import { kneeResult } from '../analysis/stop.ts';

export interface CompareRow {
  ratePerSec: number;
  a: StepResult | null;
  b: StepResult | null;
}

/** The last attempt at each rate (a confirmation rerun replaces the first attempt), by rate. */
function byRate(run: RunResult): Map<number, StepResult> {
  const m = new Map<number, StepResult>();
  for (const s of run.steps) if (s.steadyS > 0) m.set(s.ratePerSec, s);
  return m;
}

export function compareRows(a: RunResult, b: RunResult): CompareRow[] {
  const ma = byRate(a),
    mb = byRate(b);
  const rates = [...new Set([...ma.keys(), ...mb.keys()])].sort((x, y) => x - y);
  return rates.map((ratePerSec) => ({ ratePerSec, a: ma.get(ratePerSec) ?? null, b: mb.get(ratePerSec) ?? null }));
}

/** "+4.2%" of b against a; "–" without both. */
export function changeText(a: number | null | undefined, b: number | null | undefined): string {
  if (a == null || b == null || a === 0) return '–';
  const d = (b - a) / a;
  return `${d >= 0 ? '+' : '-'}${fmtPercent(Math.abs(d))}`;
}

function rateText(x: number | null): string {
  return x === null ? '–' : `${fmtRate(x)} req/s`;
}

function kneeText(run: RunResult): string {
  const k = kneeResult(run);
  return k ? `step ${stepNo(k.index)} (${fmtTarget(k.ratePerSec)} req/s)` : '–';
}

function row(cells: string[]): string {
  return `| ${cells.map(mdCell).join(' | ')} |`;
}

function headline(a: RunResult, b: RunResult): string[] {
  const uslA = a.models?.usl?.peakPerSec ?? null,
    uslB = b.models?.usl?.peakPerSec ?? null;
  return [
    '| | A | B | B vs A |',
    '|---|---|---|---|',
    row(['Run', a.runId, b.runId, '']),
    row([
      'Capacity',
      rateText(a.capacityPerSec),
      rateText(b.capacityPerSec),
      changeText(a.capacityPerSec, b.capacityPerSec),
    ]),
    row(['Knee', kneeText(a), kneeText(b), '']),
    row(['Peak', rateText(a.peakPerSec), rateText(b.peakPerSec), changeText(a.peakPerSec, b.peakPerSec)]),
    row(['USL predicted peak', rateText(uslA), rateText(uslB), changeText(uslA, uslB)]),
    row(['Stop reason', a.stopReason, b.stopReason, '']),
    row(['Engine', a.engine, b.engine, '']),
  ];
}

function p99Ms(s: StepResult | null): number | null {
  return s === null ? null : (percentileOf(s, 99)?.valueMs ?? null);
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

export function renderCompare(a: RunResult, b: RunResult, cost?: { a: CostResult; b: CostResult } | null): string {
  const warnings = settingDifferences(a, b);
  const lines = [`# plateau compare: A ${mdCell(a.runId)} vs B ${mdCell(b.runId)}`, ''];
  if (warnings.length > 0) {
    lines.push(
      '> **The runs differ in their settings; read the comparison with care:**',
      '>',
      ...warnings.map((w) => `> - ${mdCell(w)}`),
      '',
    );
  }
  lines.push(...headline(a, b), '', '## At equal offered rates', '');
  lines.push(
    '| Offered req/s | A X req/s | B X req/s | X change | A p50 | B p50 | A p99 | B p99 | p99 change | A errors | B errors | A verdict | B verdict |',
  );
  lines.push(`|${Array(13).fill('---').join('|')}|`);
  for (const r of compareRows(a, b)) {
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
        changeText(p99Ms(r.a), p99Ms(r.b)),
        aerr,
        berr,
        r.a?.verdict ?? 'not run',
        r.b?.verdict ?? 'not run',
      ]),
    );
  }
  if (cost) {
    lines.push(...costLines(cost.a).map((l) => l.replace('### Cost per request', '### Cost per request (A)')));
    lines.push(...costLines(cost.b).map((l) => l.replace('### Cost per request', '### Cost per request (B)')));
  }
  return `${lines.join('\n')}\n`;
}
