/**
 * One SQL reset hook end to end: open the database (connection.ts), match the guard against the
 * name the server reports, count the guarded tables, run the statements, count again, close. The
 * whole hook is bounded by its timeoutS; every failure names the hook, the host without
 * credentials and the fix, and is scrubbed of the URL and the password.
 */
import { PlateauError } from '../errors.ts';
import type { ResetHook } from '../config/schema.ts';
import { DeadlineError, openConnection, scrubbed, within } from './connection.ts';
import { sessionError } from './db-errors.ts';
import { atDeadline, runSqlReset, type ResetProgress, type SqlResetResult } from './sql.ts';

export type SqlHook = Extract<ResetHook, { kind: 'sql' }>;

export interface SqlHookOutcome {
  /** The database the server reported, or the SQLite file's name. */
  database: string;
  where: string;
  result: SqlResetResult;
  /** One line for the stage's evidence and detail. */
  line: string;
}

export async function runSqlHook(hook: SqlHook, env: NodeJS.ProcessEnv, who: string): Promise<SqlHookOutcome> {
  const spec = { driver: hook.driver, database: hook.database, urlEnv: hook.urlEnv, timeoutS: hook.timeoutS };
  const startedMs = Date.now();
  const { driver, resolved } = await openConnection(spec, env, who);
  const progress: ResetProgress = { batches: [], applied: [], running: null };
  try {
    // what the connect left of the hook's time
    const leftS = Math.max(0.001, hook.timeoutS - (Date.now() - startedMs) / 1000);
    const result = await within(
      runSqlReset(driver, hook.statements, hook.guard, progress),
      hook.timeoutS,
      'running the reset',
      () => driver.destroy(),
      leftS,
    );
    return {
      database: result.database,
      where: resolved.where,
      result,
      line: outcomeLine(hook, result.database, resolved.where, result),
    };
  } catch (err) {
    if (err instanceof PlateauError)
      throw scrubbed(new PlateauError(`${who}: ${err.message}`, err.hint, err.code, err.exitCode), resolved.scrub);
    // a bug of plateau's (a guard pattern that cannot compile, a TypeError) stays one: exit 70 with its stack
    if (isBug(err)) throw err;
    const e = sessionError(err, { who, resolved, phase: phaseOf(err) });
    const left = err instanceof DeadlineError ? atDeadline(hook.statements, progress) : '';
    throw left ? scrubbed(new PlateauError(`${e.message}; ${left}`, e.hint, e.code, e.exitCode), resolved.scrub) : e;
  } finally {
    await driver.close();
  }
}

export function isBug(err: unknown): boolean {
  return (
    err instanceof TypeError || err instanceof SyntaxError || err instanceof RangeError || err instanceof ReferenceError
  );
}

function phaseOf(err: unknown): string {
  const phase = (err as { phase?: unknown })?.phase;
  return typeof phase === 'string' ? phase : 'reading the database name or counting the guarded tables';
}

function counts(c: Record<string, number>): string {
  return Object.entries(c)
    .map(([t, n]) => `${t}=${n}`)
    .join(', ');
}

/** "sql on demo: rows before a=1, b=2; after a=0, b=2; 2 statements in one transaction". */
function outcomeLine(hook: SqlHook, database: string, where: string, r: SqlResetResult): string {
  const on = hook.driver === 'sqlite' ? database : `${database} (${hook.driver} at ${where})`;
  const n = hook.statements.length;
  const list = (xs: number[]) => `statement${xs.length > 1 ? 's' : ''} ${xs.join(', ')}`;
  const inTx = r.inTransaction.length
    ? `${list(r.inTransaction)} in ${r.transactions === 1 ? 'one transaction' : `${r.transactions} transactions`}`
    : '';
  const how =
    r.outside.length === 0
      ? `${n === 1 ? 'the statement' : `all ${n} statements`} in one transaction`
      : [`${list(r.outside)} ran outside a transaction (MySQL commits TRUNCATE and DDL implicitly)`, inTx]
          .filter(Boolean)
          .join(', ');
  return `sql on ${on}: rows before ${counts(r.before)}; after ${counts(r.after)}; ${how}`;
}
