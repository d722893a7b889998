/**
 * One VU's connection on a bare socket (`http.client: socket`): the request is serialised into one
 * string and written, the response is parsed by http-parser-js (autocannon's parser), its body is
 * counted and thrown away. The same contract as the undici VU (http.ts): keep-alive, one request
 * at a time, phase timestamps from the VU's own events, the total deadline from the pool's sweep.
 * Per request it allocates the request string and the parser's header array, no Request object,
 * no promise, no timer: a quarter less CPU per request than undici through plateau (docs/decisions/010).
 *
 * What HTTP/1.1 asks of a client and where it is kept here:
 * - framing (Content-Length, chunked, read-until-close, HEAD, 1xx, 204/304): the parser; HEAD is
 *   told to skip the body, 1xx responses are passed over until the final one;
 * - keep-alive: a response the parser says ends the connection retires the socket; an idle socket
 *   is reused only within the server's `Keep-Alive: timeout` (less a second) or 30 s;
 * - desync: bytes nobody asked for (while idle, or after a response in the same read) retire the
 *   socket, so a stray response is never taken for the next request's; so does a response framed
 *   both by Transfer-Encoding and Content-Length;
 * - header injection: names must be tokens, values and the path must not hold CR, LF, NUL or
 *   other characters HTTP/1.1 cannot carry.
 */
import net, { type Socket } from 'node:net';
import tls from 'node:tls';
import { performance } from 'node:perf_hooks';
import { HTTPParser } from 'http-parser-js';
import { deadlineError } from './deadline.ts';
import { endOutcome, newOutcome, startOutcome, SOCKET_CLOSED_CODE, type HttpOptions, type Outcome, type PreparedRequest, type SendDone, type VuConnection } from './http.ts';

type Parser = InstanceType<typeof HTTPParser>;
interface ResponseInfo { statusCode: number; headers: string[]; shouldKeepAlive: boolean; upgrade: boolean }

/** An idle connection is reused for this long when the server gives no Keep-Alive timeout. */
const IDLE_REUSE_MS = 30_000;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const BAD_VALUE = /[^\t\x20-\x7e\x80-\xff]/;
const BAD_PATH = /[^\u0021-\u00ff]/;
/**
 * Plain-TCP sockets read into this one buffer (net's `onread`), skipping the stream machinery and
 * a Buffer per read: about a tenth of the client's CPU. Safe to share within a thread: each read is
 * parsed before the next, and nothing keeps a view of it (body bytes are only counted, the parser
 * copies headers and partial lines into strings).
 */
const READ_BUFFER = Buffer.allocUnsafe(64 * 1024);

export class SocketVu implements VuConnection {
  private readonly timeoutMs: number;
  private readonly host: string;
  private readonly port: number;
  private readonly tls: boolean;
  private readonly hostHeader: string;
  private readonly out: Outcome = newOutcome();
  private done: SendDone | null = null;
  private deadlineMs = Infinity;
  private sock: Socket | null = null;
  /** A request waiting for its connection; null once written. */
  private pendingHead: string | null = null;
  private pendingBody: Buffer | null = null;
  private isHead = false;
  /** A 1xx response was parsed: the final one is still to come. */
  private informational = false;
  private keepAlive = true;
  private reuseMs = IDLE_REUSE_MS;
  private idleSinceMs = 0;

  constructor(origin: string, opts: HttpOptions) {
    this.timeoutMs = opts.timeoutMs;
    const u = new URL(origin);
    this.tls = u.protocol === 'https:';
    this.host = u.hostname.replace(/^\[|\]$/g, '');
    this.port = Number(u.port || (this.tls ? 443 : 80));
    this.hostHeader = u.host;
  }

  preconnect(): Promise<boolean> {
    if (this.sock) return Promise.resolve(true);
    const s = this.open();
    return new Promise((resolve) => {
      const ok = () => { s.off('error', bad); resolve(true); };
      const bad = () => { s.off(this.tls ? 'secureConnect' : 'connect', ok); resolve(false); };
      s.once(this.tls ? 'secureConnect' : 'connect', ok);
      s.once('error', bad);
    });
  }

