import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { holdFrom, sleepUntil } from '../demo/hold.ts';
import { AcquireTimeoutError, Pool, PoolClosedError } from '../demo/pool.ts';

describe('demo pool', () => {
  it('grants slots up to the limit, then serves waiters in FIFO order', async () => {
    const pool = new Pool({ slots: 2 });
    const a = await pool.acquire();
    const b = await pool.acquire();
    expect([pool.active, pool.pending, pool.max]).toEqual([2, 0, 2]);

    const order: number[] = [];
    const waiters = [1, 2, 3, 4].map((n) =>
      pool.acquire().then((lease) => {
        order.push(n);
        return lease;
      }),
    );
    expect(pool.pending).toBe(4);
    a.release();
    a.release(); // idempotent: must not free a second slot
    const first = await waiters[0]!;
    expect(order).toEqual([1]);
    expect([pool.active, pool.pending]).toEqual([2, 3]);
    b.release();
    first.release();
    const second = await waiters[1]!;
    const third = await waiters[2]!;
    expect(order).toEqual([1, 2, 3]);
    second.release();
    third.release();
    (await waiters[3]!).release();
    expect(order).toEqual([1, 2, 3, 4]);
    expect([pool.active, pool.pending]).toEqual([0, 0]);
  });

  it('a newcomer does not overtake queued waiters', async () => {
    const pool = new Pool({ slots: 1 });
    const held = await pool.acquire();
    const order: string[] = [];
    const queued = pool.acquire().then((l) => (order.push('queued'), l));
    held.release(); // slot handed to "queued" directly, not returned to the pool
    const late = pool.acquire().then((l) => (order.push('late'), l));
    (await queued).release();
    (await late).release();
    expect(order).toEqual(['queued', 'late']);
  });

  it('rejects a waiter after acquireTimeoutMs and skips it when a slot frees', async () => {
    const pool = new Pool({ slots: 1, acquireTimeoutMs: 30 });
    const held = await pool.acquire();
    const t0 = performance.now();
    await expect(pool.acquire()).rejects.toBeInstanceOf(AcquireTimeoutError);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(25);
    expect(pool.pending).toBe(0);
    held.release();
    expect(pool.active).toBe(0);
    const again = await pool.acquire();
    expect(pool.active).toBe(1);
    again.release();
  });

  it('credits a queued waiter with the time the slot really became free', async () => {
    const pool = new Pool({ slots: 1 });
    const held = await pool.acquire();
    expect(held.grantedAtMs).toBeLessThanOrEqual(performance.now());
    const waiting = pool.acquire();
    await new Promise((r) => setTimeout(r, 20));
    const freedAtMs = performance.now() - 5; // the work ended 5 ms ago; the loop noticed late
    held.release(freedAtMs);
    const next = await waiting;
    expect(next.grantedAtMs).toBe(freedAtMs);
    next.release(next.grantedAtMs - 1000); // never before its own grant, never in the future
    const third = await pool.acquire();
    expect(third.grantedAtMs).toBeGreaterThanOrEqual(next.grantedAtMs);
    third.release();
  });

  it('close rejects waiters', async () => {
    const pool = new Pool({ slots: 1 });
    const held = await pool.acquire();
    const waiting = pool.acquire();
    pool.close();
    await expect(waiting).rejects.toBeInstanceOf(PoolClosedError);
    await expect(pool.acquire()).rejects.toBeInstanceOf(PoolClosedError);
    held.release();
  });
});

describe('demo hold', () => {
  it('ends within a fraction of a millisecond of the deadline', async () => {
    const lateMs: number[] = [];
    for (let i = 0; i < 40; i++) {
      const start = performance.now();
      await holdFrom(start, 5);
      lateMs.push(performance.now() - start - 5);
    }
    lateMs.sort((x, y) => x - y);
    expect(lateMs[0]!).toBeGreaterThanOrEqual(0); // never early
    expect(lateMs[20]!).toBeLessThan(0.5); // median overshoot well under setTimeout's ~1 ms
  });

  it('resolves at once for a past deadline', async () => {
    const t0 = performance.now();
    await sleepUntil(t0 - 10);
    expect(performance.now() - t0).toBeLessThan(5);
  });
});
