/**
 * SQL reset hooks and distribution probes against a real PostgreSQL (Debian's postgresql, started
 * on 127.0.0.1 for this file: test/helpers/databases.ts), and a short run against the demo with
 * both: the report shows the reset's row counts and the before and after readings.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemo, type DemoHandle } from '../demo/server.ts';
import { parseConfigOrThrow } from '../harness/config/validate.ts';
import { reset } from '../harness/pipeline/reset.ts';
import { readProbe } from '../harness/probes/distribution.ts';
import { judgeDistribution } from '../analysis/distribution.ts';
import { findPostgres, startPostgres, type DbServer } from './helpers/databases.ts';
import { DEMO_SCENARIO, runQuietly, tempRunsDir } from './helpers/pipeline.ts';
import { tinyServer } from './helpers/tiny-server.ts';

const BIN = findPostgres();
const SKIP = BIN ? '' : ' (skipped: PostgreSQL not installed; make test installs it)';
const KEY = `reset-pg-key-${process.pid}`;
let pg: DbServer;
let demo: DemoHandle;
const runsDir = tempRunsDir();

beforeAll(async () => {
  if (!BIN) return;
  [pg, demo] = await Promise.all([startPostgres(BIN), startDemo({ slots: 4, holdMs: 2, hmacKey: KEY })]);
  // orders: partitioned by region, 30 rows a region; accounts: rows every request would rewrite
  await pg.query(`
    CREATE TABLE orders (id int NOT NULL, region text NOT NULL) PARTITION BY LIST (region);
    CREATE TABLE orders_a PARTITION OF orders FOR VALUES IN ('a');
    CREATE TABLE orders_b PARTITION OF orders FOR VALUES IN ('b');
    CREATE TABLE orders_c PARTITION OF orders FOR VALUES IN ('c');
    CREATE TABLE accounts (id int PRIMARY KEY, balance int NOT NULL);
    CREATE TABLE audit (id int);`);
}, 60_000);
afterAll(async () => {
  await Promise.all([pg?.stop(), demo?.close()]);
  fs.rmSync(runsDir, { recursive: true, force: true });
});

const env = () => ({ ...process.env, PLATEAU_DEMO_HMAC_KEY: KEY, RESET_DATABASE_URL: pg.url() });
/** Every partition of orders with its rows, an empty one at 0 (docs/distribution.md, PostgreSQL). */
const PARTITION_ROWS = `SELECT c.relname, count(o.*) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
  LEFT JOIN orders o ON o.tableoid = c.oid WHERE i.inhparent = 'orders'::regclass GROUP BY c.relname`;
/** Restores 30 orders a region and the balances every request would rewrite. */
const RESTORE = [
  'TRUNCATE orders',
  "INSERT INTO orders SELECT g, (ARRAY['a','b','c'])[1 + g % 3] FROM generate_series(1, 90) g",
  'UPDATE accounts SET balance = 100',
];
const hook = (statements = RESTORE, guard: Record<string, unknown> = {}) => ({
  kind: 'sql',
  driver: 'postgres',
  urlEnv: 'RESET_DATABASE_URL',
  statements,
  guard: { tables: ['orders', 'accounts'], databasePattern: '^plateau_test$', ...guard },
});
const probe = { name: 'partitions', driver: 'postgres', urlEnv: 'RESET_DATABASE_URL', query: PARTITION_ROWS };
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
  await pg.query('TRUNCATE orders; INSERT INTO orders VALUES (1, $$a$$), (2, $$b$$)');
  await pg.query('TRUNCATE accounts; INSERT INTO accounts SELECT g, g FROM generate_series(1, 5) g');
};

