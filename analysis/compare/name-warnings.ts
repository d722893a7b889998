/**
 * The per-name regressions in words, one sentence per name and figure (its worst rate's numbers),
 * for compare's text and the gate's warnings alike. Pure; names are the scenario's text, so every
 * renderer escapes these sentences.
 */
import { fmtInt, fmtMs, fmtPercent, fmtTarget } from '../format.ts';
import { LOOP_DELAY_WARN_MS } from '../warnings.ts';
import type { RateUnit } from '../types.ts';
import {
  figureOf,
  type NameComparisonResult,
  type NameRegression,
  type NameSkip,
  type NameThresholds,
} from './by-name.ts';

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

/** A figure with what it rests on: "12.1 ms (n=388)", "7.67% (23 of 300)". */
function figure(r: NameRegression, side: 'a' | 'b'): string {
  const [x, n, failed] = side === 'a' ? [r.a, r.aN, r.aFailed] : [r.b, r.bN, r.bFailed];
  return r.metric === 'error-rate'
    ? `${fmtPercent(x)} (${fmtInt(failed ?? 0)} of ${fmtInt(n)})`
    : `${fmtMs(x)} ms (n=${fmtInt(n)})`;
}

/** An error rate over several rates, pooled: the failures of all over their completions, each side. */
function pooled(group: readonly NameRegression[], labels: SideLabels): string {
  const side = (pick: (r: NameRegression) => [number, number]) => {
    const [failed, n] = group.map(pick).reduce(([f, c], [x, y]) => [f + x, c + y], [0, 0]);
    return `${fmtPercent(n > 0 ? failed / n : 0)} (${fmtInt(failed)} of ${fmtInt(n)})`;
  };
  return `${side((r) => [r.aFailed ?? 0, r.aN])} in ${labels.a}, ${side((r) => [r.bFailed ?? 0, r.bN])} in ${labels.b} over those rates`;
}

function sentence(group: NameRegression[], labels: SideLabels, unit: RateUnit): string {
  // the worst: the largest rise (relative for a percentile, in points for an error rate)
  const latency = (r: NameRegression) => r.metric !== 'error-rate';
  const rise = (r: NameRegression) => (latency(r) ? (r.b - r.a) / Math.max(r.a, 1e-9) : r.b - r.a);
  const worst = group.reduce((w, r) => (rise(r) > rise(w) ? r : w));
  const mixed = new Set(group.map((r) => r.metric)).size > 1;
  const what = worst.metric === 'error-rate' ? 'error rate' : mixed ? 'tail (p99, else p90)' : worst.metric;
  const change = latency(worst) && worst.a > 0 ? ` (+${fmtPercent((worst.b - worst.a) / worst.a)})` : '';
  const figures = `${figure(worst, 'a')} in ${labels.a}, ${figure(worst, 'b')} in ${labels.b}${change}`;
  const head = `${nameLabel(worst.name, worst.transaction)}: ${what} regressed`;
  // a confirmed regression is at two rates or more (by-name.ts confirmed)
  const rates = group.map((r) => fmtTarget(r.ratePerSec)).join(', ');
  // an error rate pooled over its rates (the worst of several small samples overstates it), the worst beside it
  if (!latency(worst))
    return `${head} at ${rates} ${unit}, rates both held: ${pooled(group, labels)}; worst at ${fmtTarget(worst.ratePerSec)} ${unit}: ${figures}`;
  const which = mixed ? ` (${worst.metric})` : '';
  return `${head} at ${rates} ${unit}, rates both held; worst at ${fmtTarget(worst.ratePerSec)} ${unit}${which}: ${figures}`;
}

/**
 * The rises that were not confirmed (one rate alone, or under half of those judged), in one
 * sentence: said beside the comparison, never a warning. Null when there were none.
 */
export function unconfirmedText(r: NameComparisonResult, labels: SideLabels, unit: RateUnit = 'req/s'): string | null {
  if (r.unconfirmed.length === 0) return null;
  // a figure judged at one rate alone can never be confirmed: said, so the reader knows why
  const judgedAt = (x: NameRegression) =>
    r.rates.filter((rate) =>
      rate.names.some(
        (c) => c.name === x.name && (figureOf(x.metric) === 'tail' ? c.tail.compared : c.errorRate.compared),
      ),
    ).length;
  const each = r.unconfirmed.map(
    (x) =>
      `${nameLabel(x.name, x.transaction)} ${x.metric === 'error-rate' ? 'error rate' : x.metric} at ${fmtTarget(x.ratePerSec)} ${unit} (${figure(x, 'a')} in ${labels.a}, ${figure(x, 'b')} in ${labels.b}${judgedAt(x) === 1 ? '; the only rate where it was judged' : ''})`,
  );
  const tails = r.unconfirmed.some((x) => x.metric !== 'error-rate');
  return `Not counted as regressions, each seen at too few of the rates where it was judged (a regression needs two, and half of those from the lowest it rose at${tails ? '; a tail near the knee swings from run to run' : ''}): ${each.join('; ')}.`;
}

