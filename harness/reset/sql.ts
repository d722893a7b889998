/**
 * SQL reset hooks. SqlDriver is the seam for other databases (a MySQL or PostgreSQL driver
 * implements the same four methods); SQLite is built in through better-sqlite3.
 */
import path from 'node:path';
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { PlateauError, EXIT } from '../errors.ts';
import { guardProblems, type SqlGuard } from './sql-guard.ts';

export interface SqlDriver {
  /** The name the guard's databasePattern is matched against. */
  databaseName(): string;
  count(table: string): number;
  run(statements: string[]): void;
  close(): void;
}

export function sqliteDriver(file: string): SqlDriver {
  if (!fs.existsSync(file)) {
    throw new PlateauError(
      `reset database ${file} does not exist`,
      'point reset.hooks[].database at the SQLite file the target uses',
      'reset-db-missing',
      EXIT.stage,
    );
  }
  const db = new Database(file);
  db.pragma('busy_timeout = 5000');
  return {
    databaseName: () => path.basename(file).replace(/\.(sqlite3?|db)$/i, ''),
    count: (table) => (db.prepare(`SELECT COUNT(*) AS n FROM "${table.replace(/"/g, '""')}"`).get() as { n: number }).n,
    run: (statements) =>
      db.transaction(() => {
        for (const s of statements) db.exec(s);
      })(),
    close: () => db.close(),
  };
}

export interface SqlResetResult {
  before: Record<string, number>;
  after: Record<string, number>;
}

/** Checks the guard first (nothing runs when any statement is refused), counts rows around the run. */
export function runSqlReset(driver: SqlDriver, statements: string[], guard: SqlGuard): SqlResetResult {
  const problems = guardProblems(statements, guard, driver.databaseName());
  if (problems.length) {
    throw new PlateauError(
      `the SQL reset was refused by its guard:\n  - ${problems.join('\n  - ')}`,
      'list the tables in reset guard.tables, or run it only against a database whose name matches guard.databasePattern',
      'reset-guard',
      EXIT.stage,
    );
  }
  const countAll = () => Object.fromEntries(guard.tables.map((t) => [t, driver.count(t)]));
  const before = countAll();
  driver.run(statements);
  return { before, after: countAll() };
}
