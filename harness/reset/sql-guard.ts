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
/** Table names follow these keywords in the statements a reset uses. */
const TABLE_REF = /\b(FROM|INTO|UPDATE|JOIN|TABLE|TRUNCATE)\s+((?:[`"[]?[\w$]+[`"\]]?\.)?[`"[]?[\w$]+[`"\]]?)/gi;

/** The statement's first word, upper-cased ('' for an empty one). */
export function verbOf(sql: string): string {
  return (stripComments(sql).trim().match(/^\w+/)?.[0] ?? '').toUpperCase();
}

export function isAdmin(sql: string): boolean {
  return ADMIN_VERBS.includes(verbOf(sql));
}

/** Returns every problem with the statements (empty when all may run). */
export function guardProblems(statements: string[], guard: SqlGuard, databaseName: string): string[] {
  const allowed = new Set(guard.tables.map((t) => t.toLowerCase()));
  const problems: string[] = [];
  statements.forEach((sql, i) => {
    const text = stripComments(sql).trim();
    const verb = verbOf(text);
    const where = `statement ${i + 1} (${text.slice(0, 60)})`;
    if (!ALLOWED_VERBS.has(verb)) {
      problems.push(
        `${where}: ${verb || 'an empty statement'} is not allowed in a reset (only ${DATA_VERBS.join(', ')}, and the admin statements ${ADMIN_VERBS.join(', ')})`,
      );
      return;
    }
    if (hasSecondStatement(text)) {
      problems.push(
        `${where}: holds more than one statement (a ";" followed by more SQL): give each statement its own entry in statements, so the guard reads every one`,
      );
      return;
    }
    const tables = tablesOf(text);
    for (const t of tables) {
      if (!allowed.has(t))
        problems.push(
          `${where}: table "${t}" is not in reset guard.tables [${guard.tables.join(', ')}]: add it there if the reset is meant to change it`,
        );
    }
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

export function tablesOf(sql: string): string[] {
  const out = new Set<string>();
  for (const m of sql.matchAll(TABLE_REF)) {
    // FROM generate_series(1, 90): a table function, not a table (INTO t (a, b) is a table)
    const call = /^\s*\(/.test(sql.slice(m.index + m[0].length));
    if (call && /^(FROM|JOIN)$/i.test(m[1])) continue;
    const name = m[2]
      .replace(/[`"[\]]/g, '')
      .split('.')
      .pop()!
      .toLowerCase();
    if (!['select', 'set', 'where', 'values'].includes(name)) out.add(name);
  }
  return [...out];
}

/**
 * Whether SQL follows a ";" outside quotes and comments: `UPDATE t SET a = 1; DROP DATABASE prod`
 * would otherwise pass as an UPDATE of t (SQLite's exec and PostgreSQL's simple query run both).
 * Read both ways a backslash can be taken (MySQL escapes with it, standard SQL does not), so that
 * `'C:\'; DROP ...` is caught whichever database reads it.
 */
export function hasSecondStatement(sql: string): boolean {
  const text = stripComments(sql);
  return secondStatement(text, true) || secondStatement(text, false);
}

function secondStatement(text: string, backslashEscapes: boolean): boolean {
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === '\\' && backslashEscapes) i++;
      else if (c === quote) quote = null;
    } else if (c === "'" || c === '"' || c === '`') quote = c;
    else if (c === ';' && text.slice(i + 1).trim() !== '') return true;
  }
  return false;
}

function stripComments(sql: string): string {
  return sql.replace(/--[^\n]*/g, '').replace(/\/\*[\s\S]*?\*\//g, '');
}
