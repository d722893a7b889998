/**
 * One VU's connection on a bare socket (`http.client: socket`): the request is serialised into one
 * string and written, the response is parsed by llhttp (undici's and Node's parser, llhttp.ts), its
 * body is counted and thrown away, but for the first PreparedRequest.keepBodyBytes bytes when a
 * request asks to keep them (copied out of the parser's memory into Outcome.bodyChunks). The same
 * contract as the undici VU (vu-connection.ts, undici-client.ts): keep-alive, one request at a
 * time, phase timestamps from the VU's own events, the total deadline from the pool's sweep. Per
 * request it allocates the request string (and header strings only for a scenario with a check;
 * body copies only for one that keeps its body, or of a status of 400 or more, its first
 * ERROR_BODY_BYTES for its error sample), no Request object, no promise, no timer: a quarter less
 * CPU per request than undici through plateau (docs/decisions/010, 012).
 *
 * What HTTP/1.1 asks of a client and where it is kept here:
 * - framing (Content-Length, chunked, read-until-close, HEAD, 1xx, 204/304): the parser; HEAD is
 *   told to skip the body, 1xx responses are passed over until the final one;
 * - keep-alive: a response the parser says ends the connection retires the socket; an idle socket
 *   is reused only within the server's `Keep-Alive: timeout` (less half a second) or 30 s;
 * - desync: bytes nobody asked for (while idle, or after a response in the same read) retire the
 *   socket, so a stray response is never taken for the next request's; so does a response the
 *   parser refuses (framed both by Transfer-Encoding and Content-Length, headers over 16 KiB...);
 * - header injection: names must be tokens, values and the path must not hold CR, LF, NUL or
 *   other characters HTTP/1.1 cannot carry.
 */
import net, { type Socket } from 'node:net';
import tls from 'node:tls';
import { performance } from 'node:perf_hooks';
import { deadlineError } from './deadline.ts';
import { ResponseParser, type ResponseHandler } from './llhttp.ts';
import { ERROR_BODY_BYTES } from './failure-text.ts';
import { endOutcome, newOutcome, startOutcome, SOCKET_CLOSED_CODE, type Outcome } from './outcome.ts';
import {
  bodyBytes,
  KEEP_ALIVE_MARGIN_MS,
  keepBodyBytes,
  type HttpOptions,
  type PreparedRequest,
  type SendDone,
  type VuConnection,
} from './vu-connection.ts';

/** An idle connection is reused for this long when the server gives no Keep-Alive timeout. */
const IDLE_REUSE_MS = 30_000;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const BAD_VALUE = /[^\t\x20-\x7e\x80-\xff]/;
const BAD_PATH = /[^\u0021-\u00ff]/;
/**
 * Plain-TCP sockets read into this one buffer (net's `onread`), skipping the stream machinery and
 * a Buffer per read: about a tenth of the client's CPU. Safe to share within a thread: each read is
 * parsed before the next, and nothing keeps a view of it (the parser copies it into its own memory).
 */
const READ_BUFFER = Buffer.allocUnsafe(64 * 1024);
/**
 * One TLS context for the thread's connections (Node's default trust, NODE_EXTRA_CA_CERTS
 * included), where tls.connect would build one per connection: a resumed handshake then costs the
 * client 1.1 ms of CPU instead of 1.6 (medians here; a full one about 2.1 either way). The target
 * cannot tell the difference (docs/decisions/015).
 */
let sharedTlsContext: tls.SecureContext | null = null;

/** A request body up to this size is written with its head as one string; a larger one after it. */
const ONE_WRITE_BODY_BYTES = 16 * 1024;

export class SocketVu implements VuConnection, ResponseHandler {
  job: unknown = null;
  private readonly timeoutMs: number;
  private readonly host: string;
  private readonly port: number;
  private readonly tls: boolean;
  private readonly hostHeader: string;
  private readonly keepHeaders: boolean;
  /** Whether the parser collects headers now: the request in flight's keepHeaders, else the client's. */
  private headersNow: boolean;
  private readonly out: Outcome = newOutcome();
  private done: SendDone | null = null;
  private deadlineMs = Infinity;
  private sock: Socket | null = null;
  /** The parser of this.sock's responses. */
  private parser: ResponseParser | null = null;
  /** A request waiting for its connection; null once written. */
  private pendingHead: string | null = null;
  private pendingBody: Buffer | string | null = null;
  private pendingBodyBytes = 0;
  private isHead = false;
  /** Body bytes the request in flight still keeps (PreparedRequest.keepBodyBytes, less what was kept). */
  private keepLeft = 0;
  /** A 1xx response was parsed: the final one is still to come. */
  private informational = false;
  private keepAlive = true;
  private reuseMs = IDLE_REUSE_MS;
  private idleSinceMs = 0;
  /** The TLS session of this VU's last connection: its next one resumes it, as a returning client does. */
  private tlsSession: Buffer | null = null;

