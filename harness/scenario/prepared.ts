/**
 * The request a scenario's spec makes (PreparedRequest), on every arrival of the native engine's
 * load and in preflight's sample arrivals: the usual spec in one object here, any other through
 * load.ts's prepare, which names what is wrong (prepared.test.ts holds both to the same fields). A
 * sample arrival's spec has its fields checked first (strictSpec); the load's are not, per request.
 * Apart from requests.ts, which loads the scenario once: this runs per request.
 */
import type { RequestSpec } from './types.ts';
import { asLoaded } from './context.ts';
import { prepare } from './load.ts';
import { verbatimPath } from './url-path.ts';
import { requestSpecProblem } from './setting-problems.ts';
import { sentHeaders } from './header-values.ts';
import type { PreparedRequest } from '../engine/vu-connection.ts';

/** A sample arrival's spec, its fields checked (requestSpecProblem): the load's are not, per request. */
export function strictSpec(given: RequestSpec, at: string): RequestSpec {
  // a CSV row returned as the spec: read as the load reads it (context.ts asLoaded)
  const spec = asLoaded(given);
  const bad = requestSpecProblem(spec, at);
  if (bad !== null) throw new Error(bad);
  return spec;
}

/** Methods taken as they are (load.ts's prepare upper-cases and checks any other). */
const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);

/**
 * The request a spec makes, keeping what its check or transaction reads. The usual spec (a URL
 * verbatimPath takes, a method of METHODS, no body or a string one) is built here in one object,
 * a string body kept as the string it is (the socket client writes it with the head, where a
 * Buffer made of it would be read back into a string); any other goes through load.ts's prepare,
 * which parses, checks and names what is wrong. Both give the same fields in the same order.
 */
export function prepared(
  spec: RequestSpec,
  origin: string,
  keepBodyBytes: number,
  keepHeaders: boolean,
  what?: string,
): PreparedRequest {
  if (spec !== null && typeof spec === 'object') {
    const { url, method, body } = spec;
    const path = typeof url === 'string' ? verbatimPath(url, origin) : null;
    if (
      path !== null &&
      (method === undefined || METHODS.has(method)) &&
      (body === undefined || typeof body === 'string')
    )
      return {
        method: method ?? 'GET',
        path,
        headers: sentHeaders(spec.headers, what ?? 'request(ctx)'),
        body: body ?? null,
        keepBodyBytes,
        keepHeaders,
      };
  }
  const r = prepare(spec, origin, what);
  r.keepBodyBytes = keepBodyBytes;
  r.keepHeaders = keepHeaders;
  return r;
}
