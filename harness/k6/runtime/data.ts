/**
 * The scenario's data sources in k6: each file is read with open() in k6's init context and
 * parsed once into a SharedArray (k6/data), which every VU of the process reads without a copy of
 * its own. Rows are picked by the same rowIndex as the native engine (harness/scenario/data-rows.ts),
 * so both engines give arrival n the same row.
 */
import { SharedArray } from 'k6/data';
import { DataError, noSuchSource, parseJsonRows, drawSeed, pickRow, usableRows } from '../../scenario/data-rows.ts';
import type { DataOrder, Row } from '../../scenario/types.ts';
import { parseCsv } from '../../scenario/csv-rows.ts';
import { loadThrowText, rowWrites } from '../../scenario/row-writes.ts';
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
export function openSources(
  data: Record<string, RuntimeData>,
  runId: string,
  entrySeq: (seq: number) => number = (seq) => seq,
  readerSeq: Record<string, (seq: number) => number> = {},
): RowSource {
  const sources = new Map<
    string,
    { rows: Row[]; usable: number; file: string; order: DataOrder; seed: number; src: RuntimeData }
  >();
  for (const name of Object.keys(data)) {
    const src = data[name];
    const rows = new SharedArray(`plateau data: ${name}`, () => parsed(name, src));
    // a unique source's last rows went to preflight's sample arrivals (run natively, before k6)
    const usable = usableRows(src.order, rows.length, src.keptRows);
    // drawn as on the native engine (context.ts): by the source's seed, else the run id
    const seed = drawSeed(runId, src.seed);
    sources.set(name, { rows, usable, file: src.path, order: src.order, seed, src });
  }
  // SharedArray deep-freezes each row it gives: a write to one throws, told as natively (a call of ctx.env too)
  const writes = rowWrites([...sources].map(([name, s]) => ({ name, csv: s.src.kind === 'csv', rows: s.rows })));
  return {
    threw: (message) => loadThrowText(message, writes),
    row(name, seq) {
      const s = sources.get(name);
      if (!s) throw new Error(noSuchSource(name, [...sources.keys()]));
      // picked as on the native engine (context.ts); a readBy's numbering: none in a mix of one entry
      const readerOf = s.src.readBy ? readerSeq[name] : undefined;
      return s.rows[pickRow(name, s, seq, s.seed, entrySeq, readerOf)];
    },
  };
}