  send(req: PreparedRequest, done: SendDone): void {
    const out = this.out;
    const nowMs = performance.now();
    startOutcome(out, nowMs);
    this.done = done;
    this.deadlineMs = nowMs + this.timeoutMs;
    this.informational = false;
    this.isHead = req.method === 'HEAD';
    let head: string;
    try {
      head = requestHead(req, this.hostHeader);
    } catch (err) {
      out.bytesOut = 0;
      this.finish(err as Error);
      return;
    }
    out.bytesOut = head.length + (req.body ? req.body.length : 0);
    let s = this.sock;
    // A connection that is gone, or idle past what the server keeps, is replaced before it is used.
    if (s && (s.destroyed || (!s.connecting && nowMs - this.idleSinceMs > this.reuseMs))) { this.retire(s); s = null; }
    if (s) { this.write(s, head, req.body); return; }
    // A new connection, charged to this request (connecting), as k6 does.
    this.pendingHead = head;
    this.pendingBody = req.body;
    out.times.connectStartMs = nowMs;
    const c = this.open();
    c.once(this.tls ? 'secureConnect' : 'connect', () => {
      if (c !== this.sock || this.pendingHead === null) return;
      out.times.connectEndMs = performance.now();
      const h = this.pendingHead;
      const b = this.pendingBody;
      this.pendingHead = null;
      this.pendingBody = null;
      this.write(c, h, b);
    });
  }

  private write(s: Socket, head: string, body: Buffer | null): void {
    const t = this.out.times;
    t.sendStartMs = performance.now();
    if (body) {
      s.cork();
      s.write(head, 'latin1');
      s.write(body);
      s.uncork();
    } else {
      s.write(head, 'latin1');
    }
    t.bodySentMs = performance.now();
  }

  private open(): Socket {
    // A parser per connection: what one connection left half-parsed never reaches the next.
    const p: Parser = new HTTPParser(HTTPParser.RESPONSE);
    const s: Socket = this.tls
      ? tls.connect({ host: this.host, port: this.port, servername: net.isIP(this.host) ? undefined : this.host, ALPNProtocols: ['http/1.1'] })
      : net.connect({ host: this.host, port: this.port, onread: { buffer: READ_BUFFER, callback: (n: number, buf: Buffer) => { this.onData(s, p, buf, n); return true; } } });
    if (this.tls) s.on('data', (chunk: Buffer) => this.onData(s, p, chunk, chunk.length));
    s.setNoDelay(true);
    p[HTTPParser.kOnHeadersComplete] = (info: ResponseInfo) => this.onHeaders(s, info);
    p[HTTPParser.kOnBody] = (_chunk: Buffer, _at: number, length: number) => { if (s === this.sock) this.out.bytesIn += length; };
    p[HTTPParser.kOnMessageComplete] = () => this.onMessageComplete(s, p);
    s.on('end', () => this.onEnd(s, p));
    s.on('error', (err: Error) => this.lost(s, err));
    s.on('close', () => this.lost(s, closedError('the connection closed before the response ended')));
    this.sock = s;
    this.keepAlive = true;
    this.reuseMs = IDLE_REUSE_MS;
    this.idleSinceMs = performance.now();
    return s;
  }

  private onData(s: Socket, p: Parser, chunk: Buffer, length: number): void {
    if (s !== this.sock) return;
    if (!this.done || this.pendingHead !== null) {
      // Bytes nobody asked for: a response to no request would be taken for the next one's.
      this.retire(s);
      if (this.done) this.finish(closedError('the server sent bytes before the request was written'));
      return;
    }
    const r = p.execute(chunk, 0, length);
    if (r instanceof Error && s === this.sock) {
      this.retire(s);
      this.finish(Object.assign(new Error(`invalid HTTP response: ${r.message}`), { code: (r as Error & { code?: string }).code ?? 'HPE_INVALID' }));
    }
  }

  /** The parser's callback; returns 1 to skip the body (HEAD). */
  private onHeaders(s: Socket, info: ResponseInfo): number {
    if (s !== this.sock) return 0;
    if (!this.done) { this.retire(s); return 0; }
    const status = info.statusCode;
    if (status >= 100 && status < 200 && status !== 101) { this.informational = true; return 0; }
    const h = info.headers;
    let chunked = false;
    let length = false;
    let reuseMs: number | null = null;
    for (let i = 0; i < h.length; i += 2) {
      if (isHeader(h[i], 'keep-alive', 'Keep-Alive')) reuseMs = keepAliveReuseMs(h[i + 1]);
      else if (isHeader(h[i], 'transfer-encoding', 'Transfer-Encoding')) chunked = true;
      else if (isHeader(h[i], 'content-length', 'Content-Length')) length = true;
    }
    if (chunked && length) {
      // Two framings for one body: where it ends is ambiguous (RFC 9112 6.3; llhttp refuses it too).
      this.retire(s);
      this.finish(Object.assign(new Error('invalid HTTP response: both Transfer-Encoding and Content-Length, so where the body ends is ambiguous; the server must send one of them'), { code: 'HPE_UNEXPECTED_CONTENT_LENGTH' }));
      return 1;
    }
    this.out.times.headersMs = performance.now();
    this.out.status = status;
    this.out.rawHeaders = h;
    this.keepAlive = info.shouldKeepAlive && !info.upgrade;
    if (reuseMs !== null) this.reuseMs = reuseMs;
    return this.isHead ? 1 : 0;
  }

