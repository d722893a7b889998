/**
 * One k6 sample, reduced to what plateau reads, and the parser of k6's `--out json` lines.
 *
 * The hot path (scanJsonLine) reads the line by position instead of JSON.parse. It accepts only
 * the layouts k6 writes (FORMAT-NOTES.md 1b):
 *   v0.41+:  {"metric":"M","type":"Point","data":{"time":"T","value":V,"tags":{...}[,"metadata":{...}]}}
 *   <=v0.40: {"type":"Point","data":{"time":"T","value":V,"tags":{...}},"metric":"M"}
 * with `data` in Go struct order (time, value, tags, metadata), tags and metadata flat objects of
 * strings. Any backslash in a name, tag or metadata string, a number outside JSON's grammar, a
 * time that is not RFC 3339, `"tags":null`, other key orders or anything after the last `}` send
 * the line to JSON.parse (parseJsonLineSlow): same result, slower. The one thing it does not check
 * is raw control characters inside strings (JSON.parse rejects them; Go's encoder never writes
 * them). test/k6-point.test.ts holds the two readings to agreeing on generated lines.
 *
 * What makes it fast (CPU per line on the stepped-queue fixture, this 2-core machine: the fast
 * path ~0.4 µs, JSON.parse alone ~3 µs): no String#startsWith with a position (slow in V8; slices
 * compared with === instead); the line up to the time (one per metric) checked by one compare
 * against the last few seen, which also names the metric; the tag object of the last few
 * distinct tag texts reused (k6 repeats a handful of tag sets); the last time reused (a request's
 * nine samples share it); numbers read digit by digit; metric names returned as constants.
 * The caches hold copies, not slices, so they never keep a decoded chunk alive.
 */
import { parseRfc3339Ms } from './time.ts';

/** The tags plateau reads; the rest (method, custom tags other than plateau's) are not kept. */
export interface K6Tags {
  scenario?: string;
  /** The request's name (k6 sets it to the URL when the script does not), or a plateau_arrival's entry. */
  name?: string;
  status?: string;
  error_code?: string;
  expected_response?: string;
  error?: string;
  check?: string;
  /** The request's URL: read only where it has no name (an import says when several URLs had none). */
  url?: string;
  /** "::setup" / "::teardown" mark samples outside any scenario. */
  group?: string;
  /** plateau_arrival only (custom tags of plateau's k6 runtime): 'ok' or the arrival's ErrorKind. */
  outcome?: string;
  /** plateau_arrival only: 'true' when the entry is a transaction (several requests). */
  transaction?: string;
  /** plateau_check_failed only: 'other' when the check could not be given what it read (verdict.ts checkFailureKind). */
  kind?: string;
  /**
   * The VU and its iteration, when k6 ran with them in `--system-tags` (not by default): a tag up
   * to v0.40, metadata since v0.41 (read into these fields). Together they name the iteration a
   * request belongs to (bucketizer.ts: exact iteration outcomes).
   */
  vu?: string;
  iter?: string;
}

export const KEPT_TAGS = [
  'scenario',
  'name',
  'url',
  'status',
  'error_code',
  'expected_response',
  'error',
  'check',
  'group',
  'outcome',
  'transaction',
  'kind',
  'vu',
  'iter',
] as const;

export interface K6Point {
  metric: string;
  /** Epoch ms, with the sub-millisecond digits k6 wrote. */
  timeMs: number;
  value: number;
  tags: K6Tags;
}

/** What a line was: a point, a line to skip (Metric definitions, blank), or not k6 output. */
export type LineResult = K6Point | 'skip' | 'bad';

const POINT_NEW = '{"metric":"';
const NEW_AFTER_NAME = '","type":"Point","data":{"time":"';
const POINT_OLD = '{"type":"Point","data":{"time":"';
const OLD_BEFORE_NAME = '},"metric":"';

export function parseJsonLine(line: string): LineResult {
  if (line.length === 0) return 'skip';
  return scanJsonLine(line) ?? parseJsonLineSlow(line);
}

/** The fast path alone: the point, or undefined when the line is not in a layout it reads. */
export function scanJsonLine(line: string): K6Point | undefined {
  if (line.charCodeAt(0) !== 123 /* { */ || line.charCodeAt(1) !== 34 /* " */) return undefined;
  const c = line.charCodeAt(2);
  if (c === 109 /* m */) return scanNew(line);
  if (c === 116 /* t */ && line.charCodeAt(9) === 80 /* P */) return scanOld(line);
  return undefined;
}

