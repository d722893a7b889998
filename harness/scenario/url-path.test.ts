import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { verbatimPath } from './url-path.ts';

const origin = 'http://127.0.0.1:8080';
const viaUrl = (u: string) => {
  const x = new URL(u, origin);
  return x.origin === origin ? x.pathname + x.search : null;
};

describe('verbatimPath', () => {
  it('returns the path and query of a plain URL on the origin', () => {
    expect(verbatimPath(`${origin}/orders/42?x=1&y=a:b`, origin)).toBe('/orders/42?x=1&y=a:b');
    expect(verbatimPath(`${origin}/`, origin)).toBe('/');
    expect(verbatimPath('/orders/42?x=1', origin)).toBe('/orders/42?x=1');
  });

  it('declines what the URL parser would change', () => {
    for (const u of [
      `${origin}/a/../b`,
      `${origin}/a/%2e%2E/b`,
      `${origin}/a b`,
      `${origin}/a#f`,
      `${origin}/q?a='1'`,
      `${origin}`,
      `${origin}:80/x`,
      `HTTP://127.0.0.1:8080/x`,
      `${origin}/\\x`,
      `${origin}/ä`,
      '//evil.example/x',
      '/a/../b',
      'orders/1',
    ]) {
      expect(verbatimPath(u, origin), u).toBeNull();
    }
  });

  it('agrees with new URL() whenever it answers (property)', () => {
    const ch = fc.constantFrom(
      ...'aZ09-._~!$&()*+,;=:@/?%#\' "<>\\^`{|}\t\n.e2E'.split(''),
      'ä',
      '%2e',
      '%2E',
      '/..',
      '/.',
    );
    fc.assert(
      fc.property(fc.array(ch, { maxLength: 24 }), fc.boolean(), (parts, relative) => {
        // absolute on the origin, or a path relative to it (what most scenarios write)
        const u = `${relative ? '' : origin}/${parts.join('')}`;
        const fast = verbatimPath(u, origin);
        if (fast !== null) expect(fast).toBe(viaUrl(u));
      }),
      { numRuns: 20_000 },
    );
  });

  it('answers for most URLs a scenario builds (ids, keys, queries)', () => {
    let answered = 0;
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z0-9-]{1,40}$/), fc.nat(), (id, k) => {
        const u = `${origin}/orders/${id}?key=${k}`;
        const fast = verbatimPath(u, origin);
        if (fast !== null) {
          answered++;
          expect(fast).toBe(viaUrl(u));
        }
      }),
      { numRuns: 500 },
    );
    expect(answered).toBe(500);
  });
});
