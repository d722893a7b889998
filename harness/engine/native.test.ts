import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { BucketRecord } from '../../analysis/types.ts';
import { expectSentOrDropped } from '../../test/helpers/sent-or-dropped.ts';
import { decodeHistogram } from '../../analysis/histogram.ts';
import { tinyServer } from '../../test/helpers/tiny-server.ts';
import { requestArrivals, type TransactionRun } from '../scenario/arrivals.ts';
import type { SentResponse, TransactionHttp } from '../scenario/types.ts';
import { startNative } from './native.ts';
import { Schedule } from '../../analysis/schedule.ts';
import { VuPool } from './vu-pool.ts';
import { SimClock } from '../clock.ts';
import { onlyTransaction, simPool } from '../../test/helpers/sim-pool.ts';

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

/** A run of GET /x against its own server, both closed when it ends: tests that call it may go at once. */
async function run(opts: {
  ratePerSec: number;
  seconds: number;
  delayMs: number;
  maxVUs: number;
  status?: number;
  burnMs?: number;
}) {
  const srv = await tinyServer((_req, res) =>
    setTimeout(() => {
      res.statusCode = opts.status ?? 200;
      res.end('ok');
    }, opts.delayMs),
  );
  const pool = new VuPool(srv.url, { timeoutMs: 5000, client: 'socket' }, Math.min(5, opts.maxVUs), opts.maxVUs);
  const records: BucketRecord[] = [];
  try {
    const eng = startNative({
      schedule: new Schedule([{ durationS: opts.seconds, fromPerSec: opts.ratePerSec, toPerSec: opts.ratePerSec }]),
      phase: 'steps',
      source: 'native/0',
      pool,
      seqOffset: 0,
      gracefulStopMs: 2000,
      arrivals: requestArrivals(() => {
        const until = performance.now() + (opts.burnMs ?? 0);
        while (performance.now() < until); // the scenario's own work, on the generator's thread
        return { method: 'GET', path: '/x', headers: {}, body: null };
      }),
      sink: (r) => records.push(r),
    });
    const res = await eng.done;
    const sum = (k: 'started' | 'dropped' | 'completed' | 'ok') => records.reduce((a, r) => a + r[k], 0);
    return {
      res,
      records,
      started: sum('started'),
      dropped: sum('dropped'),
      completed: sum('completed'),
      ok: sum('ok'),
    };
  } finally {
    await pool.close();
    await srv.close();
  }
}

