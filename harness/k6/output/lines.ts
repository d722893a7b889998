/**
 * k6 output files as batches of lines: plain or gzip (told by the magic bytes, not the name),
 * read whole (import) or followed while k6 writes them (live run). Memory holds one chunk and one
 * partial line, never the file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isAscii } from 'node:buffer';
import { setTimeout as sleep } from 'node:timers/promises';
import zlib from 'node:zlib';
import { PlateauError, EXIT } from '../../errors.ts';
import { looksLikeOutput } from './peek.ts';

const CHUNK_BYTES = 1 << 20;

/**
 * Splits byte chunks into lines; a line is complete only once its '\n' has arrived. The cut is
 * made on the bytes (a '\n' byte is never inside a UTF-8 sequence), so each chunk's complete
 * lines are decoded at once, as latin1 when they are all ASCII (the common case, several times
 * faster than UTF-8 decoding); only the unfinished last line is kept, as a copy.
 */
export class LineSplitter {
  private rest: Buffer[] = [];

  push(chunk: Buffer): string[] {
    const last = chunk.lastIndexOf(10);
    if (last === -1) {
      if (chunk.length > 0) this.rest.push(Buffer.from(chunk));
      return [];
    }
    let start = 0;
    let first: string | null = null;
    if (this.rest.length > 0) {
      start = chunk.indexOf(10) + 1;
      this.rest.push(chunk.subarray(0, start - 1));
      first = decode(Buffer.concat(this.rest));
      this.rest = [];
    }
    const lines = start <= last ? decode(chunk.subarray(start, last)).split('\n') : [];
    if (first !== null) lines.unshift(first);
    if (last + 1 < chunk.length) this.rest.push(Buffer.from(chunk.subarray(last + 1)));
    return stripCr(lines);
  }

  /** The last line, when the file does not end with '\n' (a run that was killed). */
  end(): string[] {
    const last = stripCr([this.rest.length > 0 ? decode(Buffer.concat(this.rest)) : ''])[0];
    this.rest = [];
    return last ? [last] : [];
  }
}

function decode(bytes: Buffer): string {
  return bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
}

/** CRLF files: the '\r' before each '\n' is not part of the line. */
function stripCr(lines: string[]): string[] {
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (l.charCodeAt(l.length - 1) === 13) lines[i] = l.slice(0, -1);
  }
  return lines;
}

/**
 * The first few files of a directory named as k6 output would be (.json, .ndjson, .csv, .gz of
 * them) whose first line is too (peek.ts): not a summary, which the import refuses.
 */
function outputsIn(dir: string): string[] {
  try {
    return fs
      .readdirSync(dir)
      .filter((f) => /\.(nd)?json(\.gz)?$|\.csv(\.gz)?$/.test(f))
      .sort()
      .filter((f) => looksLikeOutput(path.join(dir, f)))
      .slice(0, 3);
  } catch {
    return [];
  }
}

/** What the files of a directory given as k6 output offer instead: a few to pass, or that none would do. */
function insteadText(dir: string): string {
  const inIt = outputsIn(dir);
  return inIt.length > 0
    ? `: e.g. ${inIt.map((f) => path.join(dir, f)).join(' or ')}`
    : ': none of its files looks like one (their first line is neither a k6 JSON sample or metric nor the CSV header metric_name,timestamp,...; a --summary-export or handleSummary file holds totals, not samples)';
}

/** How to get a file the import reads. */
const K6_OUT_EXAMPLE = 'k6 run --out json=k6-out.json script.js, then plateau import k6 k6-out.json';

export function isGzip(file: string): boolean {
  const fd = fs.openSync(file, 'r');
  try {
    const head = Buffer.alloc(2);
    return fs.readSync(fd, head, 0, 2, 0) === 2 && head[0] === 0x1f && head[1] === 0x8b;
  } finally {
    fs.closeSync(fd);
  }
}