describe.skipIf(!BIN)(`SQL reset on PostgreSQL${SKIP}`, () => {
  it('a guarded TRUNCATE and an UPDATE restore the rows, with the counts before and after, in one transaction', async () => {
    await seed();
    const out = await reset(parseConfigOrThrow(config('x', { reset: { hooks: [hook()] } })), env());
    expect(out.evidence[0]).toBe(
      `sql on plateau_test (postgres at 127.0.0.1:${pg.port}/plateau_test): rows before orders=2, accounts=5; after orders=90, accounts=5; all 3 statements in one transaction`,
    );
    expect(out.detail).toContain('rows before orders=2, accounts=5; after orders=90, accounts=5');
    expect(await pg.query('SELECT DISTINCT balance FROM accounts')).toEqual([[100]]);
  });

  it('a refused guard runs nothing: the rows are still there', async () => {
    await seed();
    const refused = hook(['TRUNCATE orders', 'DELETE FROM audit'], { databasePattern: '^staging-' });
    const err = await reset(parseConfigOrThrow(config('x', { reset: { hooks: [refused] } })), env()).catch((e) => e);
    expect(err.message).toMatch(
      /^reset hook 1 \(sql, postgres\): the SQL reset was refused by its guard \(nothing ran\)/,
    );
    expect(err.message).toContain(
      'TRUNCATE refused: database "plateau_test" does not match guard.databasePattern /^staging-/',
    );
    expect(err.message).toContain('table "audit" is not in reset guard.tables');
    // each problem with its own fix; the hint says so instead of one fix for all
    expect(err.message).toContain('/^staging-/: point the URL at a database whose name matches');
    expect(err.message).toContain('[orders, accounts]: add it there if the reset is meant to change it');
    expect(err.hint).toMatch(/^each problem above says its fix/);
    expect(err.exitCode).toBe(3);
    expect(await pg.query('SELECT count(*) FROM orders')).toEqual([['2']]);
  });

  it('a failing statement rolls the whole reset back and names it', async () => {
    await seed();
    const err = await reset(
      parseConfigOrThrow(
        config('x', { reset: { hooks: [hook(['TRUNCATE orders', 'UPDATE accounts SET nope = 1'])] } }),
      ),
      env(),
    ).catch((e) => e);
    expect(err.message).toMatch(
      /statement 2 \(UPDATE accounts SET nope = 1\) failed: column "nope" of relation "accounts" does not exist; nothing was applied \(the transaction was rolled back\); rolled back: 1/,
    );
    expect(await pg.query('SELECT count(*) FROM orders')).toEqual([['2']]);
  });

  it('a hook that takes longer than its timeoutS is stopped, and says so', async () => {
    const slow = { ...hook(['SELECT pg_sleep(5)']), timeoutS: 1 };
    const err = await reset(parseConfigOrThrow(config('x', { reset: { hooks: [slow] } })), env()).catch((e) => e);
    expect(err.message).toMatch(
      /^reset hook 1 \(sql, postgres\): (127\.0\.0\.1:\d+\/plateau_test gave no answer within 1 s while running the reset|statement 1 \(SELECT pg_sleep\(5\)\) failed: canceling statement due to statement timeout)/,
    );
    expect(err.exitCode).toBe(3);
  });

  it('a wrong password fails before any load; the password appears nowhere in the run directory or the output', async () => {
    const wrong = `wrong-${pg.password}`;
    const r = await runQuietly(config('pg-wrong-password', { reset: { hooks: [hook()] } }), {
      env: { ...env(), RESET_DATABASE_URL: pg.url(wrong) },
    });
    expect(r.exitCode).toBe(3);
    expect(r.error?.message).toBe(
      `reset hook 1 (sql, postgres): the PostgreSQL server at 127.0.0.1:${pg.port} refused the login of user "plateau" (password authentication failed for user "plateau")`,
    );
    expect(r.error?.hint).toBe(
      'check the user and the password in $RESET_DATABASE_URL (the password is never printed)',
    );
    expect(r.result.stages.map((s) => [s.name, s.status])).toEqual([
      ['preflight', 'pass'],
      ['reset', 'fail'],
    ]);
    expect(r.result.steps.every((s) => s.verdict === 'not-run')).toBe(true);
    const written = fs.readdirSync(r.dir).map((f) => fs.readFileSync(path.join(r.dir, f), 'utf8'));
    for (const text of [...written, r.lines.join('\n'), r.error!.message, r.error!.hint]) {
      for (const secret of [wrong, encodeURIComponent(wrong), pg.password, encodeURIComponent(pg.password)])
        expect(text).not.toContain(secret);
    }
  });
});

