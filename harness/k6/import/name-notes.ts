/**
 * The names' last word once an import has read the whole file: folded names merged and renamed
 * with their count, no breakdown for a run of one name, and what the user is told about them.
 */
import type { BucketRecord, NameBucket } from '../../../analysis/types.ts';
import { mergeNameBuckets } from '../../../analysis/buckets.ts';
import { FOLDED_NAME, foldedCountOf, foldedNameOf, type NamesSummary } from '../output/names.ts';
import { MAX_NAMES } from '../../scenario/names.ts';

/** Merges a second's rows of names folded late (their family grew past the limit) into its folded row. */
function foldLate(by: Record<string, NameBucket>, late: ReadonlySet<string>): void {
  const parts = Object.keys(by)
    .filter((n) => late.has(n))
    .map((n) => {
      const b = by[n];
      delete by[n];
      return b;
    });
  if (parts.length === 0) return;
  if (Object.hasOwn(by, FOLDED_NAME)) parts.push(by[FOLDED_NAME]);
  by[FOLDED_NAME] = mergeNameBuckets(parts);
}

/**
 * The names' last word, once the whole file is read (records are changed in place): one name (of
 * the steps: `outsideOnly` names only requests outside any scenario have are not counted) and no
 * transaction means no breakdown (the step's figures are that name's); folded names get their
 * count in their row's name; and the user is told what was folded and how to name requests.
 */
export function nameNotes(records: BucketRecord[], names: NamesSummary, outsideOnly = 0): string[] {
  const anyFolded = names.folded > 0 || names.foldedMore;
  // names only requests outside any scenario have (outside-note.ts) are in no step: no breakdown for them
  const keys = names.kept.length + (anyFolded ? 1 : 0) - outsideOnly;
  const transactions = records.some((r) => r.byName && Object.values(r.byName).some((n) => n.transaction));
  const single = keys <= 1 && !transactions;
  const folded = foldedNameOf(names);
  const late = new Set(names.foldedLate);
  for (const r of records) {
    const by = r.byName;
    if (by && late.size > 0) foldLate(by, late);
    if (single) delete r.byName;
    else if (by && Object.hasOwn(by, FOLDED_NAME)) {
      const bucket = by[FOLDED_NAME];
      delete by[FOLDED_NAME];
      Object.defineProperty(by, folded, { value: bucket, enumerable: true, writable: true, configurable: true });
    }
  }
  if (!anyFolded) return [];
  const why = `e.g. ${names.examples[0]}`;
  return [
    single
      ? `no breakdown by name: the requests' ${foldedCountOf(names)} look built from data (${why})`
      : `${foldedCountOf(names)} folded into one row, "${folded}", rather than one row each (${why})`,
    `fix: give each request a fixed name, as k6's docs recommend for grouping URLs: http.get(\`\${base}/orders/\${id}\`, { tags: { name: 'read order' } }) (or the http.url\`...\` template); at most ${MAX_NAMES} names per run`,
  ];
}
