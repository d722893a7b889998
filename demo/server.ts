/**
 * The embedded demo target: node:http on 127.0.0.1 over SQLite, a bounded pool with a known
 * capacity of slots / holdMs * 1000 req/s, HMAC-signed orders, idempotency, Spring-named metrics.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { DemoDb } from './db.ts';
import { BodyTooLargeError, readBody, sendJson, sendText } from './http-util.ts';
import { HttpMetrics, type Sample } from './metrics.ts';
import { handleOrder, type OrderAnswer, type OrderContext } from './orders.ts';
import { Pool, PoolClosedError } from './pool.ts';

export interface DemoOptions {
  /** 0 (default) = any free port. */
  port?: number;
  host?: '127.0.0.1' | (string & {});
  slots?: number;
  holdMs?: number;
  /** When set, a request waiting longer for a slot gets 503; unset = unbounded FIFO queue. */
  acquireTimeoutMs?: number;
  rows?: number;
  idMaxLength?: number;
  hmacKey?: string;
  /** SQLite file; default: demo.sqlite in a new temp dir removed on close. */
  dbPath?: string;
}

export interface DemoStats {
  writes: number;
  idempotentHits: number;
  accounts: number;
  idempotency: number;
  capacityPerSec: number;
}

export interface DemoHandle {
  /** http://127.0.0.1:PORT */
  url: string;
  port: number;
  /** The SQLite file in use (inside a temp dir removed on close unless opts.dbPath was given). */
  dbPath: string;
  slots: number;
  holdMs: number;
  capacityPerSec: number;
  stats(): DemoStats;
  close(): Promise<void>;
}

const BODY_LIMIT_BYTES = 64 * 1024;
const KEEP_ALIVE_TIMEOUT_MS = 65_000;

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<OrderAnswer | void> | OrderAnswer | void;

