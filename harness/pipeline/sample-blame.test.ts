/** The refusal of a sample request's answer: each cause with its one fix. */
import { describe, expect, it } from 'vitest';
import { parseConfigOrThrow } from '../config/validate.ts';
import type { Outcome } from '../engine/outcome.ts';
import type { PreparedRequest } from '../engine/vu-connection.ts';
import { bodyCutText, checkReturned, checkThrew, cutNote, notGiven } from '../scenario/verdict.ts';
import { refusal, scenarioFailure } from './sample-blame.ts';
import { PlateauError } from '../errors.ts';
import { ScenarioMistake } from '../scenario/mistake.ts';
import { upperCaseHeaderReads } from '../scenario/traffic.ts';
import type { ResponseInfo } from '../scenario/types.ts';

const config = parseConfigOrThrow({
  target: { url: 'http://127.0.0.1:9/' },
  steps: { startPerSec: 10, stepPerSec: 10, maxPerSec: 20, rampS: 1, holdS: 3 },
});
const req: PreparedRequest = { method: 'GET', path: '/big', headers: {}, body: null };
const ok = { status: 200, rawHeaders: null, bytesIn: 100_000, bytesOut: 0, bodyChunks: [], connections: 1, idleMs: 0 };
const outcome = ok as unknown as Outcome;

