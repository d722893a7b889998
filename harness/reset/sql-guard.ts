/**
 * The SQL guard of reset hooks: a reset may touch only the tables it lists, and runs only on a
 * database whose name matches the configured pattern, so a reset pointed at production by mistake
 * refuses instead of wiping it: an UPDATE that restores balances overwrites production's as surely
 * as a TRUNCATE empties it (decision 085). The name is the one the server reports for the open
 * connection (current_database(), DATABASE()), never the one written in a URL.
 *
 * Admin statements are the pass-through the reference needed: TiDB's `SPLIT TABLE t BETWEEN ...
 * REGIONS n` (re-split regions that merged back after a topology change) and OceanBase's
 * `ALTER TENANT ... primary_zone` (put the leaders back). Each is refused unless it names a
 * guarded table, or `guard.allowAdmin` is set for a statement that names none.
 */

import { readings, tablesOf } from './sql-text.ts';

export interface SqlGuard {
  tables: string[];
  /** A regular expression the database name must match for any statement to run. */
  databasePattern: string;
  /** Lets admin statements that name no table (ALTER TENANT, ALTER SYSTEM) run. */
  allowAdmin?: boolean;
}

const DATA_VERBS = ['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE', 'REPLACE', 'WITH'];
/** TiDB's SPLIT TABLE, OceanBase's ALTER TENANT / ALTER SYSTEM, ALTER TABLE of a guarded table. */
const ADMIN_VERBS = ['SPLIT', 'ALTER'];
const ALLOWED_VERBS = new Set([...DATA_VERBS, ...ADMIN_VERBS]);

/** The statement's first word, upper-cased ('' for an empty one). */
export function verbOf(sql: string): string {
  return firstWord(readings(sql)[1]);
}

function firstWord(text: string): string {
  return (text.trim().match(/^\w+/)?.[0] ?? '').toUpperCase();
}

export function isAdmin(sql: string): boolean {
  return ADMIN_VERBS.includes(verbOf(sql));
}

/** Returns every problem with the statements (empty when all may run). */
export function guardProblems(statements: string[], guard: SqlGuard, databaseName: string): string[] {
  const allowed = new Set(guard.tables.map((t) => t.replace(/[`"[\]]/g, '').toLowerCase()));
  const problems: string[] = [];
  statements.forEach((sql, i) => {
    const where = `statement ${i + 1} (${sql.replace(/\s+/g, ' ').trim().slice(0, 60)})`;
    const [asMysql, asStandard] = readings(sql);
    const verb = firstWord(asStandard);
    const mysqlVerb = firstWord(asMysql);
    if (mysqlVerb !== verb) {
      problems.push(
        `${where}: reads as ${verb || 'nothing'} in standard SQL but as ${mysqlVerb || 'nothing'} in MySQL (a comment or string the two read differently): write it without such a comment`,
      );
      return;
    }
    if (!ALLOWED_VERBS.has(verb)) {
      problems.push(
        `${where}: ${verb || 'an empty statement'} is not allowed in a reset (only ${DATA_VERBS.join(', ')}, and the admin statements ${ADMIN_VERBS.join(', ')})`,
      );
      return;
    }
    if (hasSecondStatement(sql)) {
      problems.push(
        `${where}: holds more than one statement (a ";" followed by more SQL): give each statement its own entry in statements, so the guard reads every one`,
      );
      return;
    }
    const tables = tablesOf(sql);
    for (const t of tables) {
      if (!allowed.has(t))
        problems.push(
          `${where}: table "${t}" is not in reset guard.tables [${guard.tables.join(', ')}]: add it there if the reset is meant to change it${t.includes('.') ? ' (as written, qualified: its schema, or in MySQL its database, is not necessarily the one the guard checked)' : ''}`,
        );
    }
    if (verb === 'TRUNCATE' && readings(sql).some((r) => /\bCASCADE\b/i.test(r)))
      problems.push(
        `${where}: TRUNCATE ... CASCADE also empties every table whose foreign keys reference these, which the guard cannot see: name each table in the TRUNCATE instead`,
      );
    const admin = ADMIN_VERBS.includes(verb);
    if (admin && tables.length === 0 && !guard.allowAdmin) {
      problems.push(
        `${where}: the admin statement ${verb} names no guarded table: set guard.allowAdmin: true to let it run (it changes the cluster, not only the listed tables)`,
      );
    }
    if (!new RegExp(guard.databasePattern).test(databaseName)) {
      problems.push(
        `${where}: ${verb} refused: database "${databaseName}" does not match guard.databasePattern /${guard.databasePattern}/: point the URL at a database whose name matches (a staging or test one), or widen the pattern only if this database is one`,
      );
    }
  });
  return problems;
}

/**
 * Whether SQL follows a ";" outside quotes and comments: `UPDATE t SET a = 1; DROP DATABASE prod`
 * would otherwise pass as an UPDATE of t (SQLite's exec and PostgreSQL's simple query run both).
 * Read both ways SQL's strings can be taken (readings()), so that `'C:\'; DROP ...` and
 * `SET note = '--'; DROP ...` are caught whichever database reads them.
 */
export function hasSecondStatement(sql: string): boolean {
  return readings(sql).some((text) => /;\s*\S/.test(text));
}
