/**
 * How the guard (sql-guard.ts) reads a statement: as each kind of database would (readings), and
 * the tables it names (tablesOf). Read from tokens, not a
 * regular expression on the text, because a guard that sees only the first table of a list lets
 * the rest through: `TRUNCATE orders, customers`, MySQL's `DELETE o, c FROM orders o, customers c`.
 * A qualified name is kept whole (`prod.orders`): in MySQL its qualifier is another database, which
 * the guard's databasePattern never saw.
 *
 * Not a SQL parser: where it cannot tell, it reports a name (a refusal the user can read) rather
 * than miss one.
 */

type Tok = { name: string } | { punct: string };

/** Keywords a table name follows: each starts a list of tables (`FROM a, b`). */
const TABLE_KEYWORDS = new Set(['from', 'join', 'update', 'into', 'table', 'truncate', 'using']);
/** Words that may stand before a table in a list and are not one (PostgreSQL's ONLY, LATERAL). */
const PREFIXES = new Set(['only', 'lateral']);
/** Words that end a table reference rather than alias it. */
const NOT_ALIAS = new Set(
  (
    'where set values select on using join inner left right full outer cross natural group order limit having ' +
    'returning restart continue cascade restrict union except intersect window for partition default offset ' +
    'fetch straight_join use force ignore tablesample between regions by with as into from only table when ' +
    'then else end and or not is null in exists identity duplicate low_priority quick delayed high_priority ' +
    'lock share nowait skip of do nothing conflict add drop alter modify change rename'
  ).split(' '),
);

/** Every table the statement names, lower-case, qualified as written (`public.orders`), quotes removed. */
export function tablesOf(sql: string): string[] {
  return [...new Set(readings(sql).flatMap((text) => tablesIn(tokens(text))))];
}

function tablesIn(toks: Tok[]): string[] {
  const out: string[] = [];
  const ctes = cteNames(toks);
  toks.forEach((t, i) => {
    if (!('name' in t && TABLE_KEYWORDS.has(t.name))) return;
    const found: string[] = [];
    readList(toks, i + 1, t.name, found);
    // a WITH query's name read from is no table; a statement's target is always one (PostgreSQL's
    // `WITH customers AS (...) DELETE FROM customers` deletes from the table)
    const prev = toks[i - 1];
    const reads = ['from', 'join', 'using'].includes(t.name) && !(prev && 'name' in prev && prev.name === 'delete');
    out.push(...found.filter((name) => !(reads && ctes.has(name))));
  });
  return out;
}

/** The names a WITH defines: `name AS (` or `name (a, b) AS (`. */
function cteNames(toks: Tok[]): Set<string> {
  const out = new Set<string>();
  toks.forEach((t, i) => {
    if (!('name' in t) || NOT_ALIAS.has(t.name)) return;
    const j = isPunct(toks[i + 1], '(') ? afterParens(toks, i + 1) : i + 1;
    const as = toks[j];
    if (as && 'name' in as && as.name === 'as' && isPunct(toks[j + 1], '(')) out.add(t.name);
  });
  return out;
}

/** Reads `a [AS] x, b, (subquery) s, f(1) g` from `p`, adding the tables to `out`. */
function readList(toks: Tok[], start: number, keyword: string, out: string[]): void {
  let p = start;
  for (;;) {
    const t = toks[p];
    if (!t) return;
    if ('punct' in t) {
      if (t.punct !== '(') return;
      p = afterParens(toks, p); // a subquery: its own FROM is read on its own
    } else {
      if (PREFIXES.has(t.name)) {
        p++;
        continue;
      }
      // TRUNCATE TABLE t, DELETE FROM t: the next keyword reads the list
      if (TABLE_KEYWORDS.has(t.name) || NOT_ALIAS.has(t.name)) return;
      const call = isPunct(toks[p + 1], '(');
      // FROM generate_series(1, 90): a table function, not a table (INTO t (a, b) is a table)
      if (!(call && (keyword === 'from' || keyword === 'join' || keyword === 'using'))) out.push(t.name);
      p = call ? afterParens(toks, p + 1) : p + 1;
    }
    const next = toks[p];
    if (next && 'name' in next && next.name === 'as') p += 2;
    else if (next && 'name' in next && !NOT_ALIAS.has(next.name) && !TABLE_KEYWORDS.has(next.name)) p++;
    if (!isPunct(toks[p], ',')) return;
    p++;
  }
}

