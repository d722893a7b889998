/**
 * k6 timestamps to epoch milliseconds (a float, sub-millisecond digits kept). JSON output writes
 * Go's RFC 3339 with 0-9 fractional digits and the k6 machine's offset (`Z`, `-03:00`, `+05:30`);
 * CSV writes the same (rfc3339, rfc3339_nano) or a Unix count in s, ms, µs or ns.
 * Parsing is on the hot path of ingest (one call per sample), so the whole-second part of each
 * distinct `YYYY-MM-DDTHH:MM:SS<offset>` is computed once and cached.
 */

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

let cachedHead = '';
let cachedZone = '';
let cachedSecondMs = 0;

/** Epoch ms of the RFC 3339 time in s[from, to) (all of s by default), or NaN when it is not one. */
export function parseRfc3339Ms(s: string, from = 0, to = s.length): number {
  const dot = s.charCodeAt(from + 19) === 46 /* . */;
  let fracEnd = from + 19;
  if (dot) { fracEnd++; while (fracEnd < to && isDigit(s.charCodeAt(fracEnd))) fracEnd++; }
  const zoneLength = to - fracEnd;
  // the cache hit costs two comparisons and no allocation (one k6 file has few distinct seconds)
  if (!(zoneLength === cachedZone.length && s.startsWith(cachedHead, from) && s.startsWith(cachedZone, fracEnd))) {
    const text = s.slice(from, to);
    const m = RFC3339.exec(text);
    if (!m) return NaN;
    const [, y, mo, d, h, mi, sec, , zone] = m;
    let offsetMin = 0;
    if (zone !== 'Z' && zone !== 'z') {
      offsetMin = (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6))) * (zone[0] === '-' ? -1 : 1);
    }
    cachedSecondMs = Date.UTC(+y, +mo - 1, +d, +h, +mi, +sec) - offsetMin * 60_000;
    cachedHead = text.slice(0, 19);
    cachedZone = zone;
  }
  return dot ? cachedSecondMs + fractionMs(s, from + 20, fracEnd) : cachedSecondMs;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** Digits s[from, to) read as the fraction of a second after the dot, in ms. */
function fractionMs(s: string, from: number, to: number): number {
  let v = 0;
  let scale = 1000;
  for (let i = from; i < to; i++) {
    scale /= 10;
    v += (s.charCodeAt(i) - 48) * scale;
  }
  return v;
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
