/**
 * `plateau k6-script`: the script written, and how to run it, naming the secrets k6 must be given.
 * The ids of the written script are checked by running its setup() and iterations in Node with
 * k6's modules replaced by the recording stand-in of test/helpers/fake-k6.ts (a stand-in for k6
 * only: the id logic run is the script's own, as written).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { cliInProcess } from '../../test/helpers/cli.ts';
import * as acorn from 'acorn';
import { k6ScriptDiagnostics } from '../../test/helpers/k6-script-check.ts';
import { loadWithFakeK6, type FakeRequest, type LoadedScript } from '../../test/helpers/fake-k6.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plateau-k6-script-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const STEPS = ['--start-rate', '50', '--step-rate', '50', '--max-rate', '150', '--hold', '4', '--ramp', '1'];
afterEach(() => vi.useRealTimers());

/** The demo's target answering as the demo does: a create with its order's id. */
function demo(req: FakeRequest): { status: number; body?: string } {
  return req.method === 'POST' && new URL(req.url).pathname === '/orders'
    ? { status: 201, body: JSON.stringify({ id: JSON.parse(String(req.body)).id }) }
    : { status: 200, body: JSON.stringify({ id: 'x', status: 'confirmed' }) };
}

/** One k6 run of the script: its setup() once, then ten arrivals given setup's value; the ids its creates sent. */
async function idsOfRun(text: string, env: Record<string, string> = {}, scriptDir = dir) {
  const l: LoadedScript = await loadWithFakeK6(text, demo, { PLATEAU_DEMO_HMAC_KEY: 'k', ...env }, scriptDir);
  expect(l.setup).toBeTypeOf('function');
  const started = l.setup!() as { runId: string; idKey: string };
  for (let i = 0; i < 10; i++) await l.iterate(i, started);
  const ids = l.fake.requests.filter((r) => r.method === 'POST').map((r) => JSON.parse(String(r.body)).id as string);
  return { runId: started.runId, key: started.idKey, ids };
}
const write = (scenario: string, name: string) =>
  cliInProcess([
    'k6-script',
    '--target',
    'http://127.0.0.1:9/orders',
    '--scenario',
    path.resolve(scenario),
    ...STEPS,
    '--out-file',
    path.join(dir, name),
  ]);

/** k6-script of the default scenario (no module) against `target`, with `more` flags, to `name` in the temp dir. */
const bareScript = (target: string, name: string, ...more: string[]) =>
  cliInProcess(['k6-script', '--target', target, ...STEPS, ...more, '--out-file', path.join(dir, name)]);

