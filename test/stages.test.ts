import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemo, type DemoHandle } from '../demo/server.ts';
import { parseConfigOrThrow } from '../harness/config/validate.ts';
import { reset } from '../harness/pipeline/reset.ts';
import { Interrupt } from '../harness/pipeline/interrupt.ts';
import { runPipeline } from '../harness/pipeline/run.ts';
import { buildPlan } from '../analysis/plan.ts';
import { tinyServer } from './helpers/tiny-server.ts';
import { DEMO_SCENARIO, runQuietly, tempRunsDir } from './helpers/pipeline.ts';
import { renderPlateauTable } from '../reports/table.ts';
import { sampleArrivals } from '../harness/pipeline/sample-arrivals.ts';
import { scenarioRequests } from '../harness/scenario/requests.ts';
import { PlateauError } from '../harness/errors.ts';
import { loadRun } from '../harness/store/run-store.ts';

const KEY = 'stage-test-key-' + process.pid;
const env = { ...process.env, PLATEAU_DEMO_HMAC_KEY: KEY };
let demo: DemoHandle;
const runsDir = tempRunsDir();
let wobbly: ReturnType<typeof wobblyWarmup>;

beforeAll(async () => {
  demo = await startDemo({ slots: 4, holdMs: 2, hmacKey: KEY });
  // From the start, beside the whole file: see wobblyWarmup.
  wobbly = wobblyWarmup();
  wobbly.catch(() => undefined); // its test reports the failure
});
afterAll(async () => {
  await wobbly?.catch(() => undefined);
  await demo.close();
  fs.rmSync(runsDir, { recursive: true, force: true });
});

const base = (runId: string, extra: Record<string, unknown> = {}) => ({
  target: { url: `${demo.url}/orders`, rttPath: '/ping' },
  scenario: DEMO_SCENARIO,
  // One step of 2 s: these tests judge the stages around the steps, not the steps.
  steps: { startPerSec: 40, stepPerSec: 20, maxPerSec: 40, rampS: 0, holdS: 2, settleS: 1 },
  warmup: { enabled: false },
  rtt: { samples: 3 },
  output: { dir: runsDir, runId },
  ...extra,
});

/** The shortest step there is (1 s, no settle), for a test that judges what comes before it, or needs only some writes. */
const SHORTEST = { startPerSec: 40, stepPerSec: 20, maxPerSec: 40, rampS: 0, holdS: 1, settleS: 0 };

async function post(pathname: string): Promise<unknown> {
  return (await fetch(`${demo.url}${pathname}`, { method: 'POST' })).json();
}

