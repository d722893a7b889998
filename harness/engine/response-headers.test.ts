import { describe, expect, it } from 'vitest';
import { util } from 'undici';
import { newOutcome } from './outcome.ts';
import { responseHeaders } from './response-headers.ts';

/** A tiny seeded generator: the same cases every run. */
function seeded(seed: number): () => number {
  let x = seed;
  return () => (x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

/** Own keys and values in order (toStrictEqual reads a key named constructor as the object's class). */
const entries = (o: object) => Object.entries(o);

const NAMES = ['Content-Type', 'set-cookie', 'X-Id', 'SET-COOKIE', '__proto__', 'constructor', 'toString', 'Ä-latin'];
const VALUES = ['text/plain', 'a=1; Path=/', '', 'ü latin1 é', '42'];

describe('responseHeaders: the record undici makes, without loading undici for it', () => {
  it('equals util.parseHeaders for 500 random header lists, as Buffers (undici) and as strings (socket client)', () => {
    const next = seeded(7);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)];
    for (let n = 0; n < 500; n++) {
      const pairs = Array.from({ length: Math.floor(next() * 7) }, () => [pick(NAMES), pick(VALUES)]).flat();
      const buffers = pairs.map((t) => Buffer.from(t, 'latin1'));
      const expected = util.parseHeaders(buffers);
      const out = newOutcome();
      out.rawHeaders = buffers;
      expect(entries(responseHeaders(out)), JSON.stringify(pairs)).toEqual(entries(expected));
      out.rawHeaders = pairs;
      expect(entries(responseHeaders(out)), JSON.stringify(pairs)).toEqual(entries(expected));
    }
  });

  it('keeps __proto__ and constructor as keys of their own, never the record prototype', () => {
    const out = newOutcome();
    out.rawHeaders = ['__proto__', 'x', 'constructor', 'y', '__proto__', 'z'];
    const h = responseHeaders(out);
    expect(Object.getPrototypeOf(h)).toBe(Object.prototype);
    expect(Object.keys(h)).toEqual(['__proto__', 'constructor']);
    expect(Object.getOwnPropertyDescriptor(h, '__proto__')?.value).toEqual(['x', 'z']);
    expect(h.constructor).toBe('y');
  });
});
