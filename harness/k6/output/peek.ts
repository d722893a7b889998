/**
 * Does a file look like k6's raw output (`--out json` or `--out csv`, plain or .gz), by its first
 * line, as the import reads it: a JSON sample or metric definition, or a CSV header k6 writes? A
 * summary (--summary-export, handleSummary, the console's text) or an empty file does not. Reads
 * at most PEEK_BYTES; used to suggest the files of a folder given in place of one.
 */
import fs from 'node:fs';
import zlib from 'node:zlib';
import { CsvRows } from './csv.ts';
import { parseJsonLine } from './point-scan.ts';

/** Enough for k6's longest first line: a CSV header of every system tag, or a JSON sample's. */
const PEEK_BYTES = 16 * 1024;

export function looksLikeOutput(file: string): boolean {
  const first = firstLine(file);
  if (first === null) return false;
  if (first.startsWith('{')) return parseJsonLine(first) !== 'bad';
  const csv = new CsvRows();
  return csv.push(first) === 'skip' && csv.headerProblem === null && !csv.open;
}

/** The file's first line that is not blank (its head gunzipped when it is gzip), or null. */
function firstLine(file: string): string | null {
  let head: Buffer;
  try {
    const fd = fs.openSync(file, 'r');
    try {
      head = Buffer.alloc(PEEK_BYTES);
      head = head.subarray(0, fs.readSync(fd, head, 0, PEEK_BYTES, 0));
    } finally {
      fs.closeSync(fd);
    }
    // a gzip stream's head: what decodes of it (a flush, not an end: the rest is not read)
    if (head[0] === 0x1f && head[1] === 0x8b)
      head = zlib.gunzipSync(head, { finishFlush: zlib.constants.Z_SYNC_FLUSH }).subarray(0, PEEK_BYTES);
  } catch {
    return null;
  }
  const lines = head.toString('utf8').split('\n');
  // the last piece may be cut by the peek: a line is whole only where a '\n' follows it
  for (const l of lines.slice(0, -1)) if (l.trim() !== '') return l.replace(/\r$/, '');
  return null;
}
