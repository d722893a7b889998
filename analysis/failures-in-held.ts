/**
 * Failures in steps that held. A step holds on its successful arrivals (delivery >= 0.90), so up to
 * a tenth of them may fail and it holds: a reviewer's run failed 10% of its arrivals (an entry's
 * check rejecting a third of its answers) through the steps its capacity rested on, and no warning
 * said so. One warning for the run: the held steps whose arrivals failed FAILED_SHARE_WARN or more,
 * or in which a name failed NAME_SHARE_WARN of its own or more, with the worst share and the names.
 * A name failing most of its arrivals has a warning of its own (names-failing, warnings.ts), which
 * this one does not repeat.
 */
import { ERROR_NOTE_MIN } from './failure-clause.ts';
import type { StepResult, Symptom } from './types.ts';

/** A held step's share of failed arrivals (requests without a mix) from which it is warned of: a stop sentence's bound too. */
export const FAILED_SHARE_WARN = ERROR_NOTE_MIN;
/** A name's share of failures in a held step from which it is named. */
export const NAME_SHARE_WARN = 0.05;
/** Failures a step or a name needs before its share is read (a handful says little). */
export const FAILED_MIN = 5;
/** A name failing this share of its completions or more in a held step has a warning of its own (names-failing, warnings.ts). */
export const NAME_FAILING = 0.5;

/** A name's worst share of failures in the held steps, under the share names-failing warns of. */
function failingNamesOf(s: StepResult): [string, number][] {
  return Object.entries(s.byName ?? {})
    .filter(([, n]) => n.failed >= FAILED_MIN && n.errorRate >= NAME_SHARE_WARN && n.errorRate < NAME_FAILING)
    .map(([name, n]) => [name, n.errorRate]);
}

export function failuresInHeld(steps: readonly StepResult[]): Symptom[] {
  const hit: StepResult[] = [];
  const names = new Map<string, number>();
  for (const s of steps) {
    if (s.verdict !== 'holds') continue;
    const failing = failingNamesOf(s);
    const stepShare = s.failed >= FAILED_MIN && s.errorRate >= FAILED_SHARE_WARN;
    if (!stepShare && failing.length === 0) continue;
    hit.push(s);
    for (const [name, share] of failing) names.set(name, Math.max(names.get(name) ?? 0, share));
  }
  if (hit.length === 0) return [];
  const worst = hit.reduce((a, b) => (b.errorRate > a.errorRate ? b : a));
  const named = [...names].sort((a, b) => b[1] - a[1]);
  return [
    {
      code: 'failures-in-held',
      step: null,
      figures: {
        steps: [...new Set(hit.map((s) => s.index))],
        worstShare: worst.errorRate,
        worstStep: worst.index,
        names: JSON.stringify(named.map(([name]) => name)),
        nameShares: named.map(([, share]) => share),
      },
    },
  ];
}