describe('native engine against a real server on 127.0.0.1', () => {
  // Two light runs (3 VUs held 100 ms each; 50 answers of 503), each against its own server: they
  // go at once. The tests after them go one at a time: 200/s with a floor on what started (beside
  // them it read 133 of 400 beside busy loops), or a measure of this thread (busy share, loop delay, lag).
  it.concurrent('never waits for a VU: arrivals with no free VU are dropped and counted', async () => {
    const r = await run({ ratePerSec: 100, seconds: 2, delayMs: 100, maxVUs: 3 });
    expect(r.started + r.dropped).toBe(200);
    expect(r.dropped).toBeGreaterThan(100);
    expect(r.started).toBeLessThanOrEqual(3 * 21 + 3);
  });

  it.concurrent('classifies HTTP errors by status class', async () => {
    const r = await run({ ratePerSec: 50, seconds: 1, delayMs: 0, maxVUs: 10, status: 503 });
    // every arrival sent or dropped (a stall of a busy machine once dropped 30 beside other work),
    // and every one sent a 5xx with its status
    expect([r.completed + r.dropped, r.completed]).toEqual([50, r.started]);
    expect(r.completed).toBeGreaterThanOrEqual(20);
    expect(r.ok).toBe(0);
    expect(r.records.reduce((a, b) => a + (b.errors.http_5xx ?? 0), 0)).toBe(r.completed);
    expect(r.records.reduce((a, b) => a + (b.statuses['503'] ?? 0), 0)).toBe(r.completed);
  });

  it('dispatches exactly the scheduled arrivals and records every completion', async () => {
    const r = await run({ ratePerSec: 200, seconds: 2, delayMs: 1, maxVUs: 50 });
    expect(r.res.dispatched).toBe(400);
    // every dispatched arrival started or counted as dropped (a stall of a busy machine can bring
    // more due at once than the VUs: the CI of 12-05 read 391 started, twice), and every request
    // started recorded, whatever its outcome
    expect([r.started + r.dropped, r.completed]).toEqual([400, r.started]);
    expect(r.started).toBeGreaterThanOrEqual(200);
    expect(r.ok).toBeGreaterThan(r.started - 20); // a loaded 2-core machine may refuse a few connections
    const d = r.records
      .map((b) => decodeHistogram(b.hist.duration))
      .reduce((a, h) => {
        a.add(h);
        return a;
      });
    expect(d.totalCount).toBe(r.ok);
    const connecting = r.records
      .map((b) => decodeHistogram(b.hist.connecting))
      .reduce((a, h) => {
        a.add(h);
        return a;
      });
    expect(connecting.maxValue).toBeGreaterThan(1); // first requests paid for their connections
  });

  it('measures how busy its thread was each second (event-loop utilisation), so a saturating scenario shows', async () => {
    const idle = await run({ ratePerSec: 100, seconds: 2, delayMs: 0, maxVUs: 20 });
    const busy = await run({ ratePerSec: 100, seconds: 2, delayMs: 0, maxVUs: 20, burnMs: 5 }); // 100 x 5 ms = half of each second
    for (const r of [...idle.records, ...busy.records]) {
      expect(r.busy).toBeGreaterThanOrEqual(0);
      expect(r.busy).toBeLessThanOrEqual(1);
    }
    const full = (rs: BucketRecord[]) => rs.filter((r) => r.tS < 2).map((r) => r.busy!);
    const mean = (xs: number[]) => xs.reduce((a, x) => a + x, 0) / xs.length;
    expect(full(busy.records)).toHaveLength(2);
    expect(mean(full(busy.records))).toBeGreaterThan(0.45);
    expect(mean(full(idle.records))).toBeLessThan(mean(full(busy.records)) - 0.25);
  });

  it("measures each arrival's lag when it starts, not when its batch began: a slow build delays those after it", async () => {
    const srv = await tinyServer((_q, res) => res.end('ok'));
    closers.push(srv.close);
    const pool = new VuPool(srv.url, { timeoutMs: 5000, client: 'socket' }, 10, 10);
    closers.push(() => pool.close());
    const records: BucketRecord[] = [];
    // 10 arrivals 5 ms apart, each built in 20 ms: they come due in batches behind the building, and
    // the last starts about 200 ms in for an intended 50 ms (at its batch's start it read about 75)
    const eng = startNative({
      schedule: new Schedule([{ durationS: 0.05, fromPerSec: 200, toPerSec: 200 }]),
      phase: 'steps',
      source: 'native/0',
      pool,
      seqOffset: 0,
      gracefulStopMs: 2000,
      arrivals: requestArrivals(() => {
        const until = performance.now() + 20;
        while (performance.now() < until);
        return { method: 'GET', path: '/', headers: {}, body: null };
      }),
      sink: (r) => records.push(r),
    });
    await eng.done;
    const lag = records
      .map((b) => decodeHistogram(b.lag))
      .reduce((a, h) => {
        a.add(h);
        return a;
      });
    expect(lag.totalCount).toBe(10);
    expect(lag.maxValue / 1000).toBeGreaterThan(120);
  });

  it("reads an idle loop's delay as about nothing, not the monitor's 10 ms sampling interval", async () => {
    const r = await run({ ratePerSec: 20, seconds: 2, delayMs: 0, maxVUs: 5 });
    const delays = r.records.map((b) => b.loopDelayMaxMs);
    // measured every second (a k6 bucket leaves it out: not measured)
    expect(delays.every((d) => d !== undefined)).toBe(true);
    const max = Math.min(...delays.map((d) => d!));
    expect(max).toBeLessThan(5);
  });
});

