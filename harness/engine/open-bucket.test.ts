import { describe, expect, it } from 'vitest';
import { OpenBucket } from './open-bucket.ts';

describe("OpenBucket's names", () => {
  it('keeps a name such as __proto__ as a key like any other (an assignment would set the prototype)', () => {
    const b = new OpenBucket(true, true).reset(0);
    b.name('__proto__', false).record(5, undefined, 200);
    b.name('read', false).record(5, undefined, 200);
    b.name('idle', false); // nothing completed this second: no row
    const byName = b.toRecord('s', 'steps', { active: 1, allocated: 1 }).byName!;
    expect(Object.keys(byName)).toEqual(['__proto__', 'read']);
    expect(Object.getPrototypeOf(byName)).toBe(Object.prototype);
    expect(JSON.parse(JSON.stringify(byName))['__proto__']).toMatchObject({ completed: 1, ok: 1 });
  });
});

describe("OpenBucket's error samples", () => {
  const record = (b: OpenBucket) => b.toRecord('s', 'steps', { active: 1, allocated: 1 });

  it('a kind of failure (kind, status, name) it lacks displaces the latest second message of another, and the bound stays 5 a second', () => {
    const b = new OpenBucket(true, true).reset(0);
    // an error storm whose bodies hold an id: every message distinct, one kind
    for (let i = 0; i < 10_000; i++) {
      if (b.wants('http_5xx', 503, 'read')) b.fail('http_5xx', 503, `read 503 id ${i}`, 'read');
      else b.fail('http_5xx', 503, null, 'read');
    }
    expect(b.wants('http_5xx', 503, 'read')).toBe(false);
    expect(b.wants('http_4xx', 401, 'login')).toBe(true);
    b.fail('http_4xx', 401, 'login 401 bad credentials', 'login');
    b.fail('http_4xx', 401, 'login 401 no token', 'login'); // its kind is in: not kept
    b.fail('timeout', undefined, 'read timed out', 'read');
    b.note('other: a send after its end');
    expect(record(b).samples).toEqual([
      'read 503 id 0',
      'read 503 id 1',
      'login 401 bad credentials',
      'read timed out',
      'other: a send after its end',
    ]);
    expect(record(b).errors).toEqual({ http_5xx: 10_000, http_4xx: 2, timeout: 1 });
    // a fifth kind displaces the last second message of the 503s: five kinds, none repeated, nothing more is wanted
    expect(b.wants('check', 200, 'write')).toBe(true);
    b.fail('check', 200, 'write: expected an id', 'write');
    expect(record(b).samples).toEqual([
      'read 503 id 0',
      'login 401 bad credentials',
      'read timed out',
      'other: a send after its end',
      'write: expected an id',
    ]);
    expect(b.wants('other', undefined, 'read')).toBe(false);
    b.reset(1);
    expect([b.samples, b.wants('http_5xx', 503, 'read')]).toEqual([[], true]);
  });
});
