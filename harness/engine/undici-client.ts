/**
 * One VU's HTTP connection through undici (http.client 'undici'): an undici Client (keep-alive, no
 * pipelining) that sends one request at a time, counts the response body and throws it away, but
 * for the first PreparedRequest.keepBodyBytes bytes of it when the request asks to keep them
 * (copied into Outcome.bodyChunks; a request that keeps none allocates nothing more for its body).
 *
 * The hot path allocates almost nothing: the VU is its own undici handler (methods, no closures
 * per request), and it reuses one Outcome and one PhaseTimes, valid until the `done` callback
 * returns (a VU has one request in flight). Phase timestamps come from the handler callbacks and
 * from the VU's own connector, which times each new socket and charges it to the first request
 * sent on it, as k6 does (docs/decisions/006). Apart from the socket client (socket-client.ts),
 * the default, which never loads undici.
 */
import type { Socket } from 'node:net';
import { createRequire } from 'node:module';
import type { Client, buildConnector, Dispatcher } from 'undici';
import { performance } from 'node:perf_hooks';
import { deadlineError } from './deadline.ts';
import { ERROR_BODY_BYTES } from './failure-text.ts';
import { endOutcome, newOutcome, startOutcome, type Outcome } from './outcome.ts';
import {
  bodyBytes,
  KEEP_ALIVE_MARGIN_MS,
  keepBodyBytes,
  type HttpOptions,
  type PreparedRequest,
  type SendDone,
  type VuConnection,
} from './vu-connection.ts';

/**
 * undici, loaded when the first VuClient is made: an engine thread of the socket client (the
 * default) never loads it, about 160 ms of CPU at each thread's start. CommonJS (its main is
 * index.js), so the module every `import 'undici'` of the same thread reads.
 */
let undici: typeof import('undici') | null = null;
const loadUndici = (): typeof import('undici') =>
  (undici ??= createRequire(import.meta.url)('undici') as typeof import('undici'));

export class VuClient implements VuConnection {
  job: unknown = null;
  private readonly client: Client;
  private readonly timeoutMs: number;
  /** performance.now() by which the request in flight must end; Infinity when idle (deadline.ts sweeps it). */
  private deadlineMs = Infinity;
  private abortInFlight: ((err: Error) => void) | null = null;
  private readonly out: Outcome = newOutcome();
  private done: SendDone | null = null;
  /** Body bytes the request in flight still keeps (PreparedRequest.keepBodyBytes, less what was kept). */
  private keepLeft = 0;
  /** The last socket's connect, until a request claims it. */
  private connectStartMs = 0;
  private connectEndMs = 0;
  private connectUnclaimed = false;
  /** undici's socket while it is open; a socket opened ahead by preconnect() until undici asks for one. */
  private live: Socket | null = null;
  private spare: Socket | null = null;
  private spareGone: (() => void) | null = null;
  private readonly connector: buildConnector.connector;
  private readonly connectOptions: buildConnector.Options;

  constructor(origin: string, opts: HttpOptions) {
    this.timeoutMs = opts.timeoutMs;
    const { buildConnector, Client } = loadUndici();
    const connector = buildConnector({ timeout: opts.timeoutMs });
    this.connector = connector;
    const u = new URL(origin);
    this.connectOptions = {
      protocol: u.protocol,
      hostname: u.hostname,
      host: u.host,
      port: u.port || (u.protocol === 'https:' ? '443' : '80'),
      servername: null,
      localAddress: null,
    } as unknown as buildConnector.Options;
    this.client = new Client(origin, {
      pipelining: 1,
      keepAliveTimeout: 30_000,
      // A server's `Keep-Alive: timeout=N` is kept for N s less the margin, as the socket client
      // keeps it (keepAliveReuseMs): undici's own margin of 2 s made timeout=2 zero, and so opened a
      // connection for every request to such a server (790 of 800 against nginx advertising 2 s).
      keepAliveTimeoutThreshold: KEEP_ALIVE_MARGIN_MS,
      // No per-request timers in undici: the pool's deadline sweep bounds every request's total
      // time (deadline.ts), which also covers what headersTimeout and bodyTimeout would.
      headersTimeout: 0,
      bodyTimeout: 0,
      connect: (o, cb) => {
        const done = cb as (e: Error | null, s: Socket | null) => void;
        const spare = this.takeSpare();
        // Opened ahead of the load (preconnect): no request is charged a connect it did not wait for.
        if (spare) {
          queueMicrotask(() => done(null, spare));
          return;
        } // undici expects the callback later, not inside its connect()
        const startMs = performance.now();
        this.out.connections++;
        connector(o, (err, socket) => {
          if (!err) {
            this.connectStartMs = startMs;
            this.connectEndMs = performance.now();
            this.connectUnclaimed = true;
            this.track(socket as Socket);
          }
          done(err, socket as Socket | null);
        });
      },
    });
  }

