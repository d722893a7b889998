/**
 * The bare socket client against servers on 127.0.0.1 that write exact bytes, one HTTP/1.1 rule a
 * test: framing, keep-alive, 1xx, HEAD, read-until-close, desync, header injection, failures, TLS
 * (needs openssl for a throwaway certificate; skipped with its reason otherwise). Last, what both
 * clients (socket and undici) keep of a response body when a request asks for it.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { VuClient } from './undici-client.ts';
import { bodyText, type Outcome } from './outcome.ts';
import { responseHeaders } from './response-headers.ts';
import type { HttpClientKind, PreparedRequest, VuConnection } from './vu-connection.ts';
import { SocketVu, keepAliveReuseMs, requestHead } from './socket-client.ts';
import { liveParsers } from './llhttp.ts';
import { ERROR_BODY_BYTES } from './failure-text.ts';

interface Seen {
  head: string;
  body: string;
  n: number;
}
type Respond = (req: Seen, s: net.Socket) => void;

// Each exchange takes milliseconds: a client that waits for bytes that never come fails in 10 s, not the suite's 120.
vi.setConfig({ testTimeout: 10_000 });

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

/** A server that reads whole requests (head and Content-Length body) and lets `respond` write raw bytes. */
async function rawServer(respond: Respond) {
  let connections = 0;
  let n = 0;
  const seen: Seen[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
    let buf = Buffer.alloc(0);
    s.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      for (;;) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buf.subarray(0, end).toString('latin1');
        const len = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        if (buf.length < end + 4 + len) return;
        const req = { head, body: buf.subarray(end + 4, end + 4 + len).toString(), n: ++n };
        buf = buf.subarray(end + 4 + len);
        seen.push(req);
        respond(req, s);
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = () =>
    new Promise<void>((r) => {
      for (const s of sockets) s.destroy();
      server.close(() => r());
    });
  closers.push(close);
  return { url, seen, connections: () => connections };
}

function vuFor(url: string, timeoutMs = 5000, keepHeaders = true): SocketVu {
  const vu = new SocketVu(url, { timeoutMs, client: 'socket', keepHeaders });
  closers.push(() => vu.close());
  return vu;
}

/** A VU of either client, closed after the test. */
function clientFor(kind: HttpClientKind, url: string, timeoutMs = 5000): VuConnection {
  const opts = { timeoutMs, client: kind, keepHeaders: true };
  const vu = kind === 'socket' ? new SocketVu(url, opts) : new VuClient(url, opts);
  closers.push(() => vu.close());
  return vu;
}

/** The outcome as it was when `done` ran (the VU reuses it), the kept body as text and its chunk sizes too. */
type Result = Omit<Outcome, 'times'> & {
  connected: boolean;
  headers: Record<string, unknown>;
  body: string;
  kept: number[];
};
const GET: PreparedRequest = { method: 'GET', path: '/x', headers: {}, body: null };

function send(vu: VuConnection, req: PreparedRequest = GET): Promise<Result> {
  return new Promise((resolve) =>
    vu.send(req, (_vu, o) =>
      resolve({
        status: o.status,
        kind: o.kind,
        message: o.message,
        rawHeaders: o.rawHeaders,
        bytesIn: o.bytesIn,
        bytesOut: o.bytesOut,
        bodyChunks: o.bodyChunks,
        body: bodyText(o),
        kept: o.bodyChunks.map((c) => c.length),
        connections: o.connections,
        idleMs: o.idleMs,
        connected: o.times.connectStartMs > 0,
        headers: responseHeaders(o),
      }),
    ),
  );
}

const ok = (body: string, extra = '') =>
  `HTTP/1.1 200 OK\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('socket client: HTTP/1.1 framing', () => {
  it('keeps one connection alive across requests and charges the connect to the first only', async () => {
    const srv = await rawServer((req, s) => s.write(ok(`r${req.n}`, `x-n: ${req.n}\r\n`)));
    const vu = vuFor(srv.url);
    const rs = [];
    for (let i = 0; i < 5; i++) rs.push(await send(vu));
    expect(rs.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(rs.map((r) => r.headers['x-n'])).toEqual(['1', '2', '3', '4', '5']);
    expect(rs.map((r) => r.bytesIn)).toEqual([2, 2, 2, 2, 2]);
    expect(rs.map((r) => r.connected)).toEqual([true, false, false, false, false]);
    expect(srv.connections()).toBe(1);
    expect(srv.seen[0].head).toBe(`GET /x HTTP/1.1\r\nhost: ${new URL(srv.url).host}`);
    expect(rs[0].bytesOut).toBe(srv.seen[0].head.length + 4);
  });

  it('reads a chunked body and reuses the connection after it', async () => {
    const srv = await rawServer((req, s) =>
      s.write(
        req.n === 1
          ? 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n7\r\n, world\r\n0\r\n\r\n'
          : ok('next'),
      ),
    );
    const vu = vuFor(srv.url);
    const a = await send(vu);
    const b = await send(vu);
    expect([a.status, a.bytesIn, b.status, b.bytesIn]).toEqual([200, 12, 200, 4]);
    expect(srv.connections()).toBe(1);
  });

  it('takes no body after HEAD, whatever Content-Length says', async () => {
    const srv = await rawServer((req, s) =>
      s.write(req.n === 1 ? 'HTTP/1.1 200 OK\r\ncontent-length: 1000\r\n\r\n' : ok('after')),
    );
    const vu = vuFor(srv.url);
    const a = await send(vu, { ...GET, method: 'HEAD' });
    const b = await send(vu);
    expect([a.status, a.bytesIn, b.status, b.bytesIn]).toEqual([200, 0, 200, 5]);
    expect(srv.connections()).toBe(1);
  });

  it('passes over 1xx responses to the final one', async () => {
    const srv = await rawServer((_req, s) =>
      s.write(`HTTP/1.1 103 Early Hints\r\nlink: </a.css>; rel=preload\r\n\r\n${ok('final')}`),
    );
    const r = await send(vuFor(srv.url));
    expect([r.status, r.bytesIn, r.kind]).toEqual([200, 5, undefined]);
  });

  it('ends a 204 at its headers and keeps the connection', async () => {
    const srv = await rawServer((req, s) => s.write(req.n === 1 ? 'HTTP/1.1 204 No Content\r\n\r\n' : ok('x')));
    const vu = vuFor(srv.url);
    const a = await send(vu);
    const b = await send(vu);
    expect([a.status, b.status]).toEqual([204, 200]);
    expect(srv.connections()).toBe(1);
  });

  it('takes a 101 (upgrade) as the response and never reuses the upgraded connection', async () => {
    const srv = await rawServer((req, s) =>
      s.write(
        req.n === 1
          ? 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n'
          : ok('after'),
      ),
    );
    const vu = vuFor(srv.url);
    const a = await send(vu);
    const b = await send(vu);
    expect([a.status, a.kind, b.status, b.connected, srv.connections()]).toEqual([101, undefined, 200, true, 2]);
    expect([a.connections, b.connections]).toEqual([1, 2]); // the VU's second connection: a reconnect
  });

  it("frees each connection's parser when the connection goes", async () => {
    const base = liveParsers();
    const srv = await rawServer((_req, s) => {
      s.write(ok('bye', 'connection: close\r\n'));
      s.end();
    });
    const vu = vuFor(srv.url);
    for (let i = 0; i < 20; i++) expect((await send(vu)).status).toBe(200);
    expect([srv.connections(), liveParsers() - base]).toEqual([20, 0]);
    await send(vu);
    await vu.close();
    expect(liveParsers()).toBe(base);
  });

  it('reads a body that ends with the connection, then opens a new one', async () => {
    const srv = await rawServer((_req, s) => {
      s.write('HTTP/1.1 200 OK\r\nconnection: close\r\n\r\nuntil the end');
      s.end();
    });
    const vu = vuFor(srv.url);
    const a = await send(vu);
    const b = await send(vu);
    expect([a.status, a.bytesIn, a.kind, b.status, b.connected]).toEqual([200, 13, undefined, 200, true]);
    expect(srv.connections()).toBe(2);
  });

  it('sends a body with its Content-Length, and Content-Length: 0 for an empty POST', async () => {
    const srv = await rawServer((_req, s) => s.write(ok('')));
    const vu = vuFor(srv.url);
    await send(vu, {
      method: 'POST',
      path: '/orders',
      headers: { 'content-type': 'application/json' },
      body: Buffer.from('{"id":"a-1"}'),
    });
    await send(vu, { method: 'POST', path: '/orders', headers: {}, body: null });
    expect(srv.seen[0].head).toMatch(
      /^POST \/orders HTTP\/1\.1\r\nhost: .*\r\ncontent-type: application\/json\r\ncontent-length: 12$/,
    );
    expect(srv.seen[0].body).toBe('{"id":"a-1"}');
    expect(srv.seen[1].head).toMatch(/content-length: 0$/);
  });

  it.each(['socket', 'undici'] as const)(
    'a string body goes out as UTF-8 with its length in bytes, ASCII, other text, or over 16 KiB (%s)',
    async (kind) => {
      const srv = await rawServer((_req, s) => s.write(ok('')));
      const vu = clientFor(kind, srv.url);
      const bodies = ['{"id":"a-2"}', '{"name":"crème brûlée ✓ 𝄞"}', 'é'.repeat(20_000)];
      const sent: number[] = [];
      for (const body of bodies)
        sent.push((await send(vu, { method: 'POST', path: '/orders', headers: {}, body })).bytesOut);
      expect(srv.seen.map((r) => r.body)).toEqual(bodies);
      expect(srv.seen.map((r) => Number(/content-length: (\d+)/.exec(r.head)?.[1]))).toEqual([12, 35, 40_000]);
      // bytesOut counts the body's bytes, not its characters
      for (let i = 0; i < bodies.length; i++) expect(sent[i] - Buffer.byteLength(bodies[i])).toBeLessThan(200);
      expect(sent[2]).toBeGreaterThan(40_000);
    },
  );
});

describe('socket client: connection hygiene', () => {
  it('never takes a stray response for the next request: bytes after a response retire the connection', async () => {
    // The first answer carries the start of a second, unasked-for response in the same write: kept,
    // it would be read as the beginning of the next request's response.
    const srv = await rawServer((req, s) =>
      s.write(req.n === 1 ? `${ok('one', 'x-n: 1\r\n')}HTTP/1.1 200 OK\r\n` : ok('two', `x-n: ${req.n}\r\n`)),
    );
    const vu = vuFor(srv.url);
    const a = await send(vu);
    const b = await send(vu);
    expect([a.headers['x-n'], b.kind, b.headers['x-n'], b.connected, srv.connections()]).toEqual([
      '1',
      undefined,
      '2',
      true,
      2,
    ]);
  });

  it('retires a connection that sends bytes while idle', async () => {
    const srv = await rawServer((req, s) => {
      s.write(ok('ok', `x-n: ${req.n}\r\n`));
      if (req.n === 1) setTimeout(() => s.write('HTTP/1.1 2'), 20);
    });
    const vu = vuFor(srv.url);
    await send(vu);
    await sleep(80);
    const b = await send(vu);
    expect([b.kind, b.headers['x-n'], b.connected, srv.connections()]).toEqual([undefined, '2', true, 2]);
  });

  it.each([true, false])(
    "reuses an idle connection only within the server's Keep-Alive timeout, less half a second (headers kept: %s)",
    async (keepHeaders) => {
      expect(keepAliveReuseMs('timeout=5, max=1000')).toBe(4500);
      expect(keepAliveReuseMs('timeout=0')).toBe(0);
      expect(keepAliveReuseMs('max=10')).toBe(30_000);
      // a server that keeps an idle connection for 1 s: reused at once (it had been a connection
      // per request, with a margin of a whole second), replaced once idle past half a second
      const srv = await rawServer((_req, s) => s.write(ok('k', 'keep-alive: timeout=1\r\n')));
      const vu = vuFor(srv.url, 5000, keepHeaders);
      const a = await send(vu);
      expect(a.rawHeaders).toEqual(keepHeaders ? ['content-length', '1', 'keep-alive', 'timeout=1'] : null);
      await sleep(5);
      const b = await send(vu);
      expect([b.connected, srv.connections()]).toEqual([false, 1]);
      await sleep(600);
      const c = await send(vu);
      expect([c.connected, srv.connections()]).toEqual([true, 2]);
    },
  );

  it.each(['socket', 'undici'] as const)(
    '%s: keeps a connection a server says it keeps for 1 s (Keep-Alive: timeout=1) across requests',
    async (kind) => {
      // undici's default margin (2 s) had made timeout=2 0 s, and a margin of 1 s timeout=1: a connection per request
      const srv = await rawServer((_req, s) => s.write(ok('k', 'keep-alive: timeout=1\r\n')));
      const vu = clientFor(kind, srv.url);
      for (let i = 0; i < 3; i++) expect((await send(vu)).status).toBe(200);
      expect(srv.connections()).toBe(1);
    },
  );

  it('refuses header injection and bad paths before anything is sent', async () => {
    const srv = await rawServer((_req, s) => s.write(ok('x')));
    const vu = vuFor(srv.url);
    const a = await send(vu, { ...GET, headers: { 'x-a': 'b\r\nx-evil: 1' } });
    const b = await send(vu, { ...GET, path: '/a b' });
    const c = await send(vu, { ...GET, headers: { 'bad name': 'v' } });
    expect([a.kind, b.kind, c.kind]).toEqual(['other', 'other', 'other']);
    expect(a.message).toMatch(
      /header x-a holds a character a header cannot carry \(CR, LF, NUL.*fix the scenario's request/,
    );
    expect(b.message).toMatch(/path "\/a b" must start with \//);
    expect(c.message).toMatch(/header name "bad name" is not an HTTP token/);
    expect(srv.seen).toHaveLength(0);
    expect(requestHead({ ...GET, headers: { Host: 'example.test' } }, 'ignored')).toBe(
      'GET /x HTTP/1.1\r\nHost: example.test\r\n\r\n',
    );
  });
});

describe('socket client: failures, each under its kind', () => {
  it('a refused connect is `refused`', async () => {
    const probe = net.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const r = await send(vuFor(`http://127.0.0.1:${port}`));
    expect(r.kind).toBe('refused');
    expect(r.message).toMatch(/ECONNREFUSED/);
  });

  it('a connection that ends inside the body is `reset`', async () => {
    const srv = await rawServer((_req, s) => {
      s.write('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nonly ten b');
      s.end();
    });
    const r = await send(vuFor(srv.url));
    expect([r.kind, r.bytesIn]).toEqual(['reset', 10]);
    expect(r.message).toMatch(/closed the connection before the response ended/);
  });

  it("bytes that are not HTTP are `other`, with the parser's reason", async () => {
    const srv = await rawServer((_req, s) => s.write('HTTQ/9.9 OK?\r\n\r\n'));
    const r = await send(vuFor(srv.url));
    expect(r.kind).toBe('other');
    expect(r.message).toMatch(/^invalid HTTP response: Expected HTTP\//);
  });

  it.each([
    ['Transfer-Encoding', 'Content-Length'],
    ['transfer-encoding', 'content-length'],
    ['TRANSFER-ENCODING', 'content-Length'],
  ])('a response framed by both %s and %s is `other` and retires the connection', async (te, cl) => {
    const srv = await rawServer((req, s) =>
      s.write(
        req.n === 1 ? `HTTP/1.1 200 OK\r\n${te}: chunked\r\n${cl}: 3\r\n\r\n5\r\nhello\r\n0\r\n\r\n` : ok('fine'),
      ),
    );
    const vu = vuFor(srv.url);
    const r = await send(vu);
    expect([r.kind, r.status]).toEqual(['other', 0]);
    expect(r.message).toMatch(/^invalid HTTP response: Content-Length can't be present with Transfer-Encoding/);
    const b = await send(vu);
    expect([b.status, b.connected, srv.connections()]).toEqual([200, true, 2]);
  });

  it('a request past its deadline is `timeout`, and the VU works again after it', async () => {
    const srv = await rawServer((req, s) => {
      if (req.n > 1) s.write(ok('late but fine'));
    });
    const vu = vuFor(srv.url, 200);
    const pending = send(vu);
    await sleep(20);
    vu.expire(performance.now() + 1000);
    const r = await pending;
    expect(r.kind).toBe('timeout');
    expect(r.message).toMatch(/total deadline of 200 ms/);
    const b = await send(vu);
    expect([b.status, b.connected]).toEqual([200, true]);
  });

  it('preconnect opens the connection ahead, and the first request is not charged for it', async () => {
    // A process some minutes old: the fresh connection must not be taken for one idle that long.
    const now = performance.now.bind(performance);
    vi.spyOn(performance, 'now').mockImplementation(() => now() + 600_000);
    closers.push(() => {
      vi.restoreAllMocks();
    });
    const srv = await rawServer((_req, s) => s.write(ok('x')));
    const vu = vuFor(srv.url);
    expect(await vu.preconnect()).toBe(true);
    const r = await send(vu);
    expect([r.status, r.connected, srv.connections()]).toEqual([200, false, 1]);
  });
});

