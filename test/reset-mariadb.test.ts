/**
 * SQL reset hooks and a distribution probe over the MySQL protocol, against a real MariaDB
 * (Debian's mariadb-server, started on 127.0.0.1 for this file: test/helpers/databases.ts): MySQL
 * commits TRUNCATE implicitly, so the reset says which statements ran outside a transaction and a
 * failure part-way names what ran. Then a short run against the demo with both: the report shows
 * the reset's row counts and the before and after readings.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemo, type DemoHandle } from '../demo/server.ts';
import { parseConfigOrThrow } from '../harness/config/validate.ts';
import { reset } from '../harness/pipeline/reset.ts';
import { readAfter, readBefore } from '../harness/probes/distribution.ts';
import { judgeDistribution } from '../analysis/distribution.ts';
import type { DistributionRecord } from '../analysis/types.ts';
import { PlateauError } from '../harness/errors.ts';
import { findMariadb, startMariadb, type DbServer } from './helpers/databases.ts';
import { DEMO_SCENARIO, runQuietly, tempRunsDir } from './helpers/pipeline.ts';

const BINS = findMariadb();
const SKIP = BINS ? '' : ' (skipped: MariaDB not installed; make test installs it)';
const KEY = `reset-mariadb-key-${process.pid}`;
let db: DbServer;
let demo: DemoHandle;
const runsDir = tempRunsDir();

beforeAll(async () => {
  if (!BINS) return;
  [db, demo] = await Promise.all([startMariadb(BINS), startDemo({ slots: 4, holdMs: 2, hmacKey: KEY })]);
  await db.query(
    "CREATE TABLE orders (id int NOT NULL, region char(1) NOT NULL, PRIMARY KEY (id, region)) PARTITION BY LIST COLUMNS (region) (PARTITION pa VALUES IN ('a'), PARTITION pb VALUES IN ('b'), PARTITION pc VALUES IN ('c'))",
  );
  await db.query('CREATE TABLE accounts (id int PRIMARY KEY, balance int NOT NULL)');
}, 60_000);
afterAll(async () => {
  await Promise.all([db?.stop(), demo?.close()]);
  fs.rmSync(runsDir, { recursive: true, force: true });
});

const env = () => ({ ...process.env, PLATEAU_DEMO_HMAC_KEY: KEY, RESET_DATABASE_URL: db.url() });
/**
 * Rows per partition (docs/distribution.md, MySQL), counted exactly: InnoDB's TABLE_ROWS, an
 * estimate, read pa 29 for 30 rows just inserted in a fresh-clone CI (12-05).
 */
const PARTITION_ROWS =
  "SELECT 'pa', COUNT(*) FROM orders PARTITION (pa) UNION ALL SELECT 'pb', COUNT(*) FROM orders PARTITION (pb) UNION ALL SELECT 'pc', COUNT(*) FROM orders PARTITION (pc)";
const evenRows = Array.from({ length: 90 }, (_, i) => `(${i}, '${'abc'[i % 3]}')`).join(', ');
const RESTORE = ['TRUNCATE orders', `INSERT INTO orders VALUES ${evenRows}`, 'UPDATE accounts SET balance = 100'];
const hook = (statements = RESTORE, guard: Record<string, unknown> = {}) => ({
  kind: 'sql',
  driver: 'mysql',
  urlEnv: 'RESET_DATABASE_URL',
  statements,
  guard: { tables: ['orders', 'accounts'], databasePattern: '^plateau_test$', ...guard },
});
const config = (runId: string, extra: Record<string, unknown> = {}) => ({
  workers: 1,
  target: { url: `${demo.url}/orders`, rttPath: '/ping' },
  scenario: DEMO_SCENARIO,
  steps: { startPerSec: 20, stepPerSec: 20, maxPerSec: 40, rampS: 0, holdS: 3, settleS: 1 },
  warmup: { enabled: false },
  rtt: { samples: 3 },
  output: { dir: runsDir, runId },
  ...extra,
});
const seed = async () => {
  await db.query('DELETE FROM orders');
  await db.query("INSERT INTO orders VALUES (1, 'a'), (2, 'b')");
  await db.query('DELETE FROM accounts');
  await db.query('INSERT INTO accounts VALUES (1, 1), (2, 2), (3, 3), (4, 4), (5, 5)');
};
const count = async (table: string) => Number((await db.query(`SELECT COUNT(*) FROM ${table}`))[0][0]);

