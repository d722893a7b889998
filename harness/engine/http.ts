/**
 * One VU's HTTP connection: an undici Client (keep-alive, no pipelining) that sends one request at
 * a time, counts the response body and throws it away (bodies are never kept).
 */
import { Client, util, type Dispatcher } from 'undici';
import { performance } from 'node:perf_hooks';
import type { ErrorKind } from '../../analysis/types.ts';
import { clearExpectation, expectNext, newPhaseTimes, type PhaseTimes } from './channels.ts';
import { DEADLINE_CODE, deadlineError, type Expiring } from './deadline.ts';

export interface PreparedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer | null;
}

export interface Outcome {
  status: number;
  /** Undefined when the request succeeded at the transport and HTTP level. */
  kind?: ErrorKind;
  message?: string;
  /** Raw response headers as undici delivers them; parse with responseHeaders() only when needed. */
  rawHeaders: Buffer[] | null;
  bytesIn: number;
  bytesOut: number;
  times: PhaseTimes;
}

export interface HttpOptions {
  timeoutMs: number;
}

export class VuClient implements Expiring {
  private readonly client: Client;
  private readonly timeoutMs: number;
  /** performance.now() by which the request in flight must end; Infinity when idle (deadline.ts sweeps it). */
  private deadlineMs = Infinity;
  private abortInFlight: ((err: Error) => void) | null = null;

  constructor(origin: string, opts: HttpOptions) {
    this.timeoutMs = opts.timeoutMs;
    this.client = new Client(origin, {
      pipelining: 1,
      keepAliveTimeout: 30_000,
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
      connect: { timeout: opts.timeoutMs },
    });
  }

  send(req: PreparedRequest, done: (o: Outcome) => void): void {
    const times = newPhaseTimes(performance.now());
    const out: Outcome = { status: 0, rawHeaders: null, bytesIn: 0, bytesOut: requestBytes(req), times };
    let finished = false;
    this.deadlineMs = times.createdMs + this.timeoutMs;
    const finish = (err?: Error) => {
      if (finished) return;
      finished = true;
      this.deadlineMs = Infinity;
      this.abortInFlight = null;
      if (!times.endMs) times.endMs = performance.now();
      if (err) { out.kind = classify(err); out.message = err.message; }
      else if (out.status >= 500) out.kind = 'http_5xx';
      else if (out.status >= 400) out.kind = 'http_4xx';
      done(out);
    };
    // undici's Client takes the classic handler shape (onConnect ... onComplete).
    const handler = {
      onConnect: (abort: (err: Error) => void) => { this.abortInFlight = abort; },
      onHeaders: (statusCode: number, rawHeaders: Buffer[]) => { out.status = statusCode; out.rawHeaders = rawHeaders; return true; },
      onData: (chunk: Buffer) => { out.bytesIn += chunk.length; return true; },
      onComplete: () => finish(),
      onError: (err: Error) => finish(err),
    } as unknown as Dispatcher.DispatchHandler;
    expectNext(times);
    try {
      this.client.dispatch({ method: req.method, path: req.path, headers: req.headers, body: req.body }, handler);
    } catch (err) {
      clearExpectation();
      finish(err as Error);
    }
    clearExpectation();
  }

  /** Called by the pool's deadline sweep: aborts the request in flight once its total deadline passed. */
  expire(nowMs: number): void {
    if (nowMs < this.deadlineMs || !this.abortInFlight) return;
    const abort = this.abortInFlight;
    this.abortInFlight = null;
    abort(deadlineError(this.timeoutMs));
  }

  close(): Promise<void> {
    return this.client.destroy().catch(() => undefined);
  }
}

function requestBytes(req: PreparedRequest): number {
  let n = req.method.length + req.path.length + 12;
  for (const k in req.headers) n += k.length + req.headers[k].length + 4;
  return n + (req.body ? req.body.length : 0);
}

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT', DEADLINE_CODE]);
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ECONNABORTED']);

export function classify(err: Error & { code?: string }): ErrorKind {
  const code = err.code ?? '';
  if (TIMEOUT_CODES.has(code)) return 'timeout';
  if (code === 'ECONNREFUSED') return 'refused';
  if (RESET_CODES.has(code)) return 'reset';
  return 'other';
}

export function responseHeaders(o: Outcome): Record<string, string | string[] | undefined> {
  return o.rawHeaders ? (util.parseHeaders(o.rawHeaders) as Record<string, string | string[] | undefined>) : {};
}
