/**
 * report.html: golden text against a fixed RunResult, real charts (vega -> SVG), hostile strings
 * escaped, and the page opened in headless Chromium with a screenshot that must show the charts.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../analysis/types.ts';
import { chartsOf, renderCharts, type RenderedChart } from '../reports/charts/index.ts';
import { renumberIds } from '../reports/charts/render.ts';
import { esc } from '../reports/html-escape.ts';
import { analyzeStore } from '../harness/report.ts';
import { RUN_FIXTURES_DIR } from './helpers/run-fixtures.ts';
import { renderHtml, renderHtmlFiles } from '../reports/html.ts';
import { fileRenderers } from '../reports/index.ts';
import { renderMarkdown } from '../reports/markdown.ts';
import { classificationSection, classificationText, serverSection, serverText } from '../reports/markdown-verdicts.ts';
import { modelsSection } from '../reports/models-markdown.ts';

const RUN = JSON.parse(fs.readFileSync(new URL('./golden/fixed-run.json', import.meta.url), 'utf8')) as RunResult;
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
/** Where the screenshot is kept for a person to look at. */
const SCREENSHOT = path.join(os.tmpdir(), 'plateau-report-html.png');

/** The stored runs of test/fixtures/runs/ (native, k6, interrupted, ...), by shape. */
const storedShapes = fs
  .readdirSync(RUN_FIXTURES_DIR)
  .filter((f) => fs.statSync(path.join(RUN_FIXTURES_DIR, f)).isDirectory());

/** Placeholder charts: the page's text is golden without vega's exact SVG bytes. */
const FAKE_CHARTS: RenderedChart[] = chartsOf(RUN).map(({ spec: _spec, ...c }) => ({
  ...c,
  svg: `<svg xmlns="http://www.w3.org/2000/svg" data-chart="${c.name}"></svg>`,
  warnings: [],
}));

/** Tags a page must never contain when its strings are escaped. */
const INJECTED = [/<script/i, /<img/i, /<b>/i, /<i>/i, /<\/textarea/i, /<[^>]*\son[a-z]+\s*=/i, /javascript:/i];

