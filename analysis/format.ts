/**
 * Number formatting shared by analysis texts (reasons, warnings) and the renderers, so every
 * output writes the same figure the same way: rates with 1 decimal, ratios with 2, ms with 3
 * significant digits, counts with thousands separators. Pure and locale-independent.
 */
import type { RateUnit } from './types/plan.ts';

const DASH = '–';

/** Groups the integer part with commas: "1234567.8" -> "1,234,567.8". */
function groupThousands(fixed: string): string {
  const [int, frac] = fixed.split('.');
  const sign = int.startsWith('-') ? '-' : '';
  const digits = sign ? int.slice(1) : int;
  const grouped = digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return sign + grouped + (frac !== undefined ? `.${frac}` : '');
}

/** Strings in code-point order (not the locale's), as every output lists names: a stable file on any machine. */
export const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** A count: 4512 -> "4,512". */
export function fmtInt(n: number): string {
  return groupThousands(Math.round(n).toFixed(0));
}

/** Requests per iteration above which an imported k6 run's arrivals are not its requests. */
const SEVERAL_PER_ARRIVAL = 1.01;

/**
 * The rate unit of a run's traffic (run.json `traffic`): arrivals/s when an entry is a transaction
 * or an imported k6 iteration sent several requests; req/s otherwise, and when it has none (an
 * older run).
 */
export function rateUnitOf(
  traffic:
    { entries: readonly { transaction: boolean }[]; iterations?: { requestsPerArrival: number } } | null | undefined,
): RateUnit {
  if (!traffic) return 'req/s';
  const several = (traffic.iterations?.requestsPerArrival ?? 1) > SEVERAL_PER_ARRIVAL;
  return several || traffic.entries.some((e) => e.transaction) ? 'arrivals/s' : 'req/s';
}

/** Each mix entry with its share of the arrivals: its weight over the weights' sum (0 when they sum to none). */
export function withShares<T extends { weight: number }>(entries: readonly T[]): (T & { share: number })[] {
  const sum = entries.reduce((a, e) => a + e.weight, 0);
  return entries.map((e) => ({ ...e, share: sum > 0 ? e.weight / sum : 0 }));
}

/**
 * The unit of rates two runs share (compare, gate): arrivals/s when either's traffic has a
 * transaction, since an arrival of the other is its one request; req/s when both send one each.
 */
export function sharedRateUnit(a: Parameters<typeof rateUnitOf>[0], b: Parameters<typeof rateUnitOf>[0]): RateUnit {
  return rateUnitOf(a) === 'arrivals/s' ? 'arrivals/s' : rateUnitOf(b);
}

/** The unit the decision texts of a run give rates in: its rules' (set from its traffic), req/s by default. */
export function unitOf(rules: { rateUnit?: RateUnit } | null | undefined): RateUnit {
  return rules?.rateUnit ?? 'req/s';
}

/** What the unit counts, for "of completed ... failed": requests, or arrivals (each a transaction or a request). */
export function unitCounts(unit: RateUnit): 'requests' | 'arrivals' {
  return unit === 'arrivals/s' ? 'arrivals' : 'requests';
}

/** A rate with 1 decimal: 205.06 -> "205.1". */
export function fmtRate(perSec: number): string {
  return groupThousands(perSec.toFixed(1));
}

/** An offered rate: integers as integers ("250"), otherwise 1 decimal. */
export function fmtTarget(perSec: number): string {
  return Number.isInteger(perSec) ? fmtInt(perSec) : fmtRate(perSec);
}

/** A signed rate: "+15.5", "-3.0". */
export function fmtSignedRate(perSec: number): string {
  return (perSec >= 0 ? '+' : '') + fmtRate(perSec);
}

/** A signed offered-rate difference: "+50". */
export function fmtSignedTarget(perSec: number): string {
  return (perSec >= 0 ? '+' : '') + fmtTarget(perSec);
}

/** "-0.00" (a capture of -0.004: throughput fell by a hair) reads as "0.00". */
function unsignedZero(text: string): string {
  return /^-0\.0*$/.test(text) ? text.slice(1) : text;
}

/** A ratio with 2 decimals ("0.82"); "–" when null. */
export function fmtRatio(x: number | null): string {
  return x === null ? DASH : unsignedZero(x.toFixed(2));
}

/**
 * A ratio that failed a bound ("x < bound"), with as many decimals (2 to 4) as it takes not to read
 * as the bound itself: 0.8968 against 0.90 is "0.897", never "0.90 < 0.90". Closer still, it is
 * cut (not rounded) to 4 decimals: 0.89996 is "0.8999".
 */
export function fmtRatioBelow(x: number, bound: number): string {
  const d = firstDistinct(x, bound, [2, 3]);
  if (d !== null) return unsignedZero(x.toFixed(d));
  const s = x.toFixed(8);
  return s.slice(0, s.indexOf('.') + 5);
}

/** The fewest decimals (of `digits`) at which x and its bound no longer print the same; null if none. */
function firstDistinct(x: number, bound: number, digits: readonly number[]): number | null {
  return digits.find((d) => x.toFixed(d) !== bound.toFixed(d)) ?? null;
}

