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
