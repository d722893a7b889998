/**
 * The client's own timeouts: requests plateau gave up on at its deadline (http.timeoutMs). Both
 * HTTP clients close the connection of a request they time out (the socket client retires it,
 * undici destroys a socket whose request it aborts: an HTTP/1.1 connection cannot be told where a
 * dropped response ends), so that VU's next request connects again; and the target may finish such
 * a request after the client left, or never. Other closes are the target's doing: a response that
 * ends the connection, a reset, bytes nobody asked for, a response the parser refuses.
 */
import type { NameResult, StepResult } from './types.ts';

/** A step's request names (a transaction's figures are arrivals, each of several requests). */
function requestNames(s: Pick<StepResult, 'byName'>): NameResult[] {
  return Object.values(s.byName ?? {}).filter((n) => !n.transaction);
}

/**
 * The step's requests that timed out on the client: over its request names where it has them,
 * else its own count, one request an arrival.
 */
export function requestTimeouts(s: Pick<StepResult, 'errors' | 'byName'>): number {
  const names = requestNames(s);
  if (names.length > 0) return names.reduce((a, n) => a + (n.errors.timeout ?? 0), 0);
  return s.errors.timeout ?? 0;
}

/**
 * The share of the step's requests (what a server counts) that timed out on the client: of its
 * request names' completions where it has them, else of the requests it sent (its arrivals, or its
 * requests where counted apart); 0 without any.
 */
export function requestTimeoutShare(
  s: Pick<StepResult, 'errors' | 'byName' | 'requestsPerSec' | 'steadyS' | 'completed'>,
): number {
  const names = requestNames(s);
  const sent =
    names.length > 0
      ? names.reduce((a, n) => a + n.completed, 0)
      : s.requestsPerSec !== undefined
        ? s.requestsPerSec * s.steadyS
        : s.completed;
  return sent > 0 ? Math.min(1, requestTimeouts(s) / sent) : 0;
}
