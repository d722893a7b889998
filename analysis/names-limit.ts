/**
 * A run's names (issue 27): at most MAX_NAMES, each fixed in the scenario's code. One place for the
 * limit and its fix: each engine thread's book (harness/scenario/names.ts, in the k6 bundle too:
 * no Node API here), the merge of a run's records (name-cap.ts) and the warning's words.
 */
export const MAX_NAMES = 100;

/** The fix every refused or folded name gets. */
export const NAME_FIX =
  "give each request a fixed name ('read order', not `GET /orders/${id}`): names are the rows of the report, at most 100 per run";

/**
 * The row a k6 import folds its requests of no fixed name into (k6 names such a request by its
 * URL), "(unnamed: 412 URLs)" once counted: its count is the run's own, so two runs of one script
 * fold other counts into one row of one meaning (harness/k6/output/names.ts writes it).
 */
export const FOLDED_ROW = '(unnamed)';

/** The folded row with its count: "(unnamed: 412 URLs)". */
export function foldedRowOf(count: string): string {
  return `(unnamed: ${count})`;
}

/** Whether a name is the import's folded row, whatever its count. */
export function isFoldedRow(name: string): boolean {
  return name === FOLDED_ROW || (name.startsWith('(unnamed: ') && name.endsWith(')'));
}
