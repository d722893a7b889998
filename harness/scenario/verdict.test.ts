import { describe, expect, it } from 'vitest';
import { bodyNotJson, checkFailureKind, checkReturned, checkThrew, notGiven, noVerdictFix } from './verdict.ts';
import type { Check, ResponseInfo } from './types.ts';

describe("checkReturned: a check's return value, on both engines", () => {
  it.each<[unknown, string | null]>([
    [true, null],
    ['expected 201, got 500', 'expected 201, got 500'],
    [false, 'check returned false'],
  ])('%j -> %j', (v, want) => expect(checkReturned(v)).toBe(want));

  it('anything else is refused with what it was and the fix, not read as "returned false"', () => {
    expect(checkReturned(200)).toBe(
      'check returned 200 (a number): return true, false or a message (e.g. res.status === 200 || `got ${res.status}`)',
    );
    expect(checkReturned(null)).toMatch(/^check returned null: return true, false or a message/);
    expect(checkReturned({ ok: true })).toMatch(/^check returned an object: /);
    expect(checkReturned(0)).toMatch(/^check returned 0 \(a number\)/);
  });
});

describe('a check that returns nothing or a Promise, or throws', () => {
  it('nothing rejects with the fix: a check written with braces and no return had accepted every response', () => {
    const failure = checkReturned(undefined)!;
    expect(failure).toMatch(/^check returned nothing: return true to accept the response/);
    expect(checkFailureKind(failure)).toBe('check');
  });

  it('the Check type agrees: a check with braces and no return is a type error (tsc, make checks), as it is rejected at run time', () => {
    // @ts-expect-error: void is not a check's result (an unused directive fails tsc if the type allows it again)
    const braces: Check = (res) => {
      void (res.status === 200);
    };
    expect(checkReturned(braces({ status: 200 } as ResponseInfo))).toMatch(/^check returned nothing: /);
  });

  it('an async check is told it must be synchronous', () => {
    expect(checkReturned(Promise.resolve(true))).toMatch(/^check returned a Promise: a check runs synchronously/);
  });

  it("a throw of the check's code is the target's answer (kind check); what plateau did not give it is the scenario's (kind other)", () => {
    const own = checkThrew(new TypeError("Cannot read properties of undefined (reading 'id')"), 'x');
    expect(own).toBe('check threw: x');
    expect(checkFailureKind(own)).toBe('check');
    const body = bodyNotJson('"<html>"');
    expect(checkThrew(body, body.message)).toBe('check threw: the body is not JSON ("<html>")');
    const notKept = notGiven('the response body was not kept for this check');
    const cannot = checkThrew(notKept, notKept.message);
    expect(cannot).toBe('check cannot judge: the response body was not kept for this check');
    expect(checkFailureKind(cannot)).toBe('other');
  });
});

describe("noVerdictFix: the fix of a check that gave no verdict, for preflight's fix line", () => {
  const of = 'the check of "read"';
  it('names what to change for nothing, a Promise, or a value returned', () => {
    expect(noVerdictFix(checkReturned(undefined)!, of)).toMatch(/^make the check of "read" return its verdict, true /);
    expect(noVerdictFix(checkReturned(Promise.resolve(true))!, of)).toMatch(/^drop async from the check of "read": /);
    expect(noVerdictFix(checkReturned(200)!, of)).toMatch(
      /^make the check of "read" return true, false or a message, not the value it compares/,
    );
    expect(noVerdictFix(checkReturned({ ok: true })!, of)).toMatch(/^make the check of "read" return true/);
  });

  it("has none for a verdict the check gave (false, its own message): that fix is the check's logic or the request", () => {
    expect(noVerdictFix(checkReturned(false)!, of)).toBeNull();
    expect(noVerdictFix('expected 201, got 200', of)).toBeNull();
    expect(noVerdictFix(checkThrew(new Error('x'), 'x'), of)).toBeNull();
  });
});