describe('preflight', () => {
  it('stops a run whose ids would overflow the id column before any load: the demo saw no write', async () => {
    await post('/admin/reset');
    const r = await runQuietly(base('long-ids', { scenario: path.resolve('test/fixtures/scenarios/long-ids.ts') }), {
      env,
    });
    expect(r.exitCode).toBe(3);
    // the longest is the sample arrival's own id (p0- after the prefix), longer than this short plan's,
    // with the suffix of the given run id's key (11 characters: environment.ts runIds)
    expect(r.error?.message).toMatch(
      /generated ids reach 63 characters \("tenant-0042-customer-order-reference-x-p0-long-ids-[0-9a-z]{10}-0"\); .* allows 50/,
    );
    expect(r.error?.message).toContain(`-p0-${loadRun(r.dir).meta.idKey}-0"`);
    expect(demo.stats().writes).toBe(0);
    const pre = r.result.stages.find((s) => s.name === 'preflight')!;
    expect(pre.status).toBe('fail');
    expect(fs.existsSync(path.join(r.dir, 'report.md'))).toBe(true);
    // the stop reason is the stage's, in every output, and no capacity is claimed
    const summary = JSON.parse(fs.readFileSync(path.join(r.dir, 'summary.json'), 'utf8')) as {
      stopReason: string;
      stopDetail: string;
      capacityPerSec: number | null;
    };
    expect(summary).toMatchObject({ stopReason: 'preflight-failed', capacityPerSec: null });
    expect(summary.stopDetail).toMatch(/^generated ids reach 63 characters/);
    expect(renderPlateauTable(r.result)).toMatch(/^stop {6}preflight failed: generated ids reach 63 characters/m);
    expect(renderPlateauTable(r.result)).toMatch(/^capacity {2}not established: preflight failed/m);
    expect(fs.readFileSync(path.join(r.dir, 'report.md'), 'utf8')).toContain(
      '**Stop reason: preflight-failed**: generated ids reach 63 characters',
    );
  });

  it("refuses a misspelt pool gauge beside the pool's others, naming the look-alike: the Pool column would judge without it", async () => {
    const r = await runQuietly(
      base('pool-typo', { metrics: { url: '/metrics', pool: { active: 'hikaricp_connection_active' } } }),
      { env },
    );
    expect(r.exitCode).toBe(3);
    expect(r.error?.message).toMatch(
      /^metrics endpoint http:\/\/127\.0\.0\.1:\d+\/metrics has the pool's hikaricp_connections_pending, hikaricp_connections_max but no hikaricp_connection_active \(metrics\.pool\.active\); the endpoint has these that look alike: .*hikaricp_connections_active/,
    );
    expect(r.error?.hint).toBe('set metrics.pool.active to the gauge the target exposes');
  });

  it('catches a wrong HMAC key with the sample request', async () => {
    const r = await runQuietly(base('wrong-key'), { env: { ...env, PLATEAU_DEMO_HMAC_KEY: 'not-the-key' } });
    expect(r.exitCode).toBe(3);
    expect(r.error?.message).toMatch(/got 401/);
    expect(r.error?.hint).toMatch(/secret|HMAC/);
  });

  it('fails when a secret the scenario needs is not set', async () => {
    const { PLATEAU_DEMO_HMAC_KEY: _drop, ...noKey } = env;
    const r = await runQuietly(base('no-secret'), { env: noKey });
    expect(r.error?.message).toMatch(/PLATEAU_DEMO_HMAC_KEY not set/);
    // run.json records the scenario's digest from the start, and the result carries it for compare and the gate
    const { meta } = loadRun(r.dir);
    expect(meta.scenarioDigest).toMatch(/^sha256:[0-9a-f]{12}$/);
    expect(r.result).toMatchObject({ scenario: meta.scenario, scenarioDigest: meta.scenarioDigest });
  });

  it('names an unreachable target before any load', async () => {
    const gone = await tinyServer((_q, res) => res.end());
    await gone.close();
    const r = await runQuietly(base('refused', { target: { url: `${gone.url}/x` }, scenario: undefined }), { env });
    expect(r.exitCode).toBe(3);
    expect(r.error?.message).toContain(
      `${gone.url}/health is not reachable (ECONNREFUSED: nothing listens at ${new URL(gone.url).host})`,
    );
    // the built-in GET has no module to digest: none recorded (unknown to a comparison)
    expect(loadRun(r.dir).meta.scenarioDigest).toBeUndefined();
  });

  it('names the deadline a sample request that never answers ran out of', async () => {
    // /health answers; the load path never does
    const mute = await tinyServer((q, res) => {
      if (q.url === '/health') res.end('ok');
    });
    try {
      const r = await runQuietly(
        base('mute', { target: { url: `${mute.url}/x` }, scenario: undefined, http: { timeoutMs: 300 } }),
        { env },
      );
      expect(r.exitCode).toBe(3);
      expect(r.error?.message).toBe(
        `the sample request GET ${mute.url}/x failed: no answer within http.timeoutMs (300 ms)`,
      );
      expect(r.error?.hint).toMatch(/within http\.timeoutMs/);
    } finally {
      await mute.close();
    }
  });

  it('names the deadline a sample transaction that never ends ran out of', async () => {
    const r = await runQuietly(
      base('hung', {
        scenario: path.resolve('test/fixtures/scenarios/native-mix/hang-always.ts'),
        http: { transactionTimeoutMs: 300 },
      }),
      { env },
    );
    expect(r.exitCode).toBe(3);
    expect(r.error?.message).toBe(
      'the sample arrival of transaction "stuck" did not end within 300 ms (http.transactionTimeoutMs)',
    );
    expect(r.error?.hint).toMatch(/await each http\.send and ctx\.sleep/);
  });

  const fixture = (name: string) => path.resolve(`test/fixtures/scenarios/preflight/${name}.ts`);

  it('refuses a sample transaction that returned while a send was in flight, before the answer it never tested (a 404)', async () => {
    const r = await runQuietly(base('half-await', { scenario: fixture('half-await'), steps: SHORTEST }), { env });
    expect(r.exitCode).toBe(3);
    expect(r.error?.message).toBe(
      'the scenario failed in transaction "t": transaction "t" returned while its send "t: two" was still in flight: await every http.send inside run(ctx, http)',
    );
    expect(r.error?.hint).toBe(
      'await each http.send in run(ctx, http): await http.send(name, request), or await Promise.all([...]) for sends made together',
    );
  });

  it('refuses a sample transaction that reads ok on the promise http.send returned (a forgotten await), with the fix', async () => {
    const config = parseConfigOrThrow(base('reads-promise', { scenario: fixture('reads-promise') }));
    const requests = await scenarioRequests(fixture('reads-promise'), config.target.url, 'reads-promise');
    const err = (await sampleArrivals(config, requests, []).catch((e: unknown) => e)) as PlateauError;
    expect(err.message).toBe(
      'the scenario failed in transaction "t": await http.send("t: health", ...) before reading .ok: it returns a promise',
    );
    expect(err.hint).toMatch(
      /^await each http\.send: const made = await http\.send\(name, request\), then read made\.ok/,
    );
  });

  it('names the sample send that failed first, not what run threw on reading its answer', async () => {
    const r = await runQuietly(base('reads-failed', { scenario: fixture('reads-failed'), steps: SHORTEST }), { env });
    expect(r.exitCode).toBe(3);
    expect(r.error?.message).toMatch(
      /^the sample request "t: read" of transaction "t" GET http:\/\/[^ ]+\/orders\/nope got 404/,
    );
  });

  it('a sample transaction that awaits none of its sends is refused, naming the send in flight, no crash', async () => {
    // preflight's sample arrivals alone (the whole run would add a step of load for nothing)
    const config = parseConfigOrThrow(base('no-await', { scenario: fixture('no-await') }));
    const requests = await scenarioRequests(fixture('no-await'), config.target.url, 'no-await');
    const err = (await sampleArrivals(config, requests, []).catch((e: unknown) => e)) as PlateauError;
    expect(err.message).toBe(
      'the scenario failed in transaction "t": transaction "t" returned while its send "t: health" was still in flight: await every http.send inside run(ctx, http)',
    );
  });

  it("refuses a request spec's misspelt field, a request entry's and a transaction send's, naming the field meant", async () => {
    const config = parseConfigOrThrow(base('misspelt', { scenario: fixture('misspelt') }));
    const requests = await scenarioRequests(fixture('misspelt'), config.target.url, 'misspelt');
    await expect(sampleArrivals(config, requests, [])).rejects.toThrow(
      /request\(ctx\) of entry "write" returned unknown key `methd` \(did you mean `method`\?\): a request has method, url, headers, body/,
    );
    // the transaction alone
    const only = { ...requests, traffic: { ...requests.traffic, entries: [requests.traffic.entries[1]] } };
    const sample = requests.sample;
    await expect(sampleArrivals(config, { ...only, sample: () => sample(1) }, [])).rejects.toThrow(
      /http\.send\("checkout: create"\) was given unknown key `bdy` \(did you mean `body`\?\)/,
    );
    // the load itself does not check them per request (the hot path): the sample arrivals do
    expect(
      () => requests.arrivals.entries[0].kind === 'request' && requests.arrivals.entries[0].build(1),
    ).not.toThrow();
  });

  it('refuses a check given to http.send that is not a function, naming the send and what it was given', async () => {
    const config = parseConfigOrThrow(base('check-not-fn', { scenario: fixture('check-not-fn') }));
    const requests = await scenarioRequests(fixture('check-not-fn'), config.target.url, 'check-not-fn');
    await expect(sampleArrivals(config, requests, [])).rejects.toThrow(
      /http\.send\("checkout: read"\) of transaction "checkout" was given a check that is not a function \(string\): pass \(res\) => true \| false \| "why not", or leave it out/,
    );
  });

  it('a transaction that builds a request name from data is refused by its second sample arrival; a branch by data is not', async () => {
    const config = parseConfigOrThrow(base('name-from-pick', { scenario: fixture('name-from-pick') }));
    const requests = await scenarioRequests(fixture('name-from-pick'), config.target.url, 'name-from-pick');
    const evidence: string[] = [];
    const err = (await sampleArrivals(config, requests, evidence).catch((e: unknown) => e)) as PlateauError;
    expect(err).toBeInstanceOf(PlateauError);
    expect(err.message).toMatch(
      /^transaction "t" named a request "item \d+" in one sample arrival and "item \d+" in the next, from the same code: the name is built from data$/,
    );
    expect(err.hint).toMatch(/give each request a fixed name/);
    // the branch entry took another branch in each of its sample arrivals, and passed both first
    const branch = evidence.filter((e) => e.includes('"branch"'));
    expect(branch).toHaveLength(2);
    expect(branch[0]).toContain('branch: upgrade 200 orders v1 200 expect 200 200 branch: extra 200 page 1 200');
    expect(branch[1]).toContain('branch: standard 200 orders v2 200 expect 201 200 page 1 200');
  });

  it("a transaction that names a request after a row's text, from a column of many values, is refused; one of a few values is not", async () => {
    const config = parseConfigOrThrow(base('name-from-row', { scenario: fixture('name-from-row') }));
    const requests = await scenarioRequests(fixture('name-from-row'), config.target.url, 'name-from-row');
    const evidence: string[] = [];
    const err = (await sampleArrivals(config, requests, evidence).catch((e: unknown) => e)) as PlateauError;
    expect(err).toBeInstanceOf(PlateauError);
    expect(err.message).toMatch(
      /^transaction "t" named a request "user [a-z]+", which holds "[a-z]+" of column "name" of the row it read from .*name-from-row\.csv \(data source "users"\), a column of more than 10 distinct values: the name is built from data/,
    );
    expect(err.hint).toMatch(/give each request a fixed name/);
    // the tiers entry went first and passed both its sample arrivals: a column of 3 values may name requests
    const tiers = evidence.filter((e) => e.includes('"tiers"'));
    expect(tiers).toHaveLength(2);
    expect(tiers.join(' ')).toMatch(/checkout (free|plus|pro) 200/);
    // a fixed name that one sampled row holds by chance is not refused: the other arrival's row is not in it
    const config2 = parseConfigOrThrow(base('name-coincidence', { scenario: fixture('name-coincidence') }));
    const chance = await scenarioRequests(fixture('name-coincidence'), config2.target.url, 'name-coincidence');
    await expect(sampleArrivals(config2, chance, [])).resolves.toBeInstanceOf(Map);
  });

  it('keeps the body as the engine does: a JSON check past http.maxBodyBytes fails the sample, with the fix', async () => {
    const r = await runQuietly(
      base('json-check', { scenario: fixture('json-check'), steps: SHORTEST, http: { maxBodyBytes: 8 } }),
      { env },
    );
    expect(r.exitCode).toBe(3);
    expect(r.error?.message).toContain(
      'the body is not JSON as kept: plateau keeps the first 8 bytes of a body (http.maxBodyBytes)',
    );
    // that setting's fix alone: neither the check's logic nor the request is at fault
    expect((r.error as { hint?: string }).hint).toBe("raise http.maxBodyBytes above the body's size");
  });

  it('a check that rejects a body cut at http.maxBodyBytes says how much of it the check saw, and the fix', async () => {
    const r = await runQuietly(
      base('text-check', { scenario: fixture('text-check'), steps: SHORTEST, http: { maxBodyBytes: 8 } }),
      { env },
    );
    expect(r.exitCode).toBe(3);
    expect(r.error?.message).toMatch(
      /got 200, rejected by its check: "no closing brace" \(a string rejects, as the reason; return true to accept\) \(the check saw the first 8 of \d+ bytes: raise http\.maxBodyBytes\): \{/,
    );
  });

  it("a transaction's check defined outside run: the message says to write the read in run (inline in http.send)", async () => {
    const r = await runQuietly(base('outside-check', { scenario: fixture('outside-check'), steps: SHORTEST }), { env });
    expect(r.exitCode).toBe(3);
    expect(r.error?.message).toContain(
      "not kept for this transaction: plateau keeps it only when the transaction's run own code reads res.body or res.json()",
    );
    expect((r.error as { hint?: string }).hint).toBe('write res.body or res.json() in the run (or its inline checks)');
  });

  it('checks the metrics endpoint holds the named series', async () => {
    const ok = await runQuietly(
      base('metrics-ok', {
        metrics: { url: '/metrics', series: ['http_server_requests_seconds_count', 'hikaricp_connections_pending'] },
        steps: SHORTEST,
        // no health endpoint there: said on the stage's line, not only in its evidence
        target: { url: `${demo.url}/orders`, healthPath: '/no-health-here' },
      }),
      { env },
    );
    const pre = ok.result.stages.find((s) => s.name === 'preflight')!;
    expect(pre.evidence.join('\n')).toMatch(/metrics endpoint \/metrics answers/);
    expect(pre.detail).toMatch(
      /^\d+ checks passed; http:\/\/127\.0\.0\.1:\d+\/no-health-here answered 404: no health endpoint, so the RTT is timed on that 404 \(set target\.healthPath/,
    );
    const bad = await runQuietly(
      base('metrics-bad', { metrics: { url: '/metrics', series: ['r2dbc_pool_pending_connections'] } }),
      { env },
    );
    expect(bad.error?.message).toMatch(/no series r2dbc_pool_pending_connections/);
  });
});

describe('reset', () => {
  it('restores the demo after a run: append-only table empty, versions back, counts before and after', async () => {
    const r = await runQuietly(base('reset-run', { reset: { hooks: [{ kind: 'http', url: '/admin/reset' }] } }), {
      env,
    });
    expect(r.exitCode).toBe(0);
    expect(demo.stats().idempotency).toBeGreaterThan(50);
    const config = parseConfigOrThrow(base('x', { reset: { hooks: [{ kind: 'http', url: '/admin/reset' }] } }));
    const out = await reset(config);
    expect(out.evidence[0]).toMatch(/"before":\{"accounts":100000,"idempotency":[1-9]\d+/);
    expect(demo.stats()).toMatchObject({ idempotency: 0, writes: 0, accounts: 100_000 });
  });

  it('runs SQL behind its guard against the real SQLite file, with row counts', async () => {
    await runQuietly(base('sql-run', { steps: SHORTEST }), { env }); // 40 writes to undo
    const hook = {
      kind: 'sql',
      database: demo.dbPath,
      statements: ['DELETE FROM idempotency', 'UPDATE accounts SET balance_cents = 0, version = 0 WHERE version <> 0'],
      guard: { tables: ['accounts', 'idempotency'], databasePattern: '^demo$' },
    };
    const out = await reset(parseConfigOrThrow(base('x', { reset: { hooks: [hook] } })));
    expect(out.evidence[0]).toMatch(
      /rows before accounts=100000, idempotency=[1-9]\d*; after accounts=100000, idempotency=0/,
    );
    expect(demo.stats().idempotency).toBe(0);
  });

  it('refuses SQL outside its guard and runs none of it', async () => {
    const before = demo.stats().accounts;
    const hook = {
      kind: 'sql',
      database: demo.dbPath,
      statements: ['DELETE FROM accounts', 'DROP TABLE idempotency', 'UPDATE users SET x = 1'],
      guard: { tables: ['idempotency'], databasePattern: '^staging-' },
    };
    const err = await reset(parseConfigOrThrow(base('x', { reset: { hooks: [hook] } }))).catch((e: Error) => e);
    expect(String(err)).toMatch(/table "accounts" is not in reset guard.tables/);
    expect(String(err)).toMatch(/DELETE refused: database "demo" does not match/);
    expect(String(err)).toMatch(/DROP is not allowed/);
    expect(String(err)).toMatch(/table "users"/);
    expect(demo.stats().accounts).toBe(before);
  });

  it('a bug in a stage (an error plateau did not expect) still ends as a failed run with its report, exit 70', async () => {
    const hook = {
      kind: 'sql',
      database: demo.dbPath,
      statements: ['DELETE FROM idempotency'],
      guard: { tables: ['idempotency'], databasePattern: '^demo$' },
    };
    const config = parseConfigOrThrow({ workers: 1, ...base('stage-bug', { reset: { hooks: [hook] } }) });
    // past validation, as a bug would be: a pattern that cannot compile throws a SyntaxError mid-run
    Object.assign((config.reset.hooks[0] as { guard: { databasePattern: string } }).guard, { databasePattern: '(' });
    const r = await runPipeline({ config, interrupt: new Interrupt(), out: { write: () => {}, isTTY: false }, env });
    expect(r.exitCode).toBe(70);
    expect(r.error?.message).toMatch(/^internal error \(a bug, please report it\): .*regular expression/);
    expect(r.result.stages.find((s) => s.name === 'reset')?.status).toBe('fail');
    const run = JSON.parse(fs.readFileSync(path.join(r.dir, 'run.json'), 'utf8'));
    expect(run.status).toBe('failed');
    expect(fs.existsSync(path.join(r.dir, 'report.md'))).toBe(true);
  });

  it('runs a command hook and fails the stage on a non-zero exit', async () => {
    const ok = await reset(
      parseConfigOrThrow(base('x', { reset: { hooks: [{ kind: 'command', run: 'echo restored' }] } })),
    );
    expect(ok.evidence[0]).toBe('command exited 0: restored');
    await expect(
      reset(parseConfigOrThrow(base('x', { reset: { hooks: [{ kind: 'command', run: 'echo nope >&2; exit 3' }] } }))),
    ).rejects.toThrow(/exited 3: nope/);
  });
});

describe('VU sizing', () => {
  it("follows RTT by Little's law", () => {
    const config = parseConfigOrThrow(
      base('x', {
        steps: { startPerSec: 100, stepPerSec: 100, maxPerSec: 1000, rampS: 1, holdS: 5 },
        vus: { expectedServiceMs: 20, headroom: 2 },
      }),
    );
    const near = buildPlan(config, 1).vus;
    const far = buildPlan(config, 80).vus;
    expect(near.preAllocatedVUs).toBe(Math.ceil(1000 * 0.021 * 2));
    expect(far.preAllocatedVUs).toBe(Math.ceil(1000 * 0.1 * 2));
    expect(far.maxVUs).toBeGreaterThan(near.maxVUs);
    expect(far.reason).toMatch(/80\.00 ms RTT/);
  });
});

describe('warmup', () => {
  it('stops as soon as throughput and median latency are stable', async () => {
    const r = await runQuietly(
      base('warm-stable', { warmup: { ratePerSec: 50, windowS: 1, stableWindows: 2, maxS: 15 }, steps: SHORTEST }),
      { env },
    );
    const w = r.result.stages.find((s) => s.name === 'warmup')!;
    expect(w.detail).toMatch(/^stable after/);
    // before its cap (maxS 15 s): stopped by stability, not time. A wall-clock bound of 8 s read
    // 8,065 ms in a fresh-clone CI beside the CPU hog; what "as soon as" means is said by the detail
    expect(w.durationMs).toBeLessThan(15_000);
  });

  it('gives up at its maximum time when the target never settles', async () => {
    const { r, n } = await wobbly;
    const w = r.result.stages.find((s) => s.name === 'warmup')!;
    expect(w.detail).toMatch(/^not stable within 4 s/);
    expect(w.durationMs).toBeGreaterThanOrEqual(4_500);
    expect(n).toBeGreaterThan(100);
  });
});

/**
 * A run whose warmup meets a target that never settles, and the requests that target saw. It
 * starts with the file and runs beside its other tests (its test reads what it found): it has its
 * own server, and beside other runs it can only look less settled.
 */
async function wobblyWarmup() {
  let n = 0;
  const server = await tinyServer((_q, res) => {
    n++;
    setTimeout(() => res.end('ok'), Math.floor(Date.now() / 1000) % 2 ? 1 : 40);
  });
  try {
    const r = await runQuietly(
      base('warm-wobbly', {
        target: { url: `${server.url}/` },
        scenario: undefined,
        warmup: { ratePerSec: 30, windowS: 1, stableWindows: 3, maxS: 4, tolerance: 0.05 },
        steps: SHORTEST,
      }),
      { env },
    );
    return { r, n };
  } finally {
    await server.close();
  }
}
