/**
 * Scenario modules load wherever the user keeps them (with or without a package.json, CommonJS or
 * ESM), `import { defineScenario } from 'plateau'` resolves outside this repository, relative
 * imports and reads next to the module work, in the main thread and in engine workers; every
 * failure is a PlateauError (exit 2) naming the file, the cause in one line, and the fix.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { BucketRecord } from '../../analysis/types.ts';
import { tinyServer } from '../../test/helpers/tiny-server.ts';
import { WorkerEngine } from '../engine/workers.ts';
import { loadScenario } from './load.ts';
import { PlateauError } from '../errors.ts';
import { scenarioRequests } from './requests.ts';
import { scenarioDigest } from './digest.ts';
import { expectRefusal, moduleFolder } from '../../test/helpers/module-files.ts';
import { expectSentOrDropped } from '../../test/helpers/sent-or-dropped.ts';

/** Outside the repository, so that neither its package.json nor its node_modules are found. */
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'plateau-scenario-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

/** README-style: 'plateau', a relative helper, and a file read next to the module. */
const SCENARIO = [
  "import { defineScenario } from 'plateau';",
  "import { itemPath } from './helper';",
  '',
  'export default defineScenario({',
  "  name: 'outside',",
  '  request(ctx) {',
  "    return { method: 'GET', url: itemPath(ctx.seq) };",
  '  },',
  '  check: (res) => res.status === 200 || `expected 200, got ${res.status}`,',
  '});',
  '',
].join('\n');
const HELPER = [
  "import fs from 'node:fs';",
  "const tag: string = fs.readFileSync(new URL('./tag.txt', import.meta.url), 'utf8').trim();",
  'export function itemPath(seq: number): string { return `/items/${seq}?tag=${tag}`; }',
  '',
].join('\n');

const folder = (name: string, files: Record<string, string>) => moduleFolder(root, name, files);

const outside = (name: string, extra: Record<string, string> = {}) =>
  folder(name, { 'scenario.ts': SCENARIO, 'helper.ts': HELPER, 'tag.txt': `${name.replace(/\W+/g, '-')}\n`, ...extra });

const refusal = (file: string) => expectRefusal(loadScenario, file);

/** The module loaded as a run loads it, and the request its first arrival's entry builds. */
async function firstRequest(file: string) {
  const { scenario, arrivals } = await scenarioRequests(file, 'http://127.0.0.1:9/x', 'run-1', { env: {} });
  const entry = arrivals.entryOf(7);
  if (entry.kind !== 'request') throw new Error(`${file}: expected a one-request entry`);
  return { scenario, request: entry.build(7) };
}

describe('a scenario module loads wherever it is kept', () => {
  it.each<[string, Record<string, string>]>([
    ['no package.json', {}],
    ['a "type": "commonjs" package', { 'package.json': '{"type":"commonjs"}' }],
    ['a "type": "module" package', { 'package.json': '{"type":"module"}' }],
  ])('in a folder with %s: plateau, a relative helper and a file next to it', async (name, extra) => {
    const dir = outside(name, extra);
    const { scenario, request } = await firstRequest(path.join(dir, 'scenario.ts'));
    expect(scenario.name).toBe('outside');
    expect(request).toMatchObject({ method: 'GET', path: `/items/7?tag=${name.replace(/\W+/g, '-')}`, body: null });
    expect(
      scenario.check?.({ status: 503, headers: {}, body: '', truncated: false, json: () => null, text: () => '' }),
    ).toBe('expected 200, got 503');
  });

  it("packages come from the module's own node_modules; .mjs and .js work too", async () => {
    const dir = folder('node-modules', {
      'node_modules/paths/package.json': '{"name":"paths","main":"index.js"}',
      'node_modules/paths/index.js': "module.exports = { prefix: '/from-' + require('path').basename(__dirname) };",
      's.mjs':
        "import { defineScenario } from 'plateau';\nimport paths from 'paths';\nexport default defineScenario({ request: () => ({ url: paths.prefix }) });",
      's.js':
        "const { defineScenario } = require('plateau');\nmodule.exports = defineScenario({ request: () => ({ url: '/cjs' }) });",
    });
    const pathOf = async (file: string) => (await firstRequest(path.join(dir, file))).request.path;
    expect(await pathOf('s.mjs')).toBe('/from-paths');
    expect(await pathOf('s.js')).toBe('/cjs');
  });

  it("import.meta.url is each file's own: a helper in a subfolder reads the file beside it", async () => {
    const dir = folder('subfolder', {
      'scenario.ts':
        "import { defineScenario } from 'plateau';\nimport { tag } from './lib/tag';\nexport default defineScenario({ request: () => ({ url: `/t/${tag}` }) });",
      'lib/tag.ts':
        "import fs from 'node:fs';\nexport const tag = fs.readFileSync(new URL('./tag.txt', import.meta.url), 'utf8').trim();",
      'lib/tag.txt': 'from-lib\n',
      'tag.txt': 'from-entry\n',
    });
    expect((await firstRequest(path.join(dir, 'scenario.ts'))).request.path).toBe('/t/from-lib');
  });

  it('the demo scenario still loads', async () => {
    const s = await loadScenario('demo/scenario.ts');
    expect(Object.keys(s.mix ?? {})).toHaveLength(3);
  });
});

