import { describe, expect, it } from 'vitest';
import { SimClock, realClock } from './clock.ts';

describe('the simulated clock', () => {
  it('fires timers in due order (ties in the order set), moving now() to each', async () => {
    const c = new SimClock(1000);
    const seen: string[] = [];
    c.setTimeout(() => seen.push(`b@${c.now()}`), 20);
    c.setTimeout(() => seen.push(`a@${c.now()}`), 10);
    c.setTimeout(() => seen.push(`c@${c.now()}`), 20);
    const gone = c.setTimeout(() => seen.push('never'), 15);
    c.clear(gone);
    await c.advance(30);
    expect(seen).toEqual(['a@1010', 'b@1020', 'c@1020']);
    expect(c.now()).toBe(1030);
  });

  it('runs async code between timers: a chain of awaits settles before time moves on', async () => {
    const c = new SimClock();
    const sleep = (ms: number) => new Promise<void>((r) => c.setTimeout(r, ms));
    const log: number[] = [];
    const work = (async () => {
      for (let i = 0; i < 3; i++) {
        await sleep(1000);
        await Promise.resolve();
        await Promise.resolve();
        log.push(c.now());
      }
      return 'done';
    })();
    const wallMs = performance.now();
    await expect(c.run(work)).resolves.toBe('done');
    expect(log).toEqual([1000, 2000, 3000]);
    expect(performance.now() - wallMs).toBeLessThan(1000);
  });

  it('repeats an interval until cleared; a zero delay is 1 ms, as Node clamps it', async () => {
    const c = new SimClock();
    const at: number[] = [];
    let fired = 0;
    const t = c.setInterval(() => {
      at.push(c.now());
      if (++fired === 3) c.clear(t);
    }, 200);
    c.setTimeout(() => at.push(-c.now()), 0);
    await c.advance(1000);
    expect(at).toEqual([-1, 200, 400, 600]);
    expect(c.pending).toBe(0);
  });

  it('says so when the work waits on something outside simulated time, or never ends', async () => {
    const c = new SimClock();
    await expect(c.run(new Promise(() => undefined))).rejects.toThrow(
      /no timer is pending: it waits on something outside simulated time/,
    );
    const c2 = new SimClock();
    c2.setInterval(() => undefined, 1000);
    await expect(c2.run(new Promise(() => undefined), { maxMs: 10_000 })).rejects.toThrow(
      /did not settle within 10000 ms of simulated time/,
    );
  });

  it('passes an error of the work through', async () => {
    const c = new SimClock();
    const work = new Promise((_r, reject) => c.setTimeout(() => reject(new Error('boom')), 5));
    await expect(c.run(work)).rejects.toThrow('boom');
  });
});

describe('the real clock', () => {
  it('is performance.now() and Node timers', async () => {
    const t0 = realClock.now();
    await new Promise<void>((r) => {
      const t = realClock.setTimeout(r, 5);
      t.unref();
    });
    expect(realClock.now() - t0).toBeGreaterThanOrEqual(4);
    let fired = false;
    const t = realClock.setTimeout(() => {
      fired = true;
    }, 1);
    realClock.clear(t);
    realClock.clear(null);
    await new Promise((r) => setTimeout(r, 10));
    expect(fired).toBe(false);
  });
});
