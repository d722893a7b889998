/**
 * The SQL guard of reset hooks: a reset may touch only the tables it lists, and the destructive
 * verbs (DELETE, TRUNCATE) run only on a database whose name matches the configured pattern, so a
 * reset pointed at production by mistake refuses instead of wiping it.
 */

export interface SqlGuard {
  tables: string[];
  /** A regular expression the database name must match for DELETE/TRUNCATE. */
  databasePattern: string;
}

const ALLOWED_VERBS = new Set(['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE', 'REPLACE', 'WITH']);
const DESTRUCTIVE = new Set(['DELETE', 'TRUNCATE']);
/** Table names follow these keywords in the statements a reset uses. */
const TABLE_REF = /\b(?:FROM|INTO|UPDATE|JOIN|TABLE|TRUNCATE)\s+((?:[`"[]?[\w$]+[`"\]]?\.)?[`"[]?[\w$]+[`"\]]?)/gi;

/** Returns every problem with the statements (empty when all may run). */
export function guardProblems(statements: string[], guard: SqlGuard, databaseName: string): string[] {
  const allowed = new Set(guard.tables.map((t) => t.toLowerCase()));
  const problems: string[] = [];
  statements.forEach((sql, i) => {
    const text = stripComments(sql).trim();
    const verb = (text.match(/^\w+/)?.[0] ?? '').toUpperCase();
    const where = `statement ${i + 1} (${text.slice(0, 60)})`;
    if (!ALLOWED_VERBS.has(verb)) {
      problems.push(
        `${where}: ${verb || 'an empty statement'} is not allowed in a reset (only ${[...ALLOWED_VERBS].join(', ')})`,
      );
      return;
    }
    for (const t of tablesOf(text)) {
      if (!allowed.has(t))
        problems.push(`${where}: table "${t}" is not in reset guard.tables [${guard.tables.join(', ')}]`);
    }
    if (DESTRUCTIVE.has(verb) && !new RegExp(guard.databasePattern).test(databaseName)) {
      problems.push(
        `${where}: ${verb} refused: database "${databaseName}" does not match guard.databasePattern /${guard.databasePattern}/`,
      );
    }
  });
  return problems;
}

export function tablesOf(sql: string): string[] {
  const out = new Set<string>();
  for (const m of sql.matchAll(TABLE_REF)) {
    const name = m[1]
      .replace(/[`"[\]]/g, '')
      .split('.')
      .pop()!
      .toLowerCase();
    if (!['select', 'set', 'where', 'values'].includes(name)) out.add(name);
  }
  return [...out];
}

function stripComments(sql: string): string {
  return sql.replace(/--[^\n]*/g, '').replace(/\/\*[\s\S]*?\*\//g, '');
}
