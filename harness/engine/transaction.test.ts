/**
 * Transactions on the native engine in simulated time, against random programs: awaited sends,
 * sends made together (Promise.all), think time, failed answers, a pool of 1 to 6 VUs and a
 * deadline that some arrivals pass. Whatever the program, every arrival is counted once (or
 * dropped), every send's promise settles, every request sent is recorded, and every VU, the
 * borrowed ones included, is back in the pool at the end.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BucketRecord } from '../../analysis/types.ts';
import { Schedule } from '../../analysis/schedule.ts';
import { decodeHistogram } from '../../analysis/histogram.ts';
import { SimClock } from '../clock.ts';
import type { TransactionRun } from '../scenario/arrivals.ts';
import type { SentResponse, TransactionHttp } from '../scenario/types.ts';
import { startNative } from './native.ts';
import { onlyTransaction, simPool } from '../../test/helpers/sim-pool.ts';
import { NameBook } from '../scenario/names.ts';

/** A step of a transaction: one awaited send, or several made together, each `[service ms, status]`; then think time. */
interface Group {
  sends: [number, number][];
  thinkMs: number;
}

/** VUs that answer a request for `/<ms>/<status>` after that many ms of the clock, with that status. */
function pathPool(clock: SimClock, maxVUs: number) {
  return simPool(clock, maxVUs, (req) => {
    const [, ms, status] = req.path.split('/');
    return { ms: Number(ms), status: Number(status) };
  });
}

async function runProgram(groups: Group[], maxVUs: number, timeoutMs: number) {
  const clock = new SimClock(5000);
  const sleep = (ms: number) => new Promise<void>((r) => clock.setTimeout(r, ms));
  let made = 0;
  let settled = 0;
  const send = (http: TransactionHttp, i: number, [ms, status]: [number, number]) => {
    made++;
    return http
      .send(`t: ${i}`, { url: `/${ms}/${status}` }, (r) => r.status === 200)
      .then((r) => {
        settled++;
        return r;
      });
  };
  const txn: TransactionRun = {
    kind: 'transaction',
    name: 't',
    kept: { body: false, headers: false },
    run: async (_seq, http) => {
      for (const [g, group] of groups.entries()) {
        const answers = await Promise.all(group.sends.map((s, j) => send(http, g * 10 + j, s)));
        if (answers.some((a) => !a.ok)) return;
        if (group.thinkMs > 0) await sleep(group.thinkMs);
      }
    },
  };
  const arrivals = onlyTransaction(txn, timeoutMs);
  const pool = pathPool(clock, maxVUs);
  const records: BucketRecord[] = [];
  const eng = startNative({
    schedule: new Schedule([{ durationS: 1, fromPerSec: 20, toPerSec: 20 }]),
    phase: 'steps',
    source: 'native/0',
    pool,
    seqOffset: 0,
    gracefulStopMs: 60_000,
    arrivals,
    sink: (r) => records.push(r),
    clock,
  });
  const done = await clock.run(eng.done);
  // sends made after a deadline settle too (refused at once), after the engine is done
  await clock.run(sleep(120_000));
  const sum = (f: (r: BucketRecord) => number) => records.reduce((a, r) => a + f(r), 0);
  const borrowedMs = records.reduce((a, b) => a + (b.byName?.t?.borrowedMs ?? 0), 0);
  const longestMs = Math.max(
    ...records.map((b) => (b.byName?.t?.duration ? decodeHistogram(b.byName.t.duration).maxValue / 1000 : 0)),
  );
  return { done, pool, made, settled, sum, longestMs, borrowedMs };
}

const sendArb = fc.tuple(fc.integer({ min: 1, max: 40 }), fc.constantFrom(200, 200, 200, 500));
const groupArb = fc.record({
  sends: fc.array(sendArb, { minLength: 1, maxLength: 4 }),
  thinkMs: fc.constantFrom(0, 0, 5, 30),
});