describe.skipIf(!BIN)(`distribution on PostgreSQL${SKIP}`, () => {
  it('rows per partition read SPREAD for an even spread, SKEWED once the rows are moved into one partition', async () => {
    await pg.query(
      "TRUNCATE orders; INSERT INTO orders SELECT g, (ARRAY['a','b','c'])[1 + g % 3] FROM generate_series(1, 90) g",
    );
    const p = parseConfigOrThrow(config('x', { probes: { distribution: [probe] } })).probes!.distribution[0];
    const even = judgeDistribution(await readProbe(p, 'before', env(), demo.url));
    expect(even).toMatchObject({ verdict: 'SPREAD', counts: { orders_a: 30, orders_b: 30, orders_c: 30 }, skew: 1 });
    await pg.query("UPDATE orders SET region = 'a' WHERE region = 'b'");
    const moved = judgeDistribution(await readProbe(p, 'after', env(), demo.url));
    expect(moved).toMatchObject({
      verdict: 'SKEWED',
      counts: { orders_a: 60, orders_b: 0, orders_c: 30 },
      missing: ['orders_b'],
    });
  });

  it('a Prometheus gauge per node: summed per node label, only the samples with the given labels', async () => {
    const exporter = await tinyServer((_q, res) =>
      res.end(
        [
          '# TYPE tikv_raftstore_region_count gauge',
          'tikv_raftstore_region_count{instance="tikv-1:20180",type="leader"} 112',
          'tikv_raftstore_region_count{instance="tikv-2:20180",type="leader"} 112',
          'tikv_raftstore_region_count{instance="tikv-3:20180",type="leader"} 102',
          'tikv_raftstore_region_count{instance="tikv-1:20180",type="region"} 326',
        ].join('\n'),
      ),
    );
    try {
      const p = parseConfigOrThrow(
        config('x', {
          probes: {
            distribution: [
              {
                name: 'region leaders',
                source: 'metric',
                url: `${exporter.url}/metrics`,
                series: 'tikv_raftstore_region_count',
                labels: { type: 'leader' },
                nodeLabel: 'instance',
                expectNodes: 3,
              },
            ],
          },
        }),
      ).probes!.distribution[0];
      const r = judgeDistribution(await readProbe(p, 'before', env(), demo.url));
      expect(r).toMatchObject({
        verdict: 'SPREAD',
        counts: { 'tikv-1:20180': 112, 'tikv-2:20180': 112, 'tikv-3:20180': 102 },
      });
      const wrong = judgeDistribution(await readProbe({ ...p, nodeLabel: 'store' }, 'after', env(), demo.url));
      expect(wrong.problem).toMatch(
        /has no label store \(its labels: instance, type\).*fix: set the probe's nodeLabel/,
      );
    } finally {
      await exporter.close();
    }
  });
});

