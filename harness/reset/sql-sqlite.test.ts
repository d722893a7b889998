/**
 * The SQLite reset driver on a real file: its statements run in one transaction, a failure names
 * the statement and what was rolled back, also when SQLite rolled the transaction back itself, and
 * it waits for a writer holding the file instead of failing at once, as the demo's store does.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import Database from 'libsql';
import { afterEach, describe, expect, it } from 'vitest';
import { runSqlReset, sqliteDriver } from './sql.ts';
import { DemoDb } from '../../demo/db.ts';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) fs.rmSync(dirs.pop()!, { recursive: true, force: true });
});

/** A file `shop.db` with t(id) holding 1, 2 and 3. */
function shop(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plateau-sqlite-'));
  dirs.push(dir);
  const file = path.join(dir, 'shop.db');
  const db = new Database(file);
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY); INSERT INTO t VALUES (1), (2), (3);');
  db.close();
  return file;
}

const guard = { tables: ['t'], databasePattern: '^shop$' };

async function reset(file: string, statements: string[]) {
  const driver = sqliteDriver(file);
  try {
    return await runSqlReset(driver, statements, guard);
  } finally {
    await driver.close();
  }
}

describe('the SQLite reset driver', () => {
  it('runs the statements in one transaction, with the row counts around it', async () => {
    const r = await reset(shop(), ['DELETE FROM t WHERE id > 1', 'INSERT INTO t VALUES (4)']);
    expect(r).toMatchObject({ before: { t: 3 }, after: { t: 2 }, inTransaction: [1, 2], transactions: 1 });
  });

  it('names the failed statement and what was rolled back, also when SQLite rolled the transaction back itself', async () => {
    for (const conflict of ['INSERT INTO t VALUES (1)', 'INSERT OR ROLLBACK INTO t VALUES (1)']) {
      const file = shop();
      await expect(reset(file, ['DELETE FROM t WHERE id = 2', conflict]), conflict).rejects.toThrow(
        /^statement 2 \(INSERT .*\) failed: UNIQUE constraint failed: t\.id; nothing was applied \(the transaction was rolled back\); rolled back: 1$/,
      );
      const db = new Database(file);
      expect((db.prepare('SELECT COUNT(*) AS n FROM t').get() as { n: number }).n, conflict).toBe(3);
      db.close();
    }
  });

  it('waits for a writer that holds the file, as SQLite does with a busy timeout', async () => {
    const file = shop();
    const holder = await holdWrite(file, 300);
    const r = await reset(file, ['DELETE FROM t']);
    expect(r.after).toEqual({ t: 0 });
    await holder.terminate();
  });

  it("the demo's store waits for such a writer too, where a write would otherwise be a 500", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plateau-sqlite-'));
    dirs.push(dir);
    const file = path.join(dir, 'demo.db');
    new DemoDb(file, 10, 50).close();
    const holder = await holdWrite(file, 300);
    const demo = new DemoDb(file, 10, 50);
    try {
      expect(demo.reset().after).toMatchObject({ accounts: 10, idempotency: 0 });
    } finally {
      demo.close();
      await holder.terminate();
    }
  });
});

/** Another connection (a thread: its own SQLite handle) holding a write transaction on `file` for `ms`. */
async function holdWrite(file: string, ms: number): Promise<Worker> {
  const holder = new Worker(
    `const D = require(${JSON.stringify(createRequire(import.meta.url).resolve('libsql'))});
     const db = new D(${JSON.stringify(file)});
     db.exec('BEGIN IMMEDIATE');
     require('node:worker_threads').parentPort.postMessage('held');
     Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ${ms});
     db.exec('COMMIT');
     db.close();`,
    { eval: true },
  );
  await new Promise((r) => holder.once('message', r));
  return holder;
}
