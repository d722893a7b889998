/**
 * What a sample says of a response that failed by its status (a 4xx or 5xx): the status, the
 * message of the request's check where it gave one, and the start of the body, so that a 401 "bad
 * credentials" and a 401 "no token" read apart in the run directory, as preflight's sample does.
 * Built only for a failure the second keeps as a sample (recorder.ts); the clients keep the body's
 * first ERROR_BODY_BYTES of a status of 400 or more only, decided at the status line, so a
 * successful response costs nothing more. Secrets are scrubbed where every text of the store is
 * (secret-scrub.ts): the body is quoted as it came, but for its control characters, so a secret in
 * it reads as the value the scrubber matches.
 */
import { CUT_MARK } from '../cut-message.ts';
import { SAMPLE_BODY } from '../../analysis/error-samples.ts';
import { ownMessage } from '../scenario/verdict.ts';

/** The most of a failed response's body its sample quotes (the clients keep this much of one they would not keep). */
export const ERROR_BODY_BYTES = 200;

/**
 * `HTTP 401 (check: login 401); body: {"error":"bad credentials"}`: the check's part only where it
 * rejected with a message of its own (not plateau's words for false, nothing or a throw: a check
 * that reads res.json() throws on an HTML error page), the body's only where it had one.
 */
export function httpFailureText(
  status: number,
  verdict: string | null,
  chunks: readonly Buffer[],
  bodyBytes: number,
): string {
  const own = ownMessage(verdict);
  const head = own === null ? `HTTP ${status}` : `HTTP ${status} (check: ${own})`;
  const body = bodyStart(chunks, bodyBytes);
  return body === '' ? head : `${head}${SAMPLE_BODY}${body}`;
}

/**
 * The body's first ERROR_BODY_BYTES bytes as text, control characters escaped (\n, \u001b: a
 * sample is one line), ended by CUT_MARK where the body was longer (the scrubber then takes a
 * secret's start before it); a whole body trimmed of surrounding white space.
 */
export function bodyStart(chunks: readonly Buffer[], bodyBytes: number): string {
  if (chunks.length === 0 || bodyBytes === 0) return '';
  const first = chunks[0];
  const kept =
    first.length >= ERROR_BODY_BYTES || chunks.length === 1
      ? first.subarray(0, ERROR_BODY_BYTES)
      : Buffer.concat(chunks as Buffer[]).subarray(0, ERROR_BODY_BYTES);
  let text = kept.toString('utf8');
  const cut = bodyBytes > kept.length;
  // a character the cut split decodes as U+FFFD: not the body's
  text = cut ? text.replace(/\uFFFD+$/, '') : text.trim();
  text = text.replace(CONTROL, escapeControl);
  return cut ? `${text}${CUT_MARK}` : text;
}

const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeControl(c: string): string {
  return NAMED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}
