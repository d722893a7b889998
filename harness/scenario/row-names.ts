/**
 * A request name built from a data row's text (`user ${row.name}`): preflight's sample arrivals
 * know the rows they read, so a name that holds one of those rows' values, from a column of more
 * distinct values than a run may give names of one kind (MAX_NAMES_OF_A_SHAPE), is refused before
 * load. names.ts catches names built from numbers; this catches the ones built from words, which
 * the load otherwise refused only once 100 names had appeared. A column of a few values (a tier,
 * a region) may name requests: its names stay few. Pure: no I/O.
 */
import { rowAt, type Rows } from './csv-rows.ts';
import type { LoadedSource } from './context.ts';
import { MAX_NAMES_OF_A_SHAPE } from './names.ts';
import type { Row } from './types.ts';

/** A row a sample arrival read, and from which source. */
export interface RowRead {
  source: string;
  row: Row;
}

export interface NameFromRow {
  name: string;
  source: string;
  file: string;
  column: string;
  value: string;
  /** Distinct values of the column, counted up to MAX_NAMES_OF_A_SHAPE + 1 (so "more than"). */
  distinct: number;
}

/** Shorter values ('a', 'eu') are too likely to be part of a fixed name by chance. */
const MIN_VALUE_CHARS = 3;

/** `value` stands in `name` as a whole (not inside a longer word: 'order' is not in 'orders'). */
export function holdsValue(name: string, value: string): boolean {
  const word = /[\p{L}\p{N}_]/u;
  for (let at = name.indexOf(value); at !== -1; at = name.indexOf(value, at + 1)) {
    const before = at === 0 ? '' : name[at - 1];
    const after = name[at + value.length] ?? '';
    if (!word.test(before) && !word.test(after)) return true;
  }
  return false;
}

/** Distinct text values of `column` among `rows`, counted up to `limit` (where the count stops). */
export function distinctValues(rows: Rows, column: string, limit: number): number {
  const seen = new Set<string>();
  for (let i = 0; i < rows.length; i++) {
    const v = rowAt(rows, i)?.[column];
    if (typeof v === 'string') seen.add(v);
    if (seen.size >= limit) break;
  }
  return seen.size;
}

/**
 * The first of `names` that holds a text value (3 or more characters, with a letter) of a row in
 * `reads`, from a column of more than MAX_NAMES_OF_A_SHAPE distinct values in its source; null
 * when there is none.
 */
export function nameFromRow(
  names: readonly string[],
  reads: readonly RowRead[],
  data: Readonly<Record<string, LoadedSource>>,
): NameFromRow | null {
  for (const name of names) {
    for (const { source, row } of reads) {
      const src = data[source];
      if (!src || typeof row !== 'object' || row === null) continue;
      for (const [column, value] of Object.entries(row)) {
        if (typeof value !== 'string' || value.trim().length < MIN_VALUE_CHARS || !/\p{L}/u.test(value)) continue;
        if (!holdsValue(name, value)) continue;
        const distinct = distinctValues(src.rows, column, MAX_NAMES_OF_A_SHAPE + 1);
        if (distinct > MAX_NAMES_OF_A_SHAPE) return { name, source, file: src.file, column, value, distinct };
      }
    }
  }
  return null;
}

/** The refusal's text: the name, the value, its column and file, and why that makes too many names. */
export function nameFromRowText(transaction: string, n: NameFromRow): string {
  return `transaction "${transaction}" named a request "${n.name}", which holds "${n.value}" of column "${n.column}" of the row it read from ${n.file} (data source "${n.source}"), a column of more than ${MAX_NAMES_OF_A_SHAPE} distinct values: the name is built from data, and the run would have one per value`;
}
