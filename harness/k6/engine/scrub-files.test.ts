import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { secretScrubber } from '../../secret-scrub.ts';
import { scrubFiles } from './scrub-files.ts';

const TOKEN = 'tok-5b1e0c77aa';
const scrub = secretScrubber(['API_TOKEN'], { API_TOKEN: TOKEN });
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plateau-scrub-files-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("scrubbing k6's own files", () => {
  it('replaces the secret in every file, across chunk boundaries, gzip staying gzip; a clean file keeps its bytes', async () => {
    const leg = path.join(dir, 'leg-0');
    fs.mkdirSync(path.join(leg, 'sub'), { recursive: true });
    // 3 MiB of lines, the secret itself across the first 1 MiB chunk's end (bytes 1,048,572 to 1,048,585), and in a last line without '\n'
    const filler = 'x'.repeat(99) + '\n';
    const big =
      filler.repeat(10_485) +
      `{"error":"${'y'.repeat(50)} denied for ${TOKEN}"}\n` +
      filler.repeat(20_000) +
      `end ${TOKEN}`;
    fs.writeFileSync(path.join(leg, 'out.json'), big);
    fs.writeFileSync(path.join(leg, 'out.csv.gz'), zlib.gzipSync(`a,b\n1,"${TOKEN}"\n`));
    fs.writeFileSync(path.join(leg, 'sub', 'console.log'), `level=warn msg="${TOKEN}"\n`);
    // not valid UTF-8 and nothing to scrub: left byte for byte
    const latin = Buffer.from([0x63, 0xe9, 0x0a, 0xff, 0xfe, 0x0a]);
    fs.writeFileSync(path.join(leg, 'raw.bin'), latin);

    const results = await scrubFiles(leg, scrub);
    const changed = Object.fromEntries(results.map((r) => [path.relative(leg, r.file), 'changed' in r && r.changed]));
    expect(changed).toEqual({ 'out.json': true, 'out.csv.gz': true, 'sub/console.log': true, 'raw.bin': false });

    const out = fs.readFileSync(path.join(leg, 'out.json'), 'utf8');
    expect(out).not.toContain(TOKEN);
    expect(out.length).toBe(big.length - 2 * (TOKEN.length - '[redacted]'.length));
    expect(out.endsWith('end [redacted]')).toBe(true);
    expect(zlib.gunzipSync(fs.readFileSync(path.join(leg, 'out.csv.gz'))).toString()).toBe('a,b\n1,"[redacted]"\n');
    expect(fs.readFileSync(path.join(leg, 'sub', 'console.log'), 'utf8')).toBe('level=warn msg="[redacted]"\n');
    expect(fs.readFileSync(path.join(leg, 'raw.bin'))).toEqual(latin);
    expect(fs.readdirSync(leg).filter((f) => f.endsWith('.scrub-tmp'))).toEqual([]);
  });

  it('a gzip cut short (a killed k6) is left as k6 wrote it and reported, never half replaced', async () => {
    const leg = path.join(dir, 'leg-cut');
    fs.mkdirSync(leg);
    const whole = zlib.gzipSync(`{"tags":{"url":"x?${TOKEN}"}}\n`.repeat(1000));
    const cut = whole.subarray(0, whole.length - 40);
    fs.writeFileSync(path.join(leg, 'out.json.gz'), cut);
    const [r] = await scrubFiles(leg, scrub);
    expect(r).toMatchObject({ file: path.join(leg, 'out.json.gz'), error: expect.stringMatching(/end of file/) });
    expect(fs.readFileSync(path.join(leg, 'out.json.gz'))).toEqual(cut);
    expect(fs.readdirSync(leg)).toEqual(['out.json.gz']);
  });

  it('a scrubber that throws fails that file only, which stays as it was', async () => {
    const leg = path.join(dir, 'leg-throws');
    fs.mkdirSync(leg);
    fs.writeFileSync(path.join(leg, 'console.log'), `${TOKEN}\n`);
    const results = await scrubFiles(leg, () => {
      throw new Error('scrubber broke');
    });
    expect(results).toEqual([{ file: path.join(leg, 'console.log'), error: 'scrubber broke' }]);
    expect(fs.readdirSync(leg)).toEqual(['console.log']);
  });

  it('a leg that wrote nothing has nothing to scrub', async () => {
    expect(await scrubFiles(path.join(dir, 'never-made'), scrub)).toEqual([]);
  });
});
