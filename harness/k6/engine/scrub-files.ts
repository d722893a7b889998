/**
 * The files k6 writes into a leg's directory (its output, console.log, summary.json, the script)
 * are k6's, not the store's: a secret that a check message, an error or a URL carries is there as
 * k6 wrote it. Once the leg's k6 has exited, each file is passed through the run's scrubber, a
 * chunk of lines at a time (memory holds one chunk, never the file; gzip stays gzip), and replaced
 * only when something in it changed. A chunk with nothing to scrub is written back as its own
 * bytes, so a file that is not valid UTF-8 loses nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { isAscii } from 'node:buffer';
import { Transform, Writable, type TransformCallback } from 'node:stream';
import zlib from 'node:zlib';
import type { Scrub } from '../../secret-scrub.ts';
import { isGzip } from '../output/lines.ts';

const CHUNK_BYTES = 1 << 20;

/** What became of one file: scrubbed (something replaced), clean (left as it was), or left unread with the reason. */
export type ScrubbedFile = { file: string; changed: boolean } | { file: string; error: string };

/** Every regular file under dir, scrubbed in place. Never throws: a file it could not read is reported. */
export async function scrubFiles(dir: string, scrub: Scrub): Promise<ScrubbedFile[]> {
  const out: ScrubbedFile[] = [];
  for (const file of filesUnder(dir)) {
    try {
      out.push({ file, changed: await scrubFile(file, scrub) });
    } catch (err) {
      fs.rmSync(tmpOf(file), { force: true });
      out.push({ file, error: (err as Error).message });
    }
  }
  return out;
}

/**
 * Passes one file through `scrub`; true when something was replaced (the file then holds the
 * scrubbed text). A first pass only reads: most outputs hold no secret, and are then neither
 * written nor, gzip, compressed again (scrubbing a 300 MiB JSON output read at about 650 MiB/s here).
 */
export async function scrubFile(file: string, scrub: Scrub): Promise<boolean> {
  if (!(await scrubPass(file, scrub, null))) return false;
  const tmp = tmpOf(file);
  await scrubPass(file, scrub, tmp);
  fs.renameSync(tmp, file);
  return true;
}

/** One pass over the file's lines; with `into`, the scrubbed file is written there. Whether anything changed. */
async function scrubPass(file: string, scrub: Scrub, into: string | null): Promise<boolean> {
  const gz = isGzip(file);
  const lines = new ScrubLines(scrub);
  const read = fs.createReadStream(file, { highWaterMark: CHUNK_BYTES });
  const gunzip = () => zlib.createGunzip({ chunkSize: CHUNK_BYTES });
  if (into === null) {
    const discard = new Writable({ write: (_chunk, _enc, done) => done() });
    if (gz) await pipeline(read, gunzip(), lines, discard);
    else await pipeline(read, lines, discard);
  } else {
    const write = fs.createWriteStream(into);
    if (gz) await pipeline(read, gunzip(), lines, zlib.createGzip(), write);
    else await pipeline(read, lines, write);
  }
  return lines.changed;
}

/** Cuts the bytes at their last '\n' (never inside a UTF-8 sequence) and scrubs the complete lines. */
class ScrubLines extends Transform {
  changed = false;
  private rest: Buffer = Buffer.alloc(0);

  constructor(private readonly scrub: Scrub) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    const bytes = this.rest.length ? Buffer.concat([this.rest, chunk]) : chunk;
    const last = bytes.lastIndexOf(10);
    this.rest = Buffer.from(bytes.subarray(last + 1));
    this.pass(last >= 0 ? bytes.subarray(0, last + 1) : null, done);
  }

  override _flush(done: TransformCallback): void {
    this.pass(this.rest.length ? this.rest : null, done);
  }

  /** A scrubber that throws fails this file's pipeline (reported), never the process. */
  private pass(bytes: Buffer | null, done: TransformCallback): void {
    try {
      if (bytes) this.push(this.scrubbed(bytes));
      done();
    } catch (err) {
      done(err as Error);
    }
  }

  private scrubbed(bytes: Buffer): Buffer {
    const encoding = isAscii(bytes) ? 'latin1' : 'utf8';
    const text = bytes.toString(encoding);
    const clean = this.scrub(text);
    if (clean === text) return bytes;
    this.changed = true;
    return Buffer.from(clean, 'utf8');
  }
}

function tmpOf(file: string): string {
  return `${file}.scrub-tmp`;
}

function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && !e.name.endsWith('.scrub-tmp'))
    .map((e) => path.join(e.parentPath ?? e.path, e.name));
}
