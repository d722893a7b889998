/**
 * report.html: golden text against a fixed RunResult, real charts (vega -> SVG), hostile strings
 * escaped (the page in headless Chromium: test/report-html-chromium.test.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
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
