/**
 * report.html opened in headless Chromium, with a screenshot that must show the charts, and its
 * style printed to PDF (a folded table by name must print). Apart from test/report-html.test.ts
 * because it starts a browser: it stays in the unit project, while the rest of the page's tests
 * run beside the integration set (vitest.config.ts UNIT_FIRST).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../analysis/types.ts';
import { renderHtmlFiles } from '../reports/html.ts';
import { HTML_STYLE } from '../reports/html-style.ts';

const RUN = JSON.parse(fs.readFileSync(new URL('./golden/fixed-run.json', import.meta.url), 'utf8')) as RunResult;
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
/** Where the screenshot is kept for a person to look at. */
const SCREENSHOT = path.join(os.tmpdir(), 'plateau-report-html.png');

/** Decodes an 8-bit RGB/RGBA non-interlaced PNG (what Chromium writes) into its pixel rows. */
function decodePng(buf: Buffer): { width: number; height: number; channels: number; pixels: Buffer } {
  let pos = 8;
  let width = 0,
    height = 0,
    channels = 0;
  const idat: Buffer[] = [];
  while (pos < buf.length) {
    const len = buf.readUInt32BE(pos),
      type = buf.toString('latin1', pos + 4, pos + 8),
      data = buf.subarray(pos + 8, pos + 8 + len);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      channels = data[9] === 6 ? 4 : 3;
      expect(data[8]).toBe(8);
    }
    if (type === 'IDAT') idat.push(data);
    pos += 12 + len;
  }
  const raw = zlib.inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const pixels = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    for (let x = 0; x < stride; x++) {
      const cur = raw[y * (stride + 1) + 1 + x];
      const a = x >= channels ? pixels[y * stride + x - channels] : 0;
      const b = y > 0 ? pixels[(y - 1) * stride + x] : 0;
      const c = x >= channels && y > 0 ? pixels[(y - 1) * stride + x - channels] : 0;
      const p = a + b - c,
        pa = Math.abs(p - a),
        pb = Math.abs(p - b),
        pc = Math.abs(p - c);
      const pred = [0, a, b, (a + b) >> 1, pa <= pb && pa <= pc ? a : pb <= pc ? b : c][filter];
      pixels[y * stride + x] = (cur + pred) & 0xff;
    }
  }
  return { width, height, channels, pixels };
}

/**
 * The text a PDF shows: the operands of every text-showing operator (Tj, TJ) in its inflated
 * content streams, glyph ids as Chromium writes them. Enough to tell whether two prints show the
 * same text, not to read it.
 */
function pdfText(pdf: Buffer): string[] {
  const latin = pdf.toString('latin1');
  const shown: string[] = [];
  for (const m of latin.matchAll(/stream\r?\n/g)) {
    const start = m.index + m[0].length;
    let content: string;
    try {
      content = zlib.inflateSync(pdf.subarray(start, latin.indexOf('endstream', start))).toString('latin1');
    } catch {
      continue; // not a deflated stream (an image, a font's raw bytes)
    }
    for (const t of content.matchAll(/<([0-9A-Fa-f]+)>\s*Tj|\[(.*?)\]\s*TJ/g)) shown.push(t[1] ?? t[2]);
  }
  return shown;
}

/** Chromium's flags for a headless run with a profile of its own. */
const chromiumArgs = (profile: string) => [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  `--user-data-dir=${profile}`,
];

describe('report.html in headless Chromium', () => {
  it.skipIf(!fs.existsSync(CHROMIUM))(
    `shows the charts: a large screenshot with many colours, chart colours among them${fs.existsSync(CHROMIUM) ? '' : ` (skipped: ${CHROMIUM} missing; make test installs Debian's chromium)`}`,
    async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plateau-html-'));
      for (const f of await renderHtmlFiles(RUN)) fs.writeFileSync(path.join(dir, f.file), f.content);
      const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'plateau-chromium-'));
      execFileSync(
        CHROMIUM,
        [
          ...chromiumArgs(profile),
          `--screenshot=${SCREENSHOT}`,
          '--window-size=1200,2400',
          `file://${path.join(dir, 'report.html')}`,
        ],
        { stdio: 'ignore', timeout: 60_000 },
      );
      const png = fs.readFileSync(SCREENSHOT);
      expect(png.length).toBeGreaterThan(50_000);
      const { width, height, channels, pixels } = decodePng(png);
      expect([width, height]).toEqual([1200, 2400]);
      const colours = new Set<number>();
      let achievedBlue = 0;
      for (let i = 0; i < pixels.length; i += channels) {
        const rgb = (pixels[i] << 16) | (pixels[i + 1] << 8) | pixels[i + 2];
        colours.add(rgb);
        if (rgb === 0x0072b2) achievedBlue++;
      }
      expect(colours.size).toBeGreaterThan(200);
      expect(achievedBlue).toBeGreaterThan(100);
      fs.rmSync(profile, { recursive: true, force: true });
    },
  );

  it.skipIf(!fs.existsSync(CHROMIUM))(
    "prints a folded table by name's content, as an open one's, under the page's own style",
    () => {
      // one print of a small page (a launch of Chromium is most of the time): the same paragraph
      // in an open and in a folded table by name, the text the second shows counted in the PDF
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plateau-html-'));
      const body = '<p>every table by name the finding cites prints on paper</p>';
      const html = `<!doctype html><html><head><style>${HTML_STYLE}</style></head><body><main>${[
        `<details class="names-step" open><summary>Step 1</summary>${body}</details>`,
        `<details class="names-step"><summary>Step 2</summary>${body}</details>`,
      ].join('\n')}</main></body></html>`;
      fs.writeFileSync(path.join(dir, 'page.html'), html);
      const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'plateau-chromium-'));
      const pdf = path.join(dir, 'page.pdf');
      execFileSync(
        CHROMIUM,
        [
          ...chromiumArgs(profile),
          `--print-to-pdf=${pdf}`,
          '--no-pdf-header-footer',
          `file://${path.join(dir, 'page.html')}`,
        ],
        { stdio: 'ignore', timeout: 60_000 },
      );
      const shown = pdfText(fs.readFileSync(pdf));
      // each table's summary, then its paragraph (in runs of glyphs: a ligature is one of its own),
      // the folded one's as the open one's
      const half = shown.length / 2;
      expect(half).toBeGreaterThan(1);
      expect(shown.slice(half + 1)).toEqual(shown.slice(1, half));
      expect(shown[half]).not.toEqual(shown[0]); // "Step 2", not "Step 1"
      fs.rmSync(profile, { recursive: true, force: true });
      fs.rmSync(dir, { recursive: true, force: true });
    },
  );
});
