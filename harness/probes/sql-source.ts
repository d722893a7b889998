/**
 * A distribution probe's SQL source: one read-only query (in a read-only session: PostgreSQL's,
 * MySQL's and MariaDB's; not TiDB's, which has none: mysql-driver.ts) whose rows are (node, count), through the same drivers as the reset hooks
 * (harness/reset/connection.ts): the URL from urlEnv, never printed, errors scrubbed of it.
 */
import { PlateauError, EXIT } from '../errors.ts';
import { openConnection, scrubbed, within } from '../reset/connection.ts';
import { codeOf, READ_ONLY_REFUSED, sessionError } from '../reset/db-errors.ts';
import { isBug } from '../reset/sql-hook.ts';
import type { DistributionProbe } from './probes-schema.ts';

export interface SourceReading {
  from: string;
  counts: Record<string, number>;
}

export async function readSqlCounts(p: DistributionProbe, env: NodeJS.ProcessEnv, who: string): Promise<SourceReading> {
  const startedMs = Date.now();
  const spec = { driver: p.driver!, database: p.database, urlEnv: p.urlEnv, timeoutS: p.timeoutS };
  const { driver, resolved } = await openConnection(spec, env, who, { readOnly: true });
  const from = `${resolved.driver} at ${resolved.where}`;
  try {
    const leftS = Math.max(0.001, p.timeoutS - (Date.now() - startedMs) / 1000);
    const rows = await within(driver.rows(p.query!), p.timeoutS, 'running the query', () => driver.destroy(), leftS);
    return { from, counts: countsOf(rows) };
  } catch (err) {
    if (err instanceof PlateauError)
      throw scrubbed(new PlateauError(`${who}: ${err.message}`, err.hint, err.code, err.exitCode), resolved.scrub);
    if (isBug(err)) throw err;
    const writes = READ_ONLY_REFUSED.has(codeOf(err));
    throw sessionError(err, {
      who,
      resolved,
      phase: writes ? 'the query tried to write (the probe reads in a read-only session) and' : 'the query',
      fix: writes
        ? 'give a query that only reads (no nextval, no SELECT ... INTO, no FOR UPDATE, no function that writes): a probe never changes the data; put changes in reset.hooks'
        : `run the query by hand on ${resolved.where} as the same user: check its tables and columns exist there and that the user may read them (docs/distribution.md has ready queries)`,
    });
  } finally {
    await driver.close();
  }
}

/** Rows of (node, count) as counts per node, rows of one node summed; a row that is not is refused. */
export function countsOf(rows: readonly unknown[][]): Record<string, number> {
  const out: Record<string, number> = {};
  rows.forEach((row, i) => {
    const [node, value] = row;
    const n =
      typeof value === 'number' ? value : typeof value === 'string' || typeof value === 'bigint' ? Number(value) : NaN;
    if (row.length < 2 || node === null || node === undefined || !Number.isFinite(n) || n < 0) {
      throw new PlateauError(
        `row ${i + 1} of the query is (${row.map((v) => JSON.stringify(v) ?? String(v)).join(', ')}), not (node, count): the first column must name the node and the second be a count >= 0`,
        'select the node first and its count second, e.g. SELECT svr_ip, count(*) ... GROUP BY svr_ip (docs/distribution.md)',
        'probe-rows',
        EXIT.preflight,
      );
    }
    const key = String(node);
    out[key] = (out[key] ?? 0) + n;
  });
  return out;
}
