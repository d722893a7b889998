/**
 * k6's tags to plateau's verdict on one request. Success is k6's own: `expected_response`
 * (set by the response callback, 200-399 by default; `http_req_failed` is its 0/1 twin), but a 5xx,
 * a 429 or no answer is never a success (shed). Without the tag (callback disabled) a status in 200-399
 * with no error_code succeeds.
 * Failures get an ErrorKind from the status, else from k6's error_code
 * (lib/netext/httpext/error_codes.go: 1050 request timeout, 1211 dial timeout, 1212 refused,
 * 1201 broken pipe, 1220 reset by peer; 1000 + status for HTTP errors).
 */
import { cutMessage } from '../../cut-message.ts';
import type { ErrorKind } from '../../../analysis/types.ts';
import type { K6Tags } from './point.ts';

const TIMEOUT_CODES = new Set(['1050', '1211']);
const REFUSED_CODES = new Set(['1212']);
const RESET_CODES = new Set(['1201', '1220']);

export function isOk(tags: K6Tags): boolean {
  const expected = tags.expected_response;
  if (expected !== undefined) return expected === 'true' && !shed(tags.status);
  const status = Number(tags.status);
  return !tags.error_code && status >= 200 && status < 400;
}

/**
 * A status that says the service did not serve the request (a 5xx, 429: load shed, or 0: no
 * answer at all), which fails it even where the script's responseCallback marked it expected
 * (k6's expected_response "true"): a pool that answers 503 fast delivers nothing, and counted as
 * served its 503s would read as capacity (decision 078).
 */
export function shed(statusTag: string | undefined): boolean {
  if (!statusTag) return false;
  const status = Number(statusTag);
  return status >= 500 || status === 429 || status === 0;
}

export function errorKindOf(tags: K6Tags): ErrorKind {
  const status = Number(tags.status);
  if (status >= 500) return 'http_5xx';
  if (status >= 400) return 'http_4xx';
  const code = tags.error_code ?? '';
  if (TIMEOUT_CODES.has(code)) return 'timeout';
  if (REFUSED_CODES.has(code)) return 'refused';
  if (RESET_CODES.has(code)) return 'reset';
  return 'other';
}

/**
 * A one-line description for a bucket's samples, e.g. "http_5xx: HTTP 503 (k6 error_code 1503)";
 * with results by name, the request's name after the kind ("http_5xx: read order: HTTP 503"), as
 * the native engine writes it.
 */
export function errorMessageOf(kind: ErrorKind, tags: K6Tags, name: string | null = null): string {
  const status = Number(tags.status);
  const what = tags.error ?? (status > 0 ? `HTTP ${status}` : 'request failed');
  const named = name === null ? '' : `${name}: `;
  return cutMessage(`${kind}: ${named}${what}${tags.error_code ? ` (k6 error_code ${tags.error_code})` : ''}`, 200);
}
