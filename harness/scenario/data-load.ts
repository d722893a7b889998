/**
 * Reads a scenario's data files, once per process (each engine thread loads its own copy: one copy
 * a thread, never one a VU), resolved beside the scenario module. A missing file, a file that is
 * not UTF-8, a ragged CSV or an empty array is a PlateauError naming the file, the line and the
 * fix, before any load.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { DataSource } from './types.ts';
import type { LoadedSource } from './context.ts';
import { DataError, parseJsonRows, usableRows } from './data-rows.ts';
import { CsvRows, type Rows } from './csv-rows.ts';
import { decodeUtf8 } from './data-text.ts';
import { PlateauError, EXIT } from '../errors.ts';
import { fmtInt } from '../../analysis/format.ts';
import { readByText, rowsTaken, type Traffic } from './traffic.ts';

function dataError(file: string, line: number, cause: string, fix: string): PlateauError {
  return new PlateauError(
    `data file ${file}${line > 0 ? ` line ${line}` : ''}: ${cause}`,
    fix,
    'scenario-data-invalid',
    EXIT.preflight,
  );
}

/**
 * The fix where a file was given as the other format: a JSON array given as `csv` fails as a CSV
 * (its quotes unquoted), a CSV given as `json` as JSON; each file's own error would say to fix it.
 */
function misread(src: DataSource, text: string, name: string): string | null {
  const start = text.trimStart()[0];
  // data.accounts, or data['my-rows'] where the name is no identifier
  const key = /^[A-Za-z_$][\w$]*$/.test(name) ? `data.${name}` : `data[${JSON.stringify(name).replace(/"/g, "'")}]`;
  if ('csv' in src && (start === '[' || start === '{'))
    return `the file looks like JSON: give it as ${key} = { json: '${src.csv}' } (an array of objects)`;
  if ('json' in src && start !== undefined && start !== '[' && start !== '{' && /^[^\n]*,/.test(text.trimStart()))
    return `the file looks like CSV: give it as ${key} = { csv: '${src.json}' } (a header row, then the rows)`;
  return null;
}

/** The absolute path of a data source's file: relative paths are beside the scenario module. */
export function dataFilePath(scenarioPath: string | null, src: DataSource): string {
  const file = 'csv' in src ? src.csv : src.json;
  return path.resolve(scenarioPath ? path.dirname(scenarioPath) : process.cwd(), file);
}

/**
 * Loads every source. `kept`: the rows a unique source keeps last for preflight's sample arrivals
 * (traffic.ts sampleRowsKept), so no row the load uses is sent twice.
 */
export function loadDataSources(
  scenarioPath: string | null,
  data: Record<string, DataSource>,
  kept: number,
): Record<string, LoadedSource> {
  const out: Record<string, LoadedSource> = {};
  for (const [name, src] of Object.entries(data)) {
    const file = dataFilePath(scenarioPath, src);
    const decoded = decodeUtf8(readBytes(file, name));
    if (!('text' in decoded)) throw dataError(file, decoded.line, decoded.cause, decoded.fix);
    let rows: Rows;
    try {
      rows = 'csv' in src ? CsvRows.of(decoded.text) : parseJsonRows(decoded.text);
    } catch (err) {
      if (!(err instanceof DataError)) throw err;
      throw dataError(file, err.line, err.message, misread(src, decoded.text, name) ?? err.fix);
    }
    // a JSON row's values may be objects, which an arrival could otherwise change for every later
    // arrival that gets the row (a CSV's row is frozen as it is made)
    if (Array.isArray(rows)) deepFreeze(rows);
    const order = src.order ?? 'sequential';
    const usable = usableRows(order, rows.length, kept);
    out[name] = {
      rows: Array.isArray(rows) ? Object.freeze(rows) : rows,
      order,
      file,
      usable,
      ...(rows instanceof CsvRows ? { columns: rows.columns } : {}),
      ...(order === 'unique' && src.readBy ? { readBy: Object.freeze([...src.readBy]) } : {}),
      ...(order === 'random' && src.seed !== undefined ? { seed: src.seed } : {}),
    };
  }
  return out;
}

/** The file's bytes; a missing file or a directory is refused naming the setting to fix. */
function readBytes(file: string, name: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EISDIR') {
      throw dataError(
        file,
        0,
        'is a directory, not a file',
        `set data.${name} in the scenario to the file's path, e.g. ./rows.csv`,
      );
    }
    throw dataError(
      file,
      0,
      code === 'ENOENT' ? 'does not exist' : `cannot be read (${code ?? (err as Error).message})`,
      `create it, or fix data.${name} in the scenario (a path relative to the scenario module)`,
    );
  }
}

/**
 * Freezes a parsed JSON value and every object and array in it. Iterative, with a stack of the
 * objects still to freeze, so a file nested deeper than the call stack cannot overflow it.
 * JSON.parse makes a tree (no object twice, no cycle), so each object is met once. Its cost: about
 * 130 ms of CPU for 580,000 flat rows (68 MB), against 80 ms for freezing each row alone.
 */