/** `{"metric":"M","type":"Point","data":{"time":"T","value":V,"tags":{...}[,"metadata":{...}]}}` */
function scanNew(line: string): K6Point | undefined {
  const nameEnd = line.indexOf('"', 11);
  const end = line.length - 2;
  if (nameEnd === -1 || line.charCodeAt(end) !== 125 || line.charCodeAt(end + 1) !== 125) return undefined;
  const timeAt = nameEnd + 33;
  // the line up to the time is one of a few per file: one compare checks it and names the metric
  const head = line.slice(0, timeAt);
  // k6 writes a request's or an iteration's samples in a fixed order: try what followed last time
  let hit = headFollower[headLast];
  if (headTexts[hit] !== head) {
    hit = -1;
    for (let i = 0; i < headCount; i++)
      if (headTexts[i] === head) {
        hit = i;
        break;
      }
    if (hit === -1) {
      if (head.slice(0, 11) !== POINT_NEW || head.slice(nameEnd) !== NEW_AFTER_NAME) return undefined;
      const metric = metricName(line, 11, nameEnd);
      if (metric === undefined) return undefined;
      hit = headNext;
      headTexts[hit] = copyOf(head);
      headMetrics[hit] = metric;
      headNext = (headNext + 1) % HEAD_CACHE;
      headCount = Math.max(headCount, headNext === 0 ? HEAD_CACHE : headNext);
    }
    headFollower[headLast] = hit;
  }
  headLast = hit;
  return scanData(line, timeAt, end, headMetrics[hit], true);
}

/**
 * `{"metric":"M","type":"Point","data":{"time":"` of the last few metrics, M, and for each the
 * entry that came next the last time (a guess, checked by the compare like any other entry).
 */
const HEAD_CACHE = 24;
const headTexts: string[] = new Array<string>(HEAD_CACHE).fill('');
const headMetrics: string[] = new Array<string>(HEAD_CACHE).fill('');
const headFollower: number[] = new Array<number>(HEAD_CACHE).fill(0);
let headCount = 0;
let headNext = 0;
let headLast = 0;

/**
 * A copy of a slice that does not keep the string it was cut from alive (a slice of a line
 * references the whole decoded chunk): flattening the concatenation copies the characters.
 */
function copyOf(s: string): string {
  return (s + ' ').slice(0, -1);
}

/** `{"type":"Point","data":{"time":"T","value":V,"tags":{...}},"metric":"M"}` (k6 <= v0.40) */
function scanOld(line: string): K6Point | undefined {
  const at = line.lastIndexOf(OLD_BEFORE_NAME);
  const nameEnd = line.length - 2;
  if (
    at === -1 ||
    line.slice(0, 32) !== POINT_OLD ||
    line.charCodeAt(nameEnd) !== 34 ||
    line.charCodeAt(nameEnd + 1) !== 125 ||
    line.indexOf('"', at + 12) !== nameEnd
  )
    return undefined;
  const metric = metricName(line, at + 12, nameEnd);
  return metric === undefined ? undefined : scanData(line, 32, at, metric, false);
}

/** The k6 metric names as constants (property lookups on them are faster than on a fresh slice). */
function metricName(line: string, from: number, to: number): string | undefined {
  const name = line.slice(from, to);
  switch (name) {
    case 'http_reqs':
      return 'http_reqs';
    case 'http_req_duration':
      return 'http_req_duration';
    case 'http_req_blocked':
      return 'http_req_blocked';
    case 'http_req_connecting':
      return 'http_req_connecting';
    case 'http_req_tls_handshaking':
      return 'http_req_tls_handshaking';
    case 'http_req_sending':
      return 'http_req_sending';
    case 'http_req_waiting':
      return 'http_req_waiting';
    case 'http_req_receiving':
      return 'http_req_receiving';
    case 'http_req_failed':
      return 'http_req_failed';
    case 'checks':
      return 'checks';
    case 'data_sent':
      return 'data_sent';
    case 'data_received':
      return 'data_received';
    case 'iteration_duration':
      return 'iteration_duration';
    case 'iterations':
      return 'iterations';
    case 'dropped_iterations':
      return 'dropped_iterations';
    case 'vus':
      return 'vus';
    case 'vus_max':
      return 'vus_max';
    case 'plateau_check_failed':
      return 'plateau_check_failed';
    case 'plateau_arrival':
      return 'plateau_arrival';
    case 'plateau_unsent':
      return 'plateau_unsent';
    case 'plateau_refused_name':
      return 'plateau_refused_name';
    // any other name is kept as written, unless it holds an escape (JSON.parse would decode it)
    default:
      return name.indexOf('\\') === -1 ? name : undefined;
  }
}

