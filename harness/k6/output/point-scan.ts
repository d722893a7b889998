/**
 * The parser of k6's `--out json` lines (parseJsonLine): a fast scan that reads the line by
 * position instead of JSON.parse. It accepts only the layouts k6 writes (FORMAT-NOTES.md 1b):
 *   v0.41+:  {"metric":"M","type":"Point","data":{"time":"T","value":V,"tags":{...}[,"metadata":{...}]}}
 *   <=v0.40: {"type":"Point","data":{"time":"T","value":V,"tags":{...}},"metric":"M"}
 * with `data` in Go struct order (time, value, tags, metadata), tags and metadata flat objects of
 * strings. Any backslash in a name, tag or metadata string, a number outside JSON's grammar, a
 * time that is not RFC 3339, `"tags":null`, other key orders or anything after the last `}` send
 * the line to JSON.parse (point.ts parseJsonLineSlow): same result, slower. The one thing it does
 * not check is raw control characters inside strings (JSON.parse rejects them; Go's encoder never
 * writes them). test/k6-point.test.ts holds the two readings to agreeing on generated lines.
 *
 * What makes it fast (CPU per line on the stepped-queue fixture, this 2-core machine: the fast
 * path ~0.4 µs, JSON.parse alone ~3 µs): no String#startsWith with a position (slow in V8; slices
 * compared with === instead); the line up to the time (one per metric) checked by one compare
 * against the last few seen, which also names the metric; the tag object of the last few
 * distinct tag texts reused (k6 repeats a handful of tag sets); the last time reused (a request's
 * nine samples share it); numbers read digit by digit; metric names returned as constants.
 * The caches hold copies, not slices, so they never keep a decoded chunk alive.
 *
 * This file reads the two layouts around `data`; `data` itself, from its time on, the same in
 * both, is point-data.ts's.
 */
import { copyOf, scanData } from './point-data.ts';
import { parseJsonLineSlow, type K6Point, type LineResult } from './point.ts';

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
