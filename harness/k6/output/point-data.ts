/**
 * The fast scan's reading of a k6 point's `data` object from its time on, wherever the line's
 * layout puts it (point-scan.ts finds it): the time, the value read digit by digit, the tags and
 * metadata as flat objects of strings of which plateau's tags only are kept, the tag objects of
 * the last few tag texts reused. Undefined for anything else, which sends the line to JSON.parse.
 * Apart from the layouts: it reads the same in both, and keeps its own positions (numberEnd,
 * flatEnd) and tag cache.
 */
import { parseRfc3339Ms } from './time.ts';
import type { K6Point, K6Tags } from './point.ts';

/**
 * A copy of a slice that does not keep the string it was cut from alive (a slice of a line
 * references the whole decoded chunk): flattening the concatenation copies the characters.
 */
export function copyOf(s: string): string {
  return (s + ' ').slice(0, -1);
}

/**
 * From just after `"time":"`: the time, `","value":V,"tags":{...}` and (v0.41+) an optional
 * `,"metadata":{...}` that ends at `end`, where the `}` closing `data` (new) or `},"metric":` (old) is.
 */
export function scanData(
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
