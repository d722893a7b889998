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

/**
 * Parses CSV text: fields separated by commas, records by CRLF or LF, a field in double quotes may
 * hold commas, line breaks and doubled quotes. The first record names the fields; every record
 * must have as many fields (a ragged row is a DataError naming its line). A final line break and
 * a UTF-8 byte-order mark are allowed.
 */
export function parseCsv(text: string): Row[] {
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  const records: { fields: string[]; line: number }[] = [];
  let fields: string[] = [];
  let recordLine = 1;
  let field = '';
  const endField = () => {
    fields.push(field);
    field = '';
  };
  const endRecord = () => {
    endField();
    records.push({ fields, line: recordLine });
    fields = [];
  };
  const n = text.length;
  while (i < n) {
    const c = text[i];
    if (c === '"' && field === '') {
      const start = line;
      i++;
      for (;;) {
        if (i >= n) throw new DataError('a quoted field is never closed', start);
        const q = text[i];
        if (q === '"') {
          if (text[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        if (q === '\n') line++;
        field += q;
        i++;
      }
      const next = text[i];
      if (i < n && next !== ',' && next !== '\n' && next !== '\r') {
        throw new DataError('a quoted field is followed by text before its comma', line);
      }
      continue;
    }
    if (c === ',') {
      endField();
      i++;
      continue;
    }
    if (c === '\r' || c === '\n') {
      endRecord();
      i += c === '\r' && text[i + 1] === '\n' ? 2 : 1;
      line++;
      recordLine = line;
      continue;
    }
    if (c === '"') throw new DataError('a double quote inside an unquoted field (quote the whole field)', line);
    field += c;
    i++;
  }
  if (field !== '' || fields.length > 0) endRecord();
  if (records.length === 0) throw new DataError('the file is empty: it needs a header row and at least one row', 1);
  const header = records[0].fields.map((f) => f.trim());
  const seen = new Set<string>();
  for (const h of header) {
    if (h === '') throw new DataError('the header row has an empty field name', records[0].line);
    if (seen.has(h)) throw new DataError(`the header row names "${h}" twice`, records[0].line);
    seen.add(h);
  }
  const rows: Row[] = [];
  for (const r of records.slice(1)) {
    if (r.fields.length === 1 && r.fields[0] === '') continue; // a blank line
    if (r.fields.length !== header.length) {
      throw new DataError(`the row has ${r.fields.length} fields, the header ${header.length}`, r.line);
    }
    const row: Row = {};
    for (let k = 0; k < header.length; k++) row[header[k]] = r.fields[k];
    rows.push(row);
  }
  if (rows.length === 0) throw new DataError('the file has a header row but no rows', records[0].line);
  return rows;
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