describe.skipIf(!BINS)(`SQL reset on MariaDB${SKIP}`, () => {
  it('a guarded TRUNCATE (outside a transaction: an implicit commit) and an UPDATE restore the rows, with counts', async () => {
    await seed();
    const out = await reset(parseConfigOrThrow(config('x', { reset: { hooks: [hook()] } })), env());
    expect(out.evidence[0]).toBe(
      `sql on plateau_test (mysql at 127.0.0.1:${db.port}/plateau_test): rows before orders=2, accounts=5; after orders=90, accounts=5; statement 1 ran outside a transaction (MySQL commits TRUNCATE and DDL implicitly), statements 2, 3 in one transaction`,
    );
    expect(await db.query('SELECT DISTINCT balance FROM accounts')).toEqual([[100]]);
  });

  it('a refused guard runs nothing: the rows are still there', async () => {
    await seed();
    const refused = hook(['TRUNCATE orders', 'UPDATE users SET x = 1'], { databasePattern: '^staging-' });
    const err = await reset(parseConfigOrThrow(config('x', { reset: { hooks: [refused] } })), env()).catch((e) => e);
    expect(err.message).toMatch(/^reset hook 1 \(sql, mysql\): the SQL reset was refused by its guard \(nothing ran\)/);
    expect(err.message).toContain('TRUNCATE refused: database "plateau_test" does not match guard.databasePattern');
    expect(err.message).toContain('table "users" is not in reset guard.tables');
    expect(await count('orders')).toBe(2);
  });

  it('a failure part-way names what was applied (committed), what was rolled back and what did not run', async () => {
    await seed();
    const statements = [
      'UPDATE accounts SET balance = 7',
      'TRUNCATE orders',
      "INSERT INTO orders VALUES (9, 'c')",
      'UPDATE accounts SET nope = 1',
      'UPDATE accounts SET balance = 8',
    ];
    const err = await reset(parseConfigOrThrow(config('x', { reset: { hooks: [hook(statements)] } })), env()).catch(
      (e) => e,
    );
    expect(err.message).toBe(
      "reset hook 1 (sql, mysql): statement 4 (UPDATE accounts SET nope = 1) failed: Unknown column 'nope' in 'SET'; applied and committed before it: 1 (UPDATE accounts SET balance = 7), 2 (TRUNCATE orders) (2 outside a transaction: MySQL commits TRUNCATE and DDL implicitly): the data is part-way reset; rolled back: 3; not run: 5",
    );
    expect(err.hint).toMatch(/the statements applied have already changed the data$/);
    // as the message says: 1 and 2 applied, 3 rolled back, 5 never ran
    expect(await db.query('SELECT DISTINCT balance FROM accounts')).toEqual([[7]]);
    expect(await count('orders')).toBe(0);
  });

  it('a deadline part-way names what was committed and the statement that may have completed', async () => {
    await seed();
    // another session's open transaction on orders: the TRUNCATE waits for its metadata lock
    const mysql = await import('mysql2/promise');
    const holder = await mysql.createConnection({ uri: db.url() });
    try {
      await holder.beginTransaction();
      await holder.query('SELECT * FROM orders');
      const slow = {
        ...hook(['UPDATE accounts SET balance = 9', 'TRUNCATE orders', 'UPDATE accounts SET balance = 10']),
        timeoutS: 3,
      };
      const err = await reset(parseConfigOrThrow(config('x', { reset: { hooks: [slow] } })), env()).catch((e) => e);
      expect(err.message).toBe(
        `reset hook 1 (sql, mysql): 127.0.0.1:${db.port}/plateau_test gave no answer within 3 s while running the reset; applied and committed before it: 1 (UPDATE accounts SET balance = 9): the data is part-way reset; statement 2 (TRUNCATE orders) was running outside a transaction: it may have completed on the server; not run: 3`,
      );
    } finally {
      await holder.rollback();
      await holder.end();
    }
    expect(await db.query('SELECT DISTINCT balance FROM accounts')).toEqual([[9]]);
  });

  it('a wrong password fails before any load; the password appears nowhere in the run directory or the output', async () => {
    const wrong = `wrong-${db.password}`;
    const r = await runQuietly(config('mariadb-wrong-password', { reset: { hooks: [hook()] } }), {
      env: { ...env(), RESET_DATABASE_URL: db.url(wrong) },
    });
    expect(r.exitCode).toBe(3);
    expect(r.error?.message).toMatch(
      new RegExp(
        `^reset hook 1 \\(sql, mysql\\): the MySQL-protocol server at 127\\.0\\.0\\.1:${db.port} refused the login of user "plateau" \\(Access denied`,
      ),
    );
    expect(r.result.stages.map((s) => [s.name, s.status])).toEqual([
      ['preflight', 'pass'],
      ['reset', 'fail'],
    ]);
    const written = fs.readdirSync(r.dir).map((f) => fs.readFileSync(path.join(r.dir, f), 'utf8'));
    for (const text of [...written, r.lines.join('\n'), r.error!.message, r.error!.hint]) {
      for (const secret of [wrong, encodeURIComponent(wrong), db.password, encodeURIComponent(db.password)])
        expect(text).not.toContain(secret);
    }
  });
});

