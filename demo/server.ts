/**
 * The embedded demo target: node:http on 127.0.0.1 over SQLite, a bounded pool with a known
 * capacity (slots / holdMs * 1000 req/s of writes alone; for demo/scenario.ts's mix of reads,
 * writes and confirms, capacity.ts), HMAC-signed orders, idempotency, Spring-named metrics (the
 * request timer with its histogram, HikariCP pool gauges, SQL statements by kind: statements.ts).
 * Modes that set the truth for each overload shape: an unbounded queue (plateau), an acquire
 * timeout (errors), a contention/coherency penalty (collapse, coherency.ts), replicas that change
 * mid-run (topology, topology.ts), a cold start that makes every hold slower for its first
 * seconds (cold.ts); slow responses are a large holdMs.
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
import { demoSamples } from './samples.ts';
import { handleConfirm, handleGetOrder, handleOrder, type OrderAnswer, type OrderContext } from './orders.ts';
import { demoMixCapacity, type DemoHolds, type MixCapacity } from './capacity.ts';
import { SEED_ORDERS } from './mix.ts';
import { Router } from './router.ts';
import { Pool, PoolClosedError } from './pool.ts';
import {
  BusyAverage,
  DEFAULT_COHERENCY_WINDOW_MS,
  heldMs,
  peakOf,
  throughputPerSecAt,
  validateModel,
  type CoherencyModel,
} from './coherency.ts';
import { Topology, validReplicas } from './topology.ts';
import { coldFactorAt, validCold, type ColdStart } from './cold.ts';

export interface DemoOptions {
  /** 0 (default) = any free port. */
  port?: number;
  host?: '127.0.0.1' | (string & {});
  slots?: number;
  /** The pool hold of a write (POST /orders), ms (default 10). */
  holdMs?: number;
  /** The pool hold of a read (GET /orders/{id}), ms (default holdMs / 5: reads are cheaper). */
  readHoldMs?: number;
  /** The pool hold of a confirm (POST /orders/{id}/confirm), ms (default holdMs). */
  confirmHoldMs?: number;
  /** Orders seeded at start and restored on reset, seed-0 .. seed-<N-1> (default SEED_ORDERS; 0 = none). */
  seedOrders?: number;
  /** When set, a request waiting longer for a slot gets 503; unset = unbounded FIFO queue. */
  acquireTimeoutMs?: number;
  rows?: number;
  idMaxLength?: number;
  hmacKey?: string;
  /** SQLite file; default: demo.sqlite in a new temp dir removed on close. */
  dbPath?: string;
  /** USL alpha >= 0 (default 0): hold = holdMs (1 + alpha (n-1) + beta n (n-1)), n = busy slots. See coherency.ts. */
  contentionAlpha?: number;
  /** USL beta >= 0 (default 0): with beta > 0 throughput peaks at N* = sqrt((1 - alpha) / beta) and then falls. */
  coherencyBeta?: number;
  /**
   * The penalty's n is the busy count averaged over this many ms (BusyAverage; default
   * DEFAULT_COHERENCY_WINDOW_MS); 0 = the busy count at the instant a request gets its slot.
   */
  coherencyWindowMs?: number;
  /** Replicas at start (default 1), gauge `demo_replicas`; each brings `slots` slots: total = slots x replicas. */
  replicas?: number;
  /** Scale to replicasChangeTo replicas this many seconds after listening (needs replicasChangeTo). */
  replicasChangeAtS?: number;
  replicasChangeTo?: number;
  /** Seconds after listening during which every hold is coldFactor times longer (default 0: never cold). */
  coldS?: number;
  /** The hold's multiplier while cold (default 3; needs coldS). */
  coldFactor?: number;
}

export interface DemoStats {
  writes: number;
  idempotentHits: number;
  reads: number;
  confirms: number;
  accounts: number;
  idempotency: number;
  orders: number;
  capacityPerSec: number;
  mixArrivalsPerSec: number;
}

/** The demo's truths at its current topology (they change when the replicas do). */
export interface DemoTruth {
  /** Busy slots at the throughput peak: an integer in 1..slots. */
  peakConcurrency: number;
  /** The most writes alone it can sustain, req/s: max over n <= slots of n / heldMs(n) * 1000. Same as capacityPerSec. */
  expectedPeakPerSec: number;
  /** Throughput with every slot busy (offered load beyond the peak): X(slots), req/s. */
  saturatedPerSec: number;
}

export interface DemoHandle extends DemoTruth {
  /** http://127.0.0.1:PORT */
  url: string;
  port: number;
  /** The SQLite file in use (inside a temp dir removed on close unless opts.dbPath was given). */
  dbPath: string;
  /** Total slots: slots per replica x replicas (changes with the replicas). */
  readonly slots: number;
  /** The write hold, ms (holds.writeMs). */
  holdMs: number;
  /** Each route's base hold, ms. */
  readonly holds: DemoHolds;
  /** Orders seeded at start (seed-0 ..). */
  readonly seedOrders: number;
  /** The theoretical capacity of writes alone (POST /orders), req/s. */
  readonly capacityPerSec: number;
  /** The theoretical capacity for demo/scenario.ts's mix (capacity.ts), at the current topology. */
  readonly mix: MixCapacity;
  readonly replicas: number;
  readonly coherency: CoherencyModel;
  /** The penalty's averaging window, ms (0 = instantaneous busy count). */
  readonly coherencyWindowMs: number;
  /** The cold start (coldS 0: never cold). */
  readonly cold: ColdStart;
  /** Scale now (as POST /admin/replicas?n=N does). */
  setReplicas(n: number): void;
  stats(): DemoStats;
  close(): Promise<void>;
}

