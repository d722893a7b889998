/**
 * What the engine asks of a VU's HTTP connection, whichever client carries it (plateau's socket
 * client, socket-client.ts, or undici, undici-client.ts): the request it sends, the options it is
 * made with, and what it does. Apart from both clients, so that the engine, the scenario and the
 * tests name the contract without loading either; the request's own checks that both clients
 * make at send are here too.
 */
import type { Expiring } from './deadline.ts';
import type { Outcome } from './outcome.ts';

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

/** The bytes a request body puts on the wire (a string's as UTF-8). */
export function bodyBytes(body: Buffer | string | null): number {
  return !body ? 0 : typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.length;
}

/**
 * Of a server's `Keep-Alive: timeout`, what both clients leave unused: a request sent at the end of
 * what they keep still reaches the server before it closes, a round trip and its jitter to spare.
 * A whole second made a server's `timeout=1` nothing: a connection per request, its connects
 * charged to the target's latency.
 */
export const KEEP_ALIVE_MARGIN_MS = 500;
