/** The words of the warnings `plateau plan` gives, in its text and its --json alike. Pure. */
import { judgedS, UNDER_LOAD } from '../analysis/settle-check.ts';

/**
 * The warning of the transactions plan cannot measure (only sending them does: their think time,
 * their requests' round trips) and what preflight refuses of them: a sample arrival longer than a
 * step's settle (settle-check.ts, with its fix's figures: the settle at UNDER_LOAD x its length,
 * the judged window kept) or not ended within http.transactionTimeoutMs (a review: a 20 s think
 * time passed plan and was refused at preflight; decision 089). Null without a transaction.
 */
export function transactionsUnmeasuredText(o: {
  transactions?: string[];
  settleS: number;
  holdS: number;
  transactionTimeoutMs?: number;
}): string | null {
  const names = o.transactions ?? [];
  if (names.length === 0) return null;
  const judged = judgedS(o);
  const one = names.length === 1;
  const timeout =
    o.transactionTimeoutMs === undefined
      ? ''
      : `, or does not end within ${o.transactionTimeoutMs} ms (http.transactionTimeoutMs)`;
  return `transaction${one ? '' : 's'} ${names.map((n) => JSON.stringify(n)).join(', ')}: plan cannot tell how long ${one ? 'it lasts' : 'they last'} (only sending ${one ? 'it' : 'them'} does); preflight sends a sample arrival of ${one ? 'it' : 'each'} and refuses the run where ${one ? 'it' : 'one'} lasts longer than the ${o.settleS} s each step settles before it is judged${timeout}; for one of T s (think time included), set steps.settleS (or --settle) to at least ${UNDER_LOAD} x T and steps.holdS (or --hold) to that plus ${judged}, keeping the judged ${judged} s of each hold, or shorten its think time`;
}

/** The warning of a secret the scenario lists that is not set where plan runs. */
export function secretNotSetText(name: string): string {
  return `${name} is not set here: run will refuse it at preflight; export it before plateau run`;
}
