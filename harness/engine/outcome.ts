/**
 * What a VU's request came to: its status or error kind, its bytes, the start of its body where it
 * kept one, and its phase times. One Outcome per VU, reused by its every request (a VU has one in
 * flight): made once, cleared at a request's start, stamped at its end with the kind of error the
 * transport's code or the status class gives. Apart from the clients: both fill it the same way,
 * and the recorder, the scenario and the samples read it.
 */
import { performance } from 'node:perf_hooks';
import type { ErrorKind } from '../../analysis/types.ts';
import { newPhaseTimes, resetPhaseTimes, type PhaseTimes } from './phases.ts';
import { DEADLINE_CODE } from './deadline.ts';

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

const TIMEOUT_CODES = new Set([
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'ETIMEDOUT',
  DEADLINE_CODE,
]);
/** A connection that ended before its response did (the socket client's own code). */
export const SOCKET_CLOSED_CODE = 'PLATEAU_SOCKET_CLOSED';

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
