/**
 * The embedded demo target: node:http on 127.0.0.1 over SQLite, a bounded pool with a known
 * capacity of slots / holdMs * 1000 req/s, HMAC-signed orders, idempotency, Spring-named metrics.
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
import { handleOrder, type OrderAnswer, type OrderContext } from './orders.ts';
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
  holdMs?: number;
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
  accounts: number;
  idempotency: number;
  capacityPerSec: number;
}

/** The demo's truths at its current topology (they change when the replicas do). */
export interface DemoTruth {
  /** Busy slots at the throughput peak: an integer in 1..slots. */
  peakConcurrency: number;
  /** The most it can sustain, req/s: max over n <= slots of n / heldMs(n) * 1000. Same as capacityPerSec. */
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
  holdMs: number;
  readonly capacityPerSec: number;
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

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<OrderAnswer | void> | OrderAnswer | void;

function positiveInt(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be an integer >= 1, got ${value}`);
  return value;
}

export async function startDemo(opts: DemoOptions = {}): Promise<DemoHandle> {
  const slotsPerReplica = positiveInt('slots', opts.slots ?? 4);
  const holdMs = opts.holdMs ?? 10;
  if (!(holdMs > 0) || !Number.isFinite(holdMs)) throw new RangeError(`holdMs must be > 0, got ${holdMs}`);
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
  const db = new DemoDb(dbPath, rows, idMaxLength);
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
  const metrics = new HttpMetrics();
  const counters = { writes: 0, idempotentHits: 0, acquireTimeouts: 0 };
  const penaltyAt = penalised ? (busy: number) => heldMs(holdMs, coherency, busy) : undefined;
  // The cold multiplier applies on top of the penalty: slower work, same contention model.
  const holdMsAt = cold.coldS > 0 ? (busy: number) => (penaltyAt ? penaltyAt(busy) : holdMs) * coldNow() : penaltyAt;
  const busy = penalised && coherencyWindowMs > 0 ? new BusyAverage(coherencyWindowMs) : undefined;
  const ctx: OrderContext = { db, pool, holdMs, holdMsAt, busy, idMaxLength, hmacKey: opts.hmacKey, counters };

  const stats = (): DemoStats => ({
    writes: counters.writes,
    idempotentHits: counters.idempotentHits,
    ...db.counts(),
    capacityPerSec: capacity(),
  });

  const metricSamples = (): Sample[] => {
    const pl: Array<[string, string]> = [['pool', 'demo']];
    return [
      {
        name: 'hikaricp_connections_active',
        help: 'Active connections',
        type: 'gauge',
        value: pool.active,
        labels: pl,
      },
      { name: 'hikaricp_connections_pending', help: 'Pending threads', type: 'gauge', value: pool.pending, labels: pl },
      {
        name: 'hikaricp_connections_idle',
        help: 'Idle connections',
        type: 'gauge',
        value: pool.max - pool.active,
        labels: pl,
      },
      { name: 'hikaricp_connections_max', help: 'Max connections', type: 'gauge', value: pool.max, labels: pl },
      {
        name: 'hikaricp_connections_timeout_total',
        help: 'Connection timeout total count',
        type: 'counter',
        value: counters.acquireTimeouts,
        labels: pl,
      },
      { name: 'demo_writes_total', help: 'Orders written', type: 'counter', value: counters.writes },
      {
        name: 'demo_idempotent_hits_total',
        help: 'Orders answered from the idempotency table',
        type: 'counter',
        value: counters.idempotentHits,
      },
      {
        name: 'demo_capacity_per_sec',
        help: 'Theoretical capacity: max over n <= slots of n / heldMs(n) * 1000',
        type: 'gauge',
        value: capacity(),
      },
      {
        name: 'demo_replicas',
        help: 'Replicas serving the demo (each with its own pool)',
        type: 'gauge',
        value: topology.replicas,
      },
      {
        name: 'demo_cold_factor',
        help: 'The hold multiplier of the cold start now (1 once warm)',
        type: 'gauge',
        value: coldNow(),
      },
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
    '/admin/replicas': {
      POST: (req, res) => {
        const n = Number(new URL(req.url ?? '/', 'http://demo').searchParams.get('n'));
        if (!Number.isInteger(n) || n < 1)
          return sendJson(res, 400, { error: 'n must be an integer >= 1, e.g. POST /admin/replicas?n=3' });
        topology.set(n);
        sendJson(res, 200, { replicas: topology.replicas, slots: pool.slots, capacityPerSec: capacity() });
      },
    },
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
      if (!handler)
        return sendJson(res, 405, { error: `method ${method} not allowed` }, { Allow: Object.keys(route).join(', ') });
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
      const graceMs = heldMs(holdMs, coherency, pool.slots) * cold.factor + 2_000;
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
