/**
 * A run's names, at most MAX_RUN_NAMES (issue 27). Each engine thread admits at most that many
 * (harness/scenario/names.ts NameBook) and refuses the rest with the fix, but a book is per thread
 * (per VU on k6): names built from data that no rule tells from fixed ones (a customer's name read
 * from a file) could fill two threads' books with different names, 138 in all where each thread saw
 * under 100, and every report would grow a row for each. So the merged run keeps the first
 * MAX_RUN_NAMES names it shows, in the order they first appear, and folds the rest into one row,
 * which the warning names with examples and the fix. Pure.
 */
import { mergeNameBuckets } from './buckets.ts';
import type { AnalysedRecord, NameBucket } from './types.ts';
import { MAX_NAMES } from './names-limit.ts';

/** The run's limit, the one each engine thread's book keeps. */
export const MAX_RUN_NAMES = MAX_NAMES;
/** Names quoted in the warning. */
const EXAMPLES = 3;

export interface NamesFolded {
  /** Distinct names past the limit, folded into `row`. */
  count: number;
  row: string;
  examples: string[];
}

/**
 * The records with names past the run's limit folded into one row (records are copied where
 * changed), and what was folded. The mix's entries (`entryNames`) and its transactions are kept
 * first, whenever they first appear: a rare entry never lands in the folded row, which then never
 * adds a transaction's arrivals to requests.
 */
export function capNames(
  records: readonly AnalysedRecord[],
  entryNames: readonly string[] = [],
): { records: AnalysedRecord[]; folded: NamesFolded | null } {
  const kept = new Set<string>();
  const past = new Set<string>();
  const first = new Set(entryNames);
  for (const r of records) for (const [n, b] of Object.entries(r.byName ?? {})) if (b.transaction) first.add(n);
  for (const r of records)
    for (const n of Object.keys(r.byName ?? {})) if (first.has(n) && kept.size < MAX_RUN_NAMES) kept.add(n);
  for (const r of records)
    for (const n of Object.keys(r.byName ?? {}))
      if (!kept.has(n) && !past.has(n)) (kept.size < MAX_RUN_NAMES ? kept : past).add(n);
  if (past.size === 0) return { records: [...records], folded: null };
  const row = `(${past.size} names past ${MAX_RUN_NAMES})`;
  const out = records.map((r) => {
    const by = r.byName;
    if (!by || !Object.keys(by).some((n) => past.has(n))) return r;
    const next: Record<string, NameBucket> = {};
    const parts: NameBucket[] = [];
    for (const [n, b] of Object.entries(by)) {
      if (past.has(n)) parts.push(b);
      else next[n] = b;
    }
    next[row] = mergeNameBuckets(parts);
    return { ...r, byName: next };
  });
  return { records: out, folded: { count: past.size, row, examples: [...past].slice(0, EXAMPLES) } };
}