/** Every line of a finished file, in batches; `onCut` is told when a .gz file ends mid-stream. */
export async function* readLines(file: string, onCut: () => void = () => undefined): AsyncGenerator<string[]> {
  // yargs gives `-` as an empty string; the import reads its file more than once (its header, then whole, again for requests)
  if (file === '' || file === '-') {
    throw new PlateauError(
      'the k6 output to import is standard input (-), which the import cannot read: it reads its file more than once',
      `write k6's output to a file and pass that: ${K6_OUT_EXAMPLE}`,
      'k6-output-missing',
      EXIT.usage,
    );
  }
  if (!fs.existsSync(file)) {
    throw new PlateauError(
      `k6 output ${file} does not exist`,
      'pass the file k6 wrote with --out json=FILE or --out csv=FILE (.gz accepted)',
      'k6-output-missing',
      EXIT.usage,
    );
  }
  const stat = fs.statSync(file);
  if (!stat.isFile()) {
    throw new PlateauError(
      `k6 output ${file} is ${stat.isDirectory() ? 'a directory' : 'not a file'}${stat.isFIFO() || stat.isCharacterDevice() || stat.isSocket() ? ' (a pipe or a device, which the import, reading its file more than once, cannot read)' : ''}`,
      `pass the file k6 wrote with --out json=FILE or --out csv=FILE (.gz accepted)${stat.isDirectory() ? `, not the folder it is in${insteadText(file)}` : `: ${K6_OUT_EXAMPLE}`}`,
      'k6-output-missing',
      EXIT.usage,
    );
  }
  const raw = fs.createReadStream(file, { highWaterMark: CHUNK_BYTES });
  const gzip = isGzip(file);
  const stream = gzip ? raw.pipe(zlib.createGunzip({ chunkSize: CHUNK_BYTES })) : raw;
  const split = new LineSplitter();
  let first = true;
  try {
    for await (const chunk of stream) {
      if (first) packedCheck(file, chunk as Buffer, gzip);
      first = false;
      const lines = split.push(chunk as Buffer);
      if (lines.length) yield lines;
    }
  } catch (err) {
    // a .gz cut short (k6 killed while writing it): what decoded is kept, its torn last line counted as such
    if ((err as NodeJS.ErrnoException).code !== 'Z_BUF_ERROR') throw err;
    onCut();
  }
  const last = split.end();
  if (last.length) yield last;
}

/** Where a file gzipped twice, decompressed once, goes: its name less .gz (still gzip: read as such), or with .gz added. */
function once(name: string): string {
  return name.endsWith('.gz') ? name.slice(0, -3) : `${name}.gz`;
}

const ZIP_SIGNATURE = Buffer.from('PK\x03\x04', 'latin1');

/**
 * Refuses what is packed once more than plateau unpacks: gzip inside the gzip it decompressed (a
 * file gzipped twice), or a zip archive. Both read as "neither JSON samples nor CSV rows".
 */
function packedCheck(file: string, head: Buffer, gzip: boolean): void {
  const name = path.basename(file);
  if (gzip && head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b)
    throw new PlateauError(
      `k6 output ${file} is gzip-compressed twice: what its gzip holds is gzip again`,
      `gunzip it once more (gunzip < ${name} > ${once(name)}) and pass that: plateau reads one layer of gzip`,
      'k6-output-invalid',
      EXIT.usage,
    );
  if (head.subarray(0, 4).equals(ZIP_SIGNATURE))
    throw new PlateauError(
      `k6 output ${file} is a zip archive${gzip ? ' inside gzip' : ''}, not a file k6 wrote: plateau does not open archives`,
      `${gzip ? `gunzip it, then ` : ''}unzip it (unzip ${gzip ? name.replace(/\.gz$/, '') : name}) and pass the .json or .csv file k6 wrote that it holds (plain or .gz)`,
      'k6-output-invalid',
      EXIT.usage,
    );
}

/**
 * Follows a file k6 is writing: polls for new bytes every pollMs until `finished()` is true and
 * nothing new is left. Only complete lines are yielded while k6 runs.
 */
export async function* tailLines(file: string, finished: () => boolean, pollMs = 100): AsyncGenerator<string[]> {
  const split = new LineSplitter();
  let gunzip: zlib.Gunzip | null = null;
  let inflated: Buffer[] = [];
  let fd: number | null = null;
  let offset = 0;
  const buf = Buffer.alloc(CHUNK_BYTES);
  for (;;) {
    const done = finished();
    if (fd === null && fs.existsSync(file)) fd = fs.openSync(file, 'r');
    let got = 0;
    if (fd !== null) {
      for (let n; (n = fs.readSync(fd, buf, 0, buf.length, offset)) > 0; offset += n) {
        got += n;
        if (gunzip === null && offset === 0 && n >= 2 && buf[0] === 0x1f && buf[1] === 0x8b) {
          gunzip = zlib.createGunzip();
          gunzip.on('data', (c: Buffer) => inflated.push(c));
          gunzip.on('error', () => undefined);
        }
        const bytes = Buffer.from(buf.subarray(0, n));
        if (gunzip) await new Promise<void>((r) => gunzip!.write(bytes, () => r()));
        else inflated.push(bytes);
      }
    }
    const chunks = inflated;
    inflated = [];
    const lines = chunks.flatMap((c) => split.push(c));
    if (lines.length) yield lines;
    if (done && got === 0) break;
    if (got === 0) await sleep(pollMs);
  }
  if (gunzip) {
    await new Promise<void>((r) => {
      gunzip!.once('end', r);
      gunzip!.once('error', () => r());
      gunzip!.end();
    });
    gunzip.resume();
  }
  const last = inflated.flatMap((c) => split.push(c)).concat(split.end());
  if (fd !== null) fs.closeSync(fd);
  if (last.length) yield last;
}
