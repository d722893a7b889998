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
  unitCounts,
  unitOf,
} from './format.ts';
import type { RateUnit, Rules, StepResult } from './types.ts';
import { fellTo, sustainedPerSec } from './overload-shape.ts';
import { captureBaseline } from './judge.ts';

/** Error share above which a stop sentence names the errors. */
export const ERROR_NOTE_MIN = 0.01;

/** What the rule saw at the first failing step, e.g. "delivered 0.82 < 0.90". */
export function failureClause(s: StepResult, prev: StepResult | null, rules: Rules): string {
  const unit = unitOf(rules);
  if (s.delivery < rules.deliveryMin) {
    return `delivered ${rules.okLowerBound ? 'at least ' : ''}${fmtRatioBelow(s.delivery, rules.deliveryMin)} < ${fmtRatio(rules.deliveryMin)} (${fmtRate(s.throughputPerSec)} ${unit} achieved)`;
  }
  const gained = prev ? fmtSignedRate(s.throughputPerSec - captureBaseline(prev, rules)) : '?';
  const added = prev ? fmtSignedTarget(s.ratePerSec - prev.ratePerSec) : '?';
  return `captured ${s.capture === null ? fmtRatio(null) : fmtRatioBelow(s.capture, rules.captureMin)} < ${fmtRatio(rules.captureMin)} of the added rate (${gained} ${unit} for ${added} offered)`;
}

/** Extra clauses: collapse (X fell below the knee) and errors. */
export function shapeNotes(s: StepResult, knee: StepResult | null, unit: RateUnit, okLowerBound = false): string {
  const notes: string[] = [];
  const most = knee ? fellTo(s, knee, okLowerBound) : null;
  if (knee && most !== null) {
    notes.push(
      okLowerBound
        ? `throughput fell from at least ${fmtRate(sustainedPerSec(knee))} to at most ${fmtRate(most)} ${unit} (collapse)`
        : `throughput fell from ${fmtRate(sustainedPerSec(knee))} to ${fmtRate(s.throughputPerSec)} ${unit} (collapse)`,
    );
  }
  if (s.errorRate >= ERROR_NOTE_MIN)
    notes.push(`${okLowerBound ? 'up to ' : ''}${fmtPercent(s.errorRate)} of completed ${unitCounts(unit)} failed`);
  return notes.length > 0 ? `; ${notes.join('; ')}` : '';
}
