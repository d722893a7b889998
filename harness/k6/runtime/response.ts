/**
 * A k6 response as the portable scenario sees it (ResponseInfo: status, lower-cased headers, the
 * body as text cut at maxBodyBytes, json()), and what it counts as: failed (an ErrorKind, by the
 * same mapping the k6 output ingest uses) or passed, then the check's verdict.
 */
import type { ErrorKind } from '../../../analysis/types.ts';
import type { Check, ResponseInfo } from '../../scenario/types.ts';
import { errorKindOf } from '../output/error-kind.ts';
import {
  bodyCutText,
  bodyNotJson,
  CHECK_CANNOT_JUDGE,
  checkReturned,
  checkThrew,
  cutNote,
  notGiven,
  notKept,
} from '../../scenario/verdict.ts';

/** What the runtime reads of a k6 response (RefinedResponse has more). */
export interface K6Response {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  error: string;
  error_code: number;
}

export interface Failure {
  kind: ErrorKind;
  message: string;
}

function lowerCaseKeys(h: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of Object.keys(h ?? {})) out[k.toLowerCase()] = h[k];
  return out;
}

/**
 * The longest prefix of text whose UTF-8 encoding is at most maxBytes: a UTF-16 unit below 0x80
 * is 1 byte, below 0x800 2, a surrogate pair 4, any other 3 (so text of length L is at most 3L).
 */
export function truncateUtf8(text: string, maxBytes: number): string {
  if (text.length * 3 <= maxBytes) return text;
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const pair = c >= 0xd800 && c < 0xdc00 && i + 1 < text.length;
    const n = c < 0x80 ? 1 : c < 0x800 ? 2 : pair ? 4 : 3;
    if (bytes + n > maxBytes) return text.slice(0, i);
    bytes += n;
    if (pair) i++;
  }
  return text;
}

/** The UTF-8 length of text, counted as truncateUtf8 counts. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const pair = c >= 0xd800 && c < 0xdc00 && i + 1 < text.length;
    bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : pair ? 4 : 3;
    if (pair) i++;
  }
  return bytes;
}

/** What a request keeps for its check or transaction: what that code reads (TrafficEntry's checkReads*, runReads). */
export interface Keep {
  body: boolean;
  headers: boolean;
}

/**
 * The response as a check or a transaction sees it. What was not kept throws when read, naming the
 * fix, as on the native engine (never an empty value judged as if it were the answer). `where`:
 * a request entry's check, or a transaction (its checks and its own reads); `subject`: how the
 * code names the response (res in a check, made for what http.send resolved with).
 */
export function responseInfo(
  res: K6Response,
  keep: Keep,
  maxBodyBytes: number,
  where: 'check' | 'transaction' = 'check',
  subject = 'res',
): ResponseInfo {
  let body: string | undefined;
  let headers: Record<string, string> | undefined;
  let parsed: { value: unknown } | null = null;
  const view = {
    status: res.status,
    json() {
      if (parsed === null) {
        const text = view.body;
        try {
          parsed = { value: JSON.parse(text) };
        } catch {
          // cut at maxBodyBytes: the setting's, as on the native engine; else the target's answer
          if (typeof res.body === 'string' && text.length < res.body.length) throw notGiven(bodyCutText(maxBodyBytes));
          throw bodyNotJson(text.length === 0 ? 'empty' : JSON.stringify(text.slice(0, 60)));
        }
      }
      return parsed.value;
    },
    text: () => view.body,
  } as ResponseInfo;
  // not enumerable, as on the native engine's classes: JSON.stringify or a spread of the response
  // must not read (and throw for) what was not kept
  Object.defineProperties(view, {
    headers: {
      get() {
        if (!keep.headers) throw notGiven(notKept('headers', `${subject}.headers`, where));
        return (headers ??= lowerCaseKeys(res.headers));
      },
    },
    body: {
      get() {
        if (!keep.body) throw notGiven(notKept('body', `${subject}.body or ${subject}.json()`, where));
        return (body ??= typeof res.body === 'string' ? truncateUtf8(res.body, maxBodyBytes) : '');
      },
    },
    // k6 reads the whole body (responseType 'text'); the check sees its first maxBodyBytes, as natively
    truncated: {
      get() {
        const seen = view.body;
        return typeof res.body === 'string' && seen.length < res.body.length;
      },
    },
  });
  return view;
}

/**
 * What a check's rejection (`verdict`) adds when the body it could read was cut at maxBodyBytes
 * (verdict.ts cutNote): `message` says how many of the body's bytes it saw; `tag`, for k6's check
 * tag, leaves the body's size out (check-tag.ts: a size per response would make a series of each).
 * Null when nothing was cut, or for a verdict plateau gave already (CHECK_CANNOT_JUDGE).
 */
export function cutNotes(
  res: K6Response,
  keep: Keep,
  maxBodyBytes: number,
  verdict: string,
): { message: string; tag: string } | null {
  if (!keep.body || typeof res.body !== 'string' || verdict.startsWith(CHECK_CANNOT_JUDGE)) return null;
  const seen = truncateUtf8(res.body, maxBodyBytes);
  if (seen.length === res.body.length) return null;
  return { message: cutNote(utf8Length(seen), utf8Length(res.body)), tag: cutNote(maxBodyBytes, Infinity) };
}

/** Why the request failed (k6's default expected statuses: 200-399 with no error), or null. */
export function failureOf(res: K6Response): Failure | null {
  if (!res.error_code && res.status >= 200 && res.status < 400) return null;
  const kind = errorKindOf({
    status: String(res.status),
    ...(res.error_code ? { error_code: String(res.error_code) } : {}),
  });
  return { kind, message: res.error || `HTTP ${res.status}` };
}

/** null when accepted, else why not (the portable check's contract). */
export function verdictOf(check: Check, info: ResponseInfo): string | null {
  try {
    return checkReturned(check(info));
  } catch (err) {
    return checkThrew(err, messageOf(err));
  }
}

/** The first line of what was thrown, at most 200 characters (it lands in a log and in a report). */
export function messageOf(err: unknown): string {
  const text = err instanceof Error ? err.message || err.name : String(err);
  return text.split('\n')[0].trim().slice(0, 200);
}

const warned = new Set<string>();

/**
 * Writes a failed arrival's message to k6's log (console.log beside the leg's output), each
 * distinct message once and at most 20 per VU: the metrics carry the counts, the log the reasons.
 * k6's type definitions declare no console, hence the lookup.
 */
export function warnOnce(message: string): void {
  if (warned.has(message) || warned.size >= 20) return;
  warned.add(message);
  const c = (globalThis as unknown as Record<string, { warn?(m: string): void } | undefined>)['console'];
  if (c && typeof c.warn === 'function') c.warn(`plateau: ${message}`);
}
