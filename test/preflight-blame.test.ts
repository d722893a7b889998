/**
 * Preflight's sample arrivals tell the target's failure (a 5xx, a reset connection: it may fail
 * some requests and still be measured) from the scenario's (a 4xx of a request built wrong, a
 * check that refused a 2xx, code that threw), each with its own fix. A target's failure is tried
 * again: the entry is refused only when no attempt of it succeeded. Real servers on 127.0.0.1,
 * preflight's sample arrivals alone: each test takes well under a second.
 */
import path from 'node:path';
import type http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfigOrThrow } from '../harness/config/validate.ts';
import { sampleArrivals } from '../harness/pipeline/sample-arrivals.ts';
import { scenarioRequests } from '../harness/scenario/requests.ts';
import { PlateauError } from '../harness/errors.ts';
import { NAME_FIX } from '../harness/scenario/names.ts';
import { ScenarioMistake } from '../harness/scenario/mistake.ts';
import { tinyServer } from './helpers/tiny-server.ts';

const fixture = (name: string) => path.resolve(`test/fixtures/scenarios/blame/${name}.ts`);
let closeServer: (() => Promise<void>) | null = null;
afterEach(async () => {
  await closeServer?.();
  closeServer = null;
});

/** The shop's target: items and orders answer, `confirm` as the test says (its call number from 1). */
async function shop(confirm: (n: number, res: http.ServerResponse) => void) {
  const seen: string[] = [];
  let confirms = 0;
  const server = await tinyServer((q, res) => {
    seen.push(`${q.method} ${q.url}`);
    let body = '';
    q.on('data', (c: Buffer) => (body += c.toString()));
    q.on('end', () => {
      if (q.url?.startsWith('/items/')) res.end('item');
      else if (q.url === '/orders') res.end(body);
      else if (q.url?.endsWith('/confirm')) confirm(++confirms, res);
      else {
        res.statusCode = 404;
        res.end('no such route');
      }
    });
  });
  closeServer = server.close;
  return { url: server.url, seen };
}

async function samples(
  url: string,
  scenario: string | undefined,
  evidence: string[] = [],
): Promise<PlateauError | null> {
  const config = parseConfigOrThrow({
    target: { url },
    ...(scenario ? { scenario } : {}),
    steps: { startPerSec: 10, stepPerSec: 10, maxPerSec: 10, rampS: 0, holdS: 1 },
  });
  const requests = await scenarioRequests(scenario ?? null, config.target.url, 'blame');
  return sampleArrivals(config, requests, evidence).then(
    () => null,
    (e: unknown) => {
      expect(e).toBeInstanceOf(PlateauError);
      return e as PlateauError;
    },
  );
}