describe("a scenario's digest (run.json scenarioDigest): its own code and data, wherever it is kept", () => {
  const WITH_DATA = [
    "import { defineScenario } from 'plateau';",
    "import { itemPath } from './helper';",
    "export default defineScenario({ name: 'outside', data: { skus: { csv: './skus.csv' } }, request: (ctx) => ({ url: itemPath(ctx.seq) }) });",
    '',
  ].join('\n');
  const digestOf = async (dir: string) => {
    const { data } = await scenarioRequests(path.join(dir, 'scenario.ts'), 'http://127.0.0.1:9/x', 'run-1', {
      env: {},
    });
    return scenarioDigest(path.join(dir, 'scenario.ts'), data);
  };
  const shop = (name: string, over: Record<string, string> = {}) =>
    folder(name, { 'scenario.ts': WITH_DATA, 'helper.ts': HELPER, 'tag.txt': 'x\n', 'skus.csv': 'sku\na1\n', ...over });

  it('one scenario in two folders is one digest; another helper or another data file is another (a name alone did not tell them)', async () => {
    const first = await digestOf(shop('digest-a'));
    expect(first).toMatch(/^sha256:[0-9a-f]{12}$/);
    // the bundle holds the module's absolute path (__dirname): the digest does not, so a laptop and CI agree
    expect(await digestOf(shop('digest-b'))).toBe(first);
    expect(await digestOf(shop('digest-helper', { 'helper.ts': HELPER.replace('/items/', '/item/') }))).not.toBe(first);
    expect(await digestOf(shop('digest-data', { 'skus.csv': 'sku\na2\n' }))).not.toBe(first);
    // a file the code reads at run time by itself is not its code nor its data
    expect(await digestOf(shop('digest-tag', { 'tag.txt': 'y\n' }))).toBe(first);
  });
});

describe('a scenario module that cannot be loaded is refused with the file, the cause and the fix', () => {
  it.each<[string, Record<string, string>, string, RegExp, RegExp]>([
    [
      'a TypeScript syntax error',
      { 's.ts': "import { defineScenario } from 'plateau';\nexport default defineScenario({ request( });" },
      's.ts',
      /cannot be compiled: line 2:\d+: /,
      /fix the error at that line/,
    ],
    [
      'a syntax error after non-ASCII text: its column as an editor counts it (UTF-16), not in bytes',
      { 's.ts': "const s = 'é€😀'; let = ;\nexport default {};" },
      's.ts',
      /cannot be compiled: line 1:25: /,
      /fix the error at that line/,
    ],
    [
      'a syntax error in an imported file',
      { 'h.ts': 'let = ;', 's.ts': "import './h';\nexport default {};" },
      's.ts',
      /cannot be compiled: .*h\.ts:1:\d+: /,
      /fix the error/,
    ],
    [
      'a package that is not installed',
      { 's.ts': "import x from 'not-installed-anywhere';\nexport default x;" },
      's.ts',
      /Could not resolve "not-installed-anywhere"/,
      /npm install not-installed-anywhere in the scenario module's folder/,
    ],
    [
      "a k6 script: k6's own modules are named as k6's, not as packages to install",
      { 's.ts': "import http from 'k6/http';\nexport default function () { http.get('http://x/'); }" },
      's.ts',
      /s\.ts imports "k6\/http" \(line 1:18\): k6\/http is k6's own module, which runs only inside k6$/,
      /^a plateau scenario is defineScenario\(\{\.\.\.\}\) \(README, Scenarios\), which imports no k6 module; to get plateau's reports from an existing k6 script, run it with k6 \(--out json=out\.json\) and use plateau import k6 out\.json$/,
    ],
    [
      'k6 itself, or a jslib.k6.io module',
      {
        's.ts':
          "import { sleep } from 'k6';\nimport { uuidv4 } from 'https://jslib.k6.io/k6-utils/1.4.0/index.js';\nsleep(uuidv4());",
      },
      's.ts',
      /imports "k6" \(line 1:23\): k6 is k6's own module/,
      /plateau import k6/,
    ],
    [
      'a relative import that does not exist',
      { 's.ts': "import x from './nope';\nexport default x;" },
      's.ts',
      /Could not resolve "\.\/nope"/,
      /relative to the file that imports it/,
    ],
    [
      'code that throws',
      { 's.ts': "throw new Error('boom\\nsecond line');\nexport default {};" },
      's.ts',
      /failed to load: boom$/,
      /top level of the scenario module/,
    ],
    [
      'no request(ctx)',
      { 's.ts': 'export default { name: "x" };' },
      's.ts',
      /exports no scenario with a request\(ctx\) function/,
      /defineScenario/,
    ],
  ])('%s', async (name, files, entry, message, hint) => {
    const dir = folder(`bad-${name}`, files);
    const err = await refusal(path.join(dir, entry));
    expect(err.code).toBe('scenario-invalid');
    expect(err.message).toMatch(message);
    expect(err.hint).toMatch(hint);
  });

  it.each([
    ['mixx', "mixx: { a: { weight: 1, request: () => ({ url: '/' }) } }", 'mix'],
    ['Mix', "Mix: { a: { weight: 1, request: () => ({ url: '/' }) } }", 'mix'],
    ['requets', "requets: () => ({ url: '/' })", 'request'],
  ])(
    'a misspelt `%s` and nothing else: named first, with the key meant, not hidden by the generic line',
    async (key, field, meant) => {
      const dir = folder(`typo-${key}`, { 's.ts': `export default { name: 'x', ${field} };` });
      const err = await loadScenario(path.join(dir, 's.ts')).catch((e: unknown) => e as PlateauError);
      expect(err).toBeInstanceOf(PlateauError);
      expect((err as PlateauError).message.split('\n').slice(1)).toEqual([
        `  - unknown key \`${key}\` (did you mean \`${meant}\`?): a scenario has name, ids, secrets, data, mix, request, check`,
        expect.stringMatching(
          /^ {2}- the scenario has neither `request\(ctx\)` nor `mix`: default-export defineScenario/,
        ),
      ]);
    },
  );

  it('a missing file', async () => {
    expect((await refusal(path.join(root, 'absent.ts'))).code).toBe('scenario-missing');
  });

  it('a directory', async () => {
    const dir = outside('a-directory');
    expect((await refusal(dir)).message).toMatch(/is a directory, not a file/);
  });
});