describe('stopping from the sink, as the steps stage does when a step is judged', () => {
  it('emits no second twice and dispatches nothing after stop; lastSeq is the last seq sent', async () => {
    // with a graceful stop and without, at once: each against its own server, judged on its own seqs
    await Promise.all(
      [2000, 0].map(async (graceMs) => {
        const seen: number[] = [];
        const srv = await tinyServer((req, res) => {
          seen.push(Number(req.url!.slice(1)));
          res.statusCode = 503;
          res.end('no');
        });
        closers.push(srv.close);
        const pool = new VuPool(srv.url, { timeoutMs: 5000, client: 'socket' }, 5, 50);
        closers.push(() => pool.close());
        const records: BucketRecord[] = [];
        // a ramp to 25/s puts arrivals off the second edges; judged (and stopped) as second 2 closes
        const eng = startNative({
          schedule: new Schedule([
            { durationS: 1, fromPerSec: 0, toPerSec: 25 },
            { durationS: 4, fromPerSec: 25, toPerSec: 25 },
          ]),
          phase: 'steps',
          source: 'native/0',
          pool,
          seqOffset: 0,
          gracefulStopMs: 2000,
          arrivals: requestArrivals((seq) => ({ method: 'GET', path: `/${seq}`, headers: {}, body: null })),
          sink: (r) => {
            records.push(r);
            if (r.tS === 2) eng.stop(graceMs);
          },
        });
        const res = await eng.done;
        const seconds = records.map((r) => r.tS);
        expect(new Set(seconds).size, `grace ${graceMs}: ${seconds.join(' ')}`).toBe(seconds.length);
        await new Promise((r) => setTimeout(r, 100)); // anything sent late would arrive by now
        expect(Math.max(...seen), `grace ${graceMs}`).toBe(res.lastSeq);
        expect(res.dispatched).toBe(res.lastSeq);
      }),
    );
  });
});