describe.skipIf(!BIN)(`a run against the demo with a PostgreSQL reset hook and a distribution probe${SKIP}`, () => {
  it('writes a report with the reset counts and the readings before and after: SPREAD, then SKEWED once the rows moved', async () => {
    await seed();
    const runId = 'pg-done-when';
    const run = runQuietly(config(runId, { reset: { hooks: [hook()] }, probes: { distribution: [probe] } }), {
      env: env(),
    });
    // once the reset stage restored an even spread, move a partition's rows (the load runs >= 6 s after it)
    const runJson = path.join(runsDir, runId, 'run.json');
    await until(() => {
      const meta = fs.existsSync(runJson) ? JSON.parse(fs.readFileSync(runJson, 'utf8')) : null;
      return meta?.stages?.some((s: { name: string }) => s.name === 'reset') === true;
    });
    await pg.query("UPDATE orders SET region = 'a' WHERE region <> 'a'");
    const r = await run;
    expect(r.exitCode).toBe(0);
    const md = fs.readFileSync(path.join(r.dir, 'report.md'), 'utf8');
    expect(md).toMatch(
      /\| reset \| pass \| .* \| 1 hook restored the standard state; sql on plateau\\_test \(postgres at 127\.0\.0\.1:\d+\/plateau\\_test\): rows before orders=2, accounts=5; after orders=90, accounts=5; all 3 statements in one transaction; distribution partitions before: SPREAD/,
    );
    expect(md).toMatch(
      /\| partitions \| before \| SPREAD \| 3 of 3 hold some \| orders\\_a 30, orders\\_b 30, orders\\_c 30 \|/,
    );
    expect(md).toMatch(
      /\| partitions \| after \| SKEWED \| 1 of 3 hold some \| orders\\_a 90, orders\\_b 0, orders\\_c 0 \|/,
    );
    expect(md).toMatch(
      /- partitions: changed during the run: SPREAD before, SKEWED after; orders\\_a 30 -> 90, orders\\_b 30 -> 0, orders\\_c 30 -> 0/,
    );
    expect(md).toMatch(/- distribution probe partitions read SPREAD before the run and SKEWED after it/);
    const html = fs.readFileSync(path.join(r.dir, 'report.html'), 'utf8');
    expect(html).toContain('<section id="distribution">');
    expect(html).toContain('<a href="#distribution">Data distribution</a>');
    const summary = JSON.parse(fs.readFileSync(path.join(r.dir, 'summary.json'), 'utf8'));
    expect(summary.distribution.map((d: Record<string, unknown>) => [d.name, d.when, d.verdict, d.counts])).toEqual([
      ['partitions', 'before', 'SPREAD', { orders_a: 30, orders_b: 30, orders_c: 30 }],
      ['partitions', 'after', 'SKEWED', { orders_a: 90, orders_b: 0, orders_c: 0 }],
    ]);
    expect(fs.readFileSync(path.join(r.dir, 'run.json'), 'utf8')).not.toContain(pg.password);
  });

  it("require: 'spread' stops a run whose data is SKEWED before any load", async () => {
    await pg.query("UPDATE orders SET region = 'a'");
    const r = await runQuietly(
      config('pg-require-spread', { probes: { distribution: [{ ...probe, require: 'spread' }] } }),
      {
        env: env(),
      },
    );
    expect(r.exitCode).toBe(3);
    expect(r.error?.message).toMatch(
      /^distribution partitions before: SKEWED \(orders_a 90, orders_b 0, orders_c 0; 2 of 3 nodes hold nothing .*; the probe requires 'spread', so no load was sent$/,
    );
    expect(r.result.stages.map((s) => [s.name, s.status])).toEqual([
      ['preflight', 'pass'],
      ['reset', 'fail'],
    ]);
    expect(r.result.distribution?.map((d) => d.verdict)).toEqual(['SKEWED']);
  });

  it('a WITH that deletes, or partitions that hold no row yet, are refused before any load, and nothing was deleted', async () => {
    await pg.query("TRUNCATE orders; INSERT INTO orders VALUES (1, 'a'), (2, 'b')");
    const deleting = {
      ...probe,
      query: 'WITH d AS (DELETE FROM orders RETURNING region) SELECT region, count(*) FROM d GROUP BY region',
    };
    const r = await runQuietly(config('pg-probe-writes', { probes: { distribution: [deleting] } }), { env: env() });
    expect(r.exitCode).toBe(3);
    expect(r.error?.message).toMatch(
      /^distribution probe "partitions" could not be read before the run \(no load was sent\): the query tried to write \(the probe reads in a read-only session\) and failed on .* \(25006\): .* \(fix: give a query that only reads/,
    );
    expect(await pg.query('SELECT count(*) FROM orders')).toEqual([['2']]);
    await pg.query('TRUNCATE orders');
    const empty = await runQuietly(config('pg-probe-empty', { probes: { distribution: [probe] } }), { env: env() });
    expect(empty.exitCode).toBe(3);
    expect(empty.error?.message).toContain(
      'the probe read only counts of 0 (orders_a 0, orders_b 0, orders_c 0): nothing to judge (fix: run the query by hand',
    );
  });
});

async function until(ok: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
