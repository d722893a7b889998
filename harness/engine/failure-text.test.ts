import { describe, expect, it } from 'vitest';
import { bodyStart, ERROR_BODY_BYTES, httpFailureText } from './failure-text.ts';
import { secretScrubber } from '../secret-scrub.ts';
import { CUT_MARK } from '../cut-message.ts';
import { checkReturned, checkThrew, notGiven } from '../scenario/verdict.ts';

const chunks = (...parts: string[]) => parts.map((p) => Buffer.from(p));
const whole = (text: string) => [chunks(text), Buffer.byteLength(text)] as const;

describe("a failed response's error text (finding A5: 401 bad credentials and 401 no token read apart)", () => {
  it("says the status, the check's own message and the start of the body", () => {
    expect(httpFailureText(401, 'login 401', ...whole('{"error":"bad credentials"}\n'))).toBe(
      'HTTP 401 (check: login 401); body: {"error":"bad credentials"}',
    );
    expect(httpFailureText(401, null, ...whole('{"error":"no token"}'))).toBe('HTTP 401; body: {"error":"no token"}');
    // no body, no check: as it was
    expect(httpFailureText(503, null, [], 0)).toBe('HTTP 503');
  });

  it("leaves out plateau's own verdicts (false, nothing, a throw, what it could not read): only a check's message is its own", () => {
    for (const verdict of [
      checkReturned(false),
      checkReturned(undefined),
      checkThrew(new Error('x'), 'the body is not JSON ("<html>")'),
      checkThrew(notGiven('n'), 'the body was not kept'),
    ])
      expect(httpFailureText(500, verdict, ...whole('<html>oops</html>'))).toBe('HTTP 500; body: <html>oops</html>');
  });

  it('quotes at most ERROR_BODY_BYTES, marks the cut, drops a character the cut split, escapes control characters', () => {
    const long = `${'a'.repeat(ERROR_BODY_BYTES - 1)}é and more`; // é's two bytes straddle the cut
    const cut = bodyStart(chunks(long.slice(0, 150), long.slice(150)), Buffer.byteLength(long));
    expect(cut).toBe(`${'a'.repeat(ERROR_BODY_BYTES - 1)}${CUT_MARK}`);
    expect(bodyStart(...whole('line 1\r\nline 2\t\u001b[31m\u0000'))).toBe('line 1\\r\\nline 2\\t\\u001b[31m\\u0000');
    // a body longer than its chunks kept (a client keeps ERROR_BODY_BYTES of one it would not keep)
    expect(bodyStart(chunks('abc'), 10_000)).toBe(`abc${CUT_MARK}`);
    expect(bodyStart([], 10)).toBe('');
  });

  it("is scrubbed as every text of the store: a secret in the body, whole or its start before the cut's mark", () => {
    const secret = 'tok-Zq9-0123456789abcdefghij';
    const scrub = secretScrubber([], { PLATEAU_TEST_TOKEN: secret });
    const echoed = `{"error":"bad token","token":"${secret}"}`;
    expect(scrub(JSON.stringify({ samples: [httpFailureText(401, null, ...whole(echoed))] }))).toBe(
      JSON.stringify({ samples: ['HTTP 401; body: {"error":"bad token","token":"[redacted]"}'] }),
    );
    // the token straddles byte 200: what the cut left of it is redacted
    const straddling = `${'x'.repeat(ERROR_BODY_BYTES - 10)}${secret}`;
    const text = scrub(JSON.stringify(httpFailureText(401, null, ...whole(straddling))));
    expect(text).toContain(`[redacted]${CUT_MARK}`);
    expect(text).not.toContain('tok-Zq9');
  });
});
