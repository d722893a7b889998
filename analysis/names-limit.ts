/**
 * A run's names (issue 27): at most MAX_NAMES, each fixed in the scenario's code. One place for the
 * limit and its fix: each engine thread's book (harness/scenario/names.ts, in the k6 bundle too:
 * no Node API here), the merge of a run's records (name-cap.ts) and the warning's words.
 */
export const MAX_NAMES = 100;

/** The fix every refused or folded name gets. */
export const NAME_FIX =
  "give each request a fixed name ('read order', not `GET /orders/${id}`): names are the rows of the report, at most 100 per run";
