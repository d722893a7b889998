/**
 * SQL reset hooks. SqlDriver is the seam between the guarded reset and a database: SQLite built in
 * through libsql (here; decision 042), PostgreSQL through `pg` (pg-driver.ts), the MySQL protocol
 * (MySQL, MariaDB, TiDB, OceanBase) through `mysql2` (mysql-driver.ts); connection.ts opens them.
 *
 * The statements run in one transaction where the database allows it. MySQL commits TRUNCATE and
 * DDL implicitly, so there a statement that does runs alone, outside any transaction, and the
 * statements between such ones share a transaction: the result says which ran outside, and a
 * failure part-way names what was applied, what was rolled back and what did not run.
 */
import path from 'node:path';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type LibsqlDatabase from 'libsql';
import { PlateauError, EXIT } from '../errors.ts';
import { guardProblems, type SqlGuard } from './sql-guard.ts';

export type SqlDriverKind = 'sqlite' | 'postgres' | 'mysql';

export interface SqlDriver {
  readonly kind: SqlDriverKind;
  /** Where it is connected, never with credentials: the SQLite file, or host:port/database. */
  readonly where: string;
  /** The name the guard's databasePattern is matched against: the one the server reports for this connection. */
  databaseName(): Promise<string>;
  count(table: string): Promise<number>;
  /** Runs the statements in one transaction (all or none); a failure is a StatementError. */
  run(statements: string[]): Promise<void>;
  /** Runs one statement on its own, outside any transaction; a failure is a StatementError. */
  runAlone(statement: string): Promise<void>;
  /** Whether the database commits this statement implicitly, so that no transaction can hold it. */
  commitsImplicitly(statement: string): boolean;
  /** A read-only query's rows, each as the array of its columns (a probe's node and count). */
  rows(sql: string): Promise<unknown[][]>;
  close(): Promise<void>;
  /** Drops the connection at once (a timeout): the server rolls back an open transaction. */
  destroy(): void;
}

/** A statement of a batch failed; `index` is its place in the batch, or 'commit' when the COMMIT itself failed. */
export class StatementError extends Error {
  constructor(
    readonly index: number | 'commit',
    readonly original: unknown,
  ) {
    super((original as Error)?.message ?? String(original));
  }
}

export function sqliteDriver(file: string): SqlDriver {
  if (!fs.existsSync(file)) {
    throw new PlateauError(
      `reset database ${file} does not exist`,
      'point reset.hooks[].database at the SQLite file the target uses',
      'reset-db-missing',
      EXIT.preflight,
    );
  }
  // loaded here, not at the top: its native library would cost every command's start 30 to 40 ms
  const Database = createRequire(import.meta.url)('libsql') as typeof LibsqlDatabase;
  // waits up to 5 s for a writer holding the file (the target itself), as SQLite's busy timeout
  const db = new Database(file, { timeout: 5000 });
  const exec = (s: string, index: number | 'commit') => {
    try {
      db.exec(s);
    } catch (err) {
      throw new StatementError(index, err);
    }
  };
  return {
    kind: 'sqlite',
    where: file,
    databaseName: async () => path.basename(file).replace(/\.(sqlite3?|db)$/i, ''),
    count: async (table) =>
      (db.prepare(`SELECT COUNT(*) AS n FROM ${quoteIdent('sqlite', table)}`).get() as { n: number }).n,
    run: async (statements) => {
      db.exec('BEGIN');
      try {
        statements.forEach((s, i) => exec(s, i));
        exec('COMMIT', 'commit');
      } catch (err) {
        // SQLite may have rolled back already (INSERT OR ROLLBACK, a full disk): a ROLLBACK then
        // fails, and its error would hide the statement's (libsql's transaction() does that)
        if (db.inTransaction) db.exec('ROLLBACK');
        throw err;
      }
    },
    runAlone: async (statement) => exec(statement, 0),
    commitsImplicitly: () => false,
    rows: async (sql) => db.prepare(sql).raw().all() as unknown[][],
    close: async () => {
      db.close();
    },
    destroy: () => {
      db.close();
    },
  };
}

/** A table name as an identifier of the driver's SQL: "public"."orders", `shop`.`orders`. */
export function quoteIdent(kind: SqlDriverKind, name: string): string {
  const q = kind === 'mysql' ? '`' : '"';
  return name
    .split('.')
    .map((part) => `${q}${part.split(q).join(q + q)}${q}`)
    .join('.');
}

export interface SqlResetResult {
  /** The name the server reported for the connection (the guard matched it). */
  database: string;
  before: Record<string, number>;
  after: Record<string, number>;
  /** The 1-based statements that ran outside a transaction (the database commits them implicitly). */
  outside: number[];
  /** The 1-based statements that ran in a transaction. */
  inTransaction: number[];
  /** How many transactions those ran in. */
  transactions: number;
}

/** Statements in the order they run: runs of transactional ones share a transaction, the others run alone. */
export interface Batch {
  /** 0-based indices into the statements. */
  indices: number[];
  transaction: boolean;
}

export function planBatches(statements: readonly string[], commitsImplicitly: (s: string) => boolean): Batch[] {
  const out: Batch[] = [];
  statements.forEach((s, i) => {
    const alone = commitsImplicitly(s);
    const last = out[out.length - 1];
    if (!alone && last?.transaction) last.indices.push(i);
    else out.push({ indices: [i], transaction: !alone });
  });
  return out;
}

/** How far a reset got: what a deadline that drops the connection part-way must name. */
export interface ResetProgress {
  batches: Batch[];
  applied: Batch[];
  /** The batch on the server when the time ran out, if any. */
  running: Batch | null;
}