function isPunct(t: Tok | undefined, c: string): boolean {
  return t !== undefined && 'punct' in t && t.punct === c;
}

/** The index after the parenthesis that closes the one at `p`. */
function afterParens(toks: Tok[], p: number): number {
  let depth = 0;
  for (let i = p; i < toks.length; i++) {
    if (isPunct(toks[i], '(')) depth++;
    else if (isPunct(toks[i], ')') && --depth === 0) return i + 1;
  }
  return toks.length;
}

const WORD = /[\w$]/;

/** Names (qualified ones joined by "."; a number is one too, harmlessly) and punctuation of a reading. */
function tokens(sql: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  // a part of a name: a word, or a quoted identifier ("a b", `a`, [a])
  const part = (): string | null => {
    const c = sql[i];
    const close = c === '"' ? '"' : c === '`' ? '`' : c === '[' ? ']' : null;
    if (close) {
      const end = sql.indexOf(close, i + 1);
      const stop = end < 0 ? sql.length : end;
      const text = sql.slice(i + 1, stop);
      i = stop + 1;
      return text;
    }
    let j = i;
    while (j < sql.length && WORD.test(sql[j])) j++;
    if (j === i) return null;
    const text = sql.slice(i, j);
    i = j;
    return text;
  };
  while (i < sql.length) {
    const c = sql[i];
    if (/\s/.test(c)) i++;
    else if (c === "'")
      i++; // strings are blank in a reading ('')
    else if (WORD.test(c) || c === '"' || c === '`' || c === '[') {
      const parts = [part()!];
      while (sql[i] === '.' && i + 1 < sql.length && /[\w$"`[]/.test(sql[i + 1])) {
        i++;
        parts.push(part() ?? '');
      }
      out.push({ name: parts.join('.').toLowerCase() });
    } else {
      out.push({ punct: c });
      i++;
    }
  }
  return out;
}

/**
 * The statement as each kind of database reads it, strings and comments blanked out (a string
 * becomes '', so that a ";" or "--" inside one is no statement or comment): MySQL's (a backslash
 * escapes in a string, "--" starts a comment only before a space, so does "#", `/*! ... *\/` is
 * run, not a comment) and standard SQL's (no backslash escapes, PostgreSQL's $tag$ strings). A name the
 * database sees, or a statement it runs, is in the reading of its kind.
 */
export function readings(sql: string): string[] {
  return [blankOut(sql, true), blankOut(sql, false)];
}

function blankOut(sql: string, mysql: boolean): string {
  let out = '';
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    const rest = sql.slice(i);
    const executable = mysql ? /^\/\*M?!\d*/.exec(rest) : null;
    const dollar = !mysql ? /^\$(?:[A-Za-z_][\w]*)?\$/.exec(rest) : null;
    if (executable) {
      // MySQL runs the body of /*! ... */: keep it, less the marks
      out += ' ';
      i += executable[0].length;
    } else if (mysql && rest.startsWith('*/')) {
      out += ' ';
      i += 2;
    } else if ((rest.startsWith('--') && (!mysql || /^--(\s|$)/.test(rest))) || (mysql && c === '#')) {
      const end = sql.indexOf('\n', i);
      out += ' ';
      i = end < 0 ? sql.length : end;
    } else if (rest.startsWith('/*')) {
      const end = sql.indexOf('*/', i + 2);
      out += ' ';
      i = end < 0 ? sql.length : end + 2;
    } else if (dollar && (i === 0 || !/[\w$]/.test(sql[i - 1]))) {
      const end = sql.indexOf(dollar[0], i + dollar[0].length);
      out += "''";
      i = end < 0 ? sql.length : end + dollar[0].length;
    } else if (c === '"' || c === '`') {
      // a quoted name (MySQL: "..." may be a string) is kept as written: the tables are read from it
      const end = closingQuote(sql, i, mysql && c === '"');
      out += sql.slice(i, end + 1);
      i = end + 1;
    } else if (c === "'") {
      out += "''";
      i = closingQuote(sql, i, mysql) + 1;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** Where the quote opened at `i` closes (a doubled quote is one inside), or the end of the text. */
function closingQuote(sql: string, i: number, backslashEscapes: boolean): number {
  const q = sql[i];
  let j = i + 1;
  for (; j < sql.length; j++) {
    if (sql[j] === '\\' && backslashEscapes) j++;
    else if (sql[j] === q) {
      if (sql[j + 1] !== q) break;
      j++;
    }
  }
  return j;
}