describe('report.html text', () => {
  it('matches the golden page (charts as placeholders)', async () => {
    await expect(renderHtml(RUN, FAKE_CHARTS)).toMatchFileSnapshot('./golden/report.html');
  });

  it('links every section from the navigation, in page order, and no link points nowhere', () => {
    const page = renderHtml(RUN, FAKE_CHARTS);
    const nav = page.slice(page.indexOf('<nav>'), page.indexOf('</nav>'));
    const linked = [...nav.matchAll(/href="#([a-z-]+)"/g)].map((m) => m[1]);
    const sections = [...page.matchAll(/<section id="([a-z-]+)">/g)].map((m) => m[1]);
    expect(linked).toEqual(sections);
  });

  it('the models section of report.md matches the golden file and sits in report.md', async () => {
    const section = modelsSection(RUN).join('\n');
    await expect(`${section}\n`).toMatchFileSnapshot('./golden/models-section.md');
    expect(renderMarkdown(RUN)).toContain(section);
  });

  it("chart specs match the golden file (what is drawn, independent of vega's SVG bytes)", async () => {
    const specs = Object.fromEntries(chartsOf(RUN).map((c) => [c.name, c.spec]));
    await expect(`${JSON.stringify(specs, null, 1)}\n`).toMatchFileSnapshot('./golden/chart-specs.json');
  });

  it('escapes markup in error samples, target, run id, gauge names and environment values', () => {
    const html = renderHtml(RUN, FAKE_CHARTS);
    for (const bad of INJECTED) expect(html).not.toMatch(bad);
    expect(html).toContain(esc(RUN.steps[4].errorSamples![0]));
    expect(html).toContain('plateau run golden-&lt;i&gt;run&lt;/i&gt;');
    expect(html).toContain('http://127.0.0.1:8080/&lt;b&gt;orders&lt;/b&gt;');
    expect(html).toMatch(/<meta http-equiv="Content-Security-Policy" content="default-src 'none'/);
  });

  it('lists the error samples one a line, so that a message holding " / " (a path) reads as one', () => {
    const step = {
      ...RUN.steps[4],
      errorSamples: ['http_5xx: GET /a / b failed', 'timeout: after\n5 s', 'other: a\rb\r\nc'],
    };
    const html = renderHtml({ ...RUN, steps: RUN.steps.map((s, i) => (i === 4 ? step : s)) }, FAKE_CHARTS);
    expect(html).toContain('<td>http_5xx: GET /a / b failed\ntimeout: after ↵ 5 s\nother: a ↵ b ↵ c</td>');
    expect(html).toMatch(/#errors td:last-child \{[^}]*white-space: pre-line;/);
  });

  it("has report.md's classification and server-side sections, escaped, with the same rows", () => {
    const hostile = 'client <script>alert(1)</script> & "x"';
    const run: RunResult = {
      ...RUN,
      steps: RUN.steps.map((s, i) => ({
        ...s,
        ...(i === 4 ? { transient: true } : {}),
        ...(i === 5 ? { index: 4, attempt: 2 } : {}),
        server: {
          source: 'scrape',
          fromS: 0,
          toS: 10,
          throughputPerSec: s.completedPerSec,
          meanMs: 9,
          maxMs: 30,
          poolActiveMax: 4,
          poolPendingMax: 0,
          poolMax: 10,
        },
        crossCheck: {
          verdict: 'consistent',
          detail: hostile,
          clientPerSec: s.completedPerSec,
          serverPerSec: s.completedPerSec,
          clientMeanMinusRttMs: 9.5,
          serverMeanMs: 9,
        },
        poolReading: 'pool <b>fine</b>',
      })),
    };
    const html = renderHtml(run, FAKE_CHARTS);
    for (const bad of INJECTED) expect(html).not.toMatch(bad);
    for (const [id, title] of [
      ['overload', 'Overload shape'],
      ['classification', 'Failed steps, classified before they count'],
      ['server', 'Server-side view'],
    ]) {
      expect(html).toContain(`<section id="${id}">\n<h2>${title}</h2>`);
      expect(html).toContain(`<a href="#${id}">`);
    }
    const section = (id: string) =>
      html.slice(
        html.indexOf(`<section id="${id}">`),
        html.indexOf('</section>', html.indexOf(`<section id="${id}">`)),
      );
    const rows = (id: string) =>
      [...section(id).matchAll(/<tr>(.*?)<\/tr>/g)]
        .map((m) => [...m[1].matchAll(/<td>(.*?)<\/td>/g)].map((c) => c[1]))
        .filter((r) => r.length > 0);
    expect(rows('classification')).toEqual(classificationText(run)!.table!.rows.map((r) => r.map(esc)));
    expect(rows('classification').map((r) => r.slice(2, 4))).toEqual([
      ['transient', 'fails'],
      ['attempt 2', 'fails'],
    ]);
    expect(rows('server')).toEqual(serverText(run)!.table!.rows.map((r) => r.map(esc)));
    expect(section('server')).toContain(`<li>step 1: ${esc(hostile)}</li>`);
    expect(section('server')).toContain('<td>pool &lt;b&gt;fine&lt;/b&gt;</td>');
    // report.md says the same, from the same text
    expect(renderMarkdown(run)).toContain(classificationSection(run).join('\n'));
    expect(serverSection(run)).toContain('- step 1: client &lt;script>alert(1)&lt;/script> & "x"');
    // in report.md's order: steps, overload, classification, server, errors
    const order = ['steps', 'overload', 'classification', 'server', 'errors'].map((id) =>
      html.indexOf(`<section id="${id}">`),
    );
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it('esc covers the five HTML-significant characters and control characters', () => {
    expect(esc(`<a href="x" title='y'>&\u0007`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp; ');
  });
});

describe('charts', () => {
  it('renders every chart to a self-contained SVG, hostile text escaped by vega', async () => {
    const files = await renderHtmlFiles(RUN);
    expect(files.map((f) => f.file)).toEqual([
      'report.html',
      'chart-throughput.svg',
      'chart-latency.svg',
      'chart-delivery.svg',
      'chart-timeseries.svg',
      'chart-usl.svg',
      'chart-names.svg',
    ]);
    for (const f of files) {
      for (const bad of INJECTED) expect(f.content, f.file).not.toMatch(bad);
      expect(f.content, 'no external resource').not.toMatch(/(src|href)="(https?:)?\/\//);
    }
    const html = files[0].content;
    expect((html.match(/<svg /g) ?? []).length).toBe(6);
    expect(html).toContain('pool active &lt;b&gt;');
    // a name is the user's text: vega escapes it in the chart by name
    expect(files.find((f) => f.file === 'chart-names.svg')!.content).toContain('&lt;i&gt;read&lt;/i&gt; order');
    const ids = [...html.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('vega has nothing to warn about: every chart of every stored run, and a run cut short in its first step', async () => {
    // A run interrupted in its first step has a delivery bar "incomplete (not judged)" and no
    // capture bar: the two panels share one colour scale, which must name the same verdicts in both
    // (a vega warning of conflicting domains reached the terminal of every such run).
    const cut: RunResult = { ...RUN, steps: [{ ...RUN.steps[0], verdict: 'incomplete', capture: null }] };
    const runs = [RUN, cut, ...storedShapes.map((shape) => analyzeStore(path.join(RUN_FIXTURES_DIR, shape)).result)];
    for (const run of runs) {
      const rendered = await renderCharts(chartsOf(run));
      const warned = rendered.filter((c) => c.warnings.length > 0).map((c) => `${c.name}: ${c.warnings.join('; ')}`);
      expect(warned, run.runId).toEqual([]);
    }
    const delivery = (await renderCharts(chartsOf(cut))).find((c) => c.name === 'delivery')!;
    expect(delivery.svg).toContain('incomplete (not judged)');
  });

  it("renders identically twice (ids renumbered per chart, not from vega's global counter)", async () => {
    const a = await renderCharts(chartsOf(RUN).slice(0, 1));
    const b = await renderCharts(chartsOf(RUN).slice(0, 1));
    expect(a[0].svg).toBe(b[0].svg);
    expect(renumberIds('<g id="clip7"><use href="#clip7"/><p clip-path="url(#clip7)"/></g>', 'c')).toBe(
      '<g id="c-1"><use href="#c-1"/><p clip-path="url(#c-1)"/></g>',
    );
  });

  it('leaves out what has no data: no USL chart without a fit, no time series without series, no chart by name without names', () => {
    const bare: RunResult = {
      ...RUN,
      series: [],
      models: { ...RUN.models!, usl: null },
      steps: RUN.steps.map(({ byName: _byName, ...s }) => s),
    };
    expect(chartsOf(bare).map((c) => c.name)).toEqual(['throughput', 'latency', 'delivery']);
    expect(fileRenderers.map((r) => r.name)).toEqual(['html']);
  });
});

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
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
          `--user-data-dir=${profile}`,
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
});
