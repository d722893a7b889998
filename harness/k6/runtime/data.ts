/**
 * The scenario's data sources in k6: each file is read with open() in k6's init context and
 * parsed once into a SharedArray (k6/data), which every VU of the process reads without a copy of
 * its own. Rows are picked by the same rowIndex as the native engine (harness/scenario/data-rows.ts),
 * so both engines give arrival n the same row.
 */
import { SharedArray } from 'k6/data';
import { DataError, parseCsv, parseJsonRows, rowIndex, seedOf } from '../../scenario/data-rows.ts';
import type { Row } from '../../scenario/types.ts';
import type { RuntimeData } from './config.ts';
import type { RowSource } from './context.ts';

/** DataError's line; a parameter, since the bundle lowers the class field (checkJs then sees no `line` on DataError). */
function lineOf(err: { line?: number }): string {
  return err.line ? ` line ${err.line}` : '';
}

function parsed(name: string, src: RuntimeData): Row[] {
  const text = open(src.path);
  try {
    return src.kind === 'csv' ? parseCsv(text) : parseJsonRows(text);
  } catch (err) {
    if (!(err instanceof DataError)) throw err;
    throw new Error(`data source "${name}" (${src.path})${lineOf(err)}: ${err.message}`);
  }
}

/** Opens every source (call it in k6's init context: open() exists only there). */
export function openSources(data: Record<string, RuntimeData>, runId: string): RowSource {
  const seed = seedOf(runId);
  const sources = new Map<string, { rows: Row[]; src: RuntimeData }>();
  for (const name of Object.keys(data)) {
    const src = data[name];
    sources.set(name, { rows: new SharedArray(`plateau data: ${name}`, () => parsed(name, src)), src });
  }
  return {
    row(name, seq) {
      const s = sources.get(name);
      if (!s) {
        const known = [...sources.keys()];
        throw new Error(
          `ctx.row(${JSON.stringify(name)}): the scenario has no data source of that name (${known.length ? `it has ${known.map((k) => JSON.stringify(k)).join(', ')}` : 'its `data` is empty'})`,
        );
      }
      const i = rowIndex(s.src.order, seq, s.rows.length, seed);
      if (i === null) {
        throw new Error(
          `data source "${name}" has ${s.rows.length} rows, and order 'unique' gives each row to one arrival: arrival ${seq} found none left; add rows to ${s.src.path} or plan fewer arrivals`,
        );
      }
      return s.rows[i];
    },
  };
}
