/**
 * The k6 bundle of a mix scenario (test/fixtures/scenarios/mix-shop.ts): what the script holds,
 * that it type-checks against @types/k6, and what it does when run. k6 cannot run here, so the
 * script bundleK6Script wrote is run in Node with k6's modules replaced by the recording fakes of
 * test/helpers/fake-k6.ts (the fakes stand in for k6 only: the scenario, the mix order, the rows,
 * the checks and the outcomes are plateau's real code, as bundled).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import * as acorn from 'acorn';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { bundleK6Script, type RuntimeInput } from './bundle.ts';
import { k6Options } from './options.ts';
import { entryOf, mixOrder } from '../../scenario/mix-order.ts';
import { rowIndex, seedOf } from '../../scenario/data-rows.ts';
import { parseCsv } from '../../scenario/csv-rows.ts';
import type { RequestRun } from '../../scenario/arrivals.ts';
import { NAME_FIX } from '../../scenario/names.ts';
import { SAMPLE_TRIES } from '../../scenario/traffic.ts';
import { CALLED_PROBLEM, undeclaredProblem } from '../../scenario/scenario-env.ts';
import { truncateUtf8 } from '../runtime/response.ts';
import { PlateauError } from '../../errors.ts';
import { isK6Side, k6ScriptDiagnostics, sectionAt } from '../../../test/helpers/k6-script-check.ts';
import { CHECK_MESSAGES_TAGGED, OTHER_MESSAGES } from '../runtime/check-tag.ts';
import { loadWithFakeK6, type FakeAnswer, type FakeRequest, type LoadedScript } from '../../../test/helpers/fake-k6.ts';

const SCENARIO = path.resolve('test/fixtures/scenarios/mix-shop.ts');
const CSV = path.resolve('test/fixtures/scenarios/mix-shop-accounts.csv');
const ROWS = parseCsv(fs.readFileSync(CSV, 'utf8'));
const NAMES = ['read order', 'create order', 'checkout'];
/**
 * The rows the load may use: order 'unique' keeps the last for preflight's sample arrivals (run
 * natively): one per entry and a second for the transaction (checkout), each for SAMPLE_TRIES tries.
 */
const USABLE = ROWS.length - (NAMES.length + 1) * SAMPLE_TRIES;
const ORDER = mixOrder([5, 3, 2]);
const ORIGIN = 'http://127.0.0.1:8080';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'plateau-k6-bundle-'));

/** A scenario module of `text` in a directory of its own under the test's temp directory; its path. */
function scenarioFile(dirName: string, text: string): string {
  const dir = path.join(tmp, dirName);
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'scenario.ts');
  fs.writeFileSync(file, text);
  return file;
}
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

const RUNTIME: RuntimeInput = {
  runId: 'mix-run',
  idKey: 'mix-run',
  idPrefix: 'o-',
  origin: ORIGIN,
  seqOffset: 0,
  timeoutMs: 2000,
};

/** Bundles, once per scenario and runtime in this file (a bundle is a pure function of both; each costs esbuild about half a second). */
const bundles = new Map<string, Promise<string>>();
function script(scenarioPath: string, runtime: Partial<RuntimeInput> = {}): Promise<string> {
  const key = JSON.stringify([scenarioPath, runtime]);
  let b = bundles.get(key);
  if (!b) bundles.set(key, (b = bundle(scenarioPath, runtime)));
  return b;
}

function bundle(scenarioPath: string, runtime: Partial<RuntimeInput>): Promise<string> {
  return bundleK6Script({
    scenarioPath,
    targetUrl: `${ORIGIN}/`,
    options: k6Options(
      {
        segments: [{ durationS: 10, fromPerSec: 1, toPerSec: 1 }],
        vus: { preAllocatedVUs: 1, maxVUs: 2, reason: 'test' },
      },
      1,
    ),
    runtime: { ...RUNTIME, ...runtime },
  });
}

/** The demo-like shop: reads 200, creates 201 with the order's id, confirms 200 'confirmed'. */
function shop(req: FakeRequest): FakeAnswer {
  const p = new URL(req.url).pathname;
  if (req.method === 'GET') return { status: 200, body: JSON.stringify({ id: p.split('/').pop() }) };
  if (p === '/orders') return { status: 201, body: JSON.stringify({ id: JSON.parse(String(req.body)).id }) };
  if (p.endsWith('/confirm')) return { status: 200, body: JSON.stringify({ status: 'confirmed' }) };
  return { status: 404 };
}

async function run(loaded: LoadedScript, arrivals: number): Promise<void> {
  for (let i = 0; i < arrivals; i++) await loaded.iterate(i);
}

const arrivalsOf = (l: LoadedScript) => l.fake.samples.filter((s) => s.metric === 'plateau_arrival');
const tagsOf = (l: LoadedScript) => arrivalsOf(l).map((s) => s.tags);
/** The outcomes of one entry's arrivals among the first USABLE (while create order has rows left). */
const whileRows = (l: LoadedScript, name: string) =>
  tagsOf(l)
    .slice(0, USABLE)
    .filter((t) => t.name === name)
    .map((t) => t.outcome);
function allAre(outcomes: string[], want: string): void {
  expect(outcomes.length).toBeGreaterThan(0);
  expect(outcomes).toEqual(outcomes.map(() => want));
}
const requestsAt = (l: LoadedScript, iteration: number) => l.fake.requests.filter((r) => r.iteration === iteration);

