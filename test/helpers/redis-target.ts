/**
 * A target whose limit is a real Redis, for the downstream test: a real redis-server on a free
 * port of 127.0.0.1 (own temp dir, no persistence), Debian's prometheus-redis-exporter in front
 * of it, and an HTTP server on 127.0.0.1 that makes a known number of Redis calls per request
 * over a raw RESP client on node:net, and exposes Spring-named request metrics plus its own
 * per-call time (app_redis_call_seconds, a summary in seconds).
 *
 * One of the calls holds Redis's single thread for a fixed time (DEBUG SLEEP, enabled for local
 * connections only), so Redis saturates at a low ops rate that the machine's load hardly moves: a
 * Lua busy loop did the same, but a CPU-bound ceiling on a shared 2-core machine moved by 15%
 * between two calibrations a second apart (1,453 and 1,696 ops/s), the sleep by 3%.
 *
 * The processes: test/helpers/redis-server.ts; the RESP client: test/helpers/resp-client.ts.
 */
import { once } from 'node:events';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { RedisHandle } from './redis-server.ts';
import { RespClient, type RespReply } from './resp-client.ts';

/** The calls one request makes, in order (each a round trip): CALLS_PER_REQUEST of them, one holding Redis for `holdMs`. */
function requestCalls(holdMs: number, n: number): (string | number)[][] {
  return [
    ['INCR', 'plateau:hits'],
    ['GET', 'plateau:hits'],
    ['DEBUG', 'SLEEP', holdMs / 1000],
    ['SET', 'plateau:last', n],
  ];
}
export const CALLS_PER_REQUEST = 4;

/**
 * A client pool as services keep one (Jedis, Lettuce's pool): a fixed number of connections, one
 * command at a time on each; a call waits for a free connection. So Redis never holds more than
 * `size` commands at once and answers the exporter's INFO after at most those (a deep pipeline
 * would make that reading lag its scrape's timestamp by the whole queue; 8 connections of 6 ms
 * sleeps still moved a 1 s window's ops by 5%), and the queue of a saturated Redis forms in the
 * service, as it does in production.
 */
class Pool {
  private readonly free: RespClient[];
  private readonly waiting: ((c: RespClient) => void)[] = [];
  private constructor(readonly clients: RespClient[]) {
    this.free = [...clients];
  }
  static async open(port: number, size: number): Promise<Pool> {
    return new Pool(await Promise.all(Array.from({ length: size }, () => RespClient.connect(port))));
  }
  /** One command on a free connection; `ms` is the time on the connection (write to reply), not the wait for it. */
  async call(...args: (string | number)[]): Promise<{ reply: RespReply; ms: number }> {
    const c = this.free.pop() ?? (await new Promise<RespClient>((r) => this.waiting.push(r)));
    try {
      return await c.call(...args);
    } finally {
      const next = this.waiting.shift();
      if (next) next(c);
      else this.free.push(c);
    }
  }
  close(): void {
    for (const c of this.clients) c.close();
  }
}

async function oneRequest(pool: Pool, holdMs: number, n: number, onCall: (ms: number) => void): Promise<void> {
  for (const args of requestCalls(holdMs, n)) {
    const { reply, ms } = await pool.call(...args);
    if (reply instanceof Error) throw reply;
    onCall(ms);
  }
}

/**
 * Redis's own ceiling for this request's mix: `loops` request sequences driven back to back
 * through a pool of `connections` for `windows` windows of `windowS` each, the most ops/s Redis
 * counted in one of them (INFO's total_commands_processed delta, less the INFO). The most, not
 * the mean: the machine's other load only ever takes from it (on a busy 2-core machine one
 * second read 444 ops/s and the next 611).
 */