/** Milliseconds to 3 significant digits: 12.34 -> "12.3", 1.2 -> "1.20", 1234 -> "1,230"; "–" when null. */
export function fmtMs(ms: number | null): string {
  if (ms === null) return DASH;
  if (ms === 0) return '0';
  const rounded = Number(ms.toPrecision(3));
  return Math.abs(rounded) >= 1000 ? fmtInt(rounded) : ms.toPrecision(3);
}

/** ms over its bound, never printed equal to it: 10.04 against 10 reads "10.04", not "10.0". */
export function fmtMsOver(ms: number, bound: number): string {
  const plain = fmtMs(ms);
  if (Number(plain.replace(/,/g, '')) > bound) return plain;
  return ms.toFixed(firstDistinct(ms, bound, [1, 2, 3]) ?? 3);
}

/**
 * A length (ms) in seconds that is longer than a bound (s), never printed equal to it: a tenth where
 * that tells them apart, else the decimals it takes (3,040 ms over 3 s reads "3.04", not "3.0").
 */
export function fmtSecondsOver(ms: number, boundS: number): string {
  const s = ms / 1000;
  const digits = firstDistinct(s, boundS, [1, 2, 3]);
  return digits !== null ? s.toFixed(digits) : (Math.ceil(s * 1000) / 1000).toFixed(3);
}

/** A fraction as a percentage with 2 decimals: 0.0123 -> "1.23%". */
export function fmtPercent(fraction: number): string {
  return `${(fraction * 100).toFixed(2)}%`;
}

/** A share (0..1) as a whole percentage: 0.412 -> "41%"; "–" when null or absent. */
export function fmtShare(x: number | null | undefined): string {
  return x == null ? DASH : `${Math.round(x * 100)}%`;
}

/** A mix entry's share: whole percents where it is one, else to a tenth ("70%", "3.6%": not "4%"). */
export function fmtMixShare(share: number): string {
  const tenths = Math.round(share * 1000) / 10;
  return `${Number.isInteger(tenths) ? tenths.toFixed(0) : tenths.toFixed(1)}%`;
}

/**
 * A share over its bound as a percentage with as many decimals (0 to 2) as it takes not to read as
 * the bound itself: 0.903 against 0.9 is "90.3%", never "90% > 90%".
 */
export function fmtShareOver(x: number, bound: number): string {
  return `${(x * 100).toFixed(firstDistinct(x * 100, bound * 100, [0, 1]) ?? 2)}%`;
}

/**
 * A share of counted things as a percentage (a tenth under 10%, whole above; at least `minDigits`
 * decimals where given) with the decimals it takes not to read as all of them when some are
 * missing, nor as none when some are there: 958 of 961 is "99.7%", never "100%"; 1 of 100,000 is
 * "0.001%", never "0.0%".
 */
export function fmtCountShare(x: number, minDigits?: number): string {
  const d = minDigits ?? (x < 0.1 ? 1 : 0);
  if (x >= 1 || x <= 0) return `${(x * 100).toFixed(d)}%`;
  const digits = [d, 1, 2, 3].find(
    (k) => k >= d && (x * 100).toFixed(k) !== (100).toFixed(k) && Number((x * 100).toFixed(k)) > 0,
  );
  if (digits !== undefined) return `${(x * 100).toFixed(digits)}%`;
  // closer to all (or none) than 3 decimals tell: cut toward the truth, not rounded
  return `${((x > 0.5 ? Math.floor(x * 100_000) : Math.ceil(x * 100_000)) / 1000).toFixed(3)}%`;
}

/** `text` cut to at most `max` characters at a word, with an ellipsis where it was cut. */
export function quoted(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const word = cut.lastIndexOf(' ');
  return `${(word > max / 2 ? cut.slice(0, word) : cut).trimEnd()}…`;
}

/**
 * `text` cut to `max` characters in its middle, the start and the end kept around an ellipsis: for
 * names that share a start and differ at their end (k6 names an unnamed request by its URL:
 * ".../orders/search" and ".../orders/summary" both began "http://orders-service.inter…").
 */
export function cutMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = Math.ceil((max - 1) * 0.4);
  return `${text.slice(0, head)}…${text.slice(text.length - (max - 1 - head))}`;
}

/** Steps are numbered from 1 for people ("step 1" is index 0, as the CLI prints); JSON keeps the 0-based index. */
export function stepNo(index: number): number {
  return index + 1;
}

/** A step (0-based index) and its attempt, as the reports name it: "step 6", "step 6 (attempt 2)". */
export function stepText(index: number, attempt = 1): string {
  return `step ${stepNo(index)}${attempt > 1 ? ` (attempt ${attempt})` : ''}`;
}

/** "1", "1 and 3", "1-4, 6 and 8": step numbers (0-based indices in), runs of three or more joined. */
export function stepList(indices: readonly number[]): string {
  const nos = [...new Set(indices)].sort((a, b) => a - b).map(stepNo);
  const parts: string[] = [];
  for (let i = 0; i < nos.length;) {
    let j = i;
    while (j + 1 < nos.length && nos[j + 1] === nos[j] + 1) j++;
    if (j - i >= 2) parts.push(`${nos[i]}-${nos[j]}`);
    else for (let k = i; k <= j; k++) parts.push(String(nos[k]));
    i = j + 1;
  }
  return parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}` : (parts[0] ?? '');
}