describe.skipIf(!BINS)(`distribution probes refused on MariaDB${SKIP}`, () => {
  const probe = (query: string) =>
    parseConfigOrThrow(
      config('x', {
        probes: {
          distribution: [{ name: 'leaders', driver: 'mysql', urlEnv: 'RESET_DATABASE_URL', query, expectNodes: 3 }],
        },
      }),
    );
  const refusal = async (query: string) => {
    const err = await readBefore(probe(query), env(), () => {}).then(
      () => null,
      (e: PlateauError) => e,
    );
    expect(err).toBeInstanceOf(PlateauError);
    expect(err!.exitCode).toBe(3);
    for (const text of [err!.message, err!.hint]) expect(text).not.toContain(db.password);
    return err!;
  };

  it('one SELECT that writes (nextval of a sequence) is refused in its read-only session, and the sequence is unmoved', async () => {
    await db.query('CREATE SEQUENCE IF NOT EXISTS probe_seq');
    const err = await refusal("SELECT 'n1', nextval(probe_seq)");
    expect(err.message).toMatch(
      /^distribution probe "leaders" could not be read before the run \(no load was sent\): the query tried to write \(the probe reads in a read-only session\) and failed on 127\.0\.0\.1:\d+\/plateau_test \(ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION\): .*\(fix: give a query that only reads/,
    );
    expect(await db.query('SELECT nextval(probe_seq)')).toEqual([[1]]);
  });

  it('a query that matches no row, or counts only 0s, judges nothing: refused before the run, recorded after it', async () => {
    await seed();
    const none = "SELECT 'pa', COUNT(*) FROM orders WHERE region = 'z' GROUP BY region";
    expect((await refusal(none)).message).toMatch(
      /: the probe read no rows: nothing to judge \(fix: run the query by hand against the same database and check its filters/,
    );
    expect((await refusal(PARTITION_ROWS.replaceAll('COUNT(*)', 'COUNT(*) * 0'))).message).toContain(
      'the probe read only counts of 0 (pa 0, pb 0, pc 0): nothing to judge',
    );
    const after: DistributionRecord[] = [];
    await readAfter(probe(none), env(), (r) => after.push(r));
    expect(after[0]!.problem).toMatch(/^the probe read no rows: nothing to judge/);
    expect(judgeDistribution(after[0]!).verdict).toBeNull();
  });

  it('a query on a table that is not there names the query, not a reset guard', async () => {
    const err = await refusal('SELECT server, COUNT(*) FROM no_such_table GROUP BY server');
    expect(err.message).toMatch(/the query failed on 127\.0\.0\.1:\d+\/plateau_test \(ER_NO_SUCH_TABLE\)/);
    expect(err.message).toMatch(/\(fix: run the query by hand on 127\.0\.0\.1:\d+\/plateau_test as the same user/);
    expect(err.message).not.toContain('guarded');
  });
});

describe.skipIf(!BINS)(`a run against the demo with a MariaDB reset hook and a distribution probe${SKIP}`, () => {
  it('writes a report with the reset counts and the readings before and after: SPREAD, then SKEWED once the rows moved', async () => {
    await seed();
    const runId = 'mariadb-done-when';
    const probe = {
      name: 'partitions',
      driver: 'mysql',
      urlEnv: 'RESET_DATABASE_URL',
      query: PARTITION_ROWS,
      expectNodes: ['pa', 'pb', 'pc'],
    };
    const run = runQuietly(config(runId, { reset: { hooks: [hook()] }, probes: { distribution: [probe] } }), {
      env: env(),
    });
    const runJson = path.join(runsDir, runId, 'run.json');
    await until(() => {
      const meta = fs.existsSync(runJson) ? JSON.parse(fs.readFileSync(runJson, 'utf8')) : null;
      return meta?.stages?.some((s: { name: string }) => s.name === 'reset') === true;
    });
    // the reset restored an even spread; the load runs >= 6 s after it: move the rows into one partition
    await db.query("UPDATE orders SET region = 'a'");
    const r = await run;
    expect(r.exitCode).toBe(0);
    const md = fs.readFileSync(path.join(r.dir, 'report.md'), 'utf8');
    expect(md).toMatch(
      /\| reset \| pass \| .* \| 1 hook restored the standard state; sql on plateau\\_test \(mysql at 127\.0\.0\.1:\d+\/plateau\\_test\): rows before orders=2, accounts=5; after orders=90, accounts=5; statement 1 ran outside a transaction \(MySQL commits TRUNCATE and DDL implicitly\), statements 2, 3 in one transaction; distribution partitions before: SPREAD/,
    );
    expect(md).toMatch(/\| partitions \| before \| SPREAD \| 3 of 3 hold some \| pa 30, pb 30, pc 30 \|/);
    expect(md).toMatch(/\| partitions \| after \| SKEWED \| 1 of 3 hold some \| pa 90, pb 0, pc 0 \|/);
    expect(md).toMatch(
      /- partitions: changed during the run: SPREAD before, SKEWED after; pa 30 -> 90, pb 30 -> 0, pc 30 -> 0/,
    );
    const summary = JSON.parse(fs.readFileSync(path.join(r.dir, 'summary.json'), 'utf8'));
    expect(summary.distribution.map((d: Record<string, unknown>) => [d.when, d.verdict])).toEqual([
      ['before', 'SPREAD'],
      ['after', 'SKEWED'],
    ]);
  });
});

async function until(ok: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
