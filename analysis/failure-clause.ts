/**
 * What a stop line says of a failed step: the rule it broke with the figures the rule saw, and the
 * notes on its shape (a collapse below the knee, its errors).
 */
import {
  fmtPercent,
  fmtRate,
  fmtRatio,
  fmtRatioBelow,
  fmtSignedRate,
  fmtSignedTarget,
  fmtTarget,
  unitCounts,
  unitOf,
} from './format.ts';
import type { EntryShort, RateUnit, Rules, StepResult } from './types.ts';
import { fellTo, sustainedPerSec } from './overload-shape.ts';
import { captureBaseline } from './judge.ts';
import { entryShortText } from './entry-delivery.ts';

/** Error share above which a stop sentence names the errors. */
export const ERROR_NOTE_MIN = 0.01;

/** What the rule saw at the first failing step, e.g. "delivered 0.82 < 0.90". */
export function failureClause(s: StepResult, prev: StepResult | null, rules: Rules): string {
  const unit = unitOf(rules);
  if (s.delivery < rules.deliveryMin) {
    return `delivered ${rules.okLowerBound ? 'at least ' : ''}${fmtRatioBelow(s.delivery, rules.deliveryMin)} < ${fmtRatio(rules.deliveryMin)} (${fmtRate(s.throughputPerSec)} ${unit} achieved)`;
  }
  const behind = entryBehind(s, rules);
  if (behind) return `delivered ${fmtRatio(s.delivery)} of it, but ${entryShortText(behind, unit, rules.deliveryMin)}`;
  const gained = prev ? fmtSignedRate(s.throughputPerSec - captureBaseline(prev, rules)) : '?';
  const added = prev ? fmtSignedTarget(s.ratePerSec - prev.ratePerSec) : '?';
  return `captured ${s.capture === null ? fmtRatio(null) : fmtRatioBelow(s.capture, rules.captureMin)} < ${fmtRatio(rules.captureMin)} of the added rate (${gained} ${unit} for ${added} offered)`;
}

/**
 * The step's completions kept up with the rate it was offered, and its failures took its delivery
 * under the bound: what failed it is its failures, not its throughput (a reviewer's run failed a
 * tenth of its arrivals from below the knee on, and its stop read "throughput stopped following
 * the offered rate"). Not where the successes are a lower bound (Rules.okLowerBound): the
 * completions then cannot tell failures from successes.
 */
export function failuresFailedIt(s: StepResult, rules: Pick<Rules, 'deliveryMin' | 'okLowerBound'>): boolean {
  if (rules.okLowerBound === true || s.ratePerSec <= 0 || s.delivery >= rules.deliveryMin) return false;
  return s.errorRate >= ERROR_NOTE_MIN && Math.min(s.completedPerSec, s.ratePerSec) / s.ratePerSec >= rules.deliveryMin;
}

/**
 * The step's failures are mostly the answers' own (a check that rejected them, a 4xx): no response
 * to load, which sheds with 5xx, timeouts or resets. A first step failed of them would fail them at
 * any rate, so "start lower" would send the user the wrong way.
 */
export function answersRejected(s: Pick<StepResult, 'errors'>): boolean {
  const total = Object.values(s.errors).reduce((a, n) => a + (n ?? 0), 0);
  return total > 0 && ((s.errors.check ?? 0) + (s.errors.http_4xx ?? 0)) / total > 0.5;
}

/** failuresFailedIt in words: "its completions kept up (598.0 of 600 arrivals/s), but 10.0% of them failed (check 3000): ...". */
export function failuresClause(s: StepResult, rules: Pick<Rules, 'deliveryMin'>, unit: RateUnit): string {
  const kinds = Object.entries(s.errors)
    .filter(([, n]) => (n ?? 0) > 0)
    .sort((a, b) => (b[1] ?? 0) - (a[1] ?? 0))
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  return `its completions kept up (${fmtRate(s.completedPerSec)} of ${fmtTarget(s.ratePerSec)} ${unit}), but ${fmtPercent(s.errorRate)} of them failed${kinds ? ` (${kinds})` : ''}: failures, not throughput, took its delivery under ${fmtRatio(rules.deliveryMin)}`;
}

/**
 * The step missed delivery while its capture held: its throughput still followed the offered rate,
 * short of it, so its limit lies between the last step held and this step's throughput.
 */
export function stillFollowing(s: StepResult, rules: Pick<Rules, 'deliveryMin' | 'captureMin'>): boolean {
  return s.delivery < rules.deliveryMin && s.capture !== null && s.capture >= rules.captureMin;
}

/** The entry that alone failed the step: the whole delivered and captured, one entry fell behind its share (entry-delivery.ts). */
export function entryBehind(s: StepResult, rules: Pick<Rules, 'deliveryMin' | 'captureMin'>): EntryShort | null {
  if (!s.entryShort || s.delivery < rules.deliveryMin) return null;
  return s.capture !== null && s.capture < rules.captureMin ? null : s.entryShort;
}

/** Extra clauses: collapse (X fell below the knee) and errors (unless `errorsSaid`: failuresClause said them). */
export function shapeNotes(
  s: StepResult,
  knee: StepResult | null,
  unit: RateUnit,
  okLowerBound = false,
  errorsSaid = false,
): string {
  const notes: string[] = [];
  const most = knee ? fellTo(s, knee, okLowerBound) : null;
  if (knee && most !== null) {
    notes.push(
      okLowerBound
        ? `throughput fell from at least ${fmtRate(sustainedPerSec(knee))} to at most ${fmtRate(most)} ${unit} (collapse)`
        : `throughput fell from ${fmtRate(sustainedPerSec(knee))} to ${fmtRate(s.throughputPerSec)} ${unit} (collapse)`,
    );
  }
  if (s.errorRate >= ERROR_NOTE_MIN && !errorsSaid)
    notes.push(`${okLowerBound ? 'up to ' : ''}${fmtPercent(s.errorRate)} of completed ${unitCounts(unit)} failed`);
  return notes.length > 0 ? `; ${notes.join('; ')}` : '';
}