function deepFreeze(root: object): void {
  const todo: object[] = [root];
  for (let o = todo.pop(); o !== undefined; o = todo.pop()) {
    Object.freeze(o);
    if (Array.isArray(o)) {
      for (const v of o) if (typeof v === 'object' && v !== null) todo.push(v);
    } else {
      for (const k in o) {
        const v = (o as Record<string, unknown>)[k];
        if (typeof v === 'object' && v !== null) todo.push(v);
      }
    }
  }
}

/**
 * Which entries of the mix read each data source, as far as can be told without sending anything
 * (sample-offline.ts sourceReaders: each request entry's sample request built offline).
 */
export interface SourceReaders {
  /** By source's name: the entries whose sample request read it. */
  readers: Record<string, readonly string[]>;
  /** The entries not looked at: a transaction (its run needs the target's answers), a request that could not be built. */
  unknown: readonly string[];
}

const quoted = (names: readonly string[]) => names.map((n) => JSON.stringify(n)).join(', ');

/**
 * The readBy a fix suggests for source `name`, in the user's own entries: those seen reading it
 * (and any not looked at that may), else the mix's entries to choose from. A demo's entry name
 * suggested to every user read as a typo of theirs. Null where every entry reads it: a readBy of
 * all of them takes as many rows as none.
 */
function readBySuggestion(name: string, entries: readonly string[], known: SourceReaders | null): string | null {
  const seen = (known?.readers[name] ?? []).filter((e) => entries.includes(e));
  const unknown = (known?.unknown ?? entries).filter((e) => entries.includes(e) && !seen.includes(e));
  if (seen.length === entries.length) return null;
  if (seen.length > 0) {
    // a transaction is not built offline: it may read the source too
    const maybe =
      unknown.length === 0
        ? ''
        : unknown.length === 1
          ? `, with ${quoted(unknown)} if it reads it too`
          : `, with any of ${quoted(unknown)} that read it too`;
    return `(${readByText(seen)}: the entries whose sample request read it${maybe}; only their arrivals take rows)`;
  }
  return `(those of ${quoted(entries)} that read it, as ${readByText(entries.slice(0, 1))}: only their arrivals take rows)`;
}

/**
 * Why the plan cannot run with these sources, or null: a unique source needs a row for every
 * arrival the plan can make (the warmup's, when `warmup` says one runs, and the steps') that reads
 * it (all of them, or with a readBy its entries' arrivals: `traffic`'s mix), besides preflight's samples.
 * `reruns`: maxArrivals counts a rerun of each step (a plateau run); false for a script k6 runs once.
 * `readers`: which entries read each source, for the fix's readBy (asked only when one is suggested).
 */
export function uniqueRowsProblem(
  data: Record<string, LoadedSource>,
  maxArrivals: number,
  warmup: boolean,
  traffic: Pick<Traffic, 'entries'>,
  reruns = true,
  readers?: () => SourceReaders,
): PlateauError | null {
  for (const [name, src] of Object.entries(data)) {
    if (src.order !== 'unique') continue;
    const needed = rowsTaken(traffic, src.readBy, maxArrivals);
    if (needed <= src.usable) continue;
    const short = needed - src.usable;
    const arrivals = `the plan can make ${fmtInt(maxArrivals)} arrivals (${warmup ? 'warmup, steps' : 'steps'}${reruns ? ' and a rerun of each step' : ''})`;
    const mix = traffic.entries.length > 1;
    const whose = src.readBy
      ? `${arrivals}, ${fmtInt(needed)} of them of its readBy (${src.readBy.map((n) => `"${n}"`).join(', ')})`
      : mix
        ? `${arrivals}: without a readBy, arrival n takes the n-th row whichever entry of the mix it runs (so that every engine thread and k6 instance gives an arrival the same row)`
        : arrivals;
    const suggestion =
      !src.readBy && mix
        ? readBySuggestion(
            name,
            traffic.entries.map((e) => e.name),
            readers?.() ?? null,
          )
        : null;
    const readBy = suggestion === null ? '' : `, list the entries that read it in its readBy ${suggestion}`;
    return new PlateauError(
      `data source "${name}" (${src.file}) has order 'unique' and ${fmtInt(src.rows.length)} rows (${fmtInt(src.usable)} for the load, ${fmtInt(src.rows.length - src.usable)} kept for preflight's sample arrivals), but ${whose}`,
      `add at least ${fmtInt(short)} ${short === 1 ? 'row' : 'rows'}${readBy}, lower the plan (steps.maxPerSec or --max-rate, steps.holdS or --hold${warmup ? ', warmup.maxS or --no-warmup' : ''}), or use order 'sequential' (rows wrap) or 'random'`,
      'scenario-data-too-few-rows',
      EXIT.preflight,
    );
  }
  return null;
}