describe('plateau k6-script', () => {
  it('quotes a target or a path the shell would read in the commands it prints', async () => {
    const r = await bareScript("http://127.0.0.1:9/o?a=1&b='x'", 'quoted file.js');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(` '${path.relative(process.cwd(), path.join(dir, 'quoted file.js'))}'\n`);
    expect(r.stdout).toContain(
      `then: plateau import k6 k6-out.json --target 'http://127.0.0.1:9/o?a=1&b='\\''x'\\'''\n`,
    );
  });

  it("writes the script and names the scenario's secrets, which k6 reads from its environment", async () => {
    const r = await write('demo/scenario.ts', 'shop.js');
    expect(r.status, r.stderr).toBe(0);
    expect(fs.readFileSync(path.join(dir, 'shop.js'), 'utf8')).toContain('plateau_arrival');
    expect(r.stdout).toMatch(
      /^wrote .*shop\.js \(each k6 run of it sends ids of its own; [^)]*\); run it with:\n {2}k6 run .*shop\.js\n/,
    );
    // the import names the script's target: two imports of k6-out.json without it were one unknown target (decision 051)
    expect(r.stdout).toContain('then: plateau import k6 k6-out.json --target http://127.0.0.1:9/orders\n');
    expect(r.stdout).toContain(
      "(k6 reads the scenario's secrets, PLATEAU_DEMO_HMAC_KEY, from its environment: export them before k6 run)\n",
    );
  });

  it('opens its data files relative to itself, so the script and its files run from another folder together', async () => {
    const r = await write('demo/scenario.ts', 'moved.js');
    expect(r.status, r.stderr).toBe(0);
    const text = fs.readFileSync(path.join(dir, 'moved.js'), 'utf8');
    const rel = path.relative(dir, path.resolve('demo/accounts.csv')).split(path.sep).join('/');
    expect(text).toContain(`"path": ${JSON.stringify(rel)}`);
    expect(text).not.toContain(`"${path.resolve('demo')}`);
    expect(r.stdout).toContain(
      `(the script opens its data files relative to itself: ${rel}; to run it on another machine, copy them with it to the same relative paths, or pack it and them into one file with: k6 archive ${path.relative(process.cwd(), path.join(dir, 'moved.js'))})\n`,
    );
    // the script and its file moved together to a folder of their own: k6 (the stand-in) reads the rows there
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'plateau-k6-moved-'));
    try {
      const scriptDir = path.join(elsewhere, 'load');
      fs.mkdirSync(path.dirname(path.resolve(scriptDir, rel)), { recursive: true });
      fs.writeFileSync(path.resolve(scriptDir, rel), 'id\n7001\n7002\n7003\n7004\n7005\n7006\n');
      const l = await loadWithFakeK6(text, demo, { PLATEAU_DEMO_HMAC_KEY: 'k' }, scriptDir);
      const started = l.setup!();
      for (let i = 0; i < 10; i++) await l.iterate(i, started);
      expect(l.fake.opened).toEqual([rel]);
      const accounts = l.fake.requests
        .filter((q) => q.method === 'POST' && new URL(q.url).pathname === '/orders')
        .map((q) => (JSON.parse(String(q.body)) as { accountId: number }).accountId);
      expect(accounts.length).toBeGreaterThan(0);
      for (const a of accounts) expect(a).toBeGreaterThan(7000);
    } finally {
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it("PLATEAU_TARGET points a written script at another address of the service: its origin, the paths the scenario's", async () => {
    const r = await write('demo/scenario.ts', 'target.js');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      '(it loads http://127.0.0.1:9; k6 run -e PLATEAU_TARGET=<url> points it at another address of the service, then import with that --target)\n',
    );
    const text = fs.readFileSync(path.join(dir, 'target.js'), 'utf8');
    const origins = async (env: Record<string, string>) => {
      const l = await loadWithFakeK6(text, demo, { PLATEAU_DEMO_HMAC_KEY: 'k', ...env }, dir);
      const started = l.setup!();
      for (let i = 0; i < 10; i++) await l.iterate(i, started);
      return new Set(l.fake.requests.map((q) => `${new URL(q.url).origin} ${new URL(q.url).pathname.split('/')[1]}`));
    };
    expect(await origins({})).toEqual(new Set(['http://127.0.0.1:9 orders']));
    expect(await origins({ PLATEAU_TARGET: 'http://orders.svc:8080/ignored/path' })).toEqual(
      new Set(['http://orders.svc:8080 orders']),
    );
    await expect(origins({ PLATEAU_TARGET: 'orders.svc:8080' })).rejects.toThrow(
      /PLATEAU_TARGET=orders\.svc:8080 is no http\(s\) URL: give the service's address, e\.g\. k6 run -e PLATEAU_TARGET=http:\/\/10\.0\.0\.5:8080/,
    );
    // the default scenario (no module): the target's path and query, at the given origin
    const bare = await bareScript('http://127.0.0.1:9/o?a=1', 'bare.js');
    expect(bare.status, bare.stderr).toBe(0);
    const l = await loadWithFakeK6(
      fs.readFileSync(path.join(dir, 'bare.js'), 'utf8'),
      demo,
      { PLATEAU_TARGET: 'https://lb.example:8443' },
      dir,
    );
    const started = l.setup!();
    await l.iterate(0, started);
    expect(l.fake.requests.map((q) => q.url)).toEqual(['https://lb.example:8443/o?a=1']);
  });

  it("sends ids of each k6 run's own: no key written into the script, one derived in setup() when k6 starts", async () => {
    const r = await write('demo/scenario.ts', 'ids.js');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/each k6 run of it sends ids of its own; PLATEAU_RUN_ID=<name> names one/);
    const text = fs.readFileSync(path.join(dir, 'ids.js'), 'utf8');
    expect(text).not.toMatch(/"idKey":/);
    expect(text).toMatch(/^export \{[^}]*\bsetup\b/m);
    // its setup() type-checks against k6's type definitions, in syntax k6 before v0.53 parses
    expect(k6ScriptDiagnostics(text)).toEqual([]);
    expect(() => acorn.parse(text, { ecmaVersion: 2017, sourceType: 'module' })).not.toThrow();
    // two k6 runs of the one script, a second apart: each its own key, the same for every VU's arrivals
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-12-06T10:00:00Z'));
    const first = await idsOfRun(text);
    vi.setSystemTime(new Date('2026-12-06T10:00:01Z'));
    const second = await idsOfRun(text);
    expect(first.key).toMatch(/^20261206-100000-[0-9a-f]{4}$/);
    expect(second.key).toMatch(/^20261206-100001-[0-9a-f]{4}$/);
    for (const run of [first, second]) {
      expect(run.ids.length).toBeGreaterThan(1);
      for (const id of run.ids) expect(id).toMatch(new RegExp(`^ord-${run.key}-\\d+$`));
    }
    // in the same second, the random part tells them apart
    const random = vi.spyOn(Math, 'random').mockReturnValueOnce(0.25).mockReturnValueOnce(0.5);
    const [a, b] = [await idsOfRun(text), await idsOfRun(text)];
    random.mockRestore();
    expect([a.key, b.key]).toEqual(['20261206-100001-4000', '20261206-100001-8000']);
  });

  it('PLATEAU_RUN_ID names a k6 run, its ids a key of their own; one that would overflow ids.maxLength stops k6 in setup()', async () => {
    const text = fs.readFileSync(path.join(dir, 'ids.js'), 'utf8');
    const named = await idsOfRun(text, { PLATEAU_RUN_ID: 'nightly' });
    expect(named.runId).toBe('nightly');
    expect(named.key).toMatch(/^nightly-[0-9a-z]{10}$/);
    // demo: ids.maxLength 50, prefix 'ord-'; the plan's 1,425 arrivals: 'ord-' + key + '-1425' fits a key of 41, a run id of 30
    expect((await idsOfRun(text, { PLATEAU_RUN_ID: 'x'.repeat(30) })).key).toHaveLength(41);
    const long = 'x'.repeat(31);
    await expect(idsOfRun(text, { PLATEAU_RUN_ID: long })).rejects.toThrow(
      /PLATEAU_RUN_ID=x{31} makes ids of 51 characters .*ids\.maxLength is 50: give PLATEAU_RUN_ID a run id 1 characters shorter/,
    );
  });

  it('refuses a --run-id whose ids would overflow ids.maxLength, as preflight does, and writes nothing', async () => {
    const r = await cliInProcess([
      'k6-script',
      '--target',
      'http://127.0.0.1:9/orders',
      '--scenario',
      path.resolve('demo/scenario.ts'),
      ...STEPS,
      '--run-id',
      'x'.repeat(31),
      '--out-file',
      path.join(dir, 'long.js'),
    ]);
    expect(r.stderr).toMatch(
      /generated ids reach 51 characters \("ord-x{31}-[0-9a-z]{10}-1425"\); the target's id column allows 50/,
    );
    expect(r.status).toBe(3);
    expect(fs.existsSync(path.join(dir, 'long.js'))).toBe(false);
  });

  it("refuses a script's path given to --out (the run stores' directory), naming --out-file", async () => {
    const r = await cliInProcess(['k6-script', '--target', 'http://127.0.0.1:9/', ...STEPS, '--out', 'page.js']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--out names the directory of run stores, which k6-script does not write');
    expect(r.stderr).toContain('fix: write the script there with --out-file page.js');
    expect(fs.existsSync('page.js')).toBe(false);
  });

  it('without step flags, names every one it needs at once: the rates, --ramp and --hold', async () => {
    // a config of its own: the repository's plateau.config.ts gives steps
    const config = path.join(dir, 'target-only.config.ts');
    fs.writeFileSync(config, "export default { target: { url: 'http://127.0.0.1:9/' } };\n");
    const r = await cliInProcess(['k6-script', '--config', config, '--out-file', path.join(dir, 'no.js')]);
    expect(r.status, r.stdout).toBe(2);
    expect(r.stderr).toContain('--start-rate, --step-rate and --max-rate, and its timing, --ramp and --hold');
    expect(r.stderr).toContain('steps: { startPerSec, stepPerSec, maxPerSec, rampS, holdS }');
  });

  it("refuses a unique source with fewer rows than the script's arrivals take, as plan does, and writes nothing", async () => {
    // 100 rows (80 for the load: 5 tries of 4 sample arrivals keep 20) for 3 of every 10 arrivals:
    // k6 would fail the readers' arrivals from row 81 on, mid-load, where they would read as the target's limit
    const r = await write('test/fixtures/scenarios/reader-rows.ts', 'rows.js');
    expect(r.status).toBe(3);
    expect(r.stderr).toMatch(
      /data source "accounts" \(.*reader-rows\.csv\) has order 'unique' and 100 rows \(80 for the load, 20 kept for preflight's sample arrivals\), but the plan can make 1,425 arrivals \(steps\), 428 of them of its readBy \("create", "renew"\)/,
    );
    expect(r.stderr).toContain('fix: add at least 348 rows, lower the plan');
    expect(fs.existsSync(path.join(dir, 'rows.js'))).toBe(false);
    // enough rows: written (1,201 rows, a quarter of the arrivals read them)
    expect((await write('test/fixtures/scenarios/native-mix/scenario.ts', 'mix.js')).status).toBe(0);
  });

  it.each([
    ['json', 'json=k6-out.json', 'k6-out.json', '  k6 run '],
    ['json.gz', 'json=k6-out.json.gz', 'k6-out.json.gz', '  k6 run '],
    // stamped in ms, as plateau runs k6 itself: k6's default CSV stamps whole seconds
    ['csv', 'csv=k6-out.csv', 'k6-out.csv', '  K6_CSV_TIME_FORMAT=unix_milli k6 run '],
    ['csv.gz', 'csv=k6-out.csv.gz', 'k6-out.csv.gz', '  K6_CSV_TIME_FORMAT=unix_milli k6 run '],
  ])('--k6-out %s: the k6 command it prints writes %s, and the import reads %s', async (format, outFlag, file, run) => {
    const r = await bareScript('http://127.0.0.1:9/', `out-${format}.js`, '--k6-out', format);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`\n${run}`);
    expect(r.stdout).toContain(` --out ${outFlag} `);
    expect(r.stdout).toContain(`then: plateau import k6 ${file} --target http://127.0.0.1:9/\n`);
  });

  it.each([
    [['--http-client', 'undici'], "--http-client is the native engine's HTTP client (k6 sends with its own)"],
    [['--workers', '2'], "--workers is the native engine's threads (k6 schedules its own goroutines)"],
    [['--no-warmup'], "--no-warmup is the native engine's warmup stage (a k6 script has none"],
    [['--engine', 'native'], '--engine is who sends the load (a k6 script is sent by k6)'],
  ])('refuses the native engine flag %j with the reason, and writes nothing', async (flags, reason) => {
    const file = path.join(dir, `native-${flags[0]}.js`);
    const r = await bareScript('http://127.0.0.1:9/', path.basename(file), ...flags);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`plateau: k6-script takes no flag of the native engine's: ${reason}`);
    expect(r.stderr).toContain(`fix: leave ${flags[0]} out (plateau run takes them, for the native engine)`);
    expect(fs.existsSync(file)).toBe(false);
  });

  it('--engine k6 says what the script is, and is taken', async () => {
    const r = await bareScript('http://127.0.0.1:9/', 'k6.js', '--engine', 'k6');
    expect(r.status, r.stderr).toBe(0);
  });

  it('without a target, says what works instead of the demo it refuses', async () => {
    const config = path.join(dir, 'steps-only.config.ts');
    fs.writeFileSync(
      config,
      'export default { steps: { startPerSec: 1, stepPerSec: 1, maxPerSec: 2, rampS: 1, holdS: 2 } };\n',
    );
    const r = await cliInProcess(['k6-script', '--config', config, '--out-file', path.join(dir, 'none.js')]);
    expect(r.status).toBe(2);
    expect(r.stderr).not.toContain('or --demo for the embedded demo target');
    expect(r.stderr).toContain(
      'target: missing: give the URL under load, --target http://host:port/path (or target: { url } in plateau.config.ts): a script needs a target that outlives plateau (for the demo, run k6 through plateau run --demo --engine k6)',
    );
  });

  it('says nothing of secrets for a scenario that has none', async () => {
    const r = await write('test/fixtures/scenarios/native-mix/concurrent.ts', 'plain.js');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/secret/);
  });
});