describe('code that esbuild is sure does other than it says is refused, naming the line and the fix', () => {
  const ENTRY = (k: string, w: number, url: string) => `  ${k}: { weight: ${w}, request: () => ({ url: '${url}' }) },`;
  /** The user's report: `read` twice ran read 33%, write 67%. */
  const REPEATED_READ = [
    "import { defineScenario } from 'plateau';",
    "export default defineScenario({ name: 'x', mix: {",
    ENTRY('read', 70, '/a'),
    ENTRY('write', 20, '/b'),
    ENTRY('read', 10, '/c'),
    '}});',
    '',
  ].join('\n');
  const request = (body: string) => `export default { request() { ${body} return { url: '/' }; } };\n`;

  it.each<[string, Record<string, string>, RegExp, string]>([
    [
      'a mix that names two entries alike',
      { 's.ts': REPEATED_READ },
      /^scenario module .*s\.ts is refused: line 5:3: Duplicate key "read" in object literal \(the first at line 3:3\); only the last one counts$/,
      'remove or rename one of the two (a mix needs a name of its own for each entry)',
    ],
    [
      'a mix kept in a variable of a helper, with non-ASCII names before the key',
      {
        'mix.ts': "export const mix = {\n  'lecture é': { weight: 1, request: () => ({ url: '/' }) }, a: 1, a: 2 };\n",
        's.ts': "import { mix } from './mix';\nexport default { mix };\n",
      },
      /is refused: .*mix\.ts:2:68: Duplicate key "a" in object literal \(the first at line 2:62\)/,
      'remove or rename one of the two (a mix needs a name of its own for each entry)',
    ],
    [
      'a key given twice outside a mix (the headers of a request)',
      { 's.ts': "export default { request: () => ({ url: '/', headers: { a: '1', a: '2' } }) };\n" },
      /is refused: line 1:65: Duplicate key "a" in object literal \(the first at line 1:57\); only the last one counts$/,
      'remove or rename one of the two (a mix needs a name of its own for each entry)',
    ],
    [
      'a case given twice',
      { 's.ts': request('switch (1) { case 1: break; case 1: break; }') },
      /line 1:58: This case clause will never be evaluated .*\(the first at line 1:43\)$/,
      'remove the later case, or give it the value meant',
    ],
    [
      'a comparison with NaN',
      { 's.ts': request('if (Math.random() === NaN) return { url: "/nan" };') },
      /line 1:48: Comparison with NaN using the "===" operator here is always false$/,
      'test for NaN with Number.isNaN(x)',
    ],
    [
      'a comparison with a new object',
      { 's.ts': request('if (globalThis.x === []) return { url: "/x" };') },
      /Comparison using the "===" operator here is always false$/,
      "compare the object's contents (for an empty array: Array.isArray(x) && x.length === 0)",
    ],
    [
      'a typeof that never is',
      { 's.ts': request('if (typeof globalThis.x === "nul") return { url: "/x" };') },
      /The "typeof" operator will never evaluate to "nul"$/,
      'compare typeof with one of "string", "number", "bigint", "boolean", "symbol", "undefined", "object", "function"',
    ],
    [
      'a class member given twice',
      { 's.ts': `class K { a() { return '/1'; } a() { return '/2'; } }\n${request('new K();')}` },
      /Duplicate member "a" in class body \(the first at line 1:11\); only the last one counts$/,
      'remove or rename one of the two',
    ],
  ])('%s', async (name, files, message, hint) => {
    const dir = folder(`refused-${name}`, files);
    const err = await refusal(path.join(dir, 's.ts'));
    expect(err.code).toBe('scenario-invalid');
    expect(err.message).toMatch(message);
    expect(err.hint).toBe(hint);
  });

  it('every problem at once, each with its fix', async () => {
    const dir = folder('refused-two', {
      's.ts': request("if (Math.random() === NaN) return { url: '/nan' }; const h = { a: 1, a: 2 };"),
    });
    const err = await loadScenario(path.join(dir, 's.ts')).catch((e: unknown) => e as PlateauError);
    expect(err).toBeInstanceOf(PlateauError);
    expect((err as PlateauError).message.split('\n')).toEqual([
      expect.stringMatching(/^scenario module .*s\.ts is refused, 2 problems:$/),
      expect.stringMatching(/^ {2}- line 1:48: Comparison with NaN .*: test for NaN with Number\.isNaN\(x\)$/),
      expect.stringMatching(
        /^ {2}- line 1:\d+: Duplicate key "a" .*only the last one counts: remove or rename one of the two \(a mix needs a name of its own for each entry\)$/,
      ),
    ]);
    expect((err as PlateauError).hint).toBe('fix each of them at its line');
  });

  it("esbuild's other warnings (a guess, a comparison with -0) load as before", async () => {
    const dir = folder('warned-not-refused', {
      's.ts': request('const x = Math.random(); if (x === -0 || !x in {}) return { url: "/z" };'),
    });
    expect(typeof (await loadScenario(path.join(dir, 's.ts'))).request).toBe('function');
  });
});

