/**
 * A CSV data source (RFC 4180): fields separated by commas, records by CRLF or LF, a field in
 * double quotes may hold commas, line breaks and doubled quotes. The first record names the fields;
 * every record must have as many fields (a ragged row is a DataError naming its line). A final line
 * break and a UTF-8 byte-order mark are allowed. The first problem in the file is the one named.
 *
 * The file is checked whole when loaded, but its rows are kept as the text and where each record
 * starts, and a row object is made when an arrival asks for it (CsvRows.at): one object per row
 * kept 3.8 x a file's size on the heap of every engine thread and took 2.5 s for 95 MiB
 * (docs/performance.md, "Data files at size"). Pure, no Node API: the k6 bundle parses with it too.
 */
import type { Row } from './types.ts';
import { fmtInt } from '../../analysis/format.ts';
import { DataError } from './data-rows.ts';

const RAGGED_FIX =
  'give the CSV a header row and the same number of fields on every row (RFC 4180: quote fields with commas)';

const QUOTE = 34;
const COMMA = 44;
const LF = 10;
const CR = 13;

/** Where a read is: the offset in the text and the 1-based line it is on. */
interface Cursor {
  i: number;
  line: number;
}

/** How many line feeds text[from..to) holds. */
function lineFeeds(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = text.indexOf('\n', from); i !== -1 && i < to; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/**
 * Reads the record at `at`, moving it past the record's line end: its fields into `out` (sliced
 * from the text, never built a character at a time), or only counted where `out` is null. Returns
 * the number of fields, 0 for a blank line (a record of one quoted empty field, "", is a row).
 */
function readRecord(text: string, at: Cursor, out: string[] | null): number {
  const n = text.length;
  let i = at.i;
  let fields = 0;
  let blank = true;
  for (;;) {
    if (text.charCodeAt(i) === QUOTE) {
      blank = false;
      const start = at.line;
      let field = '';
      i++;
      for (;;) {
        const q = text.indexOf('"', i);
        if (q === -1) throw unclosed(start);
        at.line += lineFeeds(text, i, q);
        const doubled = text.charCodeAt(q + 1) === QUOTE;
        if (out) field += text.slice(i, doubled ? q + 1 : q);
        i = q + (doubled ? 2 : 1);
        if (!doubled) break;
      }
      const c = text.charCodeAt(i);
      if (i < n && c !== COMMA && c !== LF && c !== CR)
        throw new DataError(
          'a quoted field is followed by text before its comma',
          at.line,
          'put the comma or the line end right after the closing quote, and double a quote meant inside the field ("a""b")',
        );
      out?.push(field);
    } else {
      const start = i;
      for (; i < n; i++) {
        const c = text.charCodeAt(i);
        if (c === COMMA || c === LF || c === CR) break;
        if (c === QUOTE) throw quoteInside(text.slice(start, i), fields + 1, at.line);
      }
      if (i > start) blank = false;
      out?.push(text.slice(start, i));
    }
    fields++;
    if (i >= n) break;
    const c = text.charCodeAt(i);
    if (c === COMMA) {
      blank = false;
      i++;
      continue;
    }
    i += c === CR && text.charCodeAt(i + 1) === LF ? 2 : 1;
    at.line++;
    break;
  }
  at.i = i;
  return blank ? 0 : fields;
}

/** A CSV's rows, read from its text on demand; each row frozen, a new object each time it is asked for. */
export class CsvRows {
  private constructor(
    private readonly text: string,
    readonly columns: readonly string[],
    /** Where each row's record starts in the text. */
    private readonly starts: Int32Array,
  ) {
    this.protoAt = columns.indexOf('__proto__');
  }

  /** The column named __proto__, if any: set by assignment it would set the row's prototype instead. */
  private readonly protoAt: number;

  get length(): number {
    return this.starts.length;
  }

  /** Row `i` (a negative i counts from the end, as an array's at does); undefined past the rows. */
  at(i: number): Row | undefined {
    const k = Math.trunc(i) + (i < 0 ? this.starts.length : 0);
    if (!(k >= 0 && k < this.starts.length)) return undefined;
    return Object.freeze(this.row(k));
  }

  /** Row k, not frozen (parseCsv's). */
  row(k: number): Row {
    const fields: string[] = [];
    readRecord(this.text, { i: this.starts[k], line: 0 }, fields);
    const row: Row = {};
    const columns = this.columns;
    for (let c = 0; c < columns.length; c++) {
      if (c === this.protoAt) Object.defineProperty(row, '__proto__', { ...OWN, value: fields[c] });
      else row[columns[c]] = fields[c];
    }
    return row;
  }

  /** Checks the whole of `text` (the first problem is thrown) and notes where each row starts. */
  static of(text: string): CsvRows {
    const at: Cursor = { i: text.charCodeAt(0) === 0xfeff ? 1 : 0, line: 1 };
    let header: string[] | null = null;
    let headerLine = 1;
    let starts = new Int32Array(Math.max(16, text.length >> 6));
    let count = 0;
    while (at.i < text.length) {
      const line = at.line;
      const start = at.i;
      if (header === null) {
        const fields: string[] = [];
        readRecord(text, at, fields);
        header = headerOf(fields, line);
        headerLine = line;
        continue;
      }
      const fields = readRecord(text, at, null);
      if (fields === 0) continue; // a blank line
      if (fields !== header.length)
        throw new DataError(
          `the row has ${fmtInt(fields)} ${fields === 1 ? 'field' : 'fields'}, the header ${fmtInt(header.length)}`,
          line,
          RAGGED_FIX,
        );
      if (count === starts.length) {
        const more = new Int32Array(starts.length * 2);
        more.set(starts);
        starts = more;
      }
      starts[count++] = start;
    }
    if (header === null)
      throw new DataError('the file is empty', 1, 'add a header row naming the columns, and rows below it');
    if (count === 0)
      throw new DataError('the file has a header row but no rows', headerLine, 'add rows below the header row');
    return new CsvRows(text, Object.freeze(header), starts.slice(0, count));
  }
}

/** A data source's rows: an array (JSON; in k6, a SharedArray), or a CSV's made on demand. */
export type Rows = ArrayLike<Row> | CsvRows;

/** Row i of `rows`; undefined past them. */
export function rowAt(rows: Rows, i: number): Row | undefined {
  return rows instanceof CsvRows ? rows.at(i) : rows[i];
}

/** Every row of CSV text, each its own object (the k6 bundle's SharedArray copies them anyway). */
export function parseCsv(text: string): Row[] {
  const rows = CsvRows.of(text);
  return Array.from({ length: rows.length }, (_, k) => rows.row(k));
}

/** An own, ordinary property. */
const OWN = { enumerable: true, writable: true, configurable: true } as const;

function unclosed(line: number): DataError {
  return new DataError(
    `the quote opened on line ${line} is never closed`,
    line,
    `close the quote opened on line ${line} (a field's closing quote comes right before its comma or line end; a quote inside the field is doubled: "")`,
  );
}

/** A quote in unquoted field number `field` (1-based), `before` being the field's text up to it. */
function quoteInside(before: string, field: number, line: number): DataError {
  if (before.trim() === '') {
    return new DataError(
      `field ${field} has ${before.length === 1 ? 'a space' : 'spaces'} before its opening quote`,
      line,
      'remove the space before the quote (a quoted field starts right after the comma)',
    );
  }
  return new DataError(
    `field ${field} holds a double quote but is not quoted`,
    line,
    'quote the whole field and double the inner quote (x"y becomes "x""y")',
  );
}

/** The header row's names, trimmed: none empty, none twice. */
function headerOf(fields: readonly string[], line: number): string[] {
  const header = fields.map((f) => f.trim());
  if (header.length === 1 && header[0] === '')
    throw new DataError(
      'the first line is blank: the header row must come first',
      line,
      'remove the blank line before the header row',
    );
  const seen = new Map<string, number>();
  for (let k = 0; k < header.length; k++) {
    const h = header[k];
    if (h === '')
      throw new DataError(
        `column ${k + 1} of the header row has no name`,
        line,
        'name every column in the header row (a comma at the end of the header makes a column with no name)',
      );
    const first = seen.get(h);
    if (first !== undefined)
      throw new DataError(
        `the header row names "${h}" twice (columns ${first + 1} and ${k + 1})`,
        line,
        `rename one of the two "${h}" columns`,
      );
    seen.set(h, k);
  }
  return header;
}