  constructor(origin: string, opts: HttpOptions) {
    this.timeoutMs = opts.timeoutMs;
    const u = new URL(origin);
    this.tls = u.protocol === 'https:';
    this.host = u.hostname.replace(/^\[|\]$/g, '');
    this.port = Number(u.port || (this.tls ? 443 : 80));
    this.hostHeader = u.host;
    this.keepHeaders = opts.keepHeaders !== false;
    this.headersNow = this.keepHeaders;
  }

  preconnect(): Promise<boolean> {
    if (this.sock) return Promise.resolve(true);
    const s = this.open();
    return new Promise((resolve) => {
      const ok = () => {
        s.off('error', bad);
        resolve(true);
      };
      const bad = () => {
        s.off(this.tls ? 'secureConnect' : 'connect', ok);
        resolve(false);
      };
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
    const keep = req.keepBodyBytes;
    const headers = req.keepHeaders ?? this.keepHeaders;
    if (headers !== this.headersNow) {
      this.headersNow = headers;
      this.parser?.keepHeaders(headers);
    }
    let head: string;
    const body = req.body;
    const n = bodyBytes(body);
    try {
      this.keepLeft = keep === undefined || keep === 0 ? 0 : keepBodyBytes(keep);
      head = requestHead(req, this.hostHeader, n);
    } catch (err) {
      out.bytesOut = 0;
      this.finish(err as Error);
      return;
    }
    out.bytesOut = head.length + n;
    let s = this.sock;
    // A connection that is gone, or idle past what the server keeps, is replaced before it is used.
    if (s && (s.destroyed || (!s.connecting && nowMs - this.idleSinceMs > this.reuseMs))) {
      this.retire(s);
      s = null;
    }
    if (s) {
      this.write(s, head, body, n);
      return;
    }
    // A new connection, charged to this request (connecting), as k6 does.
    this.pendingHead = head;
    this.pendingBody = body;
    this.pendingBodyBytes = n;
    out.times.connectStartMs = nowMs;
    const c = this.open();
    c.once(this.tls ? 'secureConnect' : 'connect', () => {
      if (c !== this.sock || this.pendingHead === null) return;
      out.times.connectEndMs = performance.now();
      const h = this.pendingHead;
      const b = this.pendingBody;
      this.pendingHead = null;
      this.pendingBody = null;
      this.write(c, h, b, this.pendingBodyBytes);
    });
  }

  /** Writes the head and the body (of `n` bytes on the wire). */
  private write(s: Socket, head: string, body: Buffer | string | null, n: number): void {
    const t = this.out.times;
    t.sendStartMs = performance.now();
    if (body && n <= ONE_WRITE_BODY_BYTES && (typeof body !== 'string' || n === body.length)) {
      // one latin1 string: one write, no writev (13% of a small POST's CPU); a Buffer's bytes 0-255
      // map to themselves, and a string of as many bytes as characters is ASCII, its own bytes
      s.write(head + (typeof body === 'string' ? body : body.toString('latin1')), 'latin1');
    } else if (body) {
      s.cork();
      s.write(head, 'latin1');
      if (typeof body === 'string') s.write(body, 'utf8');
      else s.write(body);
      s.uncork();
    } else {
      s.write(head, 'latin1');
    }
    t.bodySentMs = performance.now();
  }

  private open(): Socket {
    // A parser per connection: what one connection left half-parsed never reaches the next.
    const p = new ResponseParser(this, this.headersNow);
    this.out.connections++;
    const s: Socket = this.tls
      ? tls.connect({
          host: this.host,
          port: this.port,
          servername: net.isIP(this.host) ? undefined : this.host,
          ALPNProtocols: ['http/1.1'],
          secureContext: (sharedTlsContext ??= tls.createSecureContext()),
          session: this.tlsSession ?? undefined,
        })
      : net.connect({
          host: this.host,
          port: this.port,
          onread: {
            buffer: READ_BUFFER,
            callback: (n: number, buf: Buffer) => {
              this.onData(s, buf, n);
              return true;
            },
          },
        });
    if (this.tls) {
      s.on('data', (chunk: Buffer) => this.onData(s, chunk, chunk.length));
      s.on('session', (session: Buffer) => {
        this.tlsSession = session;
      });
    }
    s.setNoDelay(true);
    s.on('end', () => this.onEnd(s));
    s.on('error', (err: Error) => this.lost(s, err));
    s.on('close', () => this.lost(s, closedError('the connection closed before the response ended')));
    this.sock = s;
    this.parser = p;
    this.keepAlive = true;
    this.reuseMs = IDLE_REUSE_MS;
    this.idleSinceMs = performance.now();
    return s;
  }

  private onData(s: Socket, chunk: Buffer, length: number): void {
    if (s !== this.sock) return;
    if (!this.done || this.pendingHead !== null) {
      // Bytes nobody asked for: a response to no request would be taken for the next one's.
      this.retire(s);
      if (this.done) this.finish(closedError('the server sent bytes before the request was written'));
      return;
    }
    this.parser?.execute(chunk, length);
  }

  /** ResponseHandler: the status and headers; true skips the body (HEAD). */
  onResponseHeaders(
    status: number,
    headers: string[] | null,
    keepAlive: boolean,
    keepAliveValue: string | null,
  ): boolean {
    if (!this.done) return false;
    if (status >= 100 && status < 200 && status !== 101) {
      this.informational = true;
      return false;
    }
    this.out.times.headersMs = performance.now();
    this.out.status = status;
    this.out.rawHeaders = headers;
    // a failed response keeps the start of its body for its error sample (failure-text.ts); decided
    // here, at the status line, so a successful one copies nothing it would not keep anyway
    if (status >= 400 && this.keepLeft === 0) this.keepLeft = ERROR_BODY_BYTES;
    this.keepAlive = keepAlive;
    if (keepAliveValue !== null) this.reuseMs = keepAliveReuseMs(keepAliveValue);
    return this.isHead;
  }

  onResponseBody(src: Buffer, at: number, len: number): void {
    this.out.bytesIn += len;
    if (this.keepLeft > 0) this.keepBody(src, at, len);
  }

  /** Copies the part of this piece of body the request still keeps (`src` is the parser's memory, reused). */
  private keepBody(src: Buffer, at: number, len: number): void {
    const n = len < this.keepLeft ? len : this.keepLeft;
    this.keepLeft -= n;
    const copy = Buffer.allocUnsafe(n);
    src.copy(copy, 0, at, at + n);
    this.out.bodyChunks.push(copy);
  }

  onResponseComplete(more: boolean): void {
    if (!this.done) return;
    if (this.informational) {
      this.informational = false;
      return;
    }
    // More bytes in this read than the response: the server answered what was never asked.
    if (more || !this.keepAlive) this.retire(this.sock!);
    else this.idleSinceMs = performance.now();
    this.finish(undefined);
  }

  onResponseError(err: Error & { code: string }): void {
    this.retire(this.sock!);
    this.finish(err);
  }

  /** The server ended its side: a read-until-close body is complete; anything else in flight is lost. */
  private onEnd(s: Socket): void {
    if (s !== this.sock) return;
    if (this.done && this.pendingHead === null) this.parser?.finish();
    if (s === this.sock) this.lost(s, closedError('the server closed the connection before the response ended'));
  }

  private lost(s: Socket, err: Error): void {
    if (s !== this.sock) return;
    this.retire(s);
    if (this.done) this.finish(err);
  }

  private retire(s: Socket): void {
    if (this.sock === s) this.dropParser();
    s.destroy();
  }

  private dropParser(): void {
    this.sock = null;
    this.parser?.free();
    this.parser = null;
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
    if (this.done)
      this.finish(
        Object.assign(new Error('the VU was closed with a request in flight'), { code: 'PLATEAU_VU_CLOSED' }),
      );
    if (!s) return Promise.resolve();
    this.dropParser();
    if (s.destroyed) return Promise.resolve();
    return new Promise((resolve) => {
      s.once('close', () => resolve());
      s.destroy();
    });
  }
}

/** The request line and headers, Host first unless the request names its own. */
export function requestHead(req: PreparedRequest, hostHeader: string, bodyLength = bodyBytes(req.body)): string {
  if (BAD_PATH.test(req.path) || req.path[0] !== '/')
    throw invalidRequest(
      `path ${JSON.stringify(req.path)} must start with / and hold no spaces, control characters or characters above U+00FF (percent-encode them)`,
    );
  if (!TOKEN.test(req.method)) throw invalidRequest(`method ${JSON.stringify(req.method)} is not an HTTP token`);
  let lines = '';
  let host = false;
  let length = false;
  for (const k in req.headers) {
    const v = req.headers[k];
    if (!TOKEN.test(k)) throw invalidRequest(`header name ${JSON.stringify(k)} is not an HTTP token`);
    if (BAD_VALUE.test(v))
      throw invalidRequest(
        `header ${k} holds a character a header cannot carry (CR, LF, NUL, another control character, or one above U+00FF)`,
      );
    if (k.length === 4 && k.toLowerCase() === 'host') host = true;
    else if (k.length === 14 && k.toLowerCase() === 'content-length') length = true;
    lines += `${k}: ${v}\r\n`;
  }
  const m = req.method;
  if (!length && (req.body || m === 'POST' || m === 'PUT' || m === 'PATCH'))
    lines += `content-length: ${bodyLength}\r\n`;
  return `${m} ${req.path} HTTP/1.1\r\n${host ? '' : `host: ${hostHeader}\r\n`}${lines}\r\n`;
}

/** `Keep-Alive: timeout=5, max=100` -> reuse an idle connection for 4.5 s (KEEP_ALIVE_MARGIN_MS). */
export function keepAliveReuseMs(value: string): number {
  const m = /timeout\s*=\s*(\d+)/i.exec(value);
  return m ? Math.max(0, Number(m[1]) * 1000 - KEEP_ALIVE_MARGIN_MS) : IDLE_REUSE_MS;
}

function invalidRequest(what: string): Error {
  return Object.assign(new Error(`invalid request: ${what}; fix the scenario's request`), {
    code: 'PLATEAU_INVALID_REQUEST',
  });
}

function closedError(message: string): Error {
  return Object.assign(new Error(message), { code: SOCKET_CLOSED_CODE });
}
