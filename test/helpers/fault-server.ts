/**
 * A fault-injecting target on 127.0.0.1 for the fault matrix (issue 8). Requests to /health and
 * /ping always answer 200 (so preflight and RTT pass); requests to any other path get the fault of
 * the server's mode, except the first `cleanFirst` of them (the preflight's sample request).
 *
 * Built on node:http; malformed HTTP is written straight to the node:net socket under it. Every
 * socket is tracked so `close()` leaves nothing behind.
 */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export type FaultMode =
  /** 200 "ok" to everything. */
  | 'ok'
  /** After `closeAfter` load requests: stop listening and drop every connection (ECONNREFUSED from then on). */
  | 'refuse-mid-run'
  /** Every `every`-th load request: the socket is reset (TCP RST via resetAndDestroy). */
  | 'reset'
  /** Every `every`-th load request never gets an answer. */
  | 'hang'
  /** Headers at once, then one byte of body every `dripMs` for `dripBytes` bytes. */
  | 'slow-drip'
  /** A 200 whose body is `bigBytes` long, streamed with back-pressure. */
  | 'big-body'
  /** Every `every`-th load request gets bytes that are not HTTP. */
  | 'malformed'
  /** Load requests `burstFrom`..`burstTo` (1-based, after the clean ones) get 503. */
  | 'burst-5xx'
  /** 302 to `redirectTo` (another host), which must not be followed. */
  | 'redirect'
  /** 200 with `Connection: close`: a new connection for every request. */
  | 'close-keepalive';

export interface FaultOptions {
  mode: FaultMode;
  every?: number;
  cleanFirst?: number;
  closeAfter?: number;
  dripMs?: number;
  dripBytes?: number;
  bigBytes?: number;
  burstFrom?: number;
  burstTo?: number;
  redirectTo?: string;
  /** Extra response headers on every load response after the clean ones (hostile-string tests). */
  headers?: Record<string, string>;
  /** Status of every load response, when not the mode's own. */
  status?: number;
  statusText?: string;
  body?: string;
}

export interface FaultStats {
  /** Requests on the load path (health and ping excluded). */
  load: number;
  /** TCP connections accepted. */
  connections: number;
  /** Faults injected. */
  faults: number;
  /** Highest number of load requests open at once. */
  maxOpen: number;
}

export interface FaultServer {
  url: string;
  stats: FaultStats;
  /** performance-free wall clock (Date.now()) of the last load request received. */
  lastLoadAtMs(): number;
  close(): Promise<void>;
}

const CHUNK = Buffer.alloc(64 * 1024, 0x61);

export async function startFaultServer(o: FaultOptions): Promise<FaultServer> {
  const stats: FaultStats = { load: 0, connections: 0, faults: 0, maxOpen: 0 };
  const sockets = new Set<net.Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let open = 0;
  let lastLoadAt = 0;
  const every = o.every ?? 1;
  const clean = o.cleanFirst ?? 1;

  const server = http.createServer((req, res) => {
    if (req.url === '/health' || req.url === '/ping') {
      res.end('ok');
      return;
    }
    stats.load++;
    lastLoadAt = Date.now();
    const n = stats.load - clean;
    open++;
    stats.maxOpen = Math.max(stats.maxOpen, open);
    res.on('close', () => {
      open--;
    });
    const faulty = n > 0 && n % every === 0;
    if (o.headers && n > 0) for (const [k, v] of Object.entries(o.headers)) res.setHeader(k, v);
    const plain = () => {
      if (o.status) {
        res.statusCode = o.status;
        if (o.statusText) res.statusMessage = o.statusText;
      }
      res.end(o.body ?? 'ok');
    };
    switch (o.mode) {
      case 'refuse-mid-run':
        if (n >= (o.closeAfter ?? 20)) {
          stats.faults++;
          server.close();
          for (const s of sockets) s.destroy();
          return;
        }
        return plain();
      case 'reset':
        if (faulty) {
          stats.faults++;
          req.socket.resetAndDestroy();
          return;
        }
        return plain();
      case 'hang':
        if (faulty) {
          stats.faults++;
          return;
        } // the client's deadline must end it
        return plain();
      case 'slow-drip':
        if (n <= 0) return plain();
        stats.faults++;
        return drip(res, o.dripBytes ?? 100, o.dripMs ?? 100, timers);
      case 'big-body':
        if (n <= 0) return plain();
        stats.faults++;
        return stream(res, o.bigBytes ?? 8 * 2 ** 20);
      case 'malformed':
        if (faulty) {
          stats.faults++;
          req.socket.end('HTTQ/9.9 OK?\r\n\u0000\u00ff<garbage>\r\n\r\n');
          return;
        }
        return plain();
      case 'burst-5xx':
        if (n >= (o.burstFrom ?? 1) && n <= (o.burstTo ?? Infinity)) {
          stats.faults++;
          res.statusCode = 503;
          res.end('busy');
          return;
        }
        return plain();
      case 'redirect':
        if (n <= 0) return plain();
        stats.faults++;
        res.writeHead(302, { location: o.redirectTo ?? 'http://127.0.0.2:9/elsewhere' });
        res.end();
        return;
      case 'close-keepalive':
        res.setHeader('connection', 'close');
        return plain();
      default:
        return plain();
    }
  });
  server.keepAliveTimeout = 30_000;
  server.on('connection', (s: net.Socket) => {
    stats.connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
  });
  server.on('clientError', (_err, s) => {
    s.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stats,
    lastLoadAtMs: () => lastLoadAt,
    close: () =>
      new Promise<void>((r) => {
        for (const t of timers) clearInterval(t);
        for (const s of sockets) s.destroy();
        if (!server.listening) {
          r();
          return;
        }
        server.close(() => r());
      }),
  };
}

/** Headers now, then one byte every `everyMs`: a body that is alive but never ends in time. */
function drip(res: http.ServerResponse, bytes: number, everyMs: number, timers: Set<NodeJS.Timeout>): void {
  res.writeHead(200, { 'content-length': String(bytes) });
  res.flushHeaders();
  let sent = 0;
  const t = setInterval(() => {
    if (res.destroyed || sent >= bytes) {
      clearInterval(t);
      timers.delete(t);
      if (!res.destroyed) res.end();
      return;
    }
    res.write('x');
    sent++;
  }, everyMs);
  timers.add(t);
  res.on('close', () => {
    clearInterval(t);
    timers.delete(t);
  });
}

/** `bytes` of body from one reused 64 KiB chunk, waiting for 'drain' (the server keeps nothing either). */
function stream(res: http.ServerResponse, bytes: number): void {
  res.writeHead(200, { 'content-length': String(bytes) });
  let left = bytes;
  const pump = () => {
    while (left > 0) {
      const n = Math.min(left, CHUNK.length);
      left -= n;
      if (!res.write(n === CHUNK.length ? CHUNK : CHUNK.subarray(0, n))) {
        res.once('drain', pump);
        return;
      }
    }
    res.end();
  };
  res.on('close', () => {
    left = 0;
  });
  pump();
}

/** A second host for the redirect fault: counts what reaches it (nothing must). */
export async function startWitness(): Promise<{ url: string; hits(): number; close(): Promise<void> }> {
  let hits = 0;
  const server = http.createServer((_q, res) => {
    hits++;
    res.end('followed');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits: () => hits,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