describe('a saturated thread and its VU pool', () => {
  /** A server that accepts connections and never answers (not even a TLS handshake): VUs stay busy. */
  async function silent(): Promise<number> {
    const held: net.Socket[] = [];
    const srv = net.createServer((s) => {
      held.push(s);
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    closers.push(
      () =>
        new Promise<void>((r) => {
          for (const s of held) s.destroy();
          srv.close(() => r());
        }),
    );
    return (srv.address() as net.AddressInfo).port;
  }

  /** 1 s at 200/s while the scenario burns 6 ms a request (the thread saturated); VUs allocated at the end. */
  async function allocatedUnderSaturation(
    origin: string,
  ): Promise<{ allocated: number; dropped: number; droppedBusy: number }> {
    const pool = new VuPool(origin, { timeoutMs: 3000, client: 'socket' }, 1, 400);
    closers.push(() => pool.close());
    const records: BucketRecord[] = [];
    const run = startNative({
      schedule: new Schedule([{ durationS: 1, fromPerSec: 200, toPerSec: 200 }]),
      phase: 'steps',
      source: 'native/0',
      pool,
      seqOffset: 0,
      gracefulStopMs: 0,
      arrivals: requestArrivals(() => {
        const until = performance.now() + 6;
        while (performance.now() < until);
        return { method: 'GET', path: '/x', headers: {}, body: null };
      }),
      sink: (r) => records.push(r),
    });
    await run.done;
    return {
      allocated: pool.allocated,
      dropped: records.reduce((a, r) => a + r.dropped, 0),
      droppedBusy: records.reduce((a, r) => a + (r.droppedBusy ?? 0), 0),
    };
  }

  it('over TLS stops growing (each new VU would be a handshake), over plain HTTP grows as the arrivals need', async () => {
    const port = await silent();
    const tls = await allocatedUnderSaturation(`https://127.0.0.1:${port}`);
    const plain = await allocatedUnderSaturation(`http://127.0.0.1:${port}`);
    // Every arrival needs a new VU (none is ever answered); the thread is saturated after ~50 ms.
    expect(plain.allocated).toBeGreaterThan(100);
    expect(plain.dropped).toBe(0);
    expect(tls.allocated).toBeLessThan(plain.allocated / 2);
    expect(tls.dropped).toBeGreaterThan(0);
    // Under its max of 400, so every drop was the saturated thread's, and the buckets say so.
    expect(tls.droppedBusy).toBe(tls.dropped);
    expect(plain.droppedBusy).toBe(0);
  });
});

/** One second of GET /x at ratePerSec on the given pool; its buckets. */
async function oneSecondAt(pool: VuPool, ratePerSec: number): Promise<BucketRecord[]> {
  const records: BucketRecord[] = [];
  await startNative({
    schedule: new Schedule([{ durationS: 1, fromPerSec: ratePerSec, toPerSec: ratePerSec }]),
    phase: 'steps',
    source: 'native/0',
    pool,
    seqOffset: 0,
    gracefulStopMs: 2000,
    arrivals: requestArrivals(() => ({ method: 'GET', path: '/x', headers: {}, body: null })),
    sink: (r) => records.push(r),
  }).done;
  return records;
}

describe.each(['socket', 'undici'] as const)('preconnect (%s client)', (client) => {
  it('opens every preallocated VU connection before the load; the requests then pay no connect', async () => {
    let connections = 0;
    let requests = 0;
    const srv = await tinyServer((_req, res) => {
      requests++;
      res.end('ok');
    });
    srv.server.on('connection', () => {
      connections++;
    });
    closers.push(srv.close);
    const pool = new VuPool(srv.url, { timeoutMs: 5000, client }, 8, 8);
    closers.push(() => pool.close());
    expect(await pool.preconnect()).toEqual({ ready: 8, failed: 0 });
    // the server's accept events run on this thread, after preconnect's: waited for, not a fixed 50 ms
    // (a busy machine ran them later: 1 of 8 seen after 50 ms beside other tests)
    await vi.waitFor(() => expect(connections).toBe(8), { timeout: 5000, interval: 5 });
    expect(requests).toBe(0); // connections only: the target sees no extra traffic
    expect(await pool.preconnect()).toEqual({ ready: 8, failed: 0 }); // idempotent
    expect(connections).toBe(8);
    // 100 req/s leaves the 8 VUs 80 ms of slack before a stall of a busy machine drops an arrival
    const records = await oneSecondAt(pool, 100);
    const connecting = records
      .map((b) => decodeHistogram(b.hist.connecting))
      .reduce((a, h) => {
        a.add(h);
        return a;
      });
    const sum = (pick: (r: BucketRecord) => number) => records.reduce((a, r) => a + pick(r), 0);
    // an arrival may be dropped only when a stall of a busy machine held all 8 VUs (80 ms at this
    // rate): 72 of 100 were ok once, in CI beside the type check (a stall of about 360 ms). What this
    // test holds is that none connects, so half served is evidence enough.
    expectSentOrDropped(records, 100, 50);
    expect(connecting.maxValue).toBeLessThanOrEqual(1); // 0 ms, kept as the histogram's 1 us floor
    expect(sum((r) => r.reconnects ?? -1)).toBe(0); // counted, and no VU had to connect again
    expect(connections).toBe(8); // no VU opened another
  });

  it('a spare connection the server closed is replaced, not used', async () => {
    let connections = 0;
    const sockets: import('node:net').Socket[] = [];
    const srv = await tinyServer((_req, res) => res.end('ok'));
    srv.server.on('connection', (s) => {
      connections++;
      sockets.push(s);
    });
    closers.push(srv.close);
    const pool = new VuPool(srv.url, { timeoutMs: 5000, client }, 2, 2);
    closers.push(() => pool.close());
    expect(await pool.preconnect()).toEqual({ ready: 2, failed: 0 });
    await vi.waitFor(() => expect(connections).toBe(2), { timeout: 5000, interval: 5 });
    for (const s of sockets) s.destroy(); // the server drops both idle connections
    await new Promise((r) => setTimeout(r, 100));
    const records = await oneSecondAt(pool, 20);
    // no request failed on a dead spare; an arrival may be dropped only when a stall of a busy
    // machine held both VUs (100 ms at this rate: 18 of 20 were ok once beside other work)
    expectSentOrDropped(records, 20, 10);
    expect(connections).toBeGreaterThanOrEqual(3); // a new connect, not a dead spare
    // Each VU connected again, but after sitting idle since the preconnect: the target's idle
    // close, which a pool larger than the load provokes by itself, is not counted.
    expect(records.reduce((a, r) => a + (r.reconnects ?? -1), 0)).toBe(0);
  });

  it('a VU added under load connects for the first time: not a reconnect', async () => {
    let connections = 0;
    const srv = await tinyServer((_req, res) => {
      setTimeout(() => res.end('ok'), 40);
    });
    srv.server.on('connection', () => {
      connections++;
    });
    closers.push(srv.close);
    const pool = new VuPool(srv.url, { timeoutMs: 5000, client }, 1, 16);
    closers.push(() => pool.close());
    const records = await oneSecondAt(pool, 100); // 100/s x 40 ms: about 4 VUs busy at once
    // an arrival may be dropped only when a stall of a busy machine held all 16 VUs (160 ms at this
    // rate; 98 of 100 were ok once, and the stall that took the preconnect case above to 72 would
    // take this one to about 80): half served is enough for the pool to have grown
    expectSentOrDropped(records, 100, 50);
    expect(connections).toBeGreaterThanOrEqual(3); // the pool grew
    expect(records.reduce((a, r) => a + (r.reconnects ?? -1), 0)).toBe(0);
  });

  it('counts connects that fail', async () => {
    const srv = await tinyServer((_req, res) => res.end('ok'));
    const url = srv.url;
    await srv.close();
    const pool = new VuPool(url, { timeoutMs: 2000, client }, 3, 3);
    closers.push(() => pool.close());
    expect(await pool.preconnect()).toEqual({ ready: 0, failed: 3 });
  });
});

describe('in simulated time (an injected clock), against VUs that answer on that clock', () => {
  /** VUs that each answer 200 after serviceMs of the clock (test/helpers/sim-pool.ts). */
  const fixedPool = (clock: SimClock, maxVUs: number, serviceMs: number) =>
    simPool(clock, maxVUs, () => ({ ms: serviceMs, status: 200 }));

  it('keeps the schedule to the millisecond, measures durations on that clock, and drops what finds no VU', async () => {
    const clock = new SimClock(5000);
    const records: BucketRecord[] = [];
    const wallMs = performance.now();
    // 500 req/s for 3 s against 20 ms answers: 10 VUs busy (Little), 8 allowed: 400 req/s served
    const eng = startNative({
      schedule: new Schedule([{ durationS: 3, fromPerSec: 500, toPerSec: 500 }]),
      phase: 'steps',
      source: 'native/0',
      pool: fixedPool(clock, 8, 20),
      seqOffset: 0,
      gracefulStopMs: 2000,
      arrivals: requestArrivals(() => ({ method: 'GET', path: '/', headers: {}, body: null })),
      sink: (r) => records.push(r),
      clock,
    });
    const res = await clock.run(eng.done);
    expect(res.dispatched).toBe(1500);
    expect(records.map((r) => r.tS)).toEqual([0, 1, 2, 3]);
    const full = records.slice(0, 3);
    // arrival n is due at n / 500 s: the one due on a second's edge starts in the next second
    expect(records.reduce((a, r) => a + r.started + r.dropped, 0)).toBe(1500);
    for (const r of full) {
      expect(r.started + r.dropped).toBeGreaterThanOrEqual(499);
      expect(r.started + r.dropped).toBeLessThanOrEqual(500);
      expect(r.started).toBeGreaterThanOrEqual(396);
      expect(r.started).toBeLessThanOrEqual(404);
    }
    const d = records
      .map((b) => decodeHistogram(b.hist.duration))
      .reduce((a, h) => {
        a.add(h);
        return a;
      });
    expect([d.minNonZeroValue, d.maxValue].map((us) => Math.round(us / 1000))).toEqual([20, 20]);
    // the timer wakes on whole ms: no arrival starts more than a millisecond late
    const lag = records
      .map((b) => decodeHistogram(b.lag))
      .reduce((a, h) => {
        a.add(h);
        return a;
      });
    expect(lag.maxValue).toBeLessThanOrEqual(1001);
    expect(clock.now() - 5000).toBeLessThan(3100);
    expect(performance.now() - wallMs).toBeLessThan(2000);
  });

  /**
   * 30 arrivals/s for 3 s against VUs that answer after serviceMs; at 1.79 s a stall: 260 ms pass
   * with no timer run (the process not scheduled), then what was due on the way runs, in due order,
   * with the clock at 2.05 s.
   */
  async function stalledRun(serviceMs: number): Promise<BucketRecord[]> {
    const clock = new SimClock(5000);
    const records: BucketRecord[] = [];
    const eng = startNative({
      schedule: new Schedule([{ durationS: 3, fromPerSec: 30, toPerSec: 30 }]),
      phase: 'steps',
      source: 'native/0',
      pool: fixedPool(clock, 8, serviceMs),
      seqOffset: 0,
      gracefulStopMs: 2000,
      arrivals: requestArrivals(() => ({ method: 'GET', path: '/', headers: {}, body: null })),
      sink: (r) => records.push(r),
      clock,
    });
    await clock.advance(1790);
    (clock as unknown as { nowMs: number }).nowMs += 260;
    await clock.run(eng.done);
    return records;
  }

  /** The six arrivals due in 1.8 to 2.0 s are in second 1, with their lag (up to 250 ms), where the step's judgement sees them. */
  function expectSecond1Whole(records: BucketRecord[]): void {
    const second1 = records.find((r) => r.tS === 1)!;
    expect(second1.started + second1.dropped).toBe(30);
    expect(decodeHistogram(second1.lag).maxValue / 1000).toBeGreaterThan(200);
    expect(records.reduce((a, r) => a + r.started + r.dropped, 0)).toBe(90);
  }

  it("counts the arrivals due in a second in it, after a stall that let the ticker run first (the CI's 24 of 30)", async () => {
    // 5 ms answers: none is due during the stall; the 200 ms ticker, due at 1.8 s, runs before the
    // timer of the arrival due at 1.8 s
    expectSecond1Whole(await stalledRun(5));
  });

  it('counts the arrivals due in a second in it, after a stall that let a completion run first', async () => {
    // 30 ms answers: the one to the arrival sent at 1.767 s, due at 1.797 s, comes first; recording
    // it opened second 2, where the six arrivals due in 1.8 to 2.0 s were counted (24 of 30)
    const records = await stalledRun(30);
    expectSecond1Whole(records);
    expect(records.find((r) => r.tS === 2)!.completed).toBeGreaterThanOrEqual(1); // the answer, in its own second
  });

  it("runs a transaction's sends on its VU: unbound, at once (one after the other), and refuses one after its end", async () => {
    const { records, answers, late } = await pairedTransaction(1);
    const byName = (k: string) => records.reduce((a, r) => a + (r.byName?.[k]?.ok ?? 0), 0);
    expect(['checkout', 'checkout: create', 'checkout: pay', 'checkout: confirm'].map(byName)).toEqual([2, 2, 2, 2]);
    expect(records.reduce((a, r) => a + (r.requests ?? 0), 0)).toBe(6);
    expect(answers.map((a) => [a.status, a.ok])).toEqual(Array(6).fill([200, true]));
    // one VU in all, none to borrow: each transaction's three requests one after another, 30 ms of the clock
    expect(maxDurationMs(records)).toBe(30);
    const after = await late!.send('checkout: again', { url: '/d' });
    expect([after.ok, after.error]).toEqual([false, expect.stringMatching(/after the transaction ended/)]);
  });

  it('a send run did not await, made after its arrival ended, is refused and counted under its name (kind other), no arrival or request changed', async () => {
    const clock = new SimClock(5000);
    const records: BucketRecord[] = [];
    const txn: TransactionRun = {
      kind: 'transaction',
      name: 't',
      kept: { body: false, headers: false },
      run: async (_seq, http) => {
        await http.send('t: one', { url: '/a' });
        // a bug: a send on a timer, after run has returned
        clock.setTimeout(() => {
          void http.send('t: late', { url: '/b' });
          // under the transaction's own name, which http.send refuses: no row, the transaction's stays as it was
          void http.send('t', { url: '/b' });
        }, 5);
      },
    };
    const eng = startNative({
      schedule: new Schedule([{ durationS: 1, fromPerSec: 4, toPerSec: 4 }]),
      phase: 'steps',
      source: 'native/0',
      pool: fixedPool(clock, 2, 10),
      seqOffset: 0,
      gracefulStopMs: 2000,
      // as a scenario's NameBook does: a transaction's own name is no request's
      arrivals: { ...onlyTransaction(txn), admit: (n) => (n === 't' ? 'the name of a transaction' : null) },
      sink: (r) => records.push(r),
      clock,
    });
    await clock.run(eng.done);
    const sum = (f: (r: BucketRecord) => number) => records.reduce((a, r) => a + f(r), 0);
    expect([sum((r) => r.completed), sum((r) => r.ok), sum((r) => r.requests ?? 0)]).toEqual([4, 4, 4]);
    // the last arrival's came after the run had ended (its recorder closed): three of the four
    expect(sum((r) => r.byName?.['t: late']?.errors.other ?? 0)).toBe(3);
    expect(sum((r) => r.byName?.['t: late']?.completed ?? 0)).toBe(3);
    expect(records.flatMap((r) => r.samples ?? [])).toContain(
      'other: t: late: http.send after the transaction ended: await every send inside run(ctx, http)',
    );
    expect([sum((r) => r.byName?.t?.completed ?? 0), sum((r) => r.byName?.t?.ok ?? 0)]).toEqual([4, 4]);
  });

  it('sends made at once go together, the second on a VU borrowed from the pool and given back when its answer is read', async () => {
    const { records, answers } = await pairedTransaction(3);
    expect(answers.map((a) => [a.status, a.ok])).toEqual(Array(6).fill([200, true]));
    // create, then pay and confirm together: 20 ms, with two VUs active at most
    expect(maxDurationMs(records)).toBe(20);
    expect(Math.max(...records.map((r) => r.vusActiveMax))).toBe(2);
  });

  function maxDurationMs(records: BucketRecord[]): number {
    return Math.round(
      decodeHistogram(records.find((r) => r.byName?.checkout)!.byName!.checkout.duration).maxValue / 1000,
    );
  }

  /** Two arrivals of a transaction (create, then pay and confirm at once) on a pool of maxVUs answering in 10 ms. */
  async function pairedTransaction(maxVUs: number) {
    const clock = new SimClock(5000);
    const records: BucketRecord[] = [];
    let late: TransactionHttp | null = null;
    const answers: SentResponse[] = [];
    const txn: TransactionRun = {
      kind: 'transaction',
      name: 'checkout',
      kept: { body: false, headers: false },
      run: async (_seq, http) => {
        const { send } = http; // a destructured send works as http.send does
        answers.push(await send('checkout: create', { url: '/a' }, (r) => r.status === 200));
        // two sends made at once: together on two VUs, or one after the other on the arrival's own
        answers.push(
          ...(await Promise.all([send('checkout: pay', { url: '/b' }), send('checkout: confirm', { url: '/c' })])),
        );
        late = http;
      },
    };
    const arrivals = onlyTransaction(txn);
    const eng = startNative({
      schedule: new Schedule([{ durationS: 1, fromPerSec: 2, toPerSec: 2 }]),
      phase: 'steps',
      source: 'native/0',
      pool: fixedPool(clock, maxVUs, 10),
      seqOffset: 0,
      gracefulStopMs: 2000,
      arrivals,
      sink: (r) => records.push(r),
      clock,
    });
    await clock.run(eng.done);
    return { records, answers, late: late as TransactionHttp | null };
  }
});
