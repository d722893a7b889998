/**
 * A secret's bytes re-encoded rather than escaped: base64 (standard and URL-safe alphabets, padded
 * or not) and hex (lower and upper case, and `\xNN` escapes). A target that echoes a request very
 * often echoes `Authorization: Basic base64(user:password)` or a JWT whose base64url payload holds
 * the secret inside JSON; the secret's bytes then sit inside a longer base64 string at any of three
 * byte alignments. secret-scrub.ts applies these after the value's escaped forms.
 *
 * Not matched, and cannot be: a hash or an HMAC of the value.
 */

/** How one secret's re-encoded form is found: a literal `anchor` every occurrence holds, then `pattern`. */
export interface EncodedMatcher {
  anchor: string;
  pattern: RegExp;
  /**
   * `token`: a base64 core, replaced with the whole base64 run around it (see scrubEncoded);
   * `exact`: hex, byte for byte, replaced as matched unless the hex run around it is a number.
   */
  kind: 'token' | 'exact';
}

/**
 * The re-encoded forms of a value, none shorter than `minChars` (the scrubber's minimum for a
 * value: shorter, a form could be ordinary text). A value of 6 characters or more gives base64
 * cores of 7 characters or more and hex of 12, so today the minimum guards only against a lower one.
 */
export function encodedMatchers(value: string, minChars: number): EncodedMatcher[] {
  const raw = Buffer.from(value, 'utf8');
  // a JWT's payload or a body echoed as base64 holds the value JSON-escaped when it has a " or a \
  const jsonEscaped = Buffer.from(JSON.stringify(value).slice(1, -1), 'utf8');
  const byteForms = jsonEscaped.equals(raw) ? [raw] : [raw, jsonEscaped];
  const cores = byteForms.flatMap(base64Cores).filter((core) => core.length >= minChars);
  const hex = raw.toString('hex');
  return [
    ...[...new Set(cores)].map((core) => literalMatcher(core, 'token', base64CharRe)),
    ...(hex.length >= minChars ? hexMatchers(raw, hex) : []),
  ];
}

/**
 * The base64 characters that only `bytes` decide, at each of the 3 byte offsets it can have in a
 * longer string. Encoded after k bytes (k = 0, 1, 2), the bytes span bits 8k to 8(k + n); a
 * character covers 6 bits, so characters ceil(8k / 6) to floor(8(k + n) / 6) - 1 hold its bits
 * alone: the ones before and after mix in the neighbours' bits, unknown here. Encoding k zero bytes
 * before and dropping those characters leaves each alignment's core.
 */
export function base64Cores(bytes: Buffer): string[] {
  const n = bytes.length;
  return [0, 1, 2].map((k) =>
    Buffer.concat([Buffer.alloc(k), bytes])
      .toString('base64')
      .slice(Math.ceil((8 * k) / 6), Math.floor((8 * (k + n)) / 6)),
  );
}

/**
 * A base64 character in the forms a base64 string takes on its way back: + and / as the URL-safe
 * alphabet's - and _, percent-encoded (a token in a URL's query), a / JSON-escaped as \/ (PHP).
 * Letters and digits are left as they are by every encoding.
 */
function base64CharRe(c: string): string {
  if (c === '+') return String.raw`(?:[+\-]|%(?:25)?2[bB])`;
  if (c === '/') return String.raw`(?:\\*\/|_|%(?:25)?2[fF])`;
  return c;
}

/** Hex: one case or the other throughout (what encoders write), and `\xNN` escapes of either, behind any number of backslashes. */
function hexMatchers(raw: Buffer, hex: string): EncodedMatcher[] {
  const cases = [...new Set([hex, hex.toUpperCase()])].map((h) => literalMatcher(h, 'exact', (c) => c));
  const pairs = [...raw].map((b) => b.toString(16).padStart(2, '0'));
  const escape = pairs.map((p) => String.raw`\\+x${p.replace(/[a-f]/g, (d) => `[${d}${d.toUpperCase()}]`)}`);
  // a pair of digits reads alike in both cases: after its x, the anchor
  const digits = pairs.find((p) => /^\d\d$/.test(p));
  const pattern = new RegExp(`${NOT_INSIDE_RUN}${escape.join('')}`, 'g');
  return [...cases, { anchor: digits ? `x${digits}` : 'x', pattern, kind: 'exact' }];
}

function literalMatcher(form: string, kind: EncodedMatcher['kind'], charRe: (c: string) => string): EncodedMatcher {
  const start = form[0] === '/' ? NOT_INSIDE_RUN : '';
  return { anchor: anchorOf(form), pattern: new RegExp(`${start}${[...form].map(charRe).join('')}`, 'g'), kind };
}

/**
 * A match that may begin with a run of backslashes begins at the run's first: tried at each of
 * its places, the run would be read again to its end from each (quadratic time on a long one).
 */
const NOT_INSIDE_RUN = String.raw`(?<!\\)`;

