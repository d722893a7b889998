/**
 * A failing step whose failures are mostly of kind `other` did not fail at the target's hand: no
 * status came back, no known transport error (timeout, refused, reset) occurred. On plateau's
 * engines that is the scenario itself (request(ctx) or run threw, a name was refused, a unique
 * data source ran out) or a transport error plateau does not classify (a TLS or DNS failure). The
 * stop line and the overload shape then point at the errors table instead of at the target's
 * capacity. Pure.
 */
import type { StepResult } from './types.ts';
import { quoted } from './format.ts';

/** Over this share of a step's failures, kind `other` is what the step failed of. */
export const OTHER_DOMINATES = 0.5;

/** The clause saying so, or null when the step's failures are mostly the target's answers or transport errors. */
export function otherFailuresClause(s: Pick<StepResult, 'errors' | 'errorSamples'>): string | null {
  const total = Object.values(s.errors).reduce((a, n) => a + (n ?? 0), 0);
  const other = s.errors.other ?? 0;
  if (total === 0 || other / total <= OTHER_DOMINATES) return null;
  const first = s.errorSamples?.find((m) => m.startsWith('other: '));
  const shown = first === undefined ? '' : `; the first: "${quoted(first.slice('other: '.length), 160)}"`;
  return `${Math.round((100 * other) / total)}% of its failures are of kind other, which no answer of the target's made (the scenario threw or was refused, or a transport error plateau does not classify${shown}): read the errors table and fix that before taking this step as the target's limit`;
}

/**
 * Over this share of a step's failures, kind `refused` is what the step failed of: its connections
 * were refused, so nothing listened at the target's address (the service stopped, crashed or
 * restarted). A saturated server answers late or with errors, or drops connection attempts (a
 * full backlog reads as timeouts); it does not refuse them.
 */
export const REFUSED_DOMINATES = 0.5;

/** The refused requests of a step, and their share of its failures; null when they do not dominate them. */
export function refusedDominates(s: Pick<StepResult, 'errors'>): { refused: number; share: number } | null {
  const total = Object.values(s.errors).reduce((a, n) => a + (n ?? 0), 0);
  const refused = s.errors.refused ?? 0;
  if (total === 0 || refused / total <= REFUSED_DOMINATES) return null;
  return { refused, share: refused / total };
}
