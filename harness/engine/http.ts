/**
 * One VU's HTTP connection: an undici Client (keep-alive, no pipelining) that sends one request at
 * a time, counts the response body and throws it away, but for the first
 * PreparedRequest.keepBodyBytes bytes of it when the request asks to keep them (copied into
 * Outcome.bodyChunks; a request that keeps none allocates nothing more for its body).
 *
 * The hot path allocates almost nothing: the VU is its own undici handler (methods, no closures
 * per request), and it reuses one Outcome and one PhaseTimes, valid until the `done` callback
 * returns (a VU has one request in flight). Phase timestamps come from the handler callbacks and
 * from the VU's own connector, which times each new socket and charges it to the first request
 * sent on it, as k6 does (docs/decisions/006).
 */
import type { Socket } from 'node:net';
import { createRequire } from 'node:module';
import type { Client, buildConnector, Dispatcher } from 'undici';
import { performance } from 'node:perf_hooks';
import type { ErrorKind } from '../../analysis/types.ts';
import { newPhaseTimes, resetPhaseTimes, type PhaseTimes } from './phases.ts';
import { DEADLINE_CODE, deadlineError, type Expiring } from './deadline.ts';
import { ERROR_BODY_BYTES } from './failure-text.ts';

export interface PreparedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** A string is sent as UTF-8 (a scenario's string body as it gave it: no Buffer made and read back). */
  body: Buffer | string | null;
  /**
   * Keep up to this many bytes of the response body in Outcome.bodyChunks (for a check or a
   * transaction that reads it); 0 or absent: the body is counted and discarded, as always.
   */
  keepBodyBytes?: number;
  /**
   * Keep this response's headers for a check or a transaction (the socket client makes header
   * strings only then); absent: the client's HttpOptions.keepHeaders. undici always has them.
   */
  keepHeaders?: boolean;
}

export interface Outcome {
  status: number;
  /** Undefined when the request succeeded at the transport and HTTP level. */
  kind?: ErrorKind;
  message?: string;
  /** Raw response headers, name and value alternating (Buffers from undici, strings from the socket client); parse with responseHeaders() only when needed. */
  rawHeaders: Buffer[] | string[] | null;
  bytesIn: number;
  bytesOut: number;
  /**
   * The body's first PreparedRequest.keepBodyBytes bytes, as received (copies, not views of a
   * reused buffer); of a status of 400 or more, at least its first ERROR_BODY_BYTES (its error
   * sample's); else empty when the request kept none. The rest is in bytesIn only.
   */
  bodyChunks: Buffer[];
  /**
   * Connections this VU has opened so far (preconnect included; kept across its requests): a
   * request that opened one while this is over 1 reconnected.
   */
  connections: number;
  /** How long the VU sat idle before this request: since its previous request ended (ms). */
  idleMs: number;
  times: PhaseTimes;
}

/** The VU's HTTP client: plateau's bare socket client (the default; socket-client.ts, docs/decisions/010) or undici. */
export type HttpClientKind = 'undici' | 'socket';

export interface HttpOptions {
  timeoutMs: number;
  client: HttpClientKind;
  /** Keep each response's headers for the scenario's check (default true); without a check the socket client makes no header strings. */
  keepHeaders?: boolean;
}

/** Called when the VU's request ended; `o` is reused by the VU's next request: read it now. */
export type SendDone = (vu: VuConnection, o: Outcome) => void;

/** What a VU's connection does, whichever client carries it. */
export interface VuConnection extends Expiring {
  /** The engine's note of what the VU's request in flight belongs to (the engine's alone: the VU never reads it). */
  job: unknown;
  /** Sends one request; `done` gets this VU and the outcome. One request at a time per VU. */
  send(req: PreparedRequest, done: SendDone): void;
  /** Opens the connection ahead of the load; false when the connect failed. */
  preconnect(): Promise<boolean>;
  close(): Promise<void>;
}

/** A VU's reusable outcome (one per VU: a VU has one request in flight). */
export function newOutcome(): Outcome {
  return {
    status: 0,
    kind: undefined,
    message: undefined,
    rawHeaders: null,
    bytesIn: 0,
    bytesOut: 0,
    bodyChunks: [],
    connections: 0,
    idleMs: Infinity,
    times: newPhaseTimes(0),
  };
}

