/**
 * The total deadline after a stall of the generator's own thread (decision 041): a response that
 * arrived in time, but was not read because the thread was held, is not the target's timeout; a
 * request that got no answer still is. Preflight's sample also gives a stall's time back once. The server runs on this thread and holds it on purpose,
 * right after it wrote its answer, for longer than the deadline. Before the fix the timer ran
 * before the I/O that was waiting, and each of these requests read as a timeout.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { deadlineSignal } from './deadline.ts';
import type { HttpClientKind, Outcome, PreparedRequest } from './http.ts';
import { VuPool } from './vu-pool.ts';

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
