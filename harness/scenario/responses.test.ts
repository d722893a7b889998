import { describe, expect, it } from 'vitest';
import { checkOf } from './responses.ts';
import { requestArrivals } from './arrivals.ts';
import { bodyCutText, checkFailureKind } from './verdict.ts';
import { newOutcome, startOutcome } from '../engine/outcome.ts';
import type { Check, ResponseInfo } from './types.ts';

describe('a check that reads what its request did not keep', () => {
  it('fails with the fix instead of judging an empty body or no headers', () => {
    const o = newOutcome();
    o.status = 200;
    const viaHelper = (r: { body: string }) => r.body.includes('ok');
    expect(checkOf((r) => viaHelper(r), o, { body: false, headers: false })).toMatch(
      /check cannot judge: the response body was not kept for this check: .*write res.body or res.json\(\) in the check/,
    );
    expect(
      checkOf((r) => String((r as unknown as Record<string, unknown>)['head' + 'ers']), o, {
        body: false,
        headers: false,
      }),
    ).toMatch(/the response headers were not kept/);
    expect(checkOf((r) => r.status === 200, o, { body: false, headers: false })).toBeNull();
  });

  it("counts its code's throw and a body that is not JSON as the target's answer (kind check), nothing as a rejection", () => {
    const o = newOutcome();
    o.status = 200;
    o.bodyChunks.push(Buffer.from('<html>oops</html>'));
    const typo = checkOf((r) => (undefined as unknown as { status: number }).status === r.status, o)!;
    expect(typo).toMatch(/^check threw: Cannot read properties of undefined/);
    // a check that passed preflight's sample and throws on an answer: the answer is what changed
    expect(checkFailureKind(typo)).toBe('check');
    const html = checkOf((r) => r.json().id !== undefined, o)!;
    expect(html).toBe('check threw: the body is not JSON ("<html>oops</html>")');
    expect(checkFailureKind(html)).toBe('check');
    // braces and no return: rejected with the fix, where it had accepted every response
    // (the Check type refuses it as well: a plain JavaScript scenario meets the run-time refusal)
    const braces = ((r: ResponseInfo) => void (r.status === 500)) as unknown as Check;
    expect(checkOf(braces, o)).toMatch(/^check returned nothing: return true/);
  });
});

describe('a body cut at http.maxBodyBytes', () => {
  /** An answer of `size` bytes whose first `kept` were kept, as the engine's clients keep them. */
  function cutAnswer(size: number, kept: number) {
    const o = newOutcome();
    o.status = 200;
    const body = `${'x'.repeat(size - 3)}end`;
    o.bytesIn = size;
    o.bodyChunks.push(Buffer.from(body.slice(0, kept)));
    return o;
  }

  it("a check's rejection says how much of the body it saw and the fix; res.truncated says it was cut", () => {
    const check = (r: ResponseInfo) => r.body.endsWith('end') || `no end (truncated: ${r.truncated})`;
    const kept = { body: true, headers: false, bodyBytes: 40 };
    expect(checkOf(check, cutAnswer(120, 40), kept)).toBe(
      'no end (truncated: true) (the check saw the first 40 of 120 bytes: raise http.maxBodyBytes)',
    );
    expect(checkOf((r) => r.status === 201, cutAnswer(120, 40), kept)).toBe(
      'check returned false (the check saw the first 40 of 120 bytes: raise http.maxBodyBytes)',
    );
    // whole: accepted, and a rejection says nothing of a cut
    expect(checkOf(check, cutAnswer(30, 30), kept)).toBeNull();
    expect(checkOf((r) => r.truncated || 'whole', cutAnswer(30, 30), kept)).toBe('whole');
    // JSON cut short says its own fix, once
    expect(checkOf((r) => r.json() !== null, cutAnswer(120, 40), kept)).toBe(`check cannot judge: ${bodyCutText(40)}`);
  });

  it("a transaction's response (what http.send resolved with) says truncated too", () => {
    const a = requestArrivals(() => ({ method: 'GET', path: '/', headers: {}, body: null }));
    const kept = { body: true, headers: false, bodyBytes: 40 };
    expect([a.sent(cutAnswer(120, 40), null, kept).truncated, a.sent(cutAnswer(30, 30), null, kept).truncated]).toEqual(
      [true, false],
    );
    // not kept (the run's code names no body): reading it throws the fix, as body does
    const unkept = a.sent(cutAnswer(120, 0), null, { body: false, headers: false });
    expect(() => unkept.truncated).toThrow(/the response body was not kept for this transaction/);
  });
});

describe('an answer of a transaction', () => {
  it("an empty answer of a transaction keeps nothing of the VU's next one", () => {
    const a = requestArrivals(() => ({ method: 'GET', path: '/', headers: {}, body: null }));
    const o = newOutcome();
    o.status = 204;
    const first = a.sent(o, null);
    startOutcome(o, 0); // the VU's next request, on the same outcome
    o.bodyChunks.push(Buffer.from('{"secret":"second"}'));
    expect(first.body).toBe('');
  });
});

describe('a body longer than http.maxBodyBytes', () => {
  it('json() on the cut body says it was cut and names the setting; a short bad body is quoted', () => {
    const a = requestArrivals(() => ({ method: 'GET', path: '/', headers: {}, body: null }));
    const o = newOutcome();
    o.status = 200;
    o.bodyChunks.push(Buffer.from('[{"id":"a"},{"id"'), Buffer.from(':"b"},{"i')); // 26 bytes kept of more
    const kept = { body: true, headers: false, bodyBytes: 26 };
    expect(checkOf((r) => Array.isArray(r.json()), o, kept)).toMatch(
      /^check cannot judge: the body is not JSON as kept: plateau keeps the first 26 bytes of a body \(http.maxBodyBytes\) and this one was longer; raise http.maxBodyBytes/,
    );
    expect(() => a.sent(o, null, kept).json()).toThrow(/first 26 bytes .* raise http.maxBodyBytes/);
    // under the limit the body is whole: quoted as it is
    expect(() => a.sent(o, null, { ...kept, bodyBytes: 64 }).json()).toThrow(/^the body is not JSON \("\[\{/);
  });
});
