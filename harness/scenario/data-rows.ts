/**
 * Data sources as plain values: a JSON array's rows (CSV: csv-rows.ts) and the row an arrival gets
 * by the source's order. Pure, no Node API: the native engine and the k6 bundle
 * (SharedArray, opened in k6's init context) use this same file, so both pick the same rows.
 */
import type { DataOrder, Row } from './types.ts';
import { fmtInt } from '../../analysis/format.ts';
import { elementAt, lineColumn, scanJson } from './json-where.ts';
import { valueKind } from './value-kind.ts';
import { groupSeqOf } from './mix-order.ts';

/**
 * A CSV or JSON source that cannot be used, with the 1-based line it is on (0 when the file as a
 * whole) and what to change in the file.
 */
export class DataError extends Error {
  constructor(
    message: string,
    readonly line: number,
    readonly fix: string,
  ) {
    super(message);
  }
}

const JSON_FIX = 'make the file a JSON array of objects, one a row: [{"id": 1}, {"id": 2}]';

/**
 * A JSON array of objects, checked. A UTF-8 byte-order mark before it is allowed. A syntax error
 * names its line and column, found by scanJson (V8's message gives neither, or only an offset).
 */
export function parseJsonRows(text: string): Row[] {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let v: unknown;
  try {
    v = JSON.parse(body);
  } catch (err) {
    const at = scanJson(body);
    if (!at) throw new DataError(`is not JSON: ${(err as Error).message.split('\n')[0]}`, 0, JSON_FIX);
    const { line, column } = lineColumn(body, at.index);
    throw new DataError(
      `is not JSON at column ${column}: ${at.problem}`,
      line,
      `correct the JSON at line ${line} column ${column}`,
    );
  }
  if (!Array.isArray(v)) throw new DataError(`must be a JSON array of objects, got ${valueKind(v)}`, 0, JSON_FIX);
  if (v.length === 0)
    throw new DataError('is an empty array', 0, 'add at least one object to the array (each is a row)');
  const bad = v.findIndex((x) => x === null || typeof x !== 'object' || Array.isArray(x));
  if (bad >= 0) {
    const at = elementAt(body, bad);
    throw new DataError(
      `element ${fmtInt(bad)} is ${valueKind(v[bad])}, not an object`,
      at < 0 ? 0 : lineColumn(body, at).line,
      `make element ${fmtInt(bad)} (counted from 0) an object such as {"id": 1}: each element is a row`,
    );
  }
  return v as Row[];
}

