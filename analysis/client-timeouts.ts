/**
 * The client's own timeouts: requests plateau gave up on at its deadline (http.timeoutMs). Both
 * HTTP clients close the connection of a request they time out (the socket client retires it,
 * undici destroys a socket whose request it aborts: an HTTP/1.1 connection cannot be told where a
 * dropped response ends), so that VU's next request connects again; and the target may finish such
 * a request after the client left, or never. Other closes are the target's doing: a response that
 * ends the connection, a reset, bytes nobody asked for, a response the parser refuses.
 */
import type { StepResult } from './types.ts';

/**
 * The step's requests that timed out on the client: over its request names where it has them (a
 * transaction's figures are arrivals, each of several requests), else its own count, one request
 * an arrival.
 */
export function requestTimeouts(s: Pick<StepResult, 'errors' | 'byName'>): number {
  const requests = Object.values(s.byName ?? {}).filter((n) => !n.transaction);
  if (requests.length > 0) return requests.reduce((a, n) => a + (n.errors.timeout ?? 0), 0);
  return s.errors.timeout ?? 0;
}

/** The share of `completed` requests that timed out on the client, 0 without any. */
export function timeoutShare(timeouts: number, completed: number): number {
  return completed > 0 ? Math.min(1, timeouts / completed) : 0;
}