/**
 * From just after `"time":"`: the time, `","value":V,"tags":{...}` and (v0.41+) an optional
 * `,"metadata":{...}` that ends at `end`, where the `}` closing `data` (new) or `},"metric":` (old) is.
 */
function scanData(
  line: string,
  timeAt: number,
  end: number,
  metric: string,
  metadataAllowed: boolean,
): K6Point | undefined {
  const timeEnd = line.indexOf('"', timeAt);
  if (timeEnd === -1 || line.slice(timeEnd, timeEnd + 10) !== '","value":') return undefined;
  const timeMs = parseRfc3339Ms(line, timeAt, timeEnd);
  const value = scanNumber(line, timeEnd + 10);
  const tagsAt = numberEnd + 8;
  if (Number.isNaN(timeMs) || Number.isNaN(value) || line.slice(numberEnd, tagsAt + 1) !== ',"tags":{')
    return undefined;
  let tags = cachedTags(line.slice(tagsAt, end));
  if (tags === undefined) {
    tags = scanTags(line, tagsAt + 1);
    if (tags === undefined) return undefined;
    if (flatEnd === end) rememberTags(line.slice(tagsAt, end), tags);
    // metadata (a flat string object; vu and iter change every line, so it is never cached and
    // these tags, scanned for this line alone, take its vu and iter)
    else {
      if (!metadataAllowed || line.slice(flatEnd, flatEnd + 13) !== ',"metadata":{') return undefined;
      const meta = scanTags(line, flatEnd + 13);
      if (meta === undefined || flatEnd !== end) return undefined;
      if (meta.vu !== undefined) tags.vu = meta.vu;
      if (meta.iter !== undefined) tags.iter = meta.iter;
    }
  }
  return { metric, timeMs, value, tags };
}

/** Where the last scanNumber / scanTags stopped (just past the number, just past the `}`). */
let numberEnd = 0;
let flatEnd = 0;

/** 10^k, exact for k <= 22. */
const POW10 = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];

/**
 * A JSON number from `at` (grammar -?(0|[1-9]d*)(.d+)?([eE][+-]?d+)?), NaN if there is none; sets
 * numberEnd. Up to 15 significant digits without an exponent it is integer / 10^decimals, which
 * IEEE division rounds exactly as Number() does; anything else goes through Number().
 */