  private onMessageComplete(s: Socket, p: Parser): void {
    if (s !== this.sock || !this.done) return;
    if (this.informational) { this.informational = false; return; }
    // More bytes in this read than the response: the server answered what was never asked.
    const cursor = p as unknown as { offset?: number; end?: number };
    const extra = cursor.offset !== undefined && cursor.end !== undefined && cursor.offset < cursor.end;
    if (extra || !this.keepAlive) this.retire(s);
    else this.idleSinceMs = performance.now();
    this.finish(undefined);
  }

  /** The server ended its side: a read-until-close body is complete; anything else in flight is lost. */
  private onEnd(s: Socket, p: Parser): void {
    if (s !== this.sock) return;
    if (this.done && this.pendingHead === null) p.finish();
    if (s === this.sock) this.lost(s, closedError('the server closed the connection before the response ended'));
  }

  private lost(s: Socket, err: Error): void {
    if (s !== this.sock) return;
    this.retire(s);
    if (this.done) this.finish(err);
  }

  private retire(s: Socket): void {
    if (this.sock === s) this.sock = null;
    s.destroy();
  }

  private finish(err: Error | undefined): void {
    const done = this.done;
    if (!done) return;
    this.done = null;
    this.pendingHead = null;
    this.pendingBody = null;
    this.deadlineMs = Infinity;
    endOutcome(this.out, err);
    done(this, this.out);
  }

  expire(nowMs: number): void {
    if (nowMs < this.deadlineMs || !this.done) return;
    if (this.sock) this.retire(this.sock);
    this.finish(deadlineError(this.timeoutMs));
  }

  close(): Promise<void> {
    const s = this.sock;
    if (this.done) this.finish(Object.assign(new Error('the VU was closed with a request in flight'), { code: 'PLATEAU_VU_CLOSED' }));
    if (!s) return Promise.resolve();
    this.sock = null;
    if (s.destroyed) return Promise.resolve();
    return new Promise((resolve) => { s.once('close', () => resolve()); s.destroy(); });
  }
}

/** The request line and headers, Host first unless the request names its own. */
export function requestHead(req: PreparedRequest, hostHeader: string): string {
  if (BAD_PATH.test(req.path) || req.path[0] !== '/') throw invalidRequest(`path ${JSON.stringify(req.path)} must start with / and hold no spaces, control characters or characters above U+00FF (percent-encode them)`);
  if (!TOKEN.test(req.method)) throw invalidRequest(`method ${JSON.stringify(req.method)} is not an HTTP token`);
  let lines = '';
  let host = false;
  let length = false;
  for (const k in req.headers) {
    const v = req.headers[k];
    if (!TOKEN.test(k)) throw invalidRequest(`header name ${JSON.stringify(k)} is not an HTTP token`);
    if (BAD_VALUE.test(v)) throw invalidRequest(`header ${k} holds a character a header cannot carry (CR, LF, NUL, another control character, or one above U+00FF)`);
    if (k.length === 4 && k.toLowerCase() === 'host') host = true;
    else if (k.length === 14 && k.toLowerCase() === 'content-length') length = true;
    lines += `${k}: ${v}\r\n`;
  }
  const m = req.method;
  if (!length && (req.body || m === 'POST' || m === 'PUT' || m === 'PATCH')) lines += `content-length: ${req.body ? req.body.length : 0}\r\n`;
  return `${m} ${req.path} HTTP/1.1\r\n${host ? '' : `host: ${hostHeader}\r\n`}${lines}\r\n`;
}

/**
 * A header name against one in lower case and in its usual spelling: the name is lower-cased (a
 * new string, on the hot path) only when its length and first letter match and neither spelling
 * does, so `Connection` beside `Keep-Alive` costs no allocation.
 */
function isHeader(name: string, lower: string, usual: string): boolean {
  if (name.length !== lower.length) return false;
  if (name === usual || name === lower) return true;
  return (name.charCodeAt(0) | 0x20) === lower.charCodeAt(0) && name.toLowerCase() === lower;
}

/** `Keep-Alive: timeout=5, max=100` -> reuse an idle connection for 4 s (a second of margin). */
export function keepAliveReuseMs(value: string): number {
  const m = /timeout\s*=\s*(\d+)/i.exec(value);
  return m ? Math.max(0, Number(m[1]) * 1000 - 1000) : IDLE_REUSE_MS;
}

function invalidRequest(what: string): Error {
  return Object.assign(new Error(`invalid request: ${what}; fix the scenario's request`), { code: 'PLATEAU_INVALID_REQUEST' });
}

function closedError(message: string): Error {
  return Object.assign(new Error(message), { code: SOCKET_CLOSED_CODE });
}
