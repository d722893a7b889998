/**
 * The total deadline after a stall of the generator's own thread (decision 041): a response that
 * arrived in time, but was not read because the thread was held, is not the target's timeout; a
 * request that got no answer still is. Preflight's sample also gives a stall's time back once.
 * The servers hold the thread on purpose, for longer than the deadline; each case failed before
 * its fix (the timer ran before the I/O that was waiting).
 */
import { fork } from 'node:child_process';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { deadlineSignal } from './deadline.ts';
import type { Outcome } from './outcome.ts';
import type { HttpClientKind, PreparedRequest } from './vu-connection.ts';
import { VuPool } from './vu-pool.ts';
import { startNative } from './native.ts';
import { Schedule } from '../../analysis/schedule.ts';
import { requestArrivals, type TransactionRun } from '../scenario/arrivals.ts';
import type { BucketRecord } from '../../analysis/types.ts';
import { onlyTransaction } from '../../test/helpers/sim-pool.ts';

const TIMEOUT_MS = 200;
/** Longer than the deadline and the sweep's period together. */
const STALL_MS = 3 * TIMEOUT_MS;

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

/** Holds this thread (the server's and the client's) for `ms`. */
function spin(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

/**
 * /answer-then-stall writes its answer and then holds the thread; /stall-then-answer holds it and
 * answers on the turn after (a target on this thread, held with it); /never answers nothing.
 */
async function server(): Promise<string> {
  const srv = http.createServer((req, res) => {
    if (req.url === '/never') return;
    if (req.url === '/stall-then-answer') {
      setImmediate(() => {
        spin(STALL_MS);
        setImmediate(() => res.end('ok'));
      });
      return;
    }
    res.end('ok');
    spin(STALL_MS);
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  closers.push(() => {
    srv.closeAllConnections();
    return new Promise((r) => srv.close(r));
  });
  return `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
}

function send(origin: string, client: HttpClientKind, path: string): Promise<Outcome & { elapsedMs: number }> {
  const pool = new VuPool(origin, { timeoutMs: TIMEOUT_MS, client }, 1, 1);
  closers.push(() => pool.close());
  const vu = pool.acquire()!;
  const req: PreparedRequest = { method: 'GET', path, headers: {}, body: null };
  const t0 = performance.now();
  return new Promise((resolve) =>
    vu.send(req, (_vu, o) => resolve({ ...o, bodyChunks: [], elapsedMs: performance.now() - t0 })),
  );
}

describe.each(['socket', 'undici'] as const)('the engine deadline (%s client)', (client) => {
  it('an answer that came in time is read, though the thread was held past the deadline', async () => {
    const o = await send(await server(), client, '/answer-then-stall');
    expect(o.elapsedMs).toBeGreaterThan(STALL_MS); // the stall did hold the request past its deadline
    expect({ status: o.status, kind: o.kind ?? null }, o.message).toEqual({ status: 200, kind: null });
  });

  it('a request with no answer still times out', async () => {
    const o = await send(await server(), client, '/never');
    expect(o.kind).toBe('timeout');
    expect(o.message).toMatch(new RegExp(`total deadline of ${TIMEOUT_MS} ms`));
  });
});

describe("preflight's sample deadline (deadlineSignal)", () => {
  const get = async (url: string) => {
    const deadline = deadlineSignal(TIMEOUT_MS);
    try {
      const res = await request(url, { headersTimeout: 0, bodyTimeout: 0, signal: deadline.signal });
      return { status: res.statusCode, body: await res.body.text() };
    } finally {
      deadline.clear();
    }
  };

  it('an answer that came in time is read, though the thread was held past the deadline', async () => {
    const t0 = performance.now();
    expect(await get(`${await server()}/answer-then-stall`)).toEqual({ status: 200, body: 'ok' });
    expect(performance.now() - t0).toBeGreaterThan(STALL_MS);
  });

  it('a target held with this thread gets the stalled time back, once', async () => {
    expect(await get(`${await server()}/stall-then-answer`)).toEqual({ status: 200, body: 'ok' });
  });

  it('a request with no answer ends with a TimeoutError', async () => {
    await expect(get(`${await server()}/never`)).rejects.toMatchObject({ name: 'TimeoutError' });
  });
});

/**
 * A target in its own process, which answers at once, and a second socket on which it writes a
 * byte every 250 to 400 ms: each byte is an I/O callback of this thread, after the sweep's timer.
 */
const EXTERNAL = `
const http = require('node:http'), net = require('node:net');
const srv = http.createServer((req, res) => res.end('ok')).listen(0, '127.0.0.1', () => {
  const ticker = net.createServer((s) => {
    let t;
    const tick = () => { s.write('t'); t = setTimeout(tick, 250 + Math.random() * 150); };
    t = setTimeout(tick, 250);
    s.on('close', () => clearTimeout(t));
    s.on('error', () => {});
  }).listen(0, '127.0.0.1', () => process.send({ http: srv.address().port, tick: ticker.address().port }));
});
process.on('disconnect', () => process.exit(0));
`;

/** EXTERNAL started, stopped after the test: its two ports. */
async function external(): Promise<{ http: number; tick: number }> {
  const child = fork('-e', [EXTERNAL], { execArgv: [], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  closers.push(async () => child.disconnect());
  return new Promise((r) => child.once('message', r as never));
}

/**
 * A second of transactions at `perSec` against EXTERNAL, each sending one request: the thread is
 * held at the end of the turn that sent it, after that turn's poll for I/O (as another callback or a
 * collection would), for STALL_MS; the answer arrives meanwhile. Each request's own deadline is far
 * off: the transaction's is the one judged. Returns how its arrivals were counted.
 */
async function heldTransactions(o: { perSec: number; gracefulStopMs: number; transactionTimeoutMs: number }) {
  const ports = await external();
  const vus = Math.ceil(o.perSec);
  const pool = new VuPool(`http://127.0.0.1:${ports.http}`, { timeoutMs: 10_000, client: 'socket' }, vus, vus);
  closers.push(() => pool.close());
  await pool.preconnect();
  const txn: TransactionRun = {
    kind: 'transaction',
    name: 'checkout',
    kept: { body: false, headers: false },
    async run(_seq, http) {
      const answer = http.send('checkout: create', { url: '/' });
      setImmediate(() => spin(STALL_MS));
      await answer;
    },
  };
  const records: BucketRecord[] = [];
  await startNative({
    schedule: new Schedule([{ durationS: 1, fromPerSec: o.perSec, toPerSec: o.perSec }]),
    phase: 'steps',
    source: 'native/0',
    pool,
    seqOffset: 0,
    gracefulStopMs: o.gracefulStopMs,
    arrivals: onlyTransaction(txn, o.transactionTimeoutMs),
    sink: (r: BucketRecord) => records.push(r),
  }).done;
  const named = records.map((r) => r.byName?.checkout).filter((b) => b !== undefined);
  const sum = (f: (b: (typeof named)[number]) => number) => named.reduce((a, b) => a + f(b), 0);
  return { completed: sum((b) => b.completed), ok: sum((b) => b.ok), timeouts: sum((b) => b.errors.timeout ?? 0) };
}

describe('the engine deadline, a pool that has been running', () => {
  it('a stall in an I/O callback after the sweep fired does not expire the answer that came in it (socket client)', async () => {
    const ports = await external();
    // the socket client writes the request at once; undici writes it on a later turn, and a stall
    // before that write still counts against its deadline (decision 041)
    const pool = new VuPool(`http://127.0.0.1:${ports.http}`, { timeoutMs: TIMEOUT_MS, client: 'socket' }, 1, 1);
    closers.push(() => pool.close());
    await pool.preconnect();
    const ticks = net.connect(ports.tick, '127.0.0.1');
    closers.push(async () => ticks.destroy());
    const results: string[] = [];
    await new Promise<void>((done) => {
      ticks.on('data', () => {
        if (results.length >= 2 || pool.active > 0) return;
        const vu = pool.acquire()!;
        vu.send({ method: 'GET', path: '/', headers: {}, body: null }, (v, o) => {
          results.push(`${o.status} ${o.kind ?? 'ok'}`);
          pool.release(v);
          if (results.length >= 2) done();
        });
        spin(STALL_MS); // the answer arrives meanwhile
      });
    });
    expect(results).toEqual(['200 ok', '200 ok']);
  });

  it('a transaction whose answer came while the thread was held ends ok, not at its deadline (http.transactionTimeoutMs)', async () => {
    // two arrivals, the thread held past their 200 ms deadline and the ticker's period
    const r = await heldTransactions({ perSec: 2, gracefulStopMs: 2000, transactionTimeoutMs: TIMEOUT_MS });
    expect(r).toEqual({ completed: 2, ok: 2, timeouts: 0 });
  });

  it("an answer that came while the thread was held past the graceful stop's end is counted, not given up", async () => {
    // the schedule's one arrival, at its end: the thread held past the 300 ms grace
    const r = await heldTransactions({ perSec: 1, gracefulStopMs: 300, transactionTimeoutMs: 30_000 });
    expect(r).toEqual({ completed: 1, ok: 1, timeouts: 0 });
  });

  it('the timeouts due by the end of the graceful stop are counted, after a stall that runs past it', async () => {
    // reads every request and answers none
    const sockets: net.Socket[] = [];
    const srv = net.createServer((s) => {
      sockets.push(s);
      s.on('error', () => undefined);
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    closers.push(async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => srv.close(r));
    });
    const origin = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
    const pool = new VuPool(origin, { timeoutMs: 500, client: 'socket' }, 10, 20);
    closers.push(() => pool.close());
    await pool.preconnect();
    const records: BucketRecord[] = [];
    // 10 arrivals in the first second, deadlines 0.5 to 1.4 s, the grace ending at 1.3 s: the
    // thread is held from 1.05 to 1.95 s, so the last four deadlines and the grace's end fall in it
    const stall = setTimeout(() => spin(900), 1050);
    closers.push(async () => clearTimeout(stall));
    const run = startNative({
      schedule: new Schedule([{ durationS: 1, fromPerSec: 10, toPerSec: 10 }]),
      phase: 'steps',
      source: 'native/0',
      pool,
      seqOffset: 0,
      gracefulStopMs: 300,
      arrivals: requestArrivals(() => ({ method: 'GET', path: '/', headers: {}, body: null })),
      sink: (r: BucketRecord) => records.push(r),
    });
    await run.done;
    const started = records.reduce((a, r) => a + r.started, 0);
    const timeouts = records.reduce((a, r) => a + (r.errors.timeout ?? 0), 0);
    expect({ started, timeouts }).toEqual({ started: 10, timeouts: 10 });
  });
});
