/**
 * Requests k6 marked expected (the script's responseCallback) that the import counts failed all
 * the same, for their 5xx or 429 status or no answer (output/error-kind.ts shed; decision 078): said, since
 * k6's own http_req_failed leaves them out and reads a lower error rate than the report.
 */
import path from 'node:path';
import { fmtInt } from '../../../analysis/format.ts';

/** The import's note, or null where no such request came. */
export function shedNote(file: string, byStatus: Readonly<Record<string, number>>): string | null {
  const statuses = Object.entries(byStatus).sort((a, b) => b[1] - a[1]);
  const n = statuses.reduce((a, [, k]) => a + k, 0);
  if (n === 0) return null;
  const list = statuses.map(([status, k]) => `${status === '0' ? 'no answer' : status} x ${fmtInt(k)}`).join(', ');
  return `${path.basename(file)}: ${fmtInt(n)} request${n === 1 ? '' : 's'} that k6 counted as expected (the script's responseCallback) got ${list}: counted failed, as a 5xx, a 429 or no answer is a request the service did not serve, and served fast it would read as capacity; k6's http_req_failed leaves ${n === 1 ? 'it' : 'them'} out, so its error rate reads lower than the report's`;
}
