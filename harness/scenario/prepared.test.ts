import { describe, expect, it } from 'vitest';
import path from 'node:path';
import { prepared } from './prepared.ts';
import { prepare } from './load.ts';
import { CALLED_FIX, CALLED_PROBLEM, undeclaredProblem } from './scenario-env.ts';
import { ScenarioMistake } from './mistake.ts';
import type { RequestSpec, SentResponse } from './types.ts';

const ORIGIN = 'http://127.0.0.1:8080';

/** load.ts's prepare with the keep fields set, a Buffer body read as text: what prepared() must match. */
function viaLoad(spec: RequestSpec, keep: number, headers: boolean) {
  const r = prepare(spec, ORIGIN);
  return { ...r, body: r.body === null ? null : r.body.toString(), keepBodyBytes: keep, keepHeaders: headers };
}

function outcome(f: () => unknown): unknown {
  try {
    const r = f() as { body: unknown };
    return { ...r, body: Buffer.isBuffer(r.body) ? r.body.toString() : r.body };
  } catch (err) {
    return `threw: ${(err as Error).message}`;
  }
}

describe("the engine's request of a spec (prepared: a fast path, the rest through load.ts's prepare)", () => {
  const specs: unknown[] = [
    { url: '/' },
    { url: `${ORIGIN}/items/r12?x=1` },
    { method: 'POST', url: '/items', headers: { 'content-type': 'application/json' }, body: '{"id":"a-1"}' },
    { method: 'PUT', url: '/items/1', body: 'crème ✓' },
    { method: 'post', url: '/items', body: 'x' },
    { method: 'GET', url: '/a/../b' },
    { url: '/x?' },
    { url: '/naïve' },
    { url: 'http://other.test/x' },
    { url: '//other.test/x' },
    { method: 'POST', url: '/b', body: new Uint8Array([104, 105]) },
    { url: '/h', headers: null },
    { url: '/e', body: '' },
    { method: 'BAD METHOD', url: '/' },
    { method: 'POST', url: '/o', body: { a: 1 } },
    { url: '/n', headers: { 'x-count': 5, 'x-a': 'b' } },
    { url: '/u', headers: { 'x-key': undefined } },
    { method: 'POST', url: '/o', headers: { 'x-tags': { a: 1 } }, body: '' },
    { url: '/s', headers: 'x-key: 1' },
    { url: 42 },
    null,
    'GET /',
  ];
  it.each(specs.map((s) => [JSON.stringify(s) ?? String(s), s]))(
    '%s: the same request (or error) as load.ts gives',
    (_label, spec) => {
      for (const [keep, headers] of [
        [0, false],
        [65_536, true],
      ] as const) {
        expect(outcome(() => prepared(spec as RequestSpec, ORIGIN, keep, headers))).toEqual(
          outcome(() => viaLoad(spec as RequestSpec, keep, headers)),
        );
      }
    },
  );

  it('keeps a string body as the string it is (no Buffer made), and copies the headers', () => {
    const headers = { 'x-a': '1' };
    const r = prepared({ method: 'POST', url: '/o', headers, body: '{"a":1}' }, ORIGIN, 0, false);
    expect(r.body).toBe('{"a":1}');
    expect(r.headers).toEqual(headers);
    expect(r.headers).not.toBe(headers);
  });
});

