import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { VuPool } from './vu-pool.ts';

const pools: VuPool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});
const pool = (origin: string) => {
  const p = new VuPool(origin, { timeoutMs: 1000, client: 'socket' }, 1, 4);
  pools.push(p);
  return p;
};
/** Keeps this thread busy (saturated) for `ms`. */
const spin = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};
const idle = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('VuPool growth', () => {
  it('over TLS a saturated thread gets a free VU but no new one (each would cost a handshake)', async () => {
    const p = pool('https://127.0.0.1:8443');
    spin(120);
    expect(p.acquire()).not.toBeNull(); // the preallocated one
    expect(p.acquire()).toBeNull(); // saturated: the arrival is dropped, no handshake started
    expect(p.refused).toBe('busy'); // and the drop says why: more VUs would not have helped
    expect(p.allocated).toBe(1);
    // not saturated once the thread has idled a window (on a busy machine the first may still read
    // busy: CI of 12-05 beside the CPU hog): grows as before
    let vu = null;
    for (let i = 0; i < 20 && vu === null; i++) {
      await idle(120);
      vu = p.acquire();
    }
    expect(vu).not.toBeNull();
    expect(p.allocated).toBe(2);
  });

  it("over plain HTTP it grows up to max whatever the thread's load (a connect is cheap)", () => {
    const p = pool('http://127.0.0.1:8080');
    spin(120);
    const got = Array.from({ length: 5 }, () => p.acquire());
    expect(got.filter(Boolean)).toHaveLength(4);
    expect(p.refused).toBe('max'); // the fifth found the pool at its maximum
    expect(p.allocated).toBe(4);
  });
});
