/**
 * Data sources as plain values: an RFC 4180 CSV parser (a header row names the fields) and the row
 * an arrival gets by the source's order. Pure, no Node API: the native engine and the k6 bundle
 * (SharedArray, opened in k6's init context) use this same file, so both pick the same rows.
 */
import type { DataOrder, Row } from './types.ts';

/** A CSV or JSON source that cannot be used, with the 1-based line it is on (0 when the file as a whole). */
export class DataError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
  }
}

const QUOTE = 34;
const COMMA = 44;
const LF = 10;
const CR = 13;

/** How many line feeds text[from..to) holds. */
function lineFeeds(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = text.indexOf('\n', from); i !== -1 && i < to; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/**
 * Parses CSV text: fields separated by commas, records by CRLF or LF, a field in double quotes may
 * hold commas, line breaks and doubled quotes. The first record names the fields; every record
 * must have as many fields (a ragged row is a DataError naming its line). A final line break and
 * a UTF-8 byte-order mark are allowed. Fields are slices of `text`, never built a character at a
 * time (which kept 16 x a file's size and took 13 s for 95 MiB: scripts/bench/data-load.ts). The
 * first problem in the file is the one named.
 */
export function parseCsv(text: string): Row[] {
  const n = text.length;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  let header: string[] | null = null;
  let headerLine = 1;
  const rows: Row[] = [];
  const fields: string[] = [];
  while (i < n) {
    const recordLine = line;
    fields.length = 0;
    for (;;) {
      if (text.charCodeAt(i) === QUOTE) {
        const start = line;
        let field = '';
        i++;
        for (;;) {
          const q = text.indexOf('"', i);
          if (q === -1) throw new DataError('a quoted field is never closed', start);
          line += lineFeeds(text, i, q);
          const doubled = text.charCodeAt(q + 1) === QUOTE;
          field += text.slice(i, doubled ? q + 1 : q);
          i = q + (doubled ? 2 : 1);
          if (!doubled) break;
        }
        const c = text.charCodeAt(i);
        if (i < n && c !== COMMA && c !== LF && c !== CR)
          throw new DataError('a quoted field is followed by text before its comma', line);
        fields.push(field);
      } else {
        const start = i;
        for (; i < n; i++) {
          const c = text.charCodeAt(i);
          if (c === COMMA || c === LF || c === CR) break;
          if (c === QUOTE) throw new DataError('a double quote inside an unquoted field (quote the whole field)', line);
        }
        fields.push(text.slice(start, i));
      }
      if (i >= n) break;
      const c = text.charCodeAt(i);
      if (c === COMMA) {
        i++;
        continue;
      }
      i += c === CR && text.charCodeAt(i + 1) === LF ? 2 : 1;
      line++;
      break;
    }
    if (header === null) {
      header = headerOf(fields, recordLine);
      headerLine = recordLine;
    } else if (fields.length !== 1 || fields[0] !== '') {
      if (fields.length !== header.length)
        throw new DataError(`the row has ${fields.length} fields, the header ${header.length}`, recordLine);
      const row: Row = {};
      for (let k = 0; k < header.length; k++) row[header[k]] = fields[k];
      rows.push(row);
    } // else a blank line
  }
  if (header === null) throw new DataError('the file is empty: it needs a header row and at least one row', 1);
  if (rows.length === 0) throw new DataError('the file has a header row but no rows', headerLine);
  return rows;
}

/** The header row's names, trimmed: none empty, none twice. */
function headerOf(fields: readonly string[], line: number): string[] {
  const header = fields.map((f) => f.trim());
  const seen = new Set<string>();
  for (const h of header) {
    if (h === '') throw new DataError('the header row has an empty field name', line);
    if (seen.has(h)) throw new DataError(`the header row names "${h}" twice`, line);
    seen.add(h);
  }
  return header;
}

/** A JSON array of objects, checked. */
export function parseJsonRows(text: string): Row[] {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    throw new DataError(`is not JSON: ${(err as Error).message}`, 0);
  }
  if (!Array.isArray(v)) throw new DataError(`must be a JSON array of objects, got ${typeof v}`, 0);
  if (v.length === 0) throw new DataError('is an empty array: it needs at least one object', 0);
  const bad = v.findIndex((x) => x === null || typeof x !== 'object' || Array.isArray(x));
  if (bad >= 0) throw new DataError(`element ${bad} is not an object`, 0);
  return v as Row[];
}

/** FNV-1a of the run id: the seed of the random order, so a run's picks are reproducible from its id. */
export function seedOf(runId: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < runId.length; i++) h = Math.imul(h ^ runId.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** A 32-bit mix of seed and seq (murmur3's finaliser): uniform enough to draw rows. */
function mix32(seed: number, seq: number): number {
  let h = (seed ^ Math.imul(seq, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
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