describe('refusal of a sample answer', () => {
  it("a body cut at http.maxBodyBytes: that setting's fix alone, not the check's or the request's", () => {
    const verdict = checkThrew(notGiven(bodyCutText(65_536)), bodyCutText(65_536));
    const err = refusal(config, req, outcome, Buffer.from('{"id":'), verdict, 'big', null)!;
    expect(err.message).toMatch(
      /got 200, which its check cannot judge: the body is not JSON as kept: plateau keeps the first 65536 bytes of a body \(http\.maxBodyBytes\) and this one was longer$/,
    );
    expect(err.hint).toBe("raise http.maxBodyBytes above the body's size");
  });

  it('a check that refused a 2xx: make the check accept it, or fix the request', () => {
    const err = refusal(config, req, outcome, Buffer.from('{}'), 'expected an id', 'big', null)!;
    expect(err.message).toMatch(
      /got 200, rejected by its check: "expected an id" \(a string rejects, as the reason; return true to accept\): \{\}$/,
    );
    expect(err.hint).toMatch(/^the target answered 200 and the check of "big" refused it: make the check accept/);
  });

  it('a truthy string a k6-style check returned (res.json().status: "UP") reads as the rejection it is, not a pass', () => {
    const verdict = checkReturned('UP')!;
    const err = refusal(config, req, outcome, Buffer.from('{"status":"UP"}'), verdict, 'health', null)!;
    expect(err.message).toBe(
      'the sample request "health" GET http://127.0.0.1:9/big got 200, rejected by its check: "UP" (a string rejects, as the reason; return true to accept): {"status":"UP"}',
    );
    // plateau's own verdicts say what the check returned
    const nothing = refusal(config, req, outcome, Buffer.from('{}'), checkReturned(false), 'health', null)!;
    expect(nothing.message).toMatch(/ got 200, rejected by its check, which returned false: \{\}$/);
  });

  it('the note of a body cut at http.maxBodyBytes stays outside the quoted reason', () => {
    const err = refusal(config, req, outcome, Buffer.from('{"a":'), `UP${cutNote(8, 120)}`, 'health', null)!;
    expect(err.message).toMatch(
      / got 200, rejected by its check: "UP" \(a string rejects, as the reason; return true to accept\) \(the check saw the first 8 of 120 bytes: raise http\.maxBodyBytes\): \{"a":$/,
    );
    const unknown = refusal(
      config,
      req,
      outcome,
      Buffer.from('x'),
      `check returned false${cutNote(8, Infinity)}`,
      'h',
      null,
    )!;
    expect(unknown.message).toMatch(
      /, rejected by its check, which returned false \(the check saw the first 8 bytes of a longer body: raise http\.maxBodyBytes\): x$/,
    );
  });
});

// a review: a check that returned a Promise read "drop async" in the cause and "make the check
// accept what the target answers" in the fix
describe('a check that reads a header name with an upper-case letter (finding A6): header names are lower-case', () => {
  const check = (res: ResponseInfo) => (res.status === 200 && res.headers['X-Cache'] === 'miss') || `got ${res.status}`;

  it('its refusal of a 2xx says so first, with the name to read', () => {
    const err = refusal(
      config,
      req,
      outcome,
      Buffer.from('{}'),
      'got 200',
      'browse',
      null,
      upperCaseHeaderReads(check),
    )!;
    expect(err.message).toMatch(/got 200, rejected by its check: "got 200" /);
    expect(err.hint).toMatch(
      /^header names are lower-case: res\.headers\['x-cache'\], where the check of "browse" reads res\.headers\['X-Cache'\] \(undefined on both engines\); otherwise: the target answered 200 and the check of "browse" refused it/,
    );
    // and where it threw on the undefined value
    const threw = refusal(
      config,
      req,
      outcome,
      Buffer.from('{}'),
      checkThrew(new Error('x'), "Cannot read properties of undefined (reading 'split')"),
      'browse',
      null,
      upperCaseHeaderReads(check),
    )!;
    expect(threw.hint).toMatch(
      /^header names are lower-case: res\.headers\['x-cache'\], where the check of "browse" reads/,
    );
  });

  it("reads them from the check's text, by key or by name, under any receiver; lower-case reads and methods are none", () => {
    const reads = upperCaseHeaderReads(
      (r: ResponseInfo) =>
        !!r.headers?.['Content-Type'] &&
        !!r.headers.Location &&
        r.headers.hasOwnProperty('etag') &&
        r.headers['x-ok'] === '1',
    );
    expect(reads).toEqual([
      { written: "r.headers['Content-Type']", lowerCase: "r.headers['content-type']" },
      { written: 'r.headers.Location', lowerCase: 'r.headers.location' },
    ]);
    expect(upperCaseHeaderReads((res: ResponseInfo) => res.headers['x-cache'] === 'miss')).toEqual([]);
    // none: the fix is as it was
    const err = refusal(config, req, outcome, Buffer.from('{}'), 'got 200', 'browse', null, [])!;
    expect(err.hint).toMatch(/^the target answered 200 and the check of "browse" refused it/);
  });
});

describe('a check that gave no verdict: its own fix, not "accept what the target answers"', () => {
  it.each<[string, unknown, RegExp]>([
    ['a Promise', Promise.resolve(true), /^drop async from the check of "big": a check runs synchronously/],
    ['nothing', undefined, /^make the check of "big" return its verdict, true to accept the response/],
    ['a number', 200, /^make the check of "big" return true, false or a message, not the value it compares/],
  ])('%s', (_what, returned, fix) => {
    const err = refusal(config, req, outcome, Buffer.from('{}'), checkReturned(returned), 'big', null)!;
    expect(err.hint).toMatch(fix);
    expect(err.hint).not.toMatch(/accept what the target answers/);
  });
});

describe("scenarioFailure: the fix the thrown error knows, else the caller's", () => {
  it("a PlateauError's hint and code (an unset secret ctx.hmacSha256 read), not the request's fix", () => {
    const thrown = new PlateauError(
      'environment variable K is not set',
      'export K=<secret> and list it',
      'secret-missing',
    );
    const err = scenarioFailure(
      'request(ctx) for the sample request',
      thrown,
      'fix request(ctx) of "p" so that it returns',
    );
    expect(err.message).toBe(
      'the scenario failed in request(ctx) for the sample request: environment variable K is not set',
    );
    expect(err.hint).toBe('export K=<secret> and list it');
    expect(err.code).toBe('secret-missing');
    expect(err.exitCode).toBe(3);
  });

  it("a ScenarioMistake's fix; a plain Error gets the caller's", () => {
    expect(scenarioFailure('transaction "buy"', new ScenarioMistake('m', 'its fix'), 'the run fix').hint).toBe(
      'its fix',
    );
    const plain = scenarioFailure('transaction "buy"', new Error('m'), 'the run fix');
    expect([plain.hint, plain.code]).toEqual(['the run fix', 'scenario-failed']);
  });
});