describe('engine workers load a scenario kept outside the repository', () => {
  it('2 workers run it against a local server for a second', async () => {
    const dir = outside('workers');
    const seen: string[] = [];
    const srv = await tinyServer((req, res) => {
      seen.push(req.url!);
      res.end('ok');
    });
    closers.push(srv.close);
    const engine = await WorkerEngine.create(
      2,
      {
        origin: srv.url,
        targetUrl: `${srv.url}/`,
        http: { timeoutMs: 5000, client: 'undici' },
        preAllocatedVUs: 4,
        // VUs for a whole second's arrivals in each worker: a stall of the machine lets them come due at once
        maxVUs: 200,
        scenarioPath: path.join(dir, 'scenario.ts'),
        runId: 'outside-workers',
        idKey: 'outside-workers',
        maxBodyBytes: 65536,
      },
      process.env,
    );
    closers.push(() => engine.close());
    const records: BucketRecord[] = [];
    const done = await engine.start({
      segments: [{ durationS: 1, fromPerSec: 100, toPerSec: 100 }],
      phase: 'steps',
      seqOffset: 0,
      gracefulStopMs: 2000,
      sink: (r) => records.push(r),
    }).done;
    expect(done.dispatched).toBe(100);
    expect(new Set(records.map((r) => r.source))).toEqual(new Set(['native/0', 'native/1']));
    // an arrival may be dropped only when a stall of a busy machine (this set runs beside the native
    // build) let more come due at once than a worker's VUs: 94, then 46 of 100 were ok with 20 VUs
    // in all (12-05, a stall of about a second); what this test holds is each seq sent once, so half
    // served is evidence enough
    expectSentOrDropped(records, 100, 50);
    // each seq sent once, by the scenario's own path (the module loaded in each worker)
    const seqs = seen.map((u) => Number(/^\/items\/(\d+)\?tag=workers$/.exec(u)?.[1]));
    expect(seqs.length).toBe(records.reduce((a, r) => a + r.ok, 0));
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(seqs.every((n) => Number.isInteger(n) && n >= 1 && n <= 100)).toBe(true);
  });
});