export async function calibrateOpsPerSec(
  redis: RedisHandle,
  o: { holdMs: number; windows?: number; windowS?: number; connections?: number; loops?: number },
): Promise<number> {
  const pool = await Pool.open(redis.port, o.connections ?? 16);
  const info = await RespClient.connect(redis.port);
  const processed = () => commandsProcessed(info);
  try {
    const until = performance.now() + (o.windows ?? 3) * (o.windowS ?? 0.5) * 1000;
    const readings = [await processed()];
    const reader = (async () => {
      while (performance.now() < until) {
        await new Promise((r) => setTimeout(r, (o.windowS ?? 0.5) * 1000));
        readings.push(await processed());
      }
    })();
    await Promise.all([
      reader,
      ...Array.from({ length: o.loops ?? 32 }, async (_, k) => {
        while (performance.now() < until) await oneRequest(pool, o.holdMs, k, () => {});
      }),
    ]);
    const rates = readings.slice(1).map((b, k) => (b.n - readings[k].n - 1) / ((b.atMs - readings[k].atMs) / 1000));
    return Math.max(...rates);
  } finally {
    pool.close();
    info.close();
  }
}

/** Redis's INFO total_commands_processed now (the INFO itself counted), and when it was read. */
async function commandsProcessed(info: RespClient): Promise<{ n: number; atMs: number }> {
  const { reply } = await info.call('INFO', 'stats');
  return { n: Number(/total_commands_processed:(\d+)/.exec(String(reply))![1]), atMs: performance.now() };
}

/**
 * The commands a second Redis runs with no load: its exporter's INFO and the like at each scrape
 * (about 5 a scrape), over `seconds`, less the two INFO of this reading.
 */
export async function idleOpsPerSec(redis: RedisHandle, seconds: number): Promise<number> {
  const info = await RespClient.connect(redis.port);
  try {
    const a = await commandsProcessed(info);
    await new Promise((r) => setTimeout(r, seconds * 1000));
    const b = await commandsProcessed(info);
    return (b.n - a.n - 1) / ((b.atMs - a.atMs) / 1000);
  } finally {
    info.close();
  }
}

export interface RedisTargetHandle {
  /** http://127.0.0.1:PORT: GET /metrics (Spring-named), GET /ping, anything else does CALLS_PER_REQUEST Redis calls */
  url: string;
  /** Requests served and Redis calls made so far. */
  counts(): { requests: number; calls: number };
  close(): Promise<void>;
}

/**
 * The HTTP target: each request makes CALLS_PER_REQUEST Redis calls in order, one holding Redis for
 * `holdMs`; on `port` of 127.0.0.1 (a free one when not given).
 */
export async function startRedisTarget(
  redis: RedisHandle,
  o: { holdMs: number; connections?: number; port?: number },
): Promise<RedisTargetHandle> {
  const pool = await Pool.open(redis.port, o.connections ?? 16);
  let count = 0;
  let sumS = 0;
  let maxS = 0;
  let calls = 0;
  let callSumS = 0;
  const server: Server = createHttpServer((req, res) => {
    if (req.url === '/metrics') {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
      res.end(
        [
          '# TYPE http_server_requests_seconds summary',
          `http_server_requests_seconds_count{method="GET",outcome="SUCCESS",status="200",uri="/load"} ${count}`,
          `http_server_requests_seconds_sum{method="GET",outcome="SUCCESS",status="200",uri="/load"} ${sumS}`,
          `http_server_requests_seconds_max{method="GET",outcome="SUCCESS",status="200",uri="/load"} ${maxS}`,
          '# TYPE app_redis_call_seconds summary',
          `app_redis_call_seconds_count ${calls}`,
          `app_redis_call_seconds_sum ${callSumS}`,
          '',
        ].join('\n'),
      );
      maxS = 0;
      return;
    }
    if (req.url === '/ping') {
      res.writeHead(200).end('pong');
      return;
    }
    const t0 = performance.now();
    oneRequest(pool, o.holdMs, count, (ms) => {
      calls++;
      callSumS += ms / 1000;
    }).then(
      () => {
        const s = (performance.now() - t0) / 1000;
        count++;
        sumS += s;
        if (s > maxS) maxS = s;
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      },
      (err: Error) => res.writeHead(500).end(err.message),
    );
  });
  server.keepAliveTimeout = 10_000;
  server.listen(o.port ?? 0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    counts: () => ({ requests: count, calls }),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      pool.close();
    },
  };
}
