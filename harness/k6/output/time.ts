/**
 * k6 timestamps to epoch milliseconds (a float, sub-millisecond digits kept). JSON output writes
 * Go's RFC 3339 with 0-9 fractional digits and the k6 machine's offset (`Z`, `-03:00`, `+05:30`);
 * CSV writes the same (rfc3339, rfc3339_nano) or a Unix count in s, ms, µs or ns.
 * Parsing is on the hot path of ingest (one call per sample), so the whole-second part of each
 * distinct `YYYY-MM-DDTHH:MM:SS<offset>` is computed once and cached, and so is the last time.
 */

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** 10^k, exact for every k used (fractions have at most 9 digits here, 22 is the exact limit). */
const POW10 = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];

// Two caches, both compared with `===` on a slice (a flat compare; String#startsWith with a
// position costs several times more in V8): the whole last time (k6 stamps the nine samples of a
// request with one time), and the whole-second part of the last `YYYY-MM-DDTHH:MM:SS` + zone.
let lastText = '';
let lastMs = NaN;
let cachedHead = '';
let cachedZone = '';
let cachedSecondMs = 0;

/** Epoch ms of the RFC 3339 time in s[from, to) (all of s by default), or NaN when it is not one. */
export function parseRfc3339Ms(s: string, from = 0, to = s.length): number {
  const text = s.slice(from, to);
  if (text === lastText) return lastMs;
  // a slice of a line keeps the line's text alive: one at a time here
  lastText = text;
  lastMs = parseText(text);
  return lastMs;
}

function parseText(text: string): number {
  let fracEnd = 19;
  let frac = 0;
  if (text.charCodeAt(19) === 46 /* . */) {
    // the fraction read as an integer (exact up to 15 digits) and divided once by 10^digits
    let n = 0;
    for (fracEnd = 20; fracEnd < text.length; fracEnd++) {
      const c = text.charCodeAt(fracEnd) - 48;
      if (c < 0 || c > 9) break;
      n = n * 10 + c;
    }
    const digits = fracEnd - 20;
    if (digits === 0) return NaN;
    frac = digits <= 15 ? (n * 1000) / POW10[digits] : Number(text.slice(19, fracEnd)) * 1000;
  }
  if ((text.slice(0, 19) !== cachedHead || text.slice(fracEnd) !== cachedZone) && !cacheSecond(text)) return NaN;
  return cachedSecondMs + frac;
}

/** Checks the whole text against RFC 3339 and caches its whole second and zone; false if it is not one. */
function cacheSecond(text: string): boolean {
  const m = RFC3339.exec(text);
  if (!m) return false;
  const [, y, mo, d, h, mi, sec, , zone] = m;
  let offsetMin = 0;
  if (zone !== 'Z' && zone !== 'z') {
    offsetMin = (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6))) * (zone[0] === '-' ? -1 : 1);
  }
  cachedSecondMs = Date.UTC(+y, +mo - 1, +d, +h, +mi, +sec) - offsetMin * 60_000;
  cachedHead = text.slice(0, 19);
  cachedZone = zone;
  return true;
}

/**
 * A CSV `timestamp` cell to epoch ms: RFC 3339 text, or a Unix count whose unit follows from its
 * size (k6's timeFormat unix / unix_milli / unix_micro / unix_nano; any date after 1973 tells them
 * apart). unix_nano exceeds 2^53, so it is split as text rather than read as one number.
 */
export function parseCsvTimeMs(s: string): number {
  if (s.length > 10 && s.charCodeAt(4) === 45 /* - */) return parseRfc3339Ms(s);
  if (!/^\d+$/.test(s)) return NaN;
  if (s.length <= 11) return Number(s) * 1000;
  if (s.length <= 14) return Number(s);
  if (s.length <= 17) return Number(s) / 1000;
  return Number(s.slice(0, -6)) + Number(s.slice(-6)) / 1e6;
}
