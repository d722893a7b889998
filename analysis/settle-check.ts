/**
 * A step's window counts arrivals by the second they end (docs/decisions/003): a transaction that
 * lasts longer than the step settles before its window (steps.settleS) is counted there from
 * arrivals made before it, at the rate of the ramp or the step below, so the window reads short of
 * its rate however much the target carries (a reviewer's 6 s login sessions failed the first step
 * at 28% of the target's capacity, with a fix to start lower). Preflight measures each transaction
 * in its sample arrivals, unloaded (a lower bound of its time under load: its think time, its
 * requests' round trips), and refuses a plan whose settle is shorter. Pure.
 */
import { fmtSecondsOver } from './format.ts';

/** How much longer than its sample a transaction's time is allowed for under load (its requests queue). */
export const UNDER_LOAD = 1.5;

/**
 * The judged window a plan keeps (the hold less its settle, at least 1 s), which a fix that
 * lengthens the settle keeps by lengthening the hold as much.
 */
export function judgedS(steps: { holdS: number; settleS: number }): number {
  return Math.max(1, steps.holdS - steps.settleS);
}

/**
 * The refusal of a settle shorter than the longest transaction's sample arrival, with the settle
 * and hold to set (the judged window kept as long as it is); null when every transaction fits.
 */
export function settleTooShort(
  /** Each transaction entry's longest sample arrival, ms (think time included). */
  samplesMs: ReadonlyMap<string, number>,
  steps: { holdS: number; settleS: number },
): { problem: string; fix: string } | null {
  let longest: [string, number] | null = null;
  for (const [name, ms] of samplesMs) if (longest === null || ms > longest[1]) longest = [name, ms];
  if (longest === null || longest[1] <= steps.settleS * 1000) return null;
  const [name, ms] = longest;
  const settle = Math.ceil((ms / 1000) * UNDER_LOAD);
  const hold = settle + judgedS(steps);
  const s = fmtSecondsOver(ms, steps.settleS);
  return {
    problem: `transaction "${name}" took ${s} s in its sample arrival (think time included), longer than the ${steps.settleS} s each step settles before it is judged: an arrival counts in the second it ends, so a step's window would count "${name}" arrivals made before it, at the rate below, and read short of its own rate whatever the target carries`,
    fix: `let each step settle longer than a transaction lasts under load: set steps.settleS (or --settle) to at least ${settle} and steps.holdS (or --hold) to at least ${hold}, keeping the judged ${judgedS(steps)} s of each hold; or shorten the transaction's think time`,
  };
}