function scanNumber(s: string, at: number): number {
  let i = at;
  const negative = s.charCodeAt(i) === 45; /* - */
  if (negative) i++;
  const intAt = i;
  let n = 0;
  let c = s.charCodeAt(i) - 48;
  if (c === 0) {
    c = s.charCodeAt(++i) - 48;
    if (c >= 0 && c <= 9) return NaN;
  } else {
    for (; c >= 0 && c <= 9; c = s.charCodeAt(++i) - 48) n = n * 10 + c;
  }
  let digits = i - intAt;
  if (digits === 0) return NaN;
  let decimals = 0;
  if (c === 46 - 48 /* . */) {
    const fracAt = ++i;
    for (c = s.charCodeAt(i) - 48; c >= 0 && c <= 9; c = s.charCodeAt(++i) - 48) n = n * 10 + c;
    decimals = i - fracAt;
    if (decimals === 0) return NaN;
    digits += decimals;
  }
  if (c === 101 - 48 || c === 69 - 48 /* e E */) {
    c = s.charCodeAt(++i);
    if (c === 43 || c === 45) i++;
    const expAt = i;
    while (isDigit(s.charCodeAt(i))) i++;
    if (i === expAt) return NaN;
    numberEnd = i;
    return Number(s.slice(at, i));
  }
  numberEnd = i;
  if (digits > 15) return Number(s.slice(at, i));
  const v = decimals === 0 ? n : n / POW10[decimals];
  return negative ? -v : v;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/**
 * The tags of the last few distinct tag texts (`{...}` exactly as written). k6 repeats a handful of
 * tag sets (a request's nine samples, an iteration's four), so most lines are one compare. The
 * objects are shared between points and frozen.
 */
const TAG_CACHE = 8;
const tagTexts: string[] = [];
const tagObjects: K6Tags[] = [];
let tagNext = 0;

function cachedTags(text: string): K6Tags | undefined {
  for (let i = 0; i < tagTexts.length; i++) if (tagTexts[i] === text) return tagObjects[i];
  return undefined;
}

function rememberTags(text: string, tags: K6Tags): void {
  tagTexts[tagNext] = copyOf(text);
  tagObjects[tagNext] = Object.freeze(tags);
  tagNext = (tagNext + 1) % TAG_CACHE;
}

/** A flat object of strings from just after its `{`, kept tags only; sets flatEnd past its `}`. */
function scanTags(line: string, at: number): K6Tags | undefined {
  const tags: K6Tags = {};
  let i = at;
  if (line.charCodeAt(i) === 125 /* } */) {
    flatEnd = i + 1;
    return tags;
  }
  for (;;) {
    if (line.charCodeAt(i) !== 34) return undefined;
    const keyEnd = line.indexOf('"', i + 1);
    if (keyEnd === -1 || line.charCodeAt(keyEnd + 1) !== 58 || line.charCodeAt(keyEnd + 2) !== 34) return undefined;
    const valEnd = line.indexOf('"', keyEnd + 3);
    if (valEnd === -1) return undefined;
    // any escape, in a key or a value, kept or not, is JSON.parse's business
    const key = line.slice(i + 1, keyEnd);
    const v = line.slice(keyEnd + 3, valEnd);
    if (key.indexOf('\\') !== -1 || v.indexOf('\\') !== -1) return undefined;
    switch (key) {
      case 'scenario':
        tags.scenario = v;
        break;
      case 'status':
        tags.status = v;
        break;
      case 'error_code':
        tags.error_code = v;
        break;
      case 'expected_response':
        tags.expected_response = v;
        break;
      case 'error':
        tags.error = v;
        break;
      case 'check':
        tags.check = v;
        break;
      case 'group':
        tags.group = v;
        break;
      case 'name':
        tags.name = v;
        break;
      case 'url':
        tags.url = v;
        break;
      case 'outcome':
        tags.outcome = v;
        break;
      case 'transaction':
        tags.transaction = v;
        break;
      case 'kind':
        tags.kind = v;
        break;
      case 'vu':
        tags.vu = v;
        break;
      case 'iter':
        tags.iter = v;
        break;
      default:
    }
    const next = line.charCodeAt(valEnd + 1);
    if (next === 125) {
      flatEnd = valEnd + 2;
      return tags;
    }
    if (next !== 44) return undefined;
    i = valEnd + 2;
  }
}

interface RawLine {
  type?: unknown;
  metric?: unknown;
  data?: {
    time?: unknown;
    value?: unknown;
    tags?: Record<string, unknown> | null;
    metadata?: Record<string, unknown> | null;
  };
}

/** The plain reading, JSON.parse: every line the fast path declines, and the tests' reference. */
export function parseJsonLineSlow(line: string): LineResult {
  let o: RawLine;
  try {
    o = JSON.parse(line) as RawLine;
  } catch {
    return line.trim() === '' ? 'skip' : 'bad';
  }
  if (!o || typeof o !== 'object') return 'bad';
  if (o.type !== 'Point') return o.type === 'Metric' ? 'skip' : 'bad';
  const d = o.data;
  if (typeof o.metric !== 'string' || !d || typeof d.time !== 'string') return 'bad';
  const value = typeof d.value === 'number' ? d.value : Number(d.value);
  const timeMs = parseRfc3339Ms(d.time);
  if (Number.isNaN(value) || Number.isNaN(timeMs)) return 'bad';
  const tags: K6Tags = {};
  for (const k of KEPT_TAGS) {
    const v = d.tags?.[k];
    if (typeof v === 'string') tags[k] = v;
  }
  for (const k of ['vu', 'iter'] as const) {
    const v = d.metadata?.[k];
    if (typeof v === 'string') tags[k] = v;
  }
  return { metric: o.metric, timeMs, value, tags };
}
