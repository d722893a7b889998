/**
 * The per-name regressions in words, one sentence per name and figure (its worst rate's numbers),
 * for compare's text and the gate's warnings alike. Pure; names are the scenario's text, so every
 * renderer escapes these sentences.
 */
import { fmtMs, fmtPercent, fmtTarget } from '../format.ts';
import type { RateUnit } from '../types.ts';
import type { NameComparisonResult, NameRegression, NameSkip, NameThresholds } from './by-name.ts';

/** What each side is called in the sentences. */
export interface SideLabels {
  a: string;
  b: string;
}

export const COMPARE_LABELS: SideLabels = { a: 'A', b: 'B' };
export const GATE_LABELS: SideLabels = { a: 'the baseline', b: 'this run' };

/** "read order" or "checkout (transaction)". */
export function nameLabel(name: string, transaction: boolean): string {
  return transaction ? `${name} (transaction)` : name;
}

function figure(r: NameRegression, x: number): string {
  return r.metric === 'error-rate' ? fmtPercent(x) : `${fmtMs(x)} ms`;
}

function sentence(group: NameRegression[], labels: SideLabels, unit: RateUnit): string {
  // the worst: the largest rise (relative for a percentile, in points for an error rate)
  const latency = (r: NameRegression) => r.metric !== 'error-rate';
  const rise = (r: NameRegression) => (latency(r) ? (r.b - r.a) / Math.max(r.a, 1e-9) : r.b - r.a);
  const worst = group.reduce((w, r) => (rise(r) > rise(w) ? r : w));
  const what = worst.metric === 'error-rate' ? 'error rate' : worst.metric;
  const change = latency(worst) && worst.a > 0 ? ` (+${fmtPercent((worst.b - worst.a) / worst.a)})` : '';
  const figures = `${figure(worst, worst.a)} in ${labels.a}, ${figure(worst, worst.b)} in ${labels.b}${change}`;
  const head = `${nameLabel(worst.name, worst.transaction)}: ${what} regressed`;
  if (group.length === 1) return `${head} at ${fmtTarget(worst.ratePerSec)} ${unit}, a rate both held: ${figures}`;
  const rates = group.map((r) => fmtTarget(r.ratePerSec)).join(', ');
  return `${head} at ${rates} ${unit}, rates both held; worst at ${fmtTarget(worst.ratePerSec)} ${unit}: ${figures}`;
}

/** One sentence per name and figure that regressed, in the order they first regressed; rates in `unit` (the runs' arrivals). */
export function nameWarnings(r: NameComparisonResult, labels: SideLabels, unit: RateUnit = 'req/s'): string[] {
  const groups = new Map<string, NameRegression[]>();
  for (const x of r.regressions) {
    const key = JSON.stringify([x.name, x.metric]);
    groups.set(key, [...(groups.get(key) ?? []), x]);
  }
  return [...groups.values()].map((g) => sentence(g, labels, unit));
}

/**
 * What "no name regressed" rests on, when not every name-rate's p99 could be compared: a p99 needs
 * 3,000 samples of a name in both steady windows, which short holds of a small name never collect;
 * the p90 (300) stood in where it could (by-name.ts), and where neither could, the clean bill covers
 * the error rates only. Empty when every p99 was compared.
 */
export function tailCoverageClause(r: NameComparisonResult): string {
  const pairs = r.rates.flatMap((x) => x.names);
  const at99 = pairs.filter((c) => c.tail.compared && c.tail.q === 99).length;
  const at90 = pairs.filter((c) => c.tail.compared && c.tail.q === 90).length;
  const none = pairs.length - at99 - at90;
  if (pairs.length === 0 || at99 === pairs.length) return '';
  if (at99 + at90 === 0)
    return ` (error rates only: no name's p99 or p90 rests on enough samples in both runs at any of the ${pairs.length} name-rates compared; longer holds collect them)`;
  const by90 = at90 > 0 ? `, ${at90} by p90 (their p99s on too few samples)` : '';
  const neither = none > 0 ? `; at ${none}, neither rests on enough samples (longer holds collect them)` : '';
  return ` (tails compared at ${at99 + at90} of ${pairs.length} name-rates: ${at99} by p99${by90}${neither}; error rates at all)`;
}

/** "Not compared at 500 req/s: A fails, B fails". */
export function skipText(s: NameSkip, labels: SideLabels, unit: RateUnit = 'req/s'): string {
  const why = [s.a !== null ? `${labels.a} ${s.a}` : '', s.b !== null ? `${labels.b} ${s.b}` : ''].filter(Boolean);
  return `Not compared at ${fmtTarget(s.ratePerSec)} ${unit}: ${why.join(', ')}`;
}

/** 0.25 -> "25", 0.125 -> "12.5": a share as a plain percentage figure. */
function pct(x: number): string {
  return String(Number((x * 100).toFixed(2)));
}

/** The rule the warnings follow, in one sentence. */
export function thresholdsText(t: NameThresholds, labels: SideLabels): string {
  const points = pct(t.errorRateFloor);
  return (
    `A name regressed at a rate both runs held when its p99 rose by more than ${pct(t.p99Relative)}% and at least ` +
    `${t.p99FloorMs} ms (both p99s on enough samples, else both p90s), or its error rate rose above both ` +
    `${labels.a}'s + ${points} percentage point${points === '1' ? '' : 's'} and ${t.errorRateFactor} × ${labels.a}'s ` +
    `(or by more than ${pct(t.errorRateCap)} points whatever ${labels.a}'s), on ${t.errorMinFailures} failures or more.`
  );
}