function positiveInt(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be an integer >= 1, got ${value}`);
  return value;
}

export async function startDemo(opts: DemoOptions = {}): Promise<DemoHandle> {
  const slots = positiveInt('slots', opts.slots ?? 4);
  const holdMs = opts.holdMs ?? 10;
  if (!(holdMs > 0) || !Number.isFinite(holdMs)) throw new RangeError(`holdMs must be > 0, got ${holdMs}`);
  const rows = positiveInt('rows', opts.rows ?? 100_000);
  const idMaxLength = positiveInt('idMaxLength', opts.idMaxLength ?? 50);
  const host = opts.host ?? '127.0.0.1';
  const capacityPerSec = (slots / holdMs) * 1000;

  const tempDir = opts.dbPath === undefined ? mkdtempSync(join(tmpdir(), 'plateau-demo-')) : undefined;
  const dbPath = opts.dbPath ?? join(tempDir!, 'demo.sqlite');
  const db = new DemoDb(dbPath, rows, idMaxLength);
  const pool = new Pool({ slots, acquireTimeoutMs: opts.acquireTimeoutMs });
  const metrics = new HttpMetrics();
  const counters = { writes: 0, idempotentHits: 0, acquireTimeouts: 0 };
  const ctx: OrderContext = { db, pool, holdMs, idMaxLength, hmacKey: opts.hmacKey, counters };

  const stats = (): DemoStats => ({ writes: counters.writes, idempotentHits: counters.idempotentHits, ...db.counts(), capacityPerSec });

  const metricSamples = (): Sample[] => {
    const pl: Array<[string, string]> = [['pool', 'demo']];
    return [
      { name: 'hikaricp_connections_active', help: 'Active connections', type: 'gauge', value: pool.active, labels: pl },
      { name: 'hikaricp_connections_pending', help: 'Pending threads', type: 'gauge', value: pool.pending, labels: pl },
      { name: 'hikaricp_connections_idle', help: 'Idle connections', type: 'gauge', value: pool.max - pool.active, labels: pl },
      { name: 'hikaricp_connections_max', help: 'Max connections', type: 'gauge', value: pool.max, labels: pl },
      { name: 'hikaricp_connections_timeout_total', help: 'Connection timeout total count', type: 'counter', value: counters.acquireTimeouts, labels: pl },
      { name: 'demo_writes_total', help: 'Orders written', type: 'counter', value: counters.writes },
      { name: 'demo_idempotent_hits_total', help: 'Orders answered from the idempotency table', type: 'counter', value: counters.idempotentHits },
      { name: 'demo_capacity_per_sec', help: 'Theoretical capacity: slots / holdMs * 1000', type: 'gauge', value: capacityPerSec },
    ];
  };

  const routes: Record<string, Record<string, Handler>> = {
    '/health': { GET: (_q, res) => sendJson(res, 200, { status: 'UP' }) },
    '/ping': { GET: (_q, res) => sendText(res, 200, 'pong', 'text/plain') },
    '/metrics': {
      GET: (_q, res) => sendText(res, 200, metrics.render(metricSamples()), 'text/plain; version=0.0.4; charset=utf-8'),
    },
    '/orders': {
      POST: async (req) => {
        const answer = await handleOrder(ctx, await readBody(req, BODY_LIMIT_BYTES), req.headers['x-signature']);
        if (answer.status === 503) counters.acquireTimeouts++;
        return answer;
      },
    },
    '/admin/reset': {
      POST: (_q, res) => {
        const result = db.reset();
        counters.writes = 0;
        counters.idempotentHits = 0;
        counters.acquireTimeouts = 0;
        sendJson(res, 200, result);
      },
    },
    '/admin/stats': { GET: (_q, res) => sendJson(res, 200, stats()) },
  };

  const inflight = new Set<Promise<void>>();

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const startedAtMs = performance.now();
    const path = (req.url ?? '/').split('?')[0]!;
    const method = req.method ?? 'GET';
    const route = Object.hasOwn(routes, path) ? routes[path] : undefined;
    let exception: string | undefined;
    res.once('finish', () => {
      const uri = route ? path : 'NOT_FOUND';
      metrics.record({ method, uri, status: res.statusCode, exception }, (performance.now() - startedAtMs) / 1000);
    });
    try {
      if (!route) return sendJson(res, 404, { error: `no route ${path}` });
      const handler = Object.hasOwn(route, method) ? route[method] : undefined;
      if (!handler) return sendJson(res, 405, { error: `method ${method} not allowed` }, { Allow: Object.keys(route).join(', ') });
      const answer = await handler(req, res);
      if (answer) {
        exception = answer.exception;
        sendJson(res, answer.status, answer.body);
      }
    } catch (err) {
      if (err instanceof BodyTooLargeError) {
        sendJson(res, 413, { error: err.message }, { Connection: 'close' });
      } else if (err instanceof PoolClosedError) {
        exception = 'SQLTransientConnectionException';
        sendJson(res, 503, { error: 'shutting down' }, { Connection: 'close' });
      } else {
        exception = err instanceof Error ? err.name : 'Error';
        sendJson(res, 500, { error: 'internal error' });
      }
    }
  };

  const server = createServer((req, res) => {
    const p = handle(req, res).catch(() => undefined);
    inflight.add(p);
    void p.finally(() => inflight.delete(p));
  });
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1000;
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    else socket.destroy();
  });

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.port ?? 0, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    db.close();
    if (tempDir) rmSync(tempDir, { recursive: true, force: true });
    throw err;
  }
  const port = (server.address() as AddressInfo).port;

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      pool.close();
      // Slot holders finish within holdMs; bound the wait anyway (e.g. a client stalled mid-body).
      let timer: NodeJS.Timeout | undefined;
      const graceMs = holdMs + 2_000;
      await Promise.race([
        Promise.allSettled([...inflight]),
        new Promise((resolve) => (timer = setTimeout(resolve, graceMs))),
      ]);
      clearTimeout(timer);
      server.closeAllConnections();
      await serverClosed;
      db.close();
      if (tempDir) rmSync(tempDir, { recursive: true, force: true });
    })();
    return closing;
  };

  return { url: `http://${host}:${port}`, port, dbPath, slots, holdMs, capacityPerSec, stats, close };
}