describe('transactions of random shape in simulated time', () => {
  it('six sends made at once on a pool of three VUs: each VU takes the next send waiting, two rounds of 10 ms', async () => {
    const r = await runProgram(
      [{ sends: Array.from({ length: 6 }, () => [10, 200] as [number, number]), thinkMs: 0 }],
      3,
      10_000,
    );
    // on the arrival's own VU alone after the first three, they took 40 ms
    expect(Math.round(r.longestMs)).toBe(20);
    // and they held the two borrowed VUs 4 x 10 ms per arrival: VU time 60 ms for 6 sends of 10 ms
    expect(r.borrowedMs / r.sum((b) => b.ok)).toBeCloseTo(40, 6);
    expect([r.pool.sent, r.pool.active]).toEqual([r.made, 0]);
  });

  it('count every arrival once, settle every send, record every request sent and give back every VU', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(groupArb, { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 6 }),
        fc.constantFrom(25, 80, 10_000),
        async (groups, maxVUs, timeoutMs) => {
          const r = await runProgram(groups, maxVUs, timeoutMs);
          expect(r.sum((b) => b.completed) + r.sum((b) => b.dropped)).toBe(r.done.dispatched);
          expect(r.sum((b) => b.completed)).toBeGreaterThan(0);
          expect(r.settled).toBe(r.made);
          expect(r.sum((b) => b.requests ?? 0)).toBe(r.pool.sent);
          expect(r.pool.active).toBe(0);
          expect(r.pool.allocated).toBeLessThanOrEqual(maxVUs);
          // with no failed answer and a deadline none reaches (under 1 s each), every send goes and every arrival is ok
          if (timeoutMs === 10_000 && groups.every((g) => g.sends.every(([, status]) => status === 200))) {
            expect(r.pool.sent).toBe(r.made);
            expect(r.sum((b) => b.ok)).toBe(r.sum((b) => b.completed));
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('a transaction still running when its run finishes (grace over, deadline not reached) gives its VU back uncounted: the next leg on the pool is not held', async () => {
    const clock = new SimClock(5000);
    const pool = pathPool(clock, 100);
    let hang = true;
    let lateSends = 0;
    const txn: TransactionRun = {
      kind: 'transaction',
      name: 't',
      kept: { body: false, headers: false },
      run: async (_seq, http) => {
        await http.send('t: a', { url: '/10/200' });
        if (!hang) return;
        // think time past the grace, then a send: refused (the arrival belongs to no run), then a wait that never ends
        await new Promise<void>((r) => clock.setTimeout(r, 3_000));
        const late = await http.send('t: b', { url: '/10/200' });
        if (!late.ok) lateSends++;
        await new Promise(() => {});
      },
    };
    const arrivals = onlyTransaction(txn, 30_000);
    const leg = (seqOffset: number, records: BucketRecord[]) =>
      startNative({
        schedule: new Schedule([{ durationS: 1, fromPerSec: 20, toPerSec: 20 }]),
        phase: 'steps',
        source: 'native/0',
        pool,
        seqOffset,
        gracefulStopMs: 2_000,
        arrivals,
        sink: (r) => records.push(r),
        clock,
      });
    const first: BucketRecord[] = [];
    const t0 = clock.now();
    await clock.run(leg(0, first).done);
    // the grace ran out with every arrival still running: none counted, every VU back
    expect(clock.now() - t0).toBeGreaterThanOrEqual(3_000);
    expect(first.reduce((a, r) => a + r.completed, 0)).toBe(0);
    expect(pool.active).toBe(0);
    await clock.run(new Promise<void>((r) => clock.setTimeout(r, 60_000)));
    expect([lateSends, pool.sent, pool.active]).toEqual([20, 20, 0]);
    // the next leg's transactions end at once: it finishes with its schedule, not after a grace held by the first's
    hang = false;
    const second: BucketRecord[] = [];
    const t1 = clock.now();
    await clock.run(leg(20, second).done);
    expect(clock.now() - t1).toBeLessThan(1_100);
    expect(second.reduce((a, r) => a + r.ok, 0)).toBe(20);
  });

  it("the transactions whose deadline falls between the ticker's last pass and the grace's end are counted as timeouts", async () => {
    const clock = new SimClock(5000);
    const pool = pathPool(clock, 100);
    const txn: TransactionRun = {
      kind: 'transaction',
      name: 't',
      kept: { body: false, headers: false },
      run: async (_seq, http) => void (await http.send('t: a', { url: '/60000/200' })),
    };
    const schedule = new Schedule([{ durationS: 1, fromPerSec: 10, toPerSec: 10 }]);
    // deadlines 450 ms after each start; the grace ends at 1.3 s, the ticker's last pass before it at 1.2 s
    const [timeoutMs, graceEndS] = [450, 1.3];
    const records: BucketRecord[] = [];
    await clock.run(
      startNative({
        schedule,
        phase: 'steps',
        source: 'native/0',
        pool,
        seqOffset: 0,
        gracefulStopMs: 300,
        arrivals: onlyTransaction(txn, timeoutMs),
        sink: (r) => records.push(r),
        clock,
      }).done,
    );
    const starts: number[] = [];
    for (let n = 1, s = schedule.arrivalS(n); s !== null; s = schedule.arrivalS(++n)) starts.push(s);
    const due = starts.filter((s) => s + timeoutMs / 1000 <= graceEndS).length;
    // one of them is due after 1.2 s: without the count at the grace's end it was given up uncounted
    expect(starts.filter((s) => s + timeoutMs / 1000 > 1.2 && s + timeoutMs / 1000 <= graceEndS)).toHaveLength(1);
    const timeouts = records.reduce((a, r) => a + (r.byName?.t?.errors.timeout ?? 0), 0);
    expect({ timeouts, completed: records.reduce((a, r) => a + r.completed, 0) }).toEqual({
      timeouts: due,
      completed: due,
    });
  });
});

describe('a send refused for its name', () => {
  it("fails its arrival, kind other, and is counted apart in the second's refusedNames with the first message", async () => {
    const clock = new SimClock(5000);
    // 'page 0' .. 'page 19': the 11th name of one shape is refused, and every one after it
    const txn: TransactionRun = {
      kind: 'transaction',
      name: 't',
      kept: { body: false, headers: false },
      run: async (seq, http) => {
        await http.send(`page ${seq % 20}`, { url: '/1/200' });
      },
    };
    const book = new NameBook([{ name: 't', transaction: true }]);
    const arrivals = { ...onlyTransaction(txn), admit: (name: string) => book.problem(name) };
    const records: BucketRecord[] = [];
    const eng = startNative({
      schedule: new Schedule([{ durationS: 1, fromPerSec: 20, toPerSec: 20 }]),
      phase: 'steps',
      source: 'native/0',
      pool: pathPool(clock, 4),
      seqOffset: 0,
      gracefulStopMs: 60_000,
      arrivals,
      sink: (r) => records.push(r),
      clock,
    });
    await clock.run(eng.done);
    const refused = records.flatMap((r) => (r.refusedNames ? [r.refusedNames] : []));
    expect(refused.reduce((n, r) => n + r.count, 0)).toBe(10);
    expect(refused[0].first).toMatch(
      /^http\.send: name "page \d+" differs only in its numbers from 10 names before it/,
    );
    const failed = records.reduce((n, r) => n + (r.errors.other ?? 0), 0);
    expect(failed).toBe(10);
    expect(records.reduce((n, r) => n + r.ok, 0)).toBe(10);
  });
});

describe('a send run did not await', () => {
  /** Two arrivals of transaction `t` running `run`, each send's path `/<ms>/<status>`, on a pool of maxVUs. */
  async function twoArrivals(run: TransactionRun['run'], maxVUs = 2) {
    const clock = new SimClock(5000);
    const pool = pathPool(clock, maxVUs);
    const txn: TransactionRun = { kind: 'transaction', name: 't', kept: { body: false, headers: false }, run };
    const records = await oneSecondOf(txn, pool, clock, 2);
    const named = (name: string, f: (b: NonNullable<BucketRecord['byName']>[string]) => number) =>
      records.reduce((a, r) => a + (r.byName?.[name] ? f(r.byName[name]) : 0), 0);
    return { pool, named, samples: records.flatMap((r) => r.samples ?? []) };
  }

  it('read before it is awaited (made.ok), its promise throws the fix naming the send and what was read: the arrival fails, not silently ends', async () => {
    const r = await twoArrivals(async (_seq, http) => {
      const made = http.send('t: create', { url: '/10/200' }) as unknown as SentResponse;
      if (!made.ok) return;
      await http.send('t: confirm', { url: '/10/200' });
    });
    expect([
      r.named('t', (b) => b.completed),
      r.named('t', (b) => b.ok),
      r.named('t', (b) => b.errors.other ?? 0),
    ]).toEqual([2, 0, 2]);
    expect(r.samples).toContain(
      'other: t threw: await http.send("t: create", ...) before reading .ok: it returns a promise',
    );
    // the send still went, and its arrival waited for it: its VU serves no other arrival meanwhile
    expect([r.named('t: create', (b) => b.ok), r.named('t: confirm', (b) => b.completed)]).toEqual([2, 0]);
    expect(r.pool.active).toBe(0);
  });

  it('each of ok, status, body, json and headers throws on the promise; awaited, alone or in Promise.all, it is the response', async () => {
    const read: string[] = [];
    const r = await twoArrivals(async (_seq, http) => {
      const p = http.send('t: a', { url: '/10/200' });
      for (const what of ['ok', 'status', 'body', 'json', 'headers']) {
        try {
          void (p as unknown as Record<string, unknown>)[what];
        } catch (err) {
          read.push((err as Error).message);
        }
      }
      const [a, b] = await Promise.all([p, http.send('t: b', { url: '/10/200' })]);
      const c = await http.send('t: c', { url: '/10/200' });
      if (![a, b, c].every((x) => x.ok && x.status === 200)) throw new Error('not the responses');
    });
    expect(r.named('t', (b) => b.ok)).toBe(2);
    expect(read.slice(0, 5)).toEqual(
      ['ok', 'status', 'body', 'json', 'headers'].map(
        (what) => `await http.send("t: a", ...) before reading .${what}: it returns a promise`,
      ),
    );
  });

  it('still in flight when run returned, it fails the arrival, named; the arrival waits for it, its answer recorded', async () => {
    const r = await twoArrivals(async (_seq, http) => {
      await http.send('t: one', { url: '/10/200' });
      void http.send('t: two', { url: '/10/200' });
    });
    expect([r.named('t', (b) => b.completed), r.named('t', (b) => b.errors.other ?? 0)]).toEqual([2, 2]);
    expect(r.samples).toContain(
      'other: transaction "t" returned while its send "t: two" was still in flight: await every http.send inside run(ctx, http)',
    );
    expect(r.named('t: two', (b) => b.ok)).toBe(2);
    expect(r.pool.active).toBe(0);
    // several: the arrival's own VU's first, then those on borrowed VUs
    const many = await twoArrivals(async (_seq, http) => {
      void http.send('t: a', { url: '/10/200' });
      void http.send('t: b', { url: '/10/200' });
      void http.send('t: c', { url: '/10/200' });
    }, 4);
    expect(many.samples).toContain(
      'other: transaction "t" returned while its sends "t: a" and 2 more were still in flight: await every http.send inside run(ctx, http)',
    );
    expect(many.pool.active).toBe(0);
  });
});

/** One second of `txn` at `perSec` on `pool`, in simulated time: its bucket records. */
async function oneSecondOf(txn: TransactionRun, pool: ReturnType<typeof simPool>, clock: SimClock, perSec: number) {
  const records: BucketRecord[] = [];
  await clock.run(
    startNative({
      schedule: new Schedule([{ durationS: 1, fromPerSec: perSec, toPerSec: perSec }]),
      phase: 'steps',
      source: 'native/0',
      pool,
      seqOffset: 0,
      gracefulStopMs: 2_000,
      arrivals: onlyTransaction(txn),
      sink: (r) => records.push(r),
      clock,
    }).done,
  );
  return records;
}

describe("a transaction's send failed by its status (finding A5)", () => {
  it("its arrival's sample says the send, its check's message and the start of the body; made.error stays the status, as on k6", async () => {
    const clock = new SimClock(5000);
    const bodies: Record<string, string> = { '/login': '{"error":"bad credentials"}', '/item': '{"error":"no token"}' };
    const pool = simPool(clock, 2, (req) => ({ ms: 5, status: 401, body: bodies[req.path] }));
    const errors: (string | undefined)[] = [];
    const txn: TransactionRun = {
      kind: 'transaction',
      name: 'session',
      kept: { body: false, headers: false },
      run: async (seq, http) => {
        // the second arrival's login goes through a check that gives no message of its own
        const check = seq % 2 ? (r: { status: number }) => r.status === 200 || `login ${r.status}` : () => false;
        const login = await http.send('session: login', { url: '/login' }, check);
        errors.push(login.error);
        await http.send('session: item', { url: '/item' });
      },
    };
    const records = await oneSecondOf(txn, pool, clock, 2);
    expect(records.flatMap((r) => r.samples ?? [])).toEqual([
      'http_4xx: session: login: HTTP 401 (check: login 401); body: {"error":"bad credentials"}',
      'http_4xx: session: login: HTTP 401; body: {"error":"bad credentials"}',
    ]);
    expect(errors).toEqual(['HTTP 401', 'HTTP 401']);
  });

  it('its check runs for the words only where its second keeps a sample: an error storm runs it a handful of times, not once an arrival (a review: 200 checks for 200 arrivals, 2 samples kept)', async () => {
    const clock = new SimClock(5000);
    const pool = simPool(clock, 50, () => ({ ms: 5, status: 401, body: '{"error":"bad credentials"}' }));
    let checks = 0;
    const txn: TransactionRun = {
      kind: 'transaction',
      name: 'session',
      kept: { body: false, headers: false },
      run: async (_seq, http) => {
        await http.send('session: login', { url: '/login' }, (r) => {
          checks++;
          return r.status === 200 || `login ${r.status}`;
        });
      },
    };
    const records = await oneSecondOf(txn, pool, clock, 200);
    const failed = records.reduce((a, r) => a + r.completed - r.ok, 0);
    expect(failed).toBe(200);
    // a sample in each second the arrivals ended in, the same words
    const samples = records.flatMap((r) => r.samples ?? []);
    expect(new Set(samples)).toEqual(
      new Set(['http_4xx: session: login: HTTP 401 (check: login 401); body: {"error":"bad credentials"}']),
    );
    // at most 20 worded a second (open-bucket.ts MAX_WORDED), over the 2 seconds the arrivals ended in
    expect(checks).toBeLessThanOrEqual(40);
  });
});