  /**
   * Opens this VU's connection ahead of the load (warmup's last act, so the first step does not
   * pay for connects). Resolves false when the connect failed; true when a socket is ready.
   */
  preconnect(): Promise<boolean> {
    if (this.live || this.spare) return Promise.resolve(true);
    this.out.connections++;
    return new Promise((resolve) => {
      this.connector(this.connectOptions, (err, socket) => {
        if (err || !socket) {
          resolve(false);
          return;
        }
        const s = socket as Socket;
        if (this.live || this.spare) {
          s.destroy();
          resolve(true);
          return;
        }
        this.spare = s;
        // An idle socket the server closed (or reset) is forgotten; a fresh one is opened when needed.
        const gone = () => {
          if (this.spare === s) this.spare = null;
        };
        this.spareGone = gone;
        s.once('close', gone);
        s.on('error', gone);
        resolve(true);
      });
    });
  }

  private takeSpare(): Socket | null {
    const s = this.spare;
    this.spare = null;
    if (!s) return null;
    if (this.spareGone) {
      s.off('close', this.spareGone);
      s.off('error', this.spareGone);
      this.spareGone = null;
    }
    if (s.destroyed || s.readyState !== 'open') {
      s.destroy();
      return null;
    }
    this.track(s);
    return s;
  }

  private track(s: Socket): void {
    this.live = s;
    s.once('close', () => {
      if (this.live === s) this.live = null;
    });
  }

  /** Sends one request; `done` gets this VU and the outcome. One request at a time per VU. */
  send(req: PreparedRequest, done: SendDone): void {
    const out = this.out;
    const nowMs = performance.now();
    startOutcome(out, nowMs);
    out.bytesOut = requestBytes(req);
    this.done = done;
    this.deadlineMs = nowMs + this.timeoutMs;
    const keep = req.keepBodyBytes;
    try {
      this.keepLeft = keep === undefined || keep === 0 ? 0 : keepBodyBytes(keep);
      this.client.dispatch(
        { method: req.method, path: req.path, headers: req.headers, body: req.body },
        this as unknown as Dispatcher.DispatchHandler,
      );
    } catch (err) {
      this.onError(err as Error);
    }
  }

  // undici's classic handler shape (onConnect ... onComplete); `this` is the handler.
  onConnect(abort: (err: Error) => void): void {
    this.abortInFlight = abort;
    const t = this.out.times;
    t.sendStartMs = performance.now();
    if (this.connectUnclaimed) {
      this.connectUnclaimed = false;
      t.connectStartMs = this.connectStartMs;
      t.connectEndMs = this.connectEndMs;
    }
  }

  onRequestSent(): void {
    this.out.times.bodySentMs = performance.now();
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[]): boolean {
    this.out.times.headersMs = performance.now();
    this.out.status = statusCode;
    this.out.rawHeaders = rawHeaders;
    // a failed response keeps the start of its body for its error sample (failure-text.ts), decided
    // at the status line: a successful one copies nothing it would not keep anyway
    if (statusCode >= 400 && this.keepLeft === 0) this.keepLeft = ERROR_BODY_BYTES;
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.out.bytesIn += chunk.length;
    if (this.keepLeft > 0) this.keepBody(chunk);
    return true;
  }

  /** Copies the part of `chunk` the request still keeps (a copy: undici's chunk may be a view of a buffer it reuses). */
  private keepBody(chunk: Buffer): void {
    const n = chunk.length < this.keepLeft ? chunk.length : this.keepLeft;
    this.keepLeft -= n;
    const copy = Buffer.allocUnsafe(n);
    chunk.copy(copy, 0, 0, n);
    this.out.bodyChunks.push(copy);
  }

  onComplete(): void {
    this.finish(undefined);
  }

  onError(err: Error): void {
    this.finish(err);
  }

  private finish(err: Error | undefined): void {
    const done = this.done;
    if (!done) return;
    this.done = null;
    this.deadlineMs = Infinity;
    this.abortInFlight = null;
    endOutcome(this.out, err);
    done(this, this.out);
  }

  /** Called by the pool's deadline sweep: aborts the request in flight once its total deadline passed. */
  expire(nowMs: number): void {
    if (nowMs < this.deadlineMs || !this.abortInFlight) return;
    const abort = this.abortInFlight;
    this.abortInFlight = null;
    abort(deadlineError(this.timeoutMs));
  }

  close(): Promise<void> {
    this.spare?.destroy();
    this.spare = null;
    return this.client.destroy().catch(() => undefined);
  }
}

function requestBytes(req: PreparedRequest): number {
  let n = req.method.length + req.path.length + 12;
  for (const k in req.headers) n += k.length + req.headers[k].length + 4;
  return n + bodyBytes(req.body);
}