/** FNV-1a of a text (a run id, a source's seed, a pick's salt): a 32-bit seed of mix32. */
export function seedOf(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * The seed of a random source's draws: its `seed` as text (42 is '42'), else the run id. Both
 * engines call it, so the rows drawn are a function of this and the arrival's number alone: the same
 * on every thread and k6 instance; and a source given seed 'r1' draws what run r1 drew without one.
 */
export function drawSeed(runId: string, seed: string | number | undefined): number {
  return seedOf(seed === undefined ? runId : String(seed));
}

/** A 32-bit mix of seed and seq (murmur3's finaliser): uniform enough to draw rows. */
function mix32(seed: number, seq: number): number {
  let h = (seed ^ Math.imul(seq, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** The largest key space ctx.pick spreads over: its hash has 32 bits. */
export const MAX_KEY_SPACE = 2 ** 32;

/**
 * ctx.pick(keySpace, salt?): arrival `seq`'s key in 0..keySpace-1, murmur3's finaliser of seq, the
 * same on both engines and in every run. A hash whose every output bit depends on every input bit:
 * arrivals of one mix entry come every P-th arrival, and the multiplicative hash used before kept
 * seq's low bits, so an entry on every 4th arrival drew only a quarter of pick(100)'s keys.
 * Without a salt it is one hash of seq, so an arrival's picks agree: pick(24) twice is the same key,
 * pick(1000) % 100 is pick(100). A salt (a string, or a number taken as its text) seeds the hash
 * with its FNV-1a (seedOf), another spread for the same arrival, as independent as two hashes are.
 */
export function spread(seq: number, keySpace: number, salt?: string | number): number {
  if (!Number.isInteger(keySpace) || keySpace < 1 || keySpace > MAX_KEY_SPACE)
    throw new Error(
      `ctx.pick(${String(keySpace)}): the key space must be a whole number from 1 to ${MAX_KEY_SPACE} (how many objects the requests spread over)`,
    );
  if (salt === undefined) return mix32(0, seq) % keySpace;
  if (typeof salt === 'string' || (typeof salt === 'number' && Number.isFinite(salt)))
    return mix32(seedOf(String(salt)), seq) % keySpace;
  throw new Error(
    `ctx.pick(${String(keySpace)}, ${typeof salt === 'number' ? String(salt) : valueKind(salt)}): the salt must be a string or a finite number, e.g. ctx.pick(${String(keySpace)}, 'second item'): each salt gives the arrival another key`,
  );
}

/**
 * The rows of a source the load may use: a unique source keeps its last `kept` rows for
 * preflight's sample arrivals (traffic.ts sampleRowsKept), which the load then never sends again.
 */
export function usableRows(order: DataOrder, rows: number, kept: number): number {
  return order === 'unique' ? Math.max(0, rows - kept) : rows;
}

/**
 * Which of a unique source's kept rows (0-based, counted after the load's) try `tryNo` of sample
 * arrival `sampleNo` reads, `samples` being the sample arrivals (both numbers from 0): the first
 * tries take the first `samples` kept rows, each later round of tries the next `samples`, so no two
 * tries of any sample arrival send one row (a unique row goes to one arrival at most).
 */
export function sampleRowSlot(sampleNo: number, tryNo: number, samples: number): number {
  return sampleNo + tryNo * samples;
}

/** Why ctx.row(name) has no source of that name; `known`: the scenario's sources. */
export function noSuchSource(name: string, known: readonly string[]): string {
  return `ctx.row(${JSON.stringify(name)}): no data source of that name (${known.length ? `the scenario has ${known.map((k) => JSON.stringify(k)).join(', ')}` : 'the scenario declares no `data`'})`;
}

/**
 * Why arrival seq found no row of a unique source (its `usable` rows given to earlier arrivals);
 * `reader`: its number among the arrivals of the source's readBy, when it has one.
 */
export function noRowLeft(name: string, file: string, usable: number, seq: number, reader?: number): string {
  const which = reader === undefined ? '' : ` (reader ${fmtInt(reader)} of it)`;
  return `data source "${name}" (${file}) has ${fmtInt(usable)} rows for the load and order 'unique': arrival ${fmtInt(seq)}${which} has none left; add rows or use order 'sequential'`;
}

/** Why an entry that its readBy does not list read a unique source (the arrival fails, kind other). */
export function notAReader(name: string, entry: string, readBy: readonly string[]): string {
  return `${notAReaderProblem(name, entry, readBy)}; ${notAReaderFix(name, entry)}`;
}

/** notAReader's problem alone. */
export function notAReaderProblem(name: string, entry: string, readBy: readonly string[]): string {
  return `ctx.row(${JSON.stringify(name)}) in entry "${entry}": the source's readBy lists ${readBy.map((n) => JSON.stringify(n)).join(', ')}, whose arrivals alone take its rows`;
}

/** notAReader's fix alone. */
export function notAReaderFix(name: string, entry: string): string {
  const field = /^[A-Za-z_$][\w$]*$/.test(name) ? `.${name}` : `[${JSON.stringify(name)}]`;
  return `add "${entry}" to data${field}.readBy, or read the source only in the entries it lists`;
}

/**
 * A unique source's row number for arrival seq among its readers' arrivals (1-based): the entries
 * `readBy` lists of the mix's `names`, `entryOf` the entry of each arrival, `rank` its ranks in the
 * period (mix-order.ts groupRanksOf) and `perPeriod` their arrivals in a period. Throws notAReader
 * for an arrival of another entry. Both engines use it, so both give an arrival the same row.
 */
export function readerSeqOf(
  name: string,
  readBy: readonly string[],
  names: readonly string[],
  entryOf: (seq: number) => number,
  rank: ArrayLike<number>,
  perPeriod: number,
): (seq: number) => number {
  const inGroup = names.map((n) => readBy.includes(n));
  return (seq) => {
    const e = entryOf(seq);
    if (!inGroup[e]) throw new Error(notAReader(name, names[e], readBy));
    return groupSeqOf(perPeriod, rank, seq);
  };
}

/**
 * The 0-based row of arrival seq in a source, as both engines pick it: a sequential source by the
 * arrival's number among its entry's (`entrySeq`), so each entry walks every row in turn; a unique
 * one with a readBy among its readers' arrivals (`readerOf`, data-rows.ts readerSeqOf, which
 * refuses another entry's arrival); else by seq. Throws noRowLeft once a unique source's rows are used up.
 */
export function pickRow(
  name: string,
  src: { readonly file: string; readonly order: DataOrder; readonly usable: number },
  seq: number,
  seed: number,
  entrySeq: (seq: number) => number,
  readerOf: ((seq: number) => number) | undefined,
): number {
  const reader = readerOf ? readerOf(seq) : undefined;
  const i = rowIndex(src.order, src.order === 'sequential' ? entrySeq(seq) : (reader ?? seq), src.usable, seed);
  if (i === null) throw new Error(noRowLeft(name, src.file, src.usable, seq, reader));
  return i;
}

/**
 * The 0-based row global arrival `seq` (1-based) gets from a source of `count` rows: sequential
 * wraps, unique never reuses a row (null once the rows are used up), random draws by seed and seq.
 */
export function rowIndex(order: DataOrder, seq: number, count: number, seed: number): number | null {
  if (order === 'unique') return seq - 1 < count ? seq - 1 : null;
  if (order === 'random') return mix32(seed, seq) % count;
  return (seq - 1) % count;
}