describe('a header value that is not a string', () => {
  const spec = (v: unknown) => ({ url: '/', headers: { 'x-a': 'a', 'x-key': v } }) as unknown as RequestSpec;
  it('a finite number is sent as its digits, as k6 takes one', () => {
    expect(prepared(spec(5), ORIGIN, 0, false).headers).toEqual({ 'x-a': 'a', 'x-key': '5' });
    expect(prepare(spec(0.5), ORIGIN).headers).toEqual({ 'x-a': 'a', 'x-key': '0.5' });
  });
  it('undefined is refused naming the header, with the hint of a missing field', () => {
    expect(() => prepared(spec(undefined), ORIGIN, 0, false)).toThrow(
      `request(ctx) returned header "x-key" that is undefined: give it a string (a finite number is sent as its digits); is it a field its object (a JSON row) does not have?`,
    );
    expect(() => prepared(spec(undefined), ORIGIN, 0, false, 'http.send(name, request)')).toThrow(
      /^http\.send\(name, request\) was given header "x-key" that is undefined:/,
    );
  });
  it.each<[string, unknown, string]>([
    ['null', null, 'null: give it a string (a finite number is sent as its digits)'],
    [
      'an object',
      { a: 1 },
      'an object: give it a string (a finite number is sent as its digits) (JSON.stringify(...) for a value that is JSON)',
    ],
    ['a boolean', true, 'a boolean: '],
    [
      'NaN',
      Number.NaN,
      'NaN: give it a string (a finite number is sent as its digits) (is it Number(...) of a setting not set?)',
    ],
  ])('%s is refused, its value never shown', (_label, v, says) => {
    expect(() => prepared(spec(v), ORIGIN, 0, false)).toThrow(`request(ctx) returned header "x-key" that is ${says}`);
  });
  it('headers that are not an object are refused; none (undefined, null) are none', () => {
    expect(() => prepared({ url: '/', headers: ['x'] } as unknown as RequestSpec, ORIGIN, 0, false)).toThrow(
      "request(ctx) returned headers that are an array: give an object of name and value, headers: { 'x-api-key': ctx.env.API_KEY }",
    );
    expect(prepared({ url: '/', headers: null } as unknown as RequestSpec, ORIGIN, 0, false).headers).toEqual({});
  });
  it("a scenario's header of a missing field fails its arrival, and preflight's sample before load", async () => {
    const { scenarioRequests } = await import('./requests.ts');
    const s = await scenarioRequests(
      path.resolve('test/fixtures/scenarios/header-values.ts'),
      'http://127.0.0.1:9/',
      'r',
      {
        env: {},
      },
    );
    const build = (e: ReturnType<typeof s.sample>) => (e.kind === 'request' ? e.build(1) : null);
    expect(build(s.arrivals.entries[0])?.headers).toEqual({ 'x-count': '5' });
    for (const unset of [s.arrivals.entries[1], s.sample(1)])
      expect(() => build(unset)).toThrow(
        /^request\(ctx\) of entry "unset" returned header "x-key" that is undefined: .* a field its object \(a JSON row\) does not have\?$/,
      );
    expect(() => s.arrivals.prepare({ url: '/t', headers: { 'x-tags': {} } } as unknown as RequestSpec)).toThrow(
      /^http\.send\(name, request\) was given header "x-tags" that is an object:/,
    );
  });
});

describe('a body that is neither a string nor a Uint8Array', () => {
  it.each<[string, unknown, string]>([
    ['an object', { a: 1 }, 'an object'],
    ['an array', [{ a: 1 }], 'an array'],
    ['a number', 7, 'a number'],
    ['an ArrayBuffer', new ArrayBuffer(2), 'an ArrayBuffer'],
  ])("%s is refused with the fix, not Node's words (nor zeros sent)", (_label, body, kind) => {
    const spec = { method: 'POST', url: '/o', body } as unknown as RequestSpec;
    expect(() => prepared(spec, ORIGIN, 0, false)).toThrow(
      `request(ctx) returned a body that is ${kind}: give a string (JSON.stringify(...)) or a Uint8Array`,
    );
    expect(() => prepared(spec, ORIGIN, 0, false, 'http.send(name, request)')).toThrow(
      `http.send(name, request) was given a body that is ${kind}:`,
    );
  });
  it('an async request(ctx) is told it runs synchronously, and where async work goes', () => {
    const spec = Promise.resolve({ url: '/' }) as unknown as RequestSpec;
    expect(() => prepared(spec, ORIGIN, 0, false)).toThrow(
      'request(ctx) returned a Promise: it runs synchronously and returns { method?, url, headers?, body? }; drop async, or make the entry a transaction, run(ctx, http), which may await',
    );
  });
  it('a Buffer, a Uint8Array and null are sent as before', () => {
    expect(prepare({ url: '/', body: Buffer.from('hi') }, ORIGIN).body?.toString()).toBe('hi');
    expect(prepare({ url: '/', body: new Uint8Array([104, 105]) }, ORIGIN).body?.toString()).toBe('hi');
    expect(prepare({ url: '/', body: null as unknown as string }, ORIGIN).body).toBeNull();
  });
});