/** One sentence per name and figure that regressed, in the order they first regressed; rates in `unit` (the runs' arrivals). */
export function nameWarnings(r: NameComparisonResult, labels: SideLabels, unit: RateUnit = 'req/s'): string[] {
  const groups = new Map<string, NameRegression[]>();
  for (const x of r.regressions) {
    // a tail judged by p99 at one rate and by p90 at another is one figure, confirmed as one
    const key = JSON.stringify([x.name, figureOf(x.metric)]);
    groups.set(key, [...(groups.get(key) ?? []), x]);
  }
  return [...groups.values()].map((g) => sentence(g, labels, unit));
}

/**
 * The clean bill where no name regressed, by what was compared: "No name regressed at the 3 rates
 * compared" (the rates both runs held; a rate past the knee's bound or a stalled step is one, by
 * its error rates alone, which the clause says), or why nothing was (each rate left out is listed
 * with skipText).
 */
export function cleanBillText(r: NameComparisonResult): string {
  const n = r.rates.length;
  if (n > 0) return `No name regressed at the ${n} ${n === 1 ? 'rate' : 'rates'} compared${tailCoverageClause(r)}.`;
  if (r.skipped.length > 0) return 'No rate was compared per name: each rate both runs offered is listed with why.';
  return 'No rate held in both runs with names recorded in both: nothing compared per name.';
}

/**
 * What "no name regressed" rests on, when not every name-rate's p99 could be compared: a p99 needs
 * 3,000 samples of a name in both steady windows, which short holds of a small name never collect;
 * the p90 (300) stood in where it could (by-name.ts), and where neither could, the clean bill covers
 * the error rates only. So it does at a rate left out of the latency comparison (a stall, or near
 * the knee: listed with skipText). Empty when every p99 was compared.
 */
export function tailCoverageClause(r: NameComparisonResult): string {
  const pairs = r.rates.flatMap((x) => x.names);
  const left = r.rates.filter((x) => x.tailsLeftOut).flatMap((x) => x.names).length;
  const at99 = pairs.filter((c) => c.tail.compared && c.tail.q === 99).length;
  const at90 = pairs.filter((c) => c.tail.compared && c.tail.q === 90).length;
  const none = pairs.length - at99 - at90 - left;
  if (pairs.length === 0 || at99 === pairs.length) return '';
  const leftOut = left > 0 ? `at ${left}, the rate was left out of the latency comparison (listed with why)` : '';
  if (at99 + at90 === 0 && left === 0)
    return ` (error rates only: no name's p99 or p90 rests on enough samples in both runs at any of the ${pairs.length} name-rates compared; longer holds collect them)`;
  if (at99 + at90 === 0 && none === 0)
    return ` (error rates only: every rate compared was left out of the latency comparison, each listed with why)`;
  const by90 = at90 > 0 ? `, ${at90} by p90 (their p99s on too few samples)` : '';
  const neither = none > 0 ? `at ${none}, neither rests on enough samples (longer holds collect them)` : '';
  const notCompared = [neither, leftOut].filter(Boolean).map((x) => `; ${x}`);
  return ` (tails compared at ${at99 + at90} of ${pairs.length} name-rates: ${at99} by p99${by90}${notCompared.join('')}; error rates compared at all ${pairs.length})`;
}

/**
 * "Not compared at 500 req/s: A fails, B fails"; a rate whose error rates were compared, "Left out
 * of the latency comparison only at 400 req/s (error rates compared): ...".
 */
export function skipText(s: NameSkip, labels: SideLabels, unit: RateUnit = 'req/s'): string {
  const why = [s.a !== null ? `${labels.a} ${s.a}` : '', s.b !== null ? `${labels.b} ${s.b}` : ''].filter(Boolean);
  if (s.near) {
    // never "80% ... past the 80%": a share that rounds to the bound gets a decimal
    const share =
      Math.round(100 * s.near.share) === Math.round(100 * s.near.upTo)
        ? (100 * s.near.share).toFixed(1)
        : String(Math.round(100 * s.near.share));
    why.push(
      `${share}% of the lower knee (${fmtTarget(s.near.kneePerSec)} ${unit}), past the ${pct(s.near.upTo)}% up to which tails are compared: nearer the knee a tail follows the utilisation, which capacities within the tolerance move`,
    );
  }
  const at = `at ${fmtTarget(s.ratePerSec)} ${unit}`;
  return s.latencyOnly
    ? `Left out of the latency comparison only ${at} (error rates compared): ${why.join(', ')}`
    : `Not compared ${at}: ${why.join(', ')}`;
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
    `(or by more than ${pct(t.errorRateCap)} points whatever ${labels.a}'s), on ${t.errorMinFailures} failures or more; ` +
    `and it did so at two rates or more, half or more of those where that figure was judged from the lowest it rose at; ` +
    `error rates are compared at every rate both held (neither contaminated nor generator-limited), tails ` +
    `${Number.isFinite(t.nearKneeShare) ? `at those up to ${pct(t.nearKneeShare)}% of the lower knee (where either run has a capacity) and ` : ''}` +
    `where neither generator's event loop stalled past ${LOOP_DELAY_WARN_MS} ms.`
  );
}