/**
 * Checks the guard first against the name the server reports (nothing runs when any statement is
 * refused), counts the guarded tables' rows around the run. `progress` is kept up to date for a
 * caller whose deadline may stop the run part-way (atDeadline).
 */
export async function runSqlReset(
  driver: SqlDriver,
  statements: string[],
  guard: SqlGuard,
  progress: ResetProgress = { batches: [], applied: [], running: null },
): Promise<SqlResetResult> {
  const database = await driver.databaseName();
  const problems = guardProblems(statements, guard, database);
  if (problems.length) {
    throw new PlateauError(
      `the SQL reset was refused by its guard (nothing ran):\n  - ${problems.join('\n  - ')}`,
      'each problem above says its fix: the guard keeps a reset from changing a database or tables it was not meant for',
      'reset-guard',
      EXIT.preflight,
    );
  }
  const countAll = async () => {
    const out: Record<string, number> = {};
    for (const t of guard.tables) out[t] = await driver.count(t);
    return out;
  };
  const before = await countAll();
  const batches = planBatches(statements, (s) => driver.commitsImplicitly(s));
  const applied: Batch[] = [];
  Object.assign(progress, { batches, applied });
  for (const b of batches) {
    progress.running = b;
    try {
      if (b.transaction) await driver.run(b.indices.map((i) => statements[i]));
      else await driver.runAlone(statements[b.indices[0]]);
    } catch (err) {
      if (!(err instanceof StatementError)) throw err;
      throw partWay(statements, batches, applied, b, err);
    }
    applied.push(b);
  }
  progress.running = null;
  return {
    database,
    before,
    after: await countAll(),
    outside: batches.filter((b) => !b.transaction).map((b) => b.indices[0] + 1),
    inTransaction: batches.filter((b) => b.transaction).flatMap((b) => b.indices.map((i) => i + 1)),
    transactions: batches.filter((b) => b.transaction).length,
  };
}

/**
 * What a reset stopped by its deadline left ('' when it stopped before any statement): the
 * connection is dropped, so an open transaction is rolled back, but a statement MySQL commits
 * implicitly may have completed on the server, and the batches before it are committed.
 */
export function atDeadline(statements: readonly string[], p: ResetProgress): string {
  if (!p.running) return '';
  const done = p.applied.flatMap((b) => b.indices);
  const running = p.running.indices;
  const notRun = p.batches.slice(p.batches.indexOf(p.running) + 1).flatMap((b) => b.indices);
  const parts = [
    done.length
      ? `applied and committed before it: ${numbers(statements, done)}: the data is part-way reset`
      : p.running.transaction
        ? 'nothing was applied (dropping the connection rolled the transaction back)'
        : '',
    p.running.transaction
      ? done.length
        ? `rolled back: ${running.map((i) => i + 1).join(', ')}`
        : ''
      : `statement ${numbers(statements, running)} was running outside a transaction: it may have completed on the server`,
    notRun.length ? `not run: ${notRun.map((i) => i + 1).join(', ')}` : '',
  ];
  return parts.filter(Boolean).join('; ');
}

/** "1 (TRUNCATE orders)", "2-4": statement numbers for a message. */
function numbers(statements: readonly string[], indices: readonly number[]): string {
  return indices.map((i) => `${i + 1} (${short(statements[i])})`).join(', ');
}

export function short(sql: string): string {
  const one = sql.replace(/\s+/g, ' ').trim();
  return one.length > 60 ? `${one.slice(0, 57)}...` : one;
}

/** The failure of one batch, naming what was applied, what was rolled back and what did not run. */
function partWay(
  statements: readonly string[],
  batches: readonly Batch[],
  applied: readonly Batch[],
  failed: Batch,
  err: StatementError,
): PlateauError {
  const failedAt = err.index === 'commit' ? null : failed.indices[err.index];
  const head =
    failedAt === null
      ? `the COMMIT of statements ${numbers(statements, failed.indices)} failed: ${err.message}`
      : `statement ${failedAt + 1} (${short(statements[failedAt])}) failed: ${err.message}`;
  const doneIdx = applied.flatMap((b) => b.indices);
  // in the failed transaction: those before the failure were rolled back, those after never ran
  const cut = failedAt === null ? failed.indices.length : failed.indices.indexOf(failedAt);
  const rolledBack = failed.transaction ? failed.indices.slice(0, cut) : [];
  const notRun = [
    ...(failedAt === null ? [] : failed.indices.slice(cut + 1)),
    ...batches.slice(batches.indexOf(failed) + 1).flatMap((b) => b.indices),
  ];
  const outsideDone = applied.filter((b) => !b.transaction).map((b) => b.indices[0] + 1);
  const state =
    doneIdx.length === 0
      ? failed.transaction
        ? 'nothing was applied (the transaction was rolled back)'
        : 'nothing was applied'
      : `applied and committed before it: ${numbers(statements, doneIdx)}${outsideDone.length ? ` (${outsideDone.join(', ')} outside a transaction: MySQL commits TRUNCATE and DDL implicitly)` : ''}: the data is part-way reset`;
  const parts = [
    state,
    ...(rolledBack.length ? [`rolled back: ${rolledBack.map((i) => i + 1).join(', ')}`] : []),
    ...(notRun.length ? [`not run: ${notRun.map((i) => i + 1).join(', ')}`] : []),
  ];
  return new PlateauError(
    `${head}; ${parts.join('; ')}`,
    `fix statement ${failedAt === null ? 'the statements named' : failedAt + 1} in reset.hooks[].statements (or the data it expects) and run again${doneIdx.length ? '; the statements applied have already changed the data' : ''}`,
    'reset-sql-statement',
    EXIT.preflight,
  );
}