const BODY_LIMIT_BYTES = 64 * 1024;
const KEEP_ALIVE_TIMEOUT_MS = 65_000;

type Handler = (
  req: IncomingMessage,
  res: ServerResponse,
  params: Record<string, string>,
) => Promise<OrderAnswer | void> | OrderAnswer | void;

function positiveInt(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be an integer >= 1, got ${value}`);
  return value;
}

export async function startDemo(opts: DemoOptions = {}): Promise<DemoHandle> {
  const slotsPerReplica = positiveInt('slots', opts.slots ?? 4);
  const holdMs = opts.holdMs ?? 10;
  if (!(holdMs > 0) || !Number.isFinite(holdMs)) throw new RangeError(`holdMs must be > 0, got ${holdMs}`);
  const holds = validHolds(holdMs, opts.readHoldMs, opts.confirmHoldMs);
  const seedOrders = opts.seedOrders ?? SEED_ORDERS;
  if (!Number.isInteger(seedOrders) || seedOrders < 0)
    throw new RangeError(`seedOrders must be an integer >= 0, got ${seedOrders}`);
  const rows = positiveInt('rows', opts.rows ?? 100_000);
  const idMaxLength = positiveInt('idMaxLength', opts.idMaxLength ?? 50);
  const host = opts.host ?? '127.0.0.1';
  const coherency = validateModel({
    contentionAlpha: opts.contentionAlpha ?? 0,
    coherencyBeta: opts.coherencyBeta ?? 0,
  });
  const penalised = coherency.contentionAlpha > 0 || coherency.coherencyBeta > 0;
  const coherencyWindowMs = opts.coherencyWindowMs ?? DEFAULT_COHERENCY_WINDOW_MS;
  if (!(coherencyWindowMs >= 0) || !Number.isFinite(coherencyWindowMs))
    throw new RangeError(`coherencyWindowMs must be a finite number >= 0, got ${coherencyWindowMs}`);
  const replicas = validReplicas(opts.replicas ?? 1);
  if ((opts.replicasChangeAtS === undefined) !== (opts.replicasChangeTo === undefined)) {
    throw new RangeError('replicasChangeAtS and replicasChangeTo go together');
  }
  const cold = validCold(opts.coldS, opts.coldFactor);
  // Set once listening: the cold start counts from then (no request arrives before).
  let listeningAtMs = performance.now();
  const coldNow = (): number => coldFactorAt(cold, listeningAtMs, performance.now());

  const tempDir = opts.dbPath === undefined ? mkdtempSync(join(tmpdir(), 'plateau-demo-')) : undefined;
  const dbPath = opts.dbPath ?? join(tempDir!, 'demo.sqlite');
  const db = new DemoDb(dbPath, rows, idMaxLength, seedOrders);
  const pool = new Pool({ slots: slotsPerReplica * replicas, acquireTimeoutMs: opts.acquireTimeoutMs });
  const topology = new Topology(pool, slotsPerReplica, replicas);
  const truth = (): DemoTruth => {
    const peak = peakOf(holdMs, coherency, pool.slots);
    return {
      peakConcurrency: peak.concurrency,
      expectedPeakPerSec: peak.perSec,
      saturatedPerSec: throughputPerSecAt(holdMs, coherency, pool.slots),
    };
  };
  const capacity = (): number => truth().expectedPeakPerSec;
  const mix = (): MixCapacity => demoMixCapacity(pool.slots, holds, coherency);
  const metrics = new HttpMetrics();
  const counters = { writes: 0, idempotentHits: 0, reads: 0, confirms: 0, acquireTimeouts: 0 };
  const penaltyAt = penalised ? (baseMs: number, busy: number) => heldMs(baseMs, coherency, busy) : undefined;
  // The cold multiplier applies on top of the penalty: slower work, same contention model.
  const holdMsAt =
    cold.coldS > 0
      ? (baseMs: number, busy: number) => (penaltyAt ? penaltyAt(baseMs, busy) : baseMs) * coldNow()
      : penaltyAt;
  const busy = penalised && coherencyWindowMs > 0 ? new BusyAverage(coherencyWindowMs) : undefined;
  const ctx: OrderContext = { db, pool, holds, holdMsAt, busy, idMaxLength, hmacKey: opts.hmacKey, counters };

  const stats = (): DemoStats => ({
    writes: counters.writes,
    idempotentHits: counters.idempotentHits,
    reads: counters.reads,
    confirms: counters.confirms,
    ...db.counts(),
    capacityPerSec: capacity(),
    mixArrivalsPerSec: mix().arrivalsPerSec,
  });

  const metricSamples = (): Sample[] =>
    demoSamples({
      pool,
      counters,
      sqlStatements: db.statements.snapshot(),
      capacityPerSec: capacity(),
      mixArrivalsPerSec: mix().arrivalsPerSec,
      replicas: topology.replicas,
      coldFactor: coldNow(),
    });

  const routes = new Router<Handler>()
    .add('/health', { GET: (_q, res) => sendJson(res, 200, { status: 'UP' }) })
    .add('/ping', { GET: (_q, res) => sendText(res, 200, 'pong', 'text/plain') })
    .add('/metrics', {
      GET: (_q, res) => sendText(res, 200, metrics.render(metricSamples()), 'text/plain; version=0.0.4; charset=utf-8'),
    })
    .add('/orders', {
      POST: async (req) => handleOrder(ctx, await readBody(req, BODY_LIMIT_BYTES), req.headers['x-signature']),
    })
    .add('/orders/{id}', { GET: (_q, _r, p) => handleGetOrder(ctx, p.id!) })
    .add('/orders/{id}/confirm', { POST: (_q, _r, p) => handleConfirm(ctx, p.id!) })
    .add('/admin/reset', {
      POST: (_q, res) => {
        const result = db.reset();
        counters.writes = 0;
        counters.idempotentHits = 0;
        counters.reads = 0;
        counters.confirms = 0;
        counters.acquireTimeouts = 0;
        sendJson(res, 200, result);
      },
    })
    .add('/admin/stats', { GET: (_q, res) => sendJson(res, 200, stats()) })
    .add('/admin/replicas', {
      POST: (req, res) => {
        const n = Number(new URL(req.url ?? '/', 'http://demo').searchParams.get('n'));
        if (!Number.isInteger(n) || n < 1)
          return sendJson(res, 400, { error: 'n must be an integer >= 1, e.g. POST /admin/replicas?n=3' });
        topology.set(n);
        sendJson(res, 200, {
          replicas: topology.replicas,
          slots: pool.slots,
          capacityPerSec: capacity(),
          mixArrivalsPerSec: mix().arrivalsPerSec,
        });
      },
    });

  const inflight = new Set<Promise<void>>();

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const startedAtMs = performance.now();
    const path = (req.url ?? '/').split('?')[0]!;
    const method = req.method ?? 'GET';
    const route = routes.match(path);
    let exception: string | undefined;
    res.once('finish', () => {
      // The template (/orders/{id}), never the path: one series per route, not per id.
      const uri = route ? route.template : 'NOT_FOUND';
      metrics.record({ method, uri, status: res.statusCode, exception }, (performance.now() - startedAtMs) / 1000);
    });
    try {
      if (!route) return sendJson(res, 404, { error: `no route ${path}` });
      const handlers = route.handlers;
      const handler = Object.hasOwn(handlers, method) ? handlers[method] : undefined;
      if (!handler)
        return sendJson(
          res,
          405,
          { error: `method ${method} not allowed` },
          { Allow: Object.keys(handlers).join(', ') },
        );
      const answer = await handler(req, res, route.params);
      if (answer) {
        exception = answer.exception;
        if (answer.status === 503 && exception === 'SQLTransientConnectionException') counters.acquireTimeouts++;
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
  listeningAtMs = performance.now();
  if (opts.replicasChangeAtS !== undefined)
    topology.schedule({ atS: opts.replicasChangeAtS, replicas: opts.replicasChangeTo! });

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      topology.close();
      pool.close();
      // Slot holders finish within holdMs; bound the wait anyway (e.g. a client stalled mid-body).
      let timer: NodeJS.Timeout | undefined;
      const longestMs = Math.max(holds.readMs, holds.writeMs, holds.confirmMs);
      const graceMs = heldMs(longestMs, coherency, pool.slots) * cold.factor + 2_000;
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

  return {
    url: `http://${host}:${port}`,
    port,
    dbPath,
    holdMs,
    holds,
    seedOrders,
    coherency,
    coherencyWindowMs,
    cold,
    stats,
    close,
    get slots() {
      return pool.slots;
    },
    get replicas() {
      return topology.replicas;
    },
    get capacityPerSec() {
      return capacity();
    },
    get mix() {
      return mix();
    },
    get peakConcurrency() {
      return truth().peakConcurrency;
    },
    get expectedPeakPerSec() {
      return truth().expectedPeakPerSec;
    },
    get saturatedPerSec() {
      return truth().saturatedPerSec;
    },
    setReplicas: (n: number) => topology.set(n),
  };
}

/** The three routes' holds: a read defaults to a fifth of a write, a confirm to a write. */
function validHolds(writeMs: number, readMs: number | undefined, confirmMs: number | undefined): DemoHolds {
  const holds = { readMs: readMs ?? writeMs / 5, writeMs, confirmMs: confirmMs ?? writeMs };
  for (const [name, v] of [
    ['readHoldMs', holds.readMs],
    ['confirmHoldMs', holds.confirmMs],
  ] as const) {
    if (!(v > 0) || !Number.isFinite(v)) throw new RangeError(`${name} must be a finite number of ms > 0, got ${v}`);
  }
  return holds;
}
