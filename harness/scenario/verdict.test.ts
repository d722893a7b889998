import { describe, expect, it } from 'vitest';
import { checkReturned } from './verdict.ts';

describe("checkReturned: a check's return value, on both engines", () => {
  it.each<[unknown, string | null]>([
    [true, null],
    [undefined, null],
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