/** Clears the outcome for the request starting now; bytesOut is the client's to set. */
export function startOutcome(out: Outcome, nowMs: number): void {
  out.idleMs = out.times.endMs ? nowMs - out.times.endMs : Infinity;
  resetPhaseTimes(out.times, nowMs);
  out.status = 0;
  out.kind = undefined;
  out.message = undefined;
  out.rawHeaders = null;
  out.bytesIn = 0;
  if (out.bodyChunks.length) out.bodyChunks = [];
}

/**
 * PreparedRequest.keepBodyBytes checked: a whole number of bytes, at least 0 (called only when it is
 * set and not 0, so a request that keeps nothing pays for no check; NaN is refused, not taken for 0).
 */
export function keepBodyBytes(n: number): number {
  if (Number.isSafeInteger(n) && n >= 0) return n;
  throw Object.assign(
    new Error(
      `invalid request: keepBodyBytes ${String(n)} is not a whole number of bytes (0 or more); ` +
        'set it to how many bytes of the response body to keep, or 0 to keep none',
    ),
    { code: 'PLATEAU_INVALID_REQUEST' },
  );
}

/** The kept body as text (UTF-8; a character cut by the keepBodyBytes limit becomes U+FFFD). */
export function bodyText(o: Outcome): string {
  const c = o.bodyChunks;
  return c.length === 0 ? '' : c.length === 1 ? c[0].toString('utf8') : Buffer.concat(c).toString('utf8');
}

/** Stamps the end and the error kind: the transport's error, or the status class. */
export function endOutcome(out: Outcome, err: Error | undefined): void {
  out.times.endMs = performance.now();
  if (err) {
    out.kind = classify(err);
    out.message = err.message;
  } else if (out.status >= 500) out.kind = 'http_5xx';
  else if (out.status >= 400) out.kind = 'http_4xx';
}

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

/** The bytes a request body puts on the wire (a string's as UTF-8). */
export function bodyBytes(body: Buffer | string | null): number {
  return !body ? 0 : typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.length;
}

const TIMEOUT_CODES = new Set([
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'ETIMEDOUT',
  DEADLINE_CODE,
]);
/** A connection that ended before its response did (the socket client's own code). */
export const SOCKET_CLOSED_CODE = 'PLATEAU_SOCKET_CLOSED';

/**
 * Of a server's `Keep-Alive: timeout`, what both clients leave unused: a request sent at the end of
 * what they keep still reaches the server before it closes, a round trip and its jitter to spare.
 * A whole second made a server's `timeout=1` nothing: a connection per request, its connects
 * charged to the target's latency.
 */
export const KEEP_ALIVE_MARGIN_MS = 500;
const RESET_CODES = new Set([
  'ECONNRESET',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'ECONNABORTED',
  SOCKET_CLOSED_CODE,
]);

export function classify(err: Error & { code?: string }): ErrorKind {
  const code = err.code ?? '';
  if (TIMEOUT_CODES.has(code)) return 'timeout';
  if (code === 'ECONNREFUSED') return 'refused';
  if (RESET_CODES.has(code)) return 'reset';
  return 'other';
}

/**
 * The response's headers as a record, as undici's util.parseHeaders makes one (not loaded for it:
 * see loadUndici): names lower-cased, values as latin1 text, a repeated name's values in an array
 * in order; a name such as __proto__ or constructor is an own key like any other.
 */
export function responseHeaders(o: Outcome): Record<string, string | string[] | undefined> {
  const raw = o.rawHeaders;
  const headers: Record<string, string | string[] | undefined> = {};
  if (!raw) return headers;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = latin1(raw[i]).toLowerCase();
    const value = latin1(raw[i + 1]);
    const had = Object.hasOwn(headers, name) ? headers[name] : undefined;
    if (had === undefined)
      Object.defineProperty(headers, name, { value, enumerable: true, configurable: true, writable: true });
    else if (typeof had === 'string') headers[name] = [had, value];
    else had.push(value);
  }
  return headers;
}

const latin1 = (b: Buffer | string): string => (typeof b === 'string' ? b : b.toString('latin1'));
