/**
 * Requests without k6's `name` tag (k6 run with `--system-tags` that left it out) are in no row of
 * the breakdown by name: a file of such requests alone had no by-name table and nothing said why.
 * Said where it loses something: the requests went to two or more URLs, or their URLs are unknown
 * too (no `url` tag either); requests of one URL would have made a single row, which the import
 * never shows (the step's figures are that name's).
 */
import { fmtInt } from '../../../analysis/format.ts';
import type { IngestResult } from '../output/ingest.ts';

/** Requests without a name lose a breakdown: two or more URLs among them, or URLs unknown too. */
function losesBreakdown(st: IngestResult['stats']): boolean {
  return st.requestsWithoutName > 0 && (st.unnamedUrls.length >= 2 || st.unnamedWithoutUrl > 0);
}

/** The import's notes (the terminal's, and the stage's evidence): what has no name, and the fix. */
export function unnamedNotes(file: string, st: IngestResult['stats']): string[] {
  if (!losesBreakdown(st)) return [];
  const n = st.requestsWithoutName;
  const all = st.requestsCounted;
  const which = n >= all ? `its ${fmtInt(all)} requests carry` : `${fmtInt(n)} of its ${fmtInt(all)} requests carry`;
  const urls =
    st.unnamedUrls.length >= 2
      ? `, though they went to several URLs (${st.unnamedUrls.map((u) => `"${u}"`).join(', ')}, ...)`
      : '';
  return [
    `${file}: ${which} no \`name\` tag (k6 run with --system-tags that left it out?)${urls}: the results are not broken down by name${n < all ? ' for them (they are in no row of the by-name table)' : ''}`,
    "fix: run k6 again with name in --system-tags (k6's default set has it: e.g. --system-tags status,expected_response,method,name,scenario,url,error_code), or give each request a name tag: http.get(url, { tags: { name: 'read order' } })",
  ];
}

/** The clause of the import stage's one line (the report's Stages table). */
export function unnamedClause(st: IngestResult['stats']): string {
  if (!losesBreakdown(st)) return '';
  const what =
    st.requestsWithoutName >= st.requestsCounted
      ? 'no request has a name tag, so results are'
      : `${fmtInt(st.requestsWithoutName)} requests have no name tag, so they are`;
  return `; ${what} not broken down by name: run k6 with name in --system-tags, or tag requests with { tags: { name } }`;
}
