/**
 * Names are the unit of reporting (per-name rows, charts, the gate): a run has at most MAX_NAMES,
 * each fixed in the scenario's code. A name built from data (an id, a number, a UUID) would make
 * one row per request and memory O(requests): it is refused with the fix, as k6 users set the
 * `name` tag. No Node API: the k6 bundle uses this file too.
 */
import { MAX_NAMES, NAME_FIX } from '../../analysis/names-limit.ts';

export { MAX_NAMES, NAME_FIX };
export const MAX_NAME_LENGTH = 80;
/**
 * Names http.send may use that differ only in their numbers ('page 1' .. 'page 10' of a bounded
 * loop). One more is built from data: `item ${seq}` gives 'item 9', 'item 23', ... before its
 * numbers reach the 3 digits nameProblem refuses, and would fill the run's names with them.
 */
export const MAX_NAMES_OF_A_SHAPE = 10;

/**
 * An HTTP status on its own ('expect 200', 'redirect 302') is a fixed part of a name, not data. No
 * lookbehind: the k6 script is lowered to ES2017.
 */
const STATUS_CODE = /(^|[^\w./-])([1-5]\d\d)(?![\w./-])/g;

/**
 * The registered HTTP statuses (RFC 9110 and the IANA registry): only these read as a status. Any
 * number of 100 to 599 did, so `get ${ctx.pick(500)}` passed as 'get 104' and 'get 430' (a user's
 * review, 12-06); of 500 such numbers, 63 are statuses.
 */
const STATUSES = new Set([
  100, 101, 102, 103, 200, 201, 202, 203, 204, 205, 206, 207, 208, 226, 300, 301, 302, 303, 304, 305, 306, 307, 308,
  400, 401, 402, 403, 404, 405, 406, 407, 408, 409, 410, 411, 412, 413, 414, 415, 416, 417, 418, 421, 422, 423, 424,
  425, 426, 428, 429, 431, 451, 500, 501, 502, 503, 504, 505, 506, 507, 508, 510, 511,
]);

/** Whether a token of 3 digits is a registered HTTP status. */
function isStatus(digits: string): boolean {
  return STATUSES.has(Number(digits));
}

/**
 * A standard's number glued to its name ('sha256', 'ISO8601', 'RFC3339', 'http2', 'base64') is a
 * fixed part of a name. Only these names: letters glued to digits are also how flight numbers,
 * SKUs and ticket codes are written ('AK1000'), which are data.
 */
const NAMED_NUMBER = /(^|[^\w])(?:sha|md|iso|rfc|utf|crc|ipv|http|base|tls|x)\d{1,4}(?!\w)/gi;

/**
 * A year on its own ('black-friday-2025', 'report 2024', 'Q4 2025') is a fixed part of a name: a
 * campaign or a period, not an id. Only 1970 to 2099, after the name's start, a space, '-', '_' or
 * '(' and before its end or a character that is not part of a number; in a path ('/orders/2025')
 * it stays an id. A name built from an id that happens to read as a year is caught by its other
 * arrivals: their ids are no years, or the names differ only in their numbers (NameBook, preflight).
 */
const YEAR = /(^|[\s_(-])(?:19[7-9]\d|20\d\d)(?![\w.]|-\d{3})/g;

/** A word with a short version or ordinal at its end ('createUserAccountV2', 'healthCheck1'): an operation's name, not an id. */
const VERSIONED_WORD = /^[a-z]+\d{1,2}$/i;

/**
 * A name's shape for telling two names apart by their data (preflight's two sample arrivals of a
 * transaction): each token of digits as '#', and a token of letters and 3 or more digits ('x2283')
 * as its letters and '#'; an HTTP status on its own ('expect 200') and a short version ('v1',
 * 'page2') are kept, as nameProblem keeps them fixed.
 */
export function dataShape(name: string): string {
  return name.replace(/[0-9a-z]+/gi, (t) => {
    if (/^\d+$/.test(t)) return t.length === 3 && isStatus(t) ? t : '#';
    return /\d{3,}/.test(t) ? `${t.replace(/\d+/g, '')}#` : t;
  });
}

/** Why `name` cannot be a name, or null when it can. */
export function nameProblem(name: unknown): string | null {
  if (typeof name !== 'string') return `a name must be a string, got ${name === null ? 'null' : typeof name}`;
  if (name.trim() === '') return 'a name must not be empty';
  // a newline or a tab breaks the plan's line, the report's rows and a CSV's
  if (/[\u0000-\u001f\u007f]/.test(name))
    return `name ${JSON.stringify(name)} holds a control character (a newline, a tab)`;
  if (name.length > MAX_NAME_LENGTH) return `name "${name.slice(0, 40)}..." is over ${MAX_NAME_LENGTH} characters`;
  const withoutFixed = name
    .replace(STATUS_CODE, (m: string, before: string, digits: string) => (isStatus(digits) ? before : m))
    .replace(NAMED_NUMBER, '$1')
    .replace(YEAR, '$1');
  if (/\d{3,}/.test(withoutFixed))
    return `name "${name}" has a number of 3 or more digits in it: it looks built from data`;
  if (/[0-9a-f]{8}-[0-9a-f]{4}-/i.test(name)) return `name "${name}" has a UUID in it: it looks built from data`;
  const tokens = name.match(/[0-9a-z]{16,}/gi) ?? [];
  if (tokens.some((t) => /\d/.test(t) && !VERSIONED_WORD.test(t)))
    return `name "${name}" has an id-like token in it: it looks built from data`;
  return null;
}

/**
 * The names http.send may use, on both engines: a request entry's, or a fixed one of its own;
 * never one built from data (nameProblem, or one past MAX_NAMES_OF_A_SHAPE that differ only in
 * their numbers), a transaction's own name, or one past MAX_NAMES in all. One book per
 * engine thread (native) or per VU (k6 shares nothing between VUs).
 */
export class NameBook {
  /** Names http.send has used (admitted). */
  private readonly seen = new Set<string>();
  /** The admitted names with numbers in them, by their shape (each run of digits as '#'). */
  private readonly shapes = new Map<string, string[]>();
  /** The mix's entries' names: a send under one would merge its figures into the entry's arrivals. */
  private readonly entries: Set<string>;
  constructor(entries: readonly { name: string; transaction: boolean }[]) {
    this.entries = new Set(entries.map((e) => e.name));
  }

  /** null when `name` may be sent under, else why not with the fix; remembers the names admitted. */
  problem(name: unknown): string | null {
    if (typeof name === 'string' && this.seen.has(name)) return null;
    const bad = nameProblem(name);
    if (bad) return `http.send: ${bad}; ${NAME_FIX}`;
    const n = name as string;
    if (this.entries.has(n))
      return `http.send: "${n}" is the name of an entry of the mix; give a transaction's requests names of their own ('checkout: create')`;
    if (this.seen.size + this.entries.size >= MAX_NAMES)
      return `http.send: name "${n}" is one past ${MAX_NAMES} names in the run; ${NAME_FIX}`;
    const shape = n.replace(/\d+/g, '#');
    if (shape !== n) {
      const family = this.shapes.get(shape) ?? [];
      if (family.length >= MAX_NAMES_OF_A_SHAPE)
        return `http.send: name "${n}" differs only in its numbers from ${family.length} names before it (${family
          .slice(0, 3)
          .map((f) => `"${f}"`)
          .join(', ')}, ...): it looks built from data; ${NAME_FIX}`;
      family.push(n);
      this.shapes.set(shape, family);
    }
    this.seen.add(n);
    return null;
  }
}