describe("preflight's sample arrivals: the target's failure or the scenario's", () => {
  it('a target that fails some confirms (500) is tried again, and the run goes on, saying so', async () => {
    const t = await shop((n, res) => {
      res.statusCode = n <= 2 ? 500 : 200;
      res.end(n <= 2 ? '{"error":"boom"}' : 'confirmed');
    });
    const evidence: string[] = [];
    expect(await samples(t.url, fixture('shop'), evidence)).toBeNull();
    expect(evidence.join('\n')).toMatch(
      /sample arrival of "checkout": checkout: create 200 checkout: confirm 200 \(the target failed 2 attempts before it: "checkout: confirm" got 500\)/,
    );
  });

  // a review: a unique row was sent again by each try of its sample arrival, three times in all
  it("each try of a sample arrival the target failed sends a unique source's row of its own, none the load's", async () => {
    const t = await shop((n, res) => {
      res.statusCode = n <= 3 ? 503 : 200;
      res.end(n <= 3 ? 'busy' : 'confirmed');
    });
    const evidence: string[] = [];
    expect(await samples(t.url, fixture('unique-retry'), evidence)).toBeNull();
    expect(evidence.join('\n')).toMatch(/\(the target failed 3 attempts before it: "checkout: confirm" got 503\)/);
    // 4 tries of the first sample arrival of checkout, then its second sample arrival: 5 accounts
    const accounts = t.seen.filter((s) => s.endsWith('/confirm')).map((s) => s.split('/')[2]);
    expect(accounts).toHaveLength(5);
    expect(new Set(accounts).size).toBe(5);
    // 20 rows, 15 kept (3 sample arrivals, 5 tries each): the load's are acc-1 to acc-5
    const s = await scenarioRequests(fixture('unique-retry'), `${t.url}/`, 'blame');
    expect(s.data.accounts.usable).toBe(5);
    for (const a of accounts) expect(Number(a.slice('acc-'.length))).toBeGreaterThan(5);
  });

  it("a target that fails every attempt of an entry (500) is refused as the target's failure, with how many failed", async () => {
    const t = await shop((_n, res) => {
      res.statusCode = 500;
      res.end('{"error":"boom"}');
    });
    const err = (await samples(t.url, fixture('shop')))!;
    expect(err.code).toBe('sample-target-failed');
    expect(err.message).toMatch(
      /^the target failed all 5 sample arrivals of entry "checkout": the last, the sample request "checkout: confirm" of transaction "checkout" POST http:\/\/127\.0\.0\.1:\d+\/orders\/[^ ]+\/confirm got 500: \{"error":"boom"\}$/,
    );
    expect(err.hint).toMatch(/^a 5xx is the target's failure, not the scenario's/);
    expect(err.hint).not.toMatch(/fix the scenario/);
    expect(t.seen.filter((s) => s.endsWith('/confirm'))).toHaveLength(5);
  });

  // a review: the retry of a transaction whose create the target kept met a 409, and the 500 before
  // it was lost: the refusal named only the scenario's fix
  it("a scenario's refusal on a later try keeps the target's failures before it", async () => {
    const t = await shop((n, res) => {
      res.statusCode = n === 1 ? 500 : 409;
      res.end(n === 1 ? '{"error":"boom"}' : '{"error":"exists"}');
    });
    const err = (await samples(t.url, fixture('shop')))!;
    expect(err.message).toMatch(/got 409/);
    expect(err.message).toMatch(
      /\(on try 2: the target had failed the first \("checkout: confirm" got 500\), and each try reads the same rows as the first \(a unique source's excepted\), so what a failed try left on the target may explain this answer\)$/,
    );
  });

  it("a connection the target resets on every attempt is the target's failure", async () => {
    const t = await shop((_n, res) => res.socket?.destroy());
    const err = (await samples(t.url, fixture('shop')))!;
    expect(err.code).toBe('sample-target-failed');
    expect(err.message).toMatch(/^the target failed all 5 sample arrivals of entry "checkout": .*failed: /);
    expect(err.hint).toMatch(/the target's failure, not the scenario's/);
  });

  it("a 4xx is the scenario's: refused at once, with the fix of the request", async () => {
    const t = await shop((_n, res) => {
      res.statusCode = 400;
      res.end('bad id');
    });
    const err = (await samples(t.url, fixture('shop')))!;
    expect(err.code).toBe('sample-request-failed');
    expect(err.message).toMatch(
      /^the sample request "checkout: confirm" of transaction "checkout" POST .* got 400: bad id$/,
    );
    expect(err.hint).toMatch(/^the target refused "checkout: confirm" as sent \(400\): fix how the scenario builds it/);
    expect(t.seen.filter((s) => s.endsWith('/confirm'))).toHaveLength(1);
  });

  it("a check that refused a 2xx is the scenario's: refused at once, the fix names the check", async () => {
    const t = await shop((_n, res) => res.end('pending'));
    const err = (await samples(t.url, fixture('shop')))!;
    expect(err.message).toMatch(
      /got 200, rejected by its check: "body pending" \(a string rejects, as the reason; return true to accept\): pending$/,
    );
    expect(err.hint).toMatch(/^the target answered 200 and the check of "checkout: confirm" refused it/);
    expect(t.seen.filter((s) => s.endsWith('/confirm'))).toHaveLength(1);
  });

  it('without a scenario module a 404 names the request once, and the fix is the target URL', async () => {
    const t = await shop(() => undefined);
    const err = (await samples(`${t.url}/nothing-here`, undefined))!;
    expect(err.message).toBe(`the sample request GET ${t.url}/nothing-here got 404: no such route`);
    expect(err.hint).toMatch(/^the target has nothing at .*\/nothing-here.*--target/);
    expect(err.hint).not.toMatch(/scenario so that/);
  });
});

describe("a scenario's mistake gets its own fix, not the scenario module's boilerplate", () => {
  it('a name built from an id', async () => {
    const t = await shop((_n, res) => res.end('confirmed'));
    const err = (await samples(t.url, fixture('name-from-id')))!;
    expect(err.message).toMatch(
      /^the scenario failed in transaction "checkout": http\.send: name "confirm .*built from data$/,
    );
    expect(err.hint).toBe(NAME_FIX);
  });

  it('ctx.row of a source whose readBy does not list the entry', async () => {
    const t = await shop(() => undefined);
    const err = (await samples(t.url, fixture('not-a-reader')))!;
    expect(err.message).toMatch(
      /ctx\.row\("customers"\) in entry "get item": the source's readBy lists "create order"/,
    );
    expect(err.hint).toMatch(/^add "get item" to data\.customers\.readBy/);
  });

  it('a write to a row of ctx.row: the source, that rows are shared and read-only, and the copy to make (a review: the bare TypeError and a fix about the return)', async () => {
    const t = await shop(() => undefined);
    const scenario = path.resolve('test/fixtures/scenarios/row-write.ts');
    const err = (await samples(t.url, scenario))!;
    expect(err.message).toBe(
      "the scenario failed in request(ctx) for the sample request: Cannot assign to read only property 'id' of object '#<Object>': ctx.row('accounts') is shared and read-only: every VU of a thread reads the same rows",
    );
    expect(err.hint).toBe(
      "copy the row first and change the copy: const r = { ...ctx.row('accounts') } (its values are strings: a spread copies the row whole)",
    );
    expect(t.seen).toEqual([]);
    // the transaction's sample arrival (its row the second, whose items are []): a JSON row's nested array, a deep copy
    const s = await scenarioRequests(scenario, `${t.url}/`, 'blame');
    const basket = s.sample(1);
    if (basket.kind !== 'transaction') throw new Error('basket is a transaction');
    const thrown = await Promise.resolve(basket.run(0, { send: () => Promise.reject(new Error('not sent')) })).catch(
      (e: unknown) => e as ScenarioMistake,
    );
    expect(thrown).toBeInstanceOf(ScenarioMistake);
    expect(thrown!.message).toBe(
      "Cannot add property 0, object is not extensible: ctx.row('carts') is shared and read-only: every VU of a thread reads the same rows",
    );
    expect(thrown!.fix).toMatch(
      /^copy the row first and change the copy: const r = JSON\.parse\(JSON\.stringify\(ctx\.row\('carts'\)\)\) \(a deep copy: /,
    );
  });

  it('a request to another origin', async () => {
    const t = await shop(() => undefined);
    const err = (await samples(t.url, fixture('other-origin')))!;
    expect(err.message).toMatch(/returned http:\/\/127\.0\.0\.1:1, but the target is http:\/\/127\.0\.0\.1:\d+/);
    expect(err.hint).toMatch(
      /^give the request a path \('\/orders', resolved against the target\) or a URL of http:\/\/127\.0\.0\.1:\d+; to load http:\/\/127\.0\.0\.1:1, make it the target/,
    );
  });
});

// a review: each of these read a fix that contradicted its cause (the check's "accept what the
// target answers", run's "so that it does not throw", request(ctx)'s "so that it returns { ... }")
describe('a fix the thrown error or the check already knows reaches the fix line', () => {
  it('a check that returns a Promise: drop async', async () => {
    const t = await shop(() => undefined);
    const err = (await samples(t.url, fixture('async-check')))!;
    expect(err.message).toMatch(/got 200, rejected by its check, which returned a Promise: /);
    expect(err.hint).toMatch(/^drop async from the check of "async-check": a check runs synchronously/);
  });

  it('ctx.sleep(NaN) in a transaction: where a NaN comes from, not "a send that failed resolves with ok false"', async () => {
    const t = await shop(() => undefined);
    const err = (await samples(t.url, fixture('think-nan')))!;
    expect(err.message).toBe(
      'the scenario failed in transaction "browse": ctx.sleep(NaN): give the think time in milliseconds, a number >= 0',
    );
    expect(err.hint).toMatch(/^compute the think time from numbers: NaN comes of arithmetic/);
  });

  it("ctx.hmacSha256 of a key that is not set and not in the scenario's secrets: export it and list it, in a request and in a transaction", async () => {
    const t = await shop(() => undefined);
    const fix =
      'export BLAME_UNDECLARED_KEY=<secret> before the run, and list it in the scenario\'s secrets (secrets: ["BLAME_UNDECLARED_KEY"]), so that preflight checks it before anything is sent and its value is scrubbed from every file and log';
    const request = (await samples(t.url, fixture('undeclared-secret')))!;
    expect(request.message).toBe(
      'the scenario failed in request(ctx) for the sample request: environment variable BLAME_UNDECLARED_KEY is not set',
    );
    expect([request.hint, request.code]).toEqual([fix, 'secret-missing']);
    const tx = (await samples(t.url, fixture('undeclared-secret-tx')))!;
    expect(tx.message).toBe(
      'the scenario failed in transaction "checkout": environment variable BLAME_UNDECLARED_KEY is not set',
    );
    expect(tx.hint).toBe(fix);
    expect(t.seen).toEqual([]);
  });
});