/**
 * Each matcher's occurrences replaced. A base64 core is replaced with the whole run of base64
 * characters around it, padding included: the characters next to the core still hold bits of the
 * secret's first and last bytes (up to 4 each), and where the run's other bytes end is unknown, so
 * taking the run whole is the only cut that surely leaves none of it. A run may take more than the
 * encoded string (a URL path before it: `/v1/users/<base64>`): that is the price.
 *
 * A run or hex made only of digits (and a number's . + - e) is left, as number-like values are:
 * it may be one of run.json's numbers, and replacing in it would break the JSON. Linear: a match
 * is searched from where the last run ended, and a run is read at most twice.
 */
export function scrubEncoded(text: string, matchers: readonly EncodedMatcher[], replacement: string): string {
  let out = text;
  for (const m of matchers) {
    if (m.anchor !== '' && !out.includes(m.anchor)) continue;
    const spans: Array<[number, number]> = [];
    const inNumber = numberTest(out);
    let floor = 0;
    m.pattern.lastIndex = 0;
    for (let found = m.pattern.exec(out); found; found = m.pattern.exec(out)) {
      const [from, to] =
        m.kind === 'token'
          ? base64Run(out, found.index, m.pattern.lastIndex, floor)
          : [found.index, m.pattern.lastIndex];
      m.pattern.lastIndex = floor = to;
      if (!(m.kind === 'token' ? NUMBER_LIKE.test(out.slice(from, to)) : inNumber(from, to))) spans.push([from, to]);
    }
    out = replaceSpans(out, spans, replacement);
  }
  return out;
}

function replaceSpans(text: string, spans: ReadonlyArray<[number, number]>, replacement: string): string {
  if (spans.length === 0) return text;
  let out = '';
  let kept = 0;
  for (const [from, to] of spans) [out, kept] = [out + text.slice(kept, from) + replacement, to];
  return out + text.slice(kept);
}

const NUMBER_LIKE = /^[\d.+\-eE]+$/;

/** After a run's end: more base64 characters in the forms base64CharRe allows, then padding (as it is or percent-encoded). */
const BASE64_RUN_END = /(?:[A-Za-z0-9+/_-]|%(?:25)?2[bBfF]|\\+\/)*(?:=|%(?:25)?3[dD])*/y;
const BASE64_CHAR = /[A-Za-z0-9+/_-]/;
const PERCENT_BEFORE = /%(?:25)?2[bBfF]$/;

/** The run of base64 characters around text[from, to), not reaching back before `floor` (the last run's end: none is read twice). */
function base64Run(text: string, from: number, to: number, floor: number): [number, number] {
  let start = from;
  while (start > floor) {
    if (BASE64_CHAR.test(text[start - 1])) start--;
    else if (text[start] === '/' && text[start - 1] === '\\') while (text[start - 1] === '\\') start--;
    else {
      const percent = PERCENT_BEFORE.exec(text.slice(Math.max(floor, start - 5), start));
      if (!percent) break;
      start -= percent[0].length;
    }
  }
  BASE64_RUN_END.lastIndex = to;
  BASE64_RUN_END.exec(text);
  return [start, BASE64_RUN_END.lastIndex];
}

/**
 * Whether hex matched at text[from, to) is made of digits only inside a run of hex digits and a
 * number's . + - that is one: a number's digits. Matches come in order, so a run is read once, its
 * verdict kept for the next match in it (a run of the hex repeated is read once, not once a match).
 */
function numberTest(text: string): (from: number, to: number) => boolean {
  let run = { end: -1, numberLike: false };
  return (from, to) => {
    if (!/^\d+$/.test(text.slice(from, to))) return false;
    if (from < run.end) return run.numberLike;
    let [start, end] = [from, to];
    while (start > 0 && HEX_OR_NUMBER.test(text[start - 1])) start--;
    while (end < text.length && HEX_OR_NUMBER.test(text[end])) end++;
    run = { end, numberLike: NUMBER_LIKE.test(text.slice(start, end)) };
    return run.numberLike;
  };
}

const HEX_OR_NUMBER = /[\da-fA-F.+-]/;

/**
 * Up to 6 letters or digits of a form that every occurrence of it holds as they are, starting with
 * a rare character where it can: V8 searches a needle under 7 characters by its first one (memchr),
 * a longer one by Boyer-Moore-Horspool, 2 to 10 times slower on k6's JSON output here. Rarest
 * first: an upper-case letter but T and Z (in every ISO time), then lower-case ones by English
 * letter frequency, then digits; a needle starting with `a` took 40 times one starting with `A`.
 */
export function anchorOf(value: string): string {
  let best = '';
  let bestScore = -1;
  for (const letters of value.match(/[A-Za-z0-9]+/g) ?? []) {
    const n = Math.min(ANCHOR_CHARS, letters.length);
    for (let i = 0; i + n <= letters.length; i++) {
      const score = n * 100 + rarity(letters[i]);
      if (score > bestScore) [best, bestScore] = [letters.slice(i, i + n), score];
    }
  }
  return best;
}

const ANCHOR_CHARS = 6;
const COMMON_FIRST = 'etaoinsrhldcumwfgypbvkjxqz';

function rarity(c: string): number {
  if (/[A-SU-Y]/.test(c)) return 60;
  if (/[a-z]/.test(c)) return 30 + COMMON_FIRST.indexOf(c);
  return /[TZ]/.test(c) ? 30 : 0;
}
