/**
 * The byte line splitter behind readLines / tailLines: whatever the chunk boundaries (inside a
 * line, inside a multi-byte UTF-8 character, between '\r' and '\n'), the lines are those of the
 * whole text split at '\n', without a trailing '\r', the last one only when it is not empty.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineSplitter, readLines } from '../harness/k6/output/lines.ts';

function reference(text: string): string[] {
  const lines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function splitInChunks(bytes: Buffer, cuts: number[]): string[] {
  const s = new LineSplitter();
  const out: string[] = [];
  let at = 0;
  for (const c of [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)) {
    out.push(...s.push(bytes.subarray(at, c)));
    at = c;
  }
  out.push(...s.push(bytes.subarray(at)), ...s.end());
  return out;
}

describe('LineSplitter', () => {
  it('any chunking of any text gives the lines of the whole text (property)', () => {
    const piece = fc.oneof(
      fc.constantFrom('\n', '\r\n', '\r', '{"a":1}', 'é', '€', '😀', ''),
      fc.string({ maxLength: 8 }),
      fc.string({ unit: 'grapheme', maxLength: 4 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), fc.array(fc.nat(), { maxLength: 8 }), (pieces, cuts) => {
        const text = pieces.join('');
        expect(splitInChunks(Buffer.from(text, 'utf8'), cuts)).toEqual(reference(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('a character split between chunks, a line longer than a chunk, a last line without its newline', () => {
    const text = 'aé€\r\n' + 'x'.repeat(5000) + '\n\nlast😀';
    const bytes = Buffer.from(text, 'utf8');
    expect(splitInChunks(bytes, [2, 3, 5, 6, 100, 2000, bytes.length - 2])).toEqual([
      'aé€',
      'x'.repeat(5000),
      '',
      'last😀',
    ]);
  });

  it('does not keep the chunks it was given: a reused buffer does not change lines still unfinished', () => {
    const s = new LineSplitter();
    const buf = Buffer.from('ab\ncd');
    expect(s.push(buf)).toEqual(['ab']);
    buf.write('XXXXX');
    expect(s.push(Buffer.from('e\n'))).toEqual(['cde']);
  });
});

describe('readLines', () => {
  it('plain and gzip files with non-ASCII lines and CRLF read the same', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plateau-lines-'));
    try {
      const text =
        Array.from(
          { length: 30_000 },
          (_, i) => `{"i":${i},"check":"${i % 7 === 0 ? 'ünïcödé ✓' : 'ok'}"}${i % 5 === 0 ? '\r\n' : '\n'}`,
        ).join('') + 'tail';
      fs.writeFileSync(path.join(dir, 'a.ndjson'), text);
      fs.writeFileSync(path.join(dir, 'a.ndjson.gz'), zlib.gzipSync(text));
      for (const f of ['a.ndjson', 'a.ndjson.gz']) {
        const got: string[] = [];
        for await (const batch of readLines(path.join(dir, f))) got.push(...batch);
        expect(got).toEqual(reference(text));
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a directory is named as one, with the raw k6 output files in it to pass instead (it read "does not exist")', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plateau-lines-'));
    const read = async () => {
      for await (const _ of readLines(dir)) void _;
    };
    const FIX = 'test/fixtures/k6';
    try {
      for (const f of ['script.js', 'empty.json']) fs.writeFileSync(path.join(dir, f), '');
      // what the import refuses by its first bytes: summaries (it suggested the two summary exports first)
      for (const f of [
        'public-crushtest-summary-export.json',
        'public-k6reporter-handlesummary.json',
        'stepped-queue.summary-export.json',
        'stepped-queue.console-summary.txt',
      ])
        fs.copyFileSync(path.join(FIX, f), path.join(dir, f));
      await expect(read()).rejects.toMatchObject({
        message: `k6 output ${dir} is a directory`,
        hint: 'pass the file k6 wrote with --out json=FILE or --out csv=FILE (.gz accepted), not the folder it is in: none of its files looks like one (their first line is neither a k6 JSON sample or metric nor the CSV header metric_name,timestamp,...; a --summary-export or handleSummary file holds totals, not samples)',
      });
      // raw output, JSON (gzipped too) and CSV, plain or with a header k6 writes
      fs.copyFileSync(path.join(FIX, 'stepped-queue.ndjson.gz'), path.join(dir, 'run.ndjson.gz'));
      fs.copyFileSync(path.join(FIX, 'stepped-reject.csv.gz'), path.join(dir, 'reject.csv.gz'));
      fs.writeFileSync(path.join(dir, 'small.csv'), 'metric_name,timestamp,metric_value,check,error\n');
      await expect(read()).rejects.toMatchObject({
        hint: `pass the file k6 wrote with --out json=FILE or --out csv=FILE (.gz accepted), not the folder it is in: e.g. ${path.join(dir, 'reject.csv.gz')} or ${path.join(dir, 'run.ndjson.gz')} or ${path.join(dir, 'small.csv')}`,
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('standard input (-, which yargs gives as an empty name) and a pipe or device are refused with how to get a file (it read "k6 output  does not exist")', async () => {
    const read = async (f: string) => {
      for await (const _ of readLines(f)) void _;
    };
    for (const f of ['-', ''])
      await expect(read(f)).rejects.toMatchObject({
        message:
          'the k6 output to import is standard input (-), which the import cannot read: it reads its file more than once',
        hint: "write k6's output to a file and pass that: k6 run --out json=k6-out.json script.js, then plateau import k6 k6-out.json",
      });
    // a device, as /dev/stdin is where a pipe feeds it
    if (process.platform === 'win32') return;
    await expect(read('/dev/null')).rejects.toMatchObject({
      message:
        'k6 output /dev/null is not a file (a pipe or a device, which the import, reading its file more than once, cannot read)',
      hint: 'pass the file k6 wrote with --out json=FILE or --out csv=FILE (.gz accepted): k6 run --out json=k6-out.json script.js, then plateau import k6 k6-out.json',
    });
  });

  it('a file gzipped twice, or a zip, is named with how to unpack it (they read "neither JSON samples nor CSV rows")', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plateau-lines-'));
    const read = async (f: string) => {
      for await (const _ of readLines(path.join(dir, f))) void _;
    };
    try {
      const text = '{"metric":"vus","type":"Point","data":{"time":"2026-11-29T16:52:41Z","value":1,"tags":{}}}\n';
      fs.writeFileSync(path.join(dir, 'out.ndjson.gz'), zlib.gzipSync(zlib.gzipSync(text)));
      await expect(read('out.ndjson.gz')).rejects.toMatchObject({
        message: `k6 output ${path.join(dir, 'out.ndjson.gz')} is gzip-compressed twice: what its gzip holds is gzip again`,
        hint: 'gunzip it once more (gunzip < out.ndjson.gz > out.ndjson) and pass that: plateau reads one layer of gzip',
      });
      // a zip's local file header (what `zip` writes first), the rest of it left out: the signature names it
      const zip = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0, 0, 0, 8, 0]), Buffer.from(text)]);
      fs.writeFileSync(path.join(dir, 'out.zip'), zip);
      await expect(read('out.zip')).rejects.toMatchObject({
        message: `k6 output ${path.join(dir, 'out.zip')} is a zip archive, not a file k6 wrote: plateau does not open archives`,
        hint: 'unzip it (unzip out.zip) and pass the .json or .csv file k6 wrote that it holds (plain or .gz)',
      });
      fs.writeFileSync(path.join(dir, 'out.zip.gz'), zlib.gzipSync(zip));
      await expect(read('out.zip.gz')).rejects.toMatchObject({
        message: expect.stringMatching(/is a zip archive inside gzip, /),
        hint: expect.stringMatching(/^gunzip it, then unzip it \(unzip out\.zip\) /),
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