describe('the k6 bundle of a mix', () => {
  it('opens the CSV by its absolute path into a SharedArray, sends transactions with asyncRequest and writes plateau_arrival', async () => {
    const s = await script(SCENARIO);
    expect(s).toContain(`"path": ${JSON.stringify(CSV)}`);
    expect(s).toContain('"order": "unique"');
    expect(s).toMatch(/new SharedArray\(/);
    expect(s).toMatch(/\bopen\(src\.path\)/);
    expect(s).toMatch(/http\.asyncRequest\(/);
    expect(s).toContain('new Trend("plateau_arrival", true)');
    expect(s).toMatch(/tags: \{ name: r\.name \}/);
    expect(s).toContain('"maxBodyBytes": 65536');
    for (const name of [...NAMES, 'checkout: create', 'checkout: confirm']) expect(s).toContain(JSON.stringify(name));
    expect(s).not.toMatch(/require\(|node:/);
  });

  it('refuses a data source whose file is missing, naming the file and the fix', async () => {
    const dir = path.join(tmp, 'missing');
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'scenario.ts');
    fs.writeFileSync(
      file,
      "export default { data: { people: { csv: './people.csv' } }, mix: { a: { weight: 1, request: () => ({ url: '/' }) } } };\n",
    );
    const err = await script(file).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PlateauError);
    expect((err as PlateauError).message).toContain(path.join(dir, 'people.csv'));
    expect((err as PlateauError).message).toMatch(/data source "people"/);
    expect((err as PlateauError).hint).toMatch(/relative to the scenario module's folder/);
  });

  it('the runtime type-checks against @types/k6 alone (strict, no Node types: k6 has no Node API)', () => {
    const program = ts.createProgram([path.resolve('harness/k6/runtime/iteration.ts')], {
      noEmit: true,
      strict: true,
      target: ts.ScriptTarget.ES2020,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      allowImportingTsExtensions: true,
      types: ['k6'],
      typeRoots: [path.resolve('node_modules/@types')],
      lib: ['lib.es2020.d.ts'],
      skipLibCheck: true,
    });
    const diags = ts
      .getPreEmitDiagnostics(program)
      .map(
        (d) =>
          `${d.file ? path.relative('.', d.file.fileName) : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
      );
    expect(diags).toEqual([]);
    // the program did reach every runtime file and the pure scenario modules they import
    const files = program.getSourceFiles().map((f) => path.relative('.', f.fileName));
    for (const f of ['harness/k6/runtime/transaction.ts', 'harness/k6/runtime/data.ts', 'harness/scenario/traffic.ts'])
      expect(files).toContain(f);
  });

  it("the bundled script's k6 side type-checks as JavaScript against @types/k6 (checkJs)", async () => {
    const text = await script(SCENARIO);
    expect(k6ScriptDiagnostics(text)).toEqual([]);
    // the judged part is the one that calls k6
    expect(isK6Side(sectionAt(text, text.indexOf('http.asyncRequest(')))).toBe(true);
    expect(isK6Side(sectionAt(text, text.indexOf('new SharedArray(')))).toBe(true);
  });
  it('is ES2017 syntax: k6 before v0.53 parses a script through Babel 6, which knows no ?., ?? or object spread', async () => {
    const text = await script(SCENARIO);
    // acorn at ecmaVersion 2017 refuses every later syntax (and regular-expression feature) k6 < v0.53 cannot parse
    expect(() => acorn.parse(text, { ecmaVersion: 2017, sourceType: 'module' })).not.toThrow();
    // the scenario's and the runtime's own ?? and ?. were lowered, not left for k6
    expect(text).not.toMatch(/\?\?|\?\.[A-Za-z_$[(]/);
  });
});

describe('the bundled mix, run with k6 faked', () => {
  it('runs the entry entryOf gives each arrival, names every request, and writes one plateau_arrival per arrival', async () => {
    const l = await loadWithFakeK6(await script(SCENARIO), shop);
    await run(l, 20);
    // init context: the CSV opened once, into one SharedArray; the mix's order laid out into another
    expect(l.fake.opened).toEqual([CSV]);
    expect(l.fake.sharedArrays).toEqual(['plateau data: accounts', 'plateau mix order']);
    // each read of a SharedArray is deep-frozen by k6: the order's numbers have no keys to walk, a row its fields
    expect(l.fake.frozenKeys['plateau mix order'] ?? 0).toBe(0);
    expect(l.fake.frozenKeys['plateau data: accounts']).toBeGreaterThan(0);
    expect(l.fake.metrics).toMatchObject({ plateau_arrival: 'trend', plateau_check_failed: 'counter' });
    const expected = Array.from({ length: 20 }, (_, i) => NAMES[entryOf(ORDER, i + 1)]);
    expect(tagsOf(l).map((t) => t.name)).toEqual(expected);
    expect(expected.filter((n) => n === 'read order')).toHaveLength(10);
    expect(expected.filter((n) => n === 'checkout')).toHaveLength(4);
    for (let i = 0; i < 20; i++) {
      const seq = i + 1;
      const sent = requestsAt(l, i);
      const tags = tagsOf(l)[i];
      if (expected[i] === 'read order') {
        expect(sent.map((r) => [r.method, r.params.tags, r.params.responseType, r.async])).toEqual([
          ['GET', { name: 'read order' }, 'none', false],
        ]);
        expect(tags).toEqual({ name: 'read order', outcome: 'ok', transaction: 'false' });
      } else if (expected[i] === 'create order' && seq <= USABLE) {
        expect(sent.map((r) => [r.params.tags, r.params.responseType, r.async])).toEqual([
          [{ name: 'create order' }, 'text', false],
        ]);
        // order 'unique': arrival n gets row n
        expect(JSON.parse(String(sent[0].body))).toEqual({
          id: `o-mix-run-${seq}`,
          account: ROWS[seq - 1].id,
          region: ROWS[seq - 1].region,
        });
        expect(tags).toEqual({ name: 'create order', outcome: 'ok', transaction: 'false' });
      } else if (expected[i] === 'create order') {
        // the rows are used up (the last ones were preflight's, never sent again): the arrival fails before sending
        expect(sent).toEqual([]);
        expect(tags).toEqual({ name: 'create order', outcome: 'other', transaction: 'unsent' });
      } else {
        expect(
          sent.map((r) => [r.method, new URL(r.url).pathname, r.params.tags, r.params.responseType, r.async]),
        ).toEqual([
          ['POST', '/orders', { name: 'checkout: create' }, 'text', true],
          ['POST', `/orders/o-mix-run-${seq}/confirm`, { name: 'checkout: confirm' }, 'text', true],
        ]);
        expect(tags).toEqual({ name: 'checkout', outcome: 'ok', transaction: 'true' });
      }
      for (const r of sent) expect(r.params).toMatchObject({ redirects: 0, timeout: '2000ms' });
    }
    // think time: 20 ms per checkout, on k6's global timers (Node's stand in), not its blocking sleep
    expect(l.fake.sleeps).toEqual([]);
    const checkouts = arrivalsOf(l).filter((s) => s.tags.name === 'checkout');
    expect(checkouts).toHaveLength(4);
    // a timer may fire up to a millisecond early by Date.now's reckoning
    for (const c of checkouts) expect(c.value).toBeGreaterThanOrEqual(19);
    // a request entry's arrival lasts its request (k6's timings.duration); a transaction's is measured
    for (const [i, s] of arrivalsOf(l).entries()) {
      if (s.tags.transaction === 'false' && s.tags.outcome === 'ok') expect(s.value, `arrival ${i + 1}`).toBe(7.5);
      expect(s.value).toBeGreaterThanOrEqual(0);
    }
    expect(l.fake.checks.filter((c) => !c.ok)).toEqual([]);
    expect(new Set(l.fake.checks.map((c) => c.name))).toEqual(
      new Set(['read order: check', 'create order: check', 'checkout: create: check', 'checkout: confirm: check']),
    );
  });

  it('numbers arrivals from seqOffset: the entries and the rows follow the global arrival number', async () => {
    const l = await loadWithFakeK6(await script(SCENARIO, { seqOffset: 3 }), shop);
    await run(l, 10);
    expect(tagsOf(l).map((t) => t.name)).toEqual(Array.from({ length: 10 }, (_, i) => NAMES[entryOf(ORDER, i + 4)]));
    const creates = l.fake.requests.filter((r) => r.params.tags?.name === 'create order');
    const seqs = creates.map((r) => r.iteration + 4);
    expect(seqs.length).toBeGreaterThan(0);
    expect(creates.map((r) => JSON.parse(String(r.body)).account)).toEqual(seqs.map((seq) => ROWS[seq - 1].id));
  });

  it("builds ids from the run's id key, as the native engine: two runs given run id r2 send disjoint ids", async () => {
    const sent = async (idKey: string) => {
      const l = await loadWithFakeK6(await script(SCENARIO, { runId: 'r2', idKey }), shop);
      await run(l, 10);
      return l.fake.requests.filter((r) => r.method === 'POST' && r.body).map((r) => JSON.parse(String(r.body)).id);
    };
    const a = await sent('r2-t5a3kx0q7c');
    const b = await sent('r2-t5a3kx9zzz');
    expect(a.length).toBeGreaterThan(0);
    for (const id of a) expect(id).toMatch(/^o-r2-t5a3kx0q7c-\d+$/);
    expect(a.filter((id) => b.includes(id))).toEqual([]);
  });

  it("an arrival's outcome is its failing request's kind, a check, or other; check failures carry the name", async () => {
    const l = await loadWithFakeK6(await script(SCENARIO), (req) => {
      const p = new URL(req.url).pathname;
      if (req.method === 'GET') return { status: 404 };
      if (p.endsWith('/confirm')) return { status: 503 };
      if (req.params.tags?.name === 'create order') return { status: 201, body: '{}' }; // no id: the check fails
      return shop(req);
    });
    await run(l, 10);
    allAre(whileRows(l, 'read order'), 'http_4xx');
    allAre(whileRows(l, 'create order'), 'check');
    allAre(whileRows(l, 'checkout'), 'http_5xx');
    const failed = l.fake.samples.filter((s) => s.metric === 'plateau_check_failed');
    // only a rejected 2xx/3xx is counted (the 404 and the 503 are failures by status)
    expect(failed.map((s) => s.tags)).toEqual(
      tagsOf(l)
        .filter((t) => t.name === 'create order' && t.outcome === 'check')
        .map(() => ({ check: 'bad create: 201', name: 'create order', kind: 'check' })),
    );
    // a failed request is judged by its status alone: its check never ran, as on the native engine
    expect(l.fake.checks.filter((c) => c.name === 'read order: check')).toEqual([]);
    expect(l.fake.checks.some((c) => c.name === 'create order: check' && !c.ok)).toBe(true);
  });

  it('a VU tags plateau_check_failed with at most its first 20 distinct messages: a message built from data would make a k6 series of each', async () => {
    let n = 0;
    const l = await loadWithFakeK6(await script(path.resolve('test/fixtures/scenarios/expect-200.ts')), () => ({
      status: 201,
      headers: { location: `/orders/${++n}` },
    }));
    await run(l, 50);
    const tags = l.fake.samples.filter((s) => s.metric === 'plateau_check_failed').map((s) => s.tags.check);
    // every rejection still counted; the first 20 with their own message, the rest with one tag
    expect(tags).toHaveLength(50);
    expect(new Set(tags.slice(0, CHECK_MESSAGES_TAGGED)).size).toBe(CHECK_MESSAGES_TAGGED);
    expect(tags[0]).toBe('expected 200, got 201 to /orders/1');
    expect(new Set(tags.slice(CHECK_MESSAGES_TAGGED))).toEqual(new Set([OTHER_MESSAGES]));
  });

  it('a transport error fails the transaction by its kind, and run stops where the scenario returns', async () => {
    const l = await loadWithFakeK6(await script(SCENARIO), (req) =>
      req.params.tags?.name === 'checkout: create'
        ? { status: 0, error: 'dial tcp 127.0.0.1:8080: connect: connection refused', errorCode: 1212 }
        : shop(req),
    );
    await run(l, 10);
    expect(
      tagsOf(l)
        .filter((t) => t.name === 'checkout')
        .map((t) => t.outcome),
    ).toEqual(['refused', 'refused']);
    // made.ok was false: the scenario returned before its think time and its confirm
    expect(l.fake.requests.filter((r) => r.params.tags?.name === 'checkout: confirm')).toEqual([]);
    expect(l.fake.sleeps).toEqual([]);
  });

  it('sends made together are in flight together, each answer its own, as on the native engine', async () => {
    const echo = (req: FakeRequest): FakeAnswer => {
      const p = new URL(req.url).pathname;
      return { status: 200, headers: { 'x-path': p }, body: p };
    };
    const l = await loadWithFakeK6(
      await script(path.resolve('test/fixtures/scenarios/native-mix/concurrent.ts')),
      echo,
    );
    await run(l, 6);
    expect(l.fake.asyncMostInFlight).toBe(2);
    // the scenario throws when an answer is another request's; chain returns before its sends end (not awaited)
    expect(tagsOf(l).map((t) => `${t.name} ${t.outcome}`)).toEqual([
      'pair ok',
      'chain other',
      'plain ok',
      'pair ok',
      'chain other',
      'plain ok',
    ]);
    // chain's arrival waited for its sends, the second made on the first's answer
    expect(
      l.fake.requests.filter((r) => r.params.tags?.name?.startsWith('chain')).map((r) => r.params.tags?.name),
    ).toEqual(['chain: a', 'chain: b', 'chain: a', 'chain: b']);
  });

  it("a transaction past http.transactionTimeoutMs fails its arrival as a timeout, where k6 has global timers (Node's stand in)", async () => {
    const l = await loadWithFakeK6(
      await script(path.resolve('test/fixtures/scenarios/native-mix/hang.ts'), { transactionTimeoutMs: 50 }),
      () => ({ status: 200, body: 'ok' }),
    );
    await run(l, 16);
    const stuck = arrivalsOf(l).filter((s) => s.tags.name === 'stuck');
    // every other arrival of `stuck` awaits a promise nothing settles: counted at its deadline, not never
    expect(stuck.map((s) => s.tags.outcome)).toEqual(['timeout', 'ok', 'timeout', 'ok']);
    for (const s of stuck.filter((x) => x.tags.outcome === 'timeout')) expect(s.value).toBeGreaterThanOrEqual(45);
    expect(arrivalsOf(l).filter((s) => s.tags.outcome === 'ok')).toHaveLength(14);
  });

  it("think time is a timer where k6 has global timers (Node's stand in): the deadline ends a transaction in its think time", async () => {
    const l = await loadWithFakeK6(
      await script(path.resolve('test/fixtures/scenarios/native-mix/think.ts'), { transactionTimeoutMs: 50 }),
      () => ({ status: 200, body: 'ok' }),
    );
    await run(l, 1);
    expect(arrivalsOf(l).map((s) => s.tags.outcome)).toEqual(['timeout']);
    // k6's blocking sleep was not used, and the send after the think time was refused, never sent
    expect(l.fake.sleeps).toEqual([]);
    expect(l.fake.requests.map((r) => r.params.tags?.name)).toEqual(['thinker: first']);
  });

  it("refuses think time past the transaction's deadline as the native engine does: the arrival fails (kind other), no timer overflows", async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const overflow = vi.spyOn(process, 'emitWarning');
    const l = await loadWithFakeK6(
      await script(path.resolve('test/fixtures/scenarios/long-sleep.ts'), { transactionTimeoutMs: 5000 }),
      () => ({ status: 200 }),
    );
    await run(l, 2);
    expect(tagsOf(l).map((t) => t.outcome)).toEqual(['other', 'other']);
    expect(warn.mock.calls.flat().join('\n')).toContain(
      'dawdle: run threw: ctx.sleep(1000000000000): give the think time in milliseconds, a number from 0 to 5000:',
    );
    expect(l.fake.requests).toEqual([]);
    expect(overflow).not.toHaveBeenCalled();
  });

  it('keeps at most maxBodyBytes of a body: a JSON body cut short fails the check that parses it', async () => {
    const long = (req: FakeRequest) =>
      req.params.tags?.name === 'create order'
        ? { status: 201, body: JSON.stringify({ id: 'x', pad: 'p'.repeat(100) }) }
        : shop(req);
    const cut = await loadWithFakeK6(await script(SCENARIO, { maxBodyBytes: 40 }), long);
    await run(cut, 10);
    // the setting cut it, not the target: kind other, with the fix (as on the native engine)
    allAre(whileRows(cut, 'create order'), 'other');
    const reasons = cut.fake.samples.filter((s) => s.metric === 'plateau_check_failed').map((s) => s.tags.check);
    expect(reasons.every((r) => r.startsWith('check cannot judge: the body is not JSON as kept'))).toBe(true);
    const whole = await loadWithFakeK6(await script(SCENARIO), long);
    await run(whole, 10);
    allAre(whileRows(whole, 'create order'), 'ok');
  });

  it("a check's rejection of a body cut at maxBodyBytes says how much it saw, and res.truncated says it was cut, as on the native engine", async () => {
    const fixture = path.resolve('test/fixtures/scenarios/truncated.ts');
    const answer = (req: FakeRequest): FakeAnswer =>
      new URL(req.url).pathname === '/long'
        ? { status: 200, body: `${'x'.repeat(100)}end` }
        : { status: 200, body: 'ok' };
    const l = await loadWithFakeK6(await script(fixture, { maxBodyBytes: 40 }), answer);
    await run(l, 2);
    expect(tagsOf(l).map((t) => `${t.name} ${t.outcome}`)).toEqual(['tail check', 'txn ok']);
    // the tag leaves the body's size out: one series per message, not per response size (check-tag.ts)
    expect(l.fake.samples.filter((s) => s.metric === 'plateau_check_failed').map((s) => s.tags.check)).toEqual([
      'no end (truncated: true) (the check saw the first 40 bytes of a longer body: raise http.maxBodyBytes)',
    ]);
    // the native engine's check of the same answer: the same words, with the body's size
    const { scenarioRequests } = await import('../../scenario/requests.ts');
    const native = await scenarioRequests(fixture, `${ORIGIN}/`, RUNTIME.runId, { maxBodyBytes: 40 });
    const { newOutcome } = await import('../../engine/outcome.ts');
    const o = newOutcome();
    o.status = 200;
    o.bytesIn = 103;
    o.bodyChunks.push(Buffer.from('x'.repeat(40)));
    const tail = native.arrivals.entries[0];
    expect(tail.kind === 'request' && tail.check(o)).toBe(
      'no end (truncated: true) (the check saw the first 40 of 103 bytes: raise http.maxBodyBytes)',
    );
  });

  it('a check or a transaction reading the response through a helper gets the fix, not an empty body, as on the native engine', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const l = await loadWithFakeK6(
      await script(path.resolve('test/fixtures/scenarios/reads-through-helpers.ts')),
      (req) =>
        req.method === 'POST' ? { status: 201, body: '{"id":"o-1"}' } : { status: 200, body: '{"error":"db down"}' },
    );
    await run(l, 4);
    const byName = Object.fromEntries(tagsOf(l).map((t) => [t.name, t.outcome]));
    // read direct names res.body in its check: its body is kept and judged (an error body fails it)
    // reading what was not kept is the scenario's to fix (kind other); read direct's false is the target's answer
    expect(byName).toEqual({ read: 'other', 'read traced': 'other', 'read direct': 'check', checkout: 'other' });
    const typeOf = (name: string) => l.fake.requests.find((r) => r.params.tags?.name === name)?.params.responseType;
    expect([typeOf('read'), typeOf('read direct'), typeOf('checkout: create')]).toEqual(['none', 'text', 'none']);
    const messages = l.fake.samples.filter((s) => s.metric === 'plateau_check_failed').map((s) => s.tags);
    expect(messages).toEqual([
      {
        name: 'read',
        check: expect.stringMatching(/^check cannot judge: the response body was not kept for this check/),
        kind: 'other',
      },
      {
        name: 'read traced',
        check: expect.stringMatching(/^check cannot judge: the response headers were not kept/),
        kind: 'other',
      },
      { name: 'read direct', check: 'check returned false', kind: 'check' },
    ]);
    // the transaction's helper read made.json(): the fix names it, and the confirm was never sent
    expect(l.fake.requests.map((r) => r.params.tags?.name)).not.toContain('checkout: confirm');
    const logged = warn.mock.calls.map((c) => String(c[0]));
    expect(
      logged.some(
        (m) =>
          m.includes('checkout: run threw: the response body was not kept for this transaction') &&
          m.includes('made.body or made.json()'),
      ),
    ).toBe(true);
    warn.mockRestore();
  });

  it('a check may log or spread its response whole: what was not kept is left out, not thrown, as on the native engine', async () => {
    const file = scenarioFile(
      'logs',
      `export default {
  mix: {
    logged: { weight: 1, request: () => ({ url: '/a' }), check: (res) => JSON.stringify(res) === '{"status":200}' || 'logged ' + JSON.stringify(res) },
    spread: { weight: 1, request: () => ({ url: '/b' }), check: (res) => ({ ...res }).status === 200 },
  },
};
`,
    );
    const l = await loadWithFakeK6(await script(file), () => ({ status: 200, body: 'ok' }));
    await run(l, 2);
    expect(tagsOf(l).map((t) => [t.name, t.outcome])).toEqual([
      ['logged', 'ok'],
      ['spread', 'ok'],
    ]);
  });

  it('a transaction that throws, or sends under a refused name, costs its arrival (kind other), never the run', async () => {
    const file = scenarioFile(
      'throws',
      `export default {
  mix: {
    'by id': { weight: 1, async run(ctx, http) { const r = await http.send('order ' + (ctx.seq + 1000), { url: '/o' }); if (r.ok) await http.send('after', { url: '/o' }); } },
    'throws': { weight: 1, async run(ctx, http) { await http.send('first', { url: '/o' }); throw new Error('no such order\\nstack line'); } },
    'self': { weight: 1, async run(ctx, http) { await http.send('self', { url: '/o' }); } },
    'fine': { weight: 1, request: () => ({ url: '/ok' }) },
  },
};
`,
    );
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const l = await loadWithFakeK6(await script(file), () => ({ status: 200, body: 'ok' }));
    await run(l, 8);
    const order = mixOrder([1, 1, 1, 1]);
    const names = ['by id', 'throws', 'self', 'fine'];
    expect(tagsOf(l)).toEqual(
      Array.from({ length: 8 }, (_, i) => {
        const name = names[entryOf(order, i + 1)];
        return { name, outcome: name === 'fine' ? 'ok' : 'other', transaction: name === 'fine' ? 'false' : 'true' };
      }),
    );
    // a refused name is never sent (and resolves ok false: 'after' never runs); the throwing transaction's request was
    expect(l.fake.requests.map((r) => r.params.tags?.name).sort()).toEqual(['fine', 'fine', 'first', 'first']);
    const logged = warn.mock.calls.map((c) => String(c[0]));
    expect(logged.some((m) => m.includes('by id: http.send: name "order 1001"') && m.includes(NAME_FIX))).toBe(true);
    expect(logged.some((m) => m.includes('self: http.send: "self" is the name of an entry of the mix'))).toBe(true);
    // each distinct message once, its first line only
    expect(logged.filter((m) => m.includes('throws: run threw: no such order'))).toHaveLength(1);
    expect(logged.some((m) => m.includes('stack line'))).toBe(false);
  });

  it('a send not awaited fails its arrival with the fix, read on its promise (made.ok) or still in flight when run returned, as on the native engine', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const l = await loadWithFakeK6(await script(path.resolve('test/fixtures/scenarios/not-awaited.ts')), () => ({
      status: 200,
    }));
    await run(l, 3);
    expect(tagsOf(l).map((t) => `${t.name} ${t.outcome}`)).toEqual(['forgot other', 'unawaited other', 'awaited ok']);
    const logged = warn.mock.calls.flat().join('\n');
    expect(logged).toContain(
      'forgot: run threw: await http.send("forgot: create", ...) before reading .ok: it returns a promise',
    );
    expect(logged).toContain(
      'unawaited: transaction "unawaited" returned while its send "unawaited: two" was still in flight: await every http.send inside run(ctx, http)',
    );
    // each was sent and waited for (never a late sample); forgot's confirm never
    expect(l.fake.requests.map((r) => r.params.tags?.name)).toEqual([
      'forgot: create',
      'unawaited: one',
      'unawaited: two',
      'awaited: a',
      'awaited: b',
      'awaited: c',
    ]);
    expect(tagsOf(l).filter((t) => t.transaction === 'late')).toEqual([]);
  });

  it('a send made after its transaction ended is refused and written as a late sample of its name, not an arrival', async () => {
    const l = await loadWithFakeK6(await script(path.resolve('test/fixtures/scenarios/native-mix/late.ts')), () => ({
      status: 200,
    }));
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    await run(l, 2);
    await new Promise((r) => setTimeout(r, 50)); // the timers' sends, 5 ms after each arrival
    expect(tagsOf(l).map((t) => `${t.name} ${t.outcome} ${t.transaction}`)).toEqual([
      't ok true',
      't ok true',
      't: late other late',
      't: late other late',
    ]);
    expect(l.fake.requests.map((r) => r.params.tags?.name)).toEqual(['t: one', 't: one']);
  });

  it('a request whose body is an object fails its arrival (kind other) with the fix, never sent, as on the native engine', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const l = await loadWithFakeK6(await script(path.resolve('test/fixtures/scenarios/object-body.ts')), () => ({
      status: 200,
    }));
    await run(l, 4);
    expect(tagsOf(l).map((t) => `${t.name} ${t.outcome}`)).toEqual([
      'read ok',
      'write other',
      'read ok',
      'write other',
    ]);
    expect(l.fake.requests.map((r) => r.method)).toEqual(['GET', 'GET']);
    expect(warn.mock.calls.flat().join('\n')).toContain(
      'request(ctx) returned a body that is an object: give a string (JSON.stringify(...)) or a Uint8Array',
    );
  });

  it('a header value that is undefined or an object fails its arrival (kind other), never sent; a number is sent as its digits, as on the native engine', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const l = await loadWithFakeK6(await script(path.resolve('test/fixtures/scenarios/header-values.ts')), () => ({
      status: 200,
    }));
    await run(l, 3);
    expect(tagsOf(l).map((t) => `${t.name} ${t.outcome}`)).toEqual(['count ok', 'unset other', 'tagged other']);
    expect(l.fake.requests.map((r) => [new URL(r.url).pathname, r.params.headers])).toEqual([
      ['/count', { 'x-count': '5' }],
    ]);
    const logged = warn.mock.calls.flat().join('\n');
    expect(logged).toContain(
      `unset: request(ctx) returned header "x-key" that is undefined: give it a string (a finite number is sent as its digits); is it a field its object (a JSON row) does not have?`,
    );
    expect(logged).toContain(
      'tagged: scenario threw: http.send("tagged: send", request) was given header "x-tags" that is an object',
    );
  });

  it("ctx.env holds the scenario's secrets only: another name or a call fails its arrival with the fix, never sent; res.text() is the body, as on the native engine", async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const env = { PLATEAU_TEST_TOKEN: 'tok-declared-1', PLATEAU_TEST_AUTH: 'auth-undeclared-2' };
    const l = await loadWithFakeK6(
      await script(path.resolve('test/fixtures/scenarios/env-reads.ts')),
      () => ({ status: 200, body: 'ok' }),
      env,
    );
    await run(l, 4);
    expect(Object.fromEntries(tagsOf(l).map((t) => [t.name, t.outcome]))).toEqual({
      declared: 'ok',
      undeclared: 'other',
      called: 'other',
      browse: 'ok',
    });
    expect(l.fake.requests.map((r) => [new URL(r.url).pathname, r.params.headers?.authorization])).toEqual(
      expect.arrayContaining([
        ['/declared', 'Bearer tok-declared-1'],
        ['/item', undefined],
      ]),
    );
    expect(l.fake.requests).toHaveLength(2);
    const logged = warn.mock.calls.flat().join('\n');
    expect(logged).toContain(`undeclared: ${undeclaredProblem('PLATEAU_TEST_AUTH')}`);
    expect(logged).toContain(`called: ctx.env is not a function: ${CALLED_PROBLEM}`);
    expect(logged).not.toContain('auth-undeclared-2');
  });

  it('ctx.env is a record in the bundle as natively: JSON.stringify, a spread, typeof and a template read the declared names (review G7)', async () => {
    const l = await loadWithFakeK6(
      await script(path.resolve('test/fixtures/scenarios/env-record.ts')),
      () => ({ status: 200 }),
      { PLATEAU_TEST_TOKEN: 'tok-declared-1', PLATEAU_TEST_AUTH: 'auth-undeclared-2' },
    );
    await run(l, 1);
    const [sent] = l.fake.requests;
    expect(sent.body).toBe('{"env":{"PLATEAU_TEST_TOKEN":"tok-declared-1"}}');
    expect(sent.params.headers).toEqual({
      'x-kind': 'object',
      'x-text': '[object Object]',
      'x-spread': '{"PLATEAU_TEST_TOKEN":"tok-declared-1"}',
    });
  });

  it("a write to a row of ctx.row (SharedArray's deep-frozen element) fails its arrival saying rows are shared and read-only and the copy to make, as on the native engine", async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const l = await loadWithFakeK6(await script(path.resolve('test/fixtures/scenarios/row-write.ts')), () => ({
      status: 200,
    }));
    await run(l, 4);
    expect(tagsOf(l).map((t) => `${t.name} ${t.outcome}`)).toEqual([
      'rename other',
      'basket other',
      'rename other',
      'basket other',
    ]);
    expect(l.fake.requests).toEqual([]);
    const logged = warn.mock.calls.flat().join('\n');
    // Node's messages here; k6's own (goja) say "Cannot assign to read only property 'id'", told alike
    expect(logged).toContain(
      "plateau: rename: Cannot assign to read only property 'id' of object '#<Object>': ctx.row('accounts') is shared and read-only: every VU of a thread reads the same rows; copy it first: const r = { ...ctx.row('accounts') }",
    );
    expect(logged).toContain(
      "plateau: basket: run threw: Cannot add property 1, object is not extensible: ctx.row('carts') is shared and read-only: every VU of a thread reads the same rows; copy it first: const r = JSON.parse(JSON.stringify(ctx.row('carts')))",
    );
  });

  it('sends the rows and keys the native engine sends: a sequential source walked per entry, pick spread over every key', async () => {
    const fixture = path.resolve('test/fixtures/scenarios/sequential-rows.ts');
    const l = await loadWithFakeK6(await script(fixture), () => ({ status: 200 }));
    await run(l, 160);
    const { scenarioRequests } = await import('../../scenario/requests.ts');
    const native = await scenarioRequests(fixture, `${ORIGIN}/`, RUNTIME.runId);
    const nativePaths = Array.from({ length: 160 }, (_, i) => {
      const e = native.arrivals.entryOf(i + 1);
      return e.kind === 'request' ? e.build(i + 1).path : '';
    });
    expect(l.fake.requests.map((r) => new URL(r.url).pathname)).toEqual(nativePaths);
    // entry a (one arrival in four): the 16 rows in turn, twice and a half
    const rows = nativePaths.filter((p) => p.startsWith('/p/')).map((p) => p.split('/')[3]);
    expect(new Set(rows).size).toBe(16);
    expect(rows.slice(0, 3)).toEqual(['acct0', 'acct1', 'acct2']);
  });

  it('draws a random source by its seed, the rows the native engine draws, whatever the run id (a review: only the run id seeded them)', async () => {
    const fixture = path.resolve('test/fixtures/scenarios/random-seed.ts');
    const l = await loadWithFakeK6(await script(fixture), () => ({ status: 200 }));
    await run(l, 120);
    // the script was written for run mix-run; the native run has another id
    const { scenarioRequests } = await import('../../scenario/requests.ts');
    const native = await scenarioRequests(fixture, `${ORIGIN}/`, 'another-run');
    const nativePaths = Array.from(
      { length: 120 },
      (_, i) => (native.arrivals.entries[0] as RequestRun).build(i + 1).path,
    );
    const paths = l.fake.requests.map((r) => new URL(r.url).pathname);
    expect(paths).toEqual(nativePaths);
    const rows = parseCsv(fs.readFileSync(path.resolve('test/fixtures/scenarios/reader-rows.csv'), 'utf8'));
    expect(paths).toEqual(
      Array.from(
        { length: 120 },
        (_, i) => `/r/${i + 1}/${rows[rowIndex('random', i + 1, rows.length, seedOf('checkout-ab'))!].id}`,
      ),
    );
  });

  it("pick's salt gives an arrival a second key of its own, the same as the native engine's", async () => {
    const fixture = path.resolve('test/fixtures/scenarios/pick-salt.ts');
    const l = await loadWithFakeK6(await script(fixture), () => ({ status: 200 }));
    await run(l, 48);
    const { scenarioRequests } = await import('../../scenario/requests.ts');
    const native = await scenarioRequests(fixture, `${ORIGIN}/`, RUNTIME.runId);
    const nativePaths = Array.from({ length: 48 }, (_, i) => {
      const e = native.arrivals.entryOf(i + 1);
      return e.kind === 'request' ? e.build(i + 1).path : '';
    });
    expect(l.fake.requests.map((r) => new URL(r.url).pathname)).toEqual(nativePaths);
    const keys = nativePaths.map((p) => p.split('/').slice(2).map(Number));
    // unsalted, the same key twice; salted, another key in most arrivals (1 in 24 alike by chance)
    expect(keys.every(([a, b]) => a === b)).toBe(true);
    expect(keys.filter(([a, , c]) => a === c).length).toBeLessThan(12);
    expect(keys.filter(([, , c, d]) => c === d).length).toBeLessThan(12);
  });

  it("gives a unique source's rows to its readBy's arrivals alone, as the native engine does; an unlisted entry's arrival fails", async () => {
    const fixture = path.resolve('test/fixtures/scenarios/reader-rows.ts');
    const l = await loadWithFakeK6(await script(fixture), () => ({ status: 200 }));
    await run(l, 200);
    expect(l.fake.sharedArrays).toEqual(['plateau data: accounts', 'plateau mix order', 'plateau readers: accounts']);
    const { scenarioRequests } = await import('../../scenario/requests.ts');
    const native = await scenarioRequests(fixture, `${ORIGIN}/`, RUNTIME.runId);
    const nativePaths = Array.from({ length: 200 }, (_, i) => {
      const e = native.arrivals.entryOf(i + 1);
      try {
        return e.kind === 'request' ? [e.build(i + 1).path] : [];
      } catch {
        return [];
      }
    }).flat();
    expect(l.fake.requests.map((r) => new URL(r.url).pathname)).toEqual(nativePaths);
    // create and renew, 60 of the 200 arrivals, take rows 0 to 59; audit's 20 arrivals send nothing
    const taken = nativePaths.filter((p) => /^\/(create|renew)\//.test(p)).map((p) => p.split('/')[2]);
    expect(taken).toEqual(Array.from({ length: 60 }, (_, i) => `acct${i}`));
    expect(nativePaths.filter((p) => p.startsWith('/audit/'))).toEqual([]);
    expect(
      tagsOf(l)
        .filter((t) => t.name === 'audit')
        .map((t) => t.outcome),
    ).toEqual(Array(20).fill('other'));
  });

  it('counts a send refused for its name in plateau_refused_name, its message in the error tag, as the native engine counts it apart', async () => {
    const l = await loadWithFakeK6(await script(path.resolve('test/fixtures/scenarios/refused-names.ts')), () => ({
      status: 200,
    }));
    await run(l, 110);
    // one VU's book: the entry's name and 99 of its sends' make 100; the other 11 arrivals' sends are refused
    const refused = l.fake.samples.filter((s) => s.metric === 'plateau_refused_name');
    expect(refused.map((s) => s.value)).toEqual(Array(11).fill(1));
    // the VU's first refusal carries its message; the others only count (a tag per refused name would be a series each)
    expect(refused.slice(1).map((s) => s.tags?.error)).toEqual(Array(10).fill(undefined));
    expect(refused[0].tags.error).toMatch(
      /^http\.send: name "page .*" is one past 100 names in the run; give each request a fixed name/,
    );
    expect(tagsOf(l).filter((t) => t.outcome === 'other')).toHaveLength(11);
    expect(l.fake.requests).toHaveLength(99);
  });

  it('a scenario of one request counts an arrival whose request(ctx) threw (plateau_unsent), where k6 would lose it', async () => {
    const l = await loadWithFakeK6(await script(path.resolve('test/fixtures/scenarios/throws-sometimes.ts')), () => ({
      status: 200,
    }));
    await run(l, 4);
    expect(l.fake.requests).toHaveLength(2);
    expect(l.fake.samples.filter((s) => s.metric === 'plateau_unsent').map((s) => s.value)).toEqual([1, 1]);
    expect(arrivalsOf(l)).toEqual([]);
  });

  it('a scenario of one request writes no plateau_arrival and names its requests as today', async () => {
    const l = await loadWithFakeK6(
      await script(path.resolve('test/fixtures/scenarios/expect-200.ts'), {
        requestName: 'expect 200',
        checkName: 'expect 200: check',
      }),
      () => ({ status: 302, headers: { Location: '/elsewhere' } }),
    );
    await run(l, 3);
    expect(arrivalsOf(l)).toEqual([]);
    expect(l.fake.requests.map((r) => [r.params.tags, r.params.responseType, r.async])).toEqual(
      Array(3).fill([{ name: 'expect 200' }, 'none', false]),
    );
    // its check reads headers only; a failed check on a 3xx is counted, as before
    expect(l.fake.samples.map((s) => [s.metric, s.tags])).toEqual(
      Array(3).fill([
        'plateau_check_failed',
        { check: 'expected 200, got 302 to /elsewhere', name: 'expect 200', kind: 'check' },
      ]),
    );
  });
});

describe('truncateUtf8', () => {
  it.each([
    ['ascii under the limit', 'abc', 3, 'abc'],
    ['ascii over', 'abcdef', 4, 'abcd'],
    ['two-byte characters are not split', 'ééé', 5, 'éé'],
    ['three-byte characters', '€€', 5, '€'],
    ['a surrogate pair counts 4 and is never split', 'a😀b', 4, 'a'],
    ['a surrogate pair that fits', 'a😀b', 5, 'a😀'],
    ['zero keeps nothing', 'abc', 0, ''],
  ])('%s', (_what, text, max, want) => {
    const got = truncateUtf8(text, max);
    expect(got).toBe(want);
    expect(Buffer.byteLength(got, 'utf8')).toBeLessThanOrEqual(max);
  });
});
