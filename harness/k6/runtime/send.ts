/**
 * One named request on k6: its URL bound to the run's origin, `tags.name` (the unit of every
 * per-name figure), no redirect followed, the body kept as text only where it is read, then its
 * verdict: a failure by status or transport error, else, on a response k6 deemed expected
 * (2xx/3xx), the check's (a k6 check named `${name}: check`, and plateau_check_failed with the
 * check's message and the name when it rejects), as on the native engine.
 */
import { check } from 'k6';
import { bodyProblem } from '../../scenario/body-kind.ts';
import { sentHeaders } from '../../scenario/header-values.ts';
import http, { type Params } from 'k6/http';
import { Counter } from 'k6/metrics';
import type { Check, RequestSpec } from '../../scenario/types.ts';
import type { RuntimeConfig } from './config.ts';
import { bytesOf } from './context.ts';
import { cutNotes, failureOf, responseInfo, verdictOf, type Failure, type K6Response, type Keep } from './response.ts';
import { checkFailureKind } from '../../scenario/verdict.ts';
import { messageTag } from './check-tag.ts';

/** Counted when a check rejects a response k6 deemed expected (2xx/3xx): the ingest moves it from ok to `check`. */
const checkFailed = new Counter('plateau_check_failed');

export interface NamedRequest {
  /** k6 `name` tag. */
  name: string;
  checkName: string;
  check?: Check;
  /** What the check (or the transaction) reads: the body is kept as text (responseType 'text') only then. */
  keep: Keep;
  /** A transaction's send: its check sees the response as a transaction's (what run reads is kept). */
  transaction?: boolean;
}

export interface Sent {
  failure: Failure | null;
  /** k6's http_req_duration of it (ms). */
  durationMs: number;
  /** The response (a transaction's send hands it to run as what http.send resolved with). */
  res: K6Response;
}

type Cfg = Pick<RuntimeConfig, 'origin' | 'timeoutMs' | 'maxBodyBytes'>;

function urlOf(spec: RequestSpec, origin: string, what: string): string {
  if (!spec || typeof spec !== 'object' || typeof spec.url !== 'string') {
    throw new Error(`${what} must be { method?, url, headers?, body? }; its url is ${typeof spec?.url}`);
  }
  // as the native engine: '//host/x' is another origin, not a path; scheme and host compare without case
  if (spec.url.startsWith('//')) {
    throw new Error(`${what} returned ${spec.url}, another origin than the target ${origin}: a run loads one origin`);
  }
  const absolute = /^https?:\/\//i.test(spec.url);
  const url = absolute ? spec.url : origin + (spec.url.startsWith('/') ? '' : '/') + spec.url;
  const head = url.slice(0, origin.length).toLowerCase();
  const rest = url.slice(origin.length);
  if (head !== origin.toLowerCase() || (rest !== '' && rest[0] !== '/' && rest[0] !== '?')) {
    throw new Error(`${what} returned ${url}, but the target is ${origin}: a run loads one origin`);
  }
  return origin + rest;
}

/** http.request's arguments: method, URL, body, params. */
function argsOf(
  spec: RequestSpec,
  r: NamedRequest,
  cfg: Cfg,
  what: string,
): [string, string, string | ArrayBuffer | null, Params] {
  const url = urlOf(spec, cfg.origin, what);
  const raw = spec.body ?? null;
  const bad = raw === null ? null : bodyProblem(raw, what);
  if (bad !== null) throw new Error(bad);
  const body = raw === null ? null : bytesOf(raw);
  return [
    (spec.method ?? 'GET').toUpperCase(),
    url,
    body,
    {
      headers: sentHeaders(spec.headers, what),
      timeout: `${cfg.timeoutMs}ms`,
      // never followed, as by the native engine: each hop would be a request of its own in k6's output
      redirects: 0,
      tags: { name: r.name },
      responseType: r.keep.body ? 'text' : 'none',
    },
  ];
}

function judged(res: K6Response & { timings: { duration: number } }, r: NamedRequest, cfg: Cfg): Sent {
  let failure = failureOf(res);
  // a failed request is judged by its failure alone: its check runs on accepted responses, as natively
  if (r.check && failure === null) {
    const info = responseInfo(res, r.keep, cfg.maxBodyBytes, r.transaction ? 'transaction' : 'check');
    const verdict = verdictOf(r.check, info);
    check(verdict, { [r.checkName]: (v) => v === null });
    if (verdict !== null) {
      const kind = checkFailureKind(verdict);
      // a body cut at maxBodyBytes: how much of it the check saw, as natively
      const cut = cutNotes(res, r.keep, cfg.maxBodyBytes, verdict);
      // the kind tagged: a check plateau could not give what it read is the scenario's (other), as natively
      checkFailed.add(1, { check: messageTag(verdict, cut?.tag), name: r.name, kind });
      failure = { kind, message: cut ? verdict + cut.message : verdict };
    }
  }
  return { failure, durationMs: res.timings.duration, res };
}

/** Sends and waits (k6's http.request): the one request of a request entry. */
export function sendNow(spec: RequestSpec, r: NamedRequest, cfg: Cfg): Sent {
  const [method, url, body, params] = argsOf(spec, r, cfg, 'request(ctx)');
  return judged(http.request(method, url, body, params), r, cfg);
}

/**
 * Sends on k6's event loop (http.asyncRequest): a request of a transaction. A malformed request
 * throws here, before anything is sent; what k6 rejects with afterwards is the promise's.
 */
export function sendAsync(spec: RequestSpec, r: NamedRequest, cfg: Cfg): Promise<Sent> {
  const [method, url, body, params] = argsOf(spec, r, cfg, `http.send(${JSON.stringify(r.name)}, request)`);
  return http.asyncRequest(method, url, body, params).then((res) => judged(res, r, cfg));
}