describe("a mix entry's bad request names the entry", () => {
  it('request(ctx) of entry "write" returned a body that is an object', async () => {
    const { scenarioRequests } = await import('./requests.ts');
    const s = await scenarioRequests(
      path.resolve('test/fixtures/scenarios/object-body.ts'),
      'http://127.0.0.1:9/',
      'r',
    );
    const write = s.arrivals.entries.find((e) => e.name === 'write')!;
    expect(() => write.kind === 'request' && write.build(1)).toThrow(
      'request(ctx) of entry "write" returned a body that is an object: give a string (JSON.stringify(...)) or a Uint8Array',
    );
  });
});

describe("ctx.sleep in a transaction's arrival", () => {
  it('refuses think time past http.transactionTimeoutMs, as the scenario reads it: the send after it is never made', async () => {
    const { scenarioRequests } = await import('./requests.ts');
    const s = await scenarioRequests(
      path.resolve('test/fixtures/scenarios/long-sleep.ts'),
      'http://127.0.0.1:9/',
      'r',
      {
        transactionTimeoutMs: 5000,
      },
    );
    const sent: string[] = [];
    const http = { send: async (name: string) => (sent.push(name), { ok: true }) as unknown as SentResponse };
    const t = s.arrivals.entries[0];
    await expect(t.kind === 'transaction' && t.run(1, http)).rejects.toThrow(
      /^ctx\.sleep\(1000000000000\): give the think time in milliseconds, a number from 0 to 5000: /,
    );
    // the sample arrival's context too: preflight refuses it before load
    const sample = s.sample(0);
    await expect(sample.kind === 'transaction' && sample.run(1, http)).rejects.toThrow(/from 0 to 5000/);
    expect(sent).toEqual([]);
  });
});

describe('a scenario module on the native engine (test/fixtures/scenarios/env-reads.ts)', () => {
  /** The fixture scenario's requests, the environment holding a declared secret and an undeclared one. */
  const withEnv = async (fixture: string) => {
    const { scenarioRequests } = await import('./requests.ts');
    return scenarioRequests(path.resolve(`test/fixtures/scenarios/${fixture}.ts`), 'http://127.0.0.1:9/', 'r', {
      env: { PLATEAU_TEST_TOKEN: 'tok-declared-1', PLATEAU_TEST_AUTH: 'auth-undeclared-2' },
    });
  };

  it("sends the declared secret; a read of another variable or a call of ctx.env fails the arrival with the fix, preflight's sample too", async () => {
    const s = await withEnv('env-reads');
    const build = (e: ReturnType<typeof s.sample>) => (e.kind === 'request' ? e.build(1) : null);
    const [declared, undeclared, called] = s.arrivals.entries;
    expect(build(declared)?.headers).toEqual({ authorization: 'Bearer tok-declared-1' });
    for (const e of [undeclared, s.sample(1)])
      expect(() => build(e)).toThrow(`${undeclaredProblem('PLATEAU_TEST_AUTH')}`);
    // the load's arrival fails with the engine's TypeError told with the record form; preflight's sample refuses it with the fix
    const thrown = caught(() => build(called));
    expect(thrown).toBeInstanceOf(TypeError);
    expect(s.arrivals.threw(thrown)).toBe(`ctx.env is not a function: ${CALLED_PROBLEM}`);
    const sampled = caught(() => build(s.sample(2)));
    expect(sampled).toBeInstanceOf(ScenarioMistake);
    expect([(sampled as ScenarioMistake).message, (sampled as ScenarioMistake).fix]).toEqual([
      `ctx.env is not a function: ${CALLED_PROBLEM}`,
      CALLED_FIX,
    ]);
  });

  it('reads ctx.env as a record in a module: JSON.stringify, a spread, typeof and a template (review G7)', async () => {
    const s = await withEnv('env-record');
    const e = s.arrivals.entries[0];
    const built = e.kind === 'request' ? e.build(1) : null;
    expect(Buffer.from(built!.body!).toString()).toBe('{"env":{"PLATEAU_TEST_TOKEN":"tok-declared-1"}}');
    expect(built?.headers).toEqual({
      'x-kind': 'object',
      'x-text': '[object Object]',
      'x-spread': '{"PLATEAU_TEST_TOKEN":"tok-declared-1"}',
    });
  });
});

/** What f throws, or undefined. */
function caught(f: () => unknown): unknown {
  try {
    f();
  } catch (err) {
    return err;
  }
  return undefined;
}