describe('socket client: TLS', () => {
  const openssl = spawnSync('openssl', ['version']).status === 0;
  it.skipIf(!openssl)(
    'speaks TLS to an https target and verifies its certificate (a self-signed one is refused, as undici refuses it)',
    async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plateau-tls-'));
      closers.push(() => fs.rmSync(dir, { recursive: true, force: true }));
      const key = path.join(dir, 'key.pem');
      const cert = path.join(dir, 'cert.pem');
      const made = spawnSync('openssl', [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ]);
      expect(made.status, made.stderr.toString()).toBe(0);
      let connections = 0;
      const server = tls.createServer({ key: fs.readFileSync(key), cert: fs.readFileSync(cert) }, (s) => {
        s.on('error', () => undefined);
        s.end(ok('secure'));
      });
      server.on('connection', () => connections++);
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      closers.push(() => new Promise<void>((r) => server.close(() => r())));
      const r = await send(vuFor(`https://127.0.0.1:${(server.address() as AddressInfo).port}`));
      expect(r.kind).toBe('other');
      expect(r.message).toMatch(/self[- ]signed certificate/);
      expect(connections).toBe(1); // the certificate came from this server, over one connection
    },
  );
});

describe.each(['socket', 'undici'] as const)('%s client: response bodies, kept when a request asks', (kind) => {
  /** 200 KiB whose every byte depends on its offset (251 is prime: no two 64 KiB windows match). */
  const big = Buffer.from(Array.from({ length: 200 * 1024 }, (_, i) => i % 251));
  const head = (n: number, extra = '') => `HTTP/1.1 200 OK\r\ncontent-length: ${n}\r\n${extra}\r\n`;
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

  it('keeps exactly keepBodyBytes of a 200 KiB body, counts all of it, and keeps copies no later read overwrites', async () => {
    const other = Buffer.alloc(big.length, 0x55);
    const srv = await rawServer((req, s) => {
      s.write(head(big.length));
      s.write(req.n === 1 ? big : other);
    });
    const vu = clientFor(kind, srv.url);
    const a = await send(vu, { ...GET, keepBodyBytes: 64 * 1024 });
    expect([a.status, a.kind, a.bytesIn, sum(a.kept)]).toEqual([200, undefined, 200 * 1024, 65_536]);
    expect(Buffer.concat(a.bodyChunks).equals(big.subarray(0, 65_536))).toBe(true);
    // Two more 200 KiB responses through the same reads (socket buffer, parser memory, undici's chunks).
    const b = await send(vu, { ...GET, keepBodyBytes: 10 });
    const c = await send(vu);
    expect([b.body, b.bytesIn, c.kept, c.bytesIn, srv.connections()]).toEqual([
      'UUUUUUUUUU',
      200 * 1024,
      [],
      200 * 1024,
      1,
    ]);
    expect(Buffer.concat(a.bodyChunks).equals(big.subarray(0, 65_536))).toBe(true);
  });

  it('keeps a chunked body without its framing, whole or cut inside a chunk', async () => {
    const srv = await rawServer((req, s) => {
      if (req.n <= 2) {
        s.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n2\r\n, \r\n');
        s.write('d\r\nchunked world\r\n0\r\nx-trailer: t\r\n\r\n');
        return;
      }
      // 200 KiB in chunks of 40,000 bytes, each its own write.
      s.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n');
      for (let at = 0; at < big.length; at += 40_000) {
        const part = big.subarray(at, at + 40_000);
        s.write(`${part.length.toString(16)}\r\n`);
        s.write(part);
        s.write('\r\n');
      }
      s.write('0\r\n\r\n');
    });
    const vu = clientFor(kind, srv.url);
    const whole = await send(vu, { ...GET, keepBodyBytes: 2 ** 20 });
    const cut = await send(vu, { ...GET, keepBodyBytes: 7 });
    const large = await send(vu, { ...GET, keepBodyBytes: 65_536 });
    expect([whole.status, whole.body, whole.bytesIn]).toEqual([200, 'hello, chunked world', 20]);
    expect([cut.body, cut.bytesIn]).toEqual(['hello, ', 20]);
    expect([large.kind, large.bytesIn, sum(large.kept)]).toEqual([undefined, 200 * 1024, 65_536]);
    expect(Buffer.concat(large.bodyChunks).equals(big.subarray(0, 65_536))).toBe(true);
    expect(srv.connections()).toBe(1);
  });

  it('gives multibyte UTF-8 back through bodyText when kept whole, even split inside a character', async () => {
    const text = 'naïve café — ✓ 日本語 🎉 '.repeat(40);
    const bytes = Buffer.from(text);
    const split = bytes.indexOf(Buffer.from('🎉')) + 2; // inside the emoji's four bytes
    const srv = await rawServer((_req, s) => {
      s.setNoDelay(true);
      s.write(head(bytes.length, 'content-type: text/plain; charset=utf-8\r\n'));
      s.write(bytes.subarray(0, split));
      setTimeout(() => s.write(bytes.subarray(split)), 20);
    });
    const r = await send(clientFor(kind, srv.url), { ...GET, keepBodyBytes: bytes.length });
    expect([r.status, r.bytesIn, sum(r.kept)]).toEqual([200, bytes.length, bytes.length]);
    expect(r.body).toBe(text);
  });

  it('keeps nothing with keepBodyBytes 0 or absent, and still counts the body', async () => {
    const srv = await rawServer((_req, s) => s.write(ok('counted, not kept')));
    const vu = clientFor(kind, srv.url);
    const zero = await send(vu, { ...GET, keepBodyBytes: 0 });
    const absent = await send(vu);
    expect([zero.kept, zero.body, zero.bytesIn, absent.kept, absent.body, absent.bytesIn]).toEqual([
      [],
      '',
      17,
      [],
      '',
      17,
    ]);
  });

  it("never lets a VU's reused outcome carry one response's body into the next", async () => {
    const bodies = ['the first response', 'second', 'third one'];
    const srv = await rawServer((req, s) => s.write(ok(bodies[req.n - 1])));
    const vu = clientFor(kind, srv.url);
    const a = await send(vu, { ...GET, keepBodyBytes: 100 });
    const b = await send(vu);
    const c = await send(vu, { ...GET, keepBodyBytes: 100 });
    expect([a.body, b.body, b.kept, c.body]).toEqual(['the first response', '', [], 'third one']);
    // What the first request's done() was handed is its own: the next requests did not add to it.
    expect(Buffer.concat(a.bodyChunks).toString()).toBe('the first response');
  });

  it('keeps a body read until the connection closes, and none of a HEAD response', async () => {
    const srv = await rawServer((req, s) => {
      if (req.n === 1) {
        s.write('HTTP/1.1 200 OK\r\nconnection: close\r\n\r\nuntil the end');
        s.end();
      } else s.write(req.head.startsWith('HEAD') ? head(1000) : ok('after head'));
    });
    const vu = clientFor(kind, srv.url);
    const closed = await send(vu, { ...GET, keepBodyBytes: 1000 });
    const headOnly = await send(vu, { ...GET, method: 'HEAD', keepBodyBytes: 1000 });
    const after = await send(vu, { ...GET, keepBodyBytes: 1000 });
    expect([closed.kind, closed.body, closed.bytesIn]).toEqual([undefined, 'until the end', 13]);
    expect([headOnly.status, headOnly.kept, headOnly.bytesIn]).toEqual([200, [], 0]);
    expect([after.status, after.body]).toEqual([200, 'after head']);
  });

  it('keeps the first ERROR_BODY_BYTES of a 4xx or 5xx a request would not keep (its error sample), none of a 2xx, and all a request asks of either', async () => {
    const long = 'e'.repeat(5000);
    const srv = await rawServer((req, s) => {
      const [status, body] = [
        [401, '{"error":"bad credentials"}'],
        [200, long],
        [503, long],
        [404, long],
      ][req.n - 1] as [number, string];
      s.write(`HTTP/1.1 ${status} X\r\ncontent-length: ${body.length}\r\n\r\n${body}`);
    });
    const vu = clientFor(kind, srv.url);
    const denied = await send(vu);
    const fine = await send(vu);
    const failed = await send(vu);
    const asked = await send(vu, { ...GET, keepBodyBytes: 1000 });
    expect([denied.status, denied.kind, denied.body]).toEqual([401, 'http_4xx', '{"error":"bad credentials"}']);
    expect([fine.status, fine.kept, fine.bytesIn]).toEqual([200, [], 5000]);
    expect([failed.kind, sum(failed.kept), failed.bytesIn]).toEqual(['http_5xx', ERROR_BODY_BYTES, 5000]);
    expect([asked.kind, sum(asked.kept)]).toEqual(['http_4xx', 1000]);
    expect(srv.connections()).toBe(1);
  });

  it.each([-1, 1.5, Number.NaN])(
    'refuses keepBodyBytes %s before anything is sent, naming the field and the fix',
    async (keep) => {
      const srv = await rawServer((_req, s) => s.write(ok('x')));
      const vu = clientFor(kind, srv.url);
      const r = await send(vu, { ...GET, keepBodyBytes: keep });
      expect(r.kind).toBe('other');
      expect(r.message).toMatch(
        /^invalid request: keepBodyBytes .+ is not a whole number of bytes \(0 or more\); set it to how many bytes/,
      );
      const next = await send(vu, { ...GET, keepBodyBytes: 1 });
      expect([next.status, next.body, srv.seen.length]).toEqual([200, 'x', 1]);
    },
  );
});
