/**
 * The page around the charts and tables of report.html: how it lays out on a phone, what it prints,
 * how its text reads (the golden page: test/report-html.test.ts; in Chromium:
 * test/report-html-chromium.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { fakeRun } from '../analysis/testing/builders.ts';
import { chartsOf, type RenderedChart } from './charts/index.ts';
import { renderHtml } from './html.ts';
import { TEXT_COLUMNS_MAX, textColumns } from './html-escape.ts';
import { HTML_STYLE, NARROW_PX, OK_TEXT } from './html-style.ts';
import { VERDICT_COLOR } from './charts/theme.ts';

const RUN = fakeRun({
  steps: [100, 200, 300, 400].map((ratePerSec) => ({ ratePerSec, okPerSec: Math.min(ratePerSec, 320) })),
});

/** Placeholder charts: what the page does around them, not vega's bytes. */
const charts = (run = RUN): RenderedChart[] =>
  chartsOf(run).map(({ spec: _spec, ...c }) => ({ ...c, svg: `<svg data-chart="${c.name}"></svg>`, warnings: [] }));

/** The body of the first CSS block opened by `opening` (an at-rule or a selector), braces matched. */
function block(css: string, opening: string): string {
  const at = css.indexOf(`${opening} {`);
  expect(at, opening).toBeGreaterThan(-1);
  let depth = 0;
  for (let i = css.indexOf('{', at); i < css.length; i++) {
    if (css[i] === '{') depth++;
    if (css[i] === '}' && --depth === 0) return css.slice(css.indexOf('{', at) + 1, i);
  }
  throw new Error(`unclosed ${opening}`);
}

/** The CSS outside every @media block. */
const outsideMedia = (css: string) => css.replace(/@media[^{]*\{(?:[^{}]*\{[^{}]*\})*[^{}]*\}/g, '');

describe('report.html on a phone (420 px)', () => {
  const narrow = block(HTML_STYLE, `@media screen and (max-width: ${NARROW_PX}px)`);

  it('keeps a chart at its drawn size in a box that scrolls sideways, the caption outside it', () => {
    const page = renderHtml(RUN, charts());
    expect(page).toContain('<figure class="chart" id="chart-throughput"');
    expect(page).toMatch(/<div class="chart-scroll"><svg data-chart="throughput"><\/svg><\/div>\n<figcaption>/);
    expect(outsideMedia(HTML_STYLE)).toMatch(/\.chart-scroll \{ overflow-x: auto; \}/);
    // shrunk to the window on a phone (its 11 px text drawn at 5), not on a desktop
    expect(narrow).toMatch(/figure svg \{ max-width: none; \}/);
    expect(outsideMedia(HTML_STYLE)).toMatch(/figure svg \{ max-width: 100%;/);
    expect(NARROW_PX).toBeGreaterThanOrEqual(420);
    // the desktop's page is wider than the narrow layout's bound: it keeps its own
    expect(Number(/main \{ max-width: (\d+)px/.exec(HTML_STYLE)![1])).toBeGreaterThan(NARROW_PX);
  });

  it('lets a wide table scroll at its own width in its box, not squeezed into tall rows', () => {
    const page = renderHtml(RUN, charts());
    const steps = page.slice(page.indexOf('<section id="steps">'));
    expect(steps).toMatch(/^<section id="steps">\n<h2>Steps<\/h2>\n<div class="table-wrap"><table[ >]/);
    expect(outsideMedia(HTML_STYLE)).toMatch(/\.table-wrap \{ overflow-x: auto;/);
    expect(narrow).toMatch(/th, td \{ white-space: nowrap; \}/);
    // the last column's text (a verdict, a stage's detail) still wraps
    expect(narrow).toMatch(/td:last-child[^{]*\{ white-space: normal;/);
  });
});

describe('report.html in an 800 px window (wider than a phone)', () => {
  it('keeps a name of the tables by name and the traffic whole: "checkout" stood as "checko" over "ut"', () => {
    // break-word lets a long URL name break, and the table took it as leave to give the column its
    // narrowest; a floor under the column, at every width, keeps a word of a name on its line
    const rule = /#names td:first-child, #traffic td:first-child \{ min-width: (\d+)em; \}/.exec(
      outsideMedia(HTML_STYLE),
    );
    expect(rule).not.toBeNull();
    expect(Number(rule![1])).toBeGreaterThanOrEqual('checkout:'.length * 0.6);
    expect(outsideMedia(HTML_STYLE)).toMatch(
      /#names td:first-child, #names th:first-child[^{]*\{[^}]*word-break: break-word;/,
    );
  });
});

describe('report.html printed', () => {
  const print = block(HTML_STYLE, '@media print');

  it("prints a folded table's content where the browser can (the page opens the tables the finding cites: names.test.ts)", () => {
    expect(print).toMatch(/details::details-content \{ content-visibility: visible; display: block; \}/);
  });

  it('keeps the narrow layout to screens: a printed page is as narrow, and a chart kept wider than it was cut', () => {
    expect(HTML_STYLE).toContain(`@media screen and (max-width: ${NARROW_PX}px)`);
    expect(HTML_STYLE).not.toMatch(/@media \(max-width/);
    // on paper nothing scrolls: what a box hid would be cut
    expect(print).toMatch(/\.chart-scroll, \.table-wrap \{ overflow: visible; \}/);
  });
});

describe('report.html read by everyone', () => {
  /** WCAG's contrast ratio of two #rrggbb colours. */
  function contrast(a: string, b: string): number {
    const luminance = (hex: string) => {
      const [r, g, bl] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255);
      const lin = (c: number) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
      return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(bl);
    };
    const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
    return (hi + 0.05) / (lo + 0.05);
  }

  it('gives no text a colour under 4.5:1 on white (WCAG AA): the holds verdict was 3.4:1', () => {
    const vars = Object.fromEntries(
      [...HTML_STYLE.matchAll(/(--[a-z-]+): (#[0-9A-Fa-f]{3,6})/g)].map((m) => [m[1], m[2]]),
    );
    const long = (hex: string) => (hex.length === 4 ? `#${[...hex.slice(1)].map((c) => c + c).join('')}` : hex);
    const colours = [...HTML_STYLE.matchAll(/(?<![-a-z])color: (#[0-9A-Fa-f]{3,6}|var\((--[a-z-]+)\))/g)].map((m) =>
      long(m[2] ? vars[m[2]] : m[1]),
    );
    expect(colours).toContain(OK_TEXT);
    for (const c of colours) expect(contrast(c, '#ffffff'), c).toBeGreaterThanOrEqual(4.5);
    expect(contrast(VERDICT_COLOR.holds, '#ffffff')).toBeLessThan(4.5);
    // the held verdict's cell is in it
    expect(HTML_STYLE).toMatch(/tr\.verdict-holds td:last-child \{ color: var\(--ok-text\);/);
    // the charts keep the Okabe-Ito green: a point or a bar needs 3:1
    expect(VERDICT_COLOR.holds).toBe('#009E73');
  });

  it('left-aligns the text columns of a table (stage names, statuses, environment keys), figures stay right', () => {
    const page = renderHtml(RUN, charts());
    const table = (id: string) => {
      const at = page.indexOf(`<section id="${id}">`);
      return /<table( class="[^"]*")?>/.exec(page.slice(at))![1] ?? '';
    };
    // Stage, Status, Duration, Detail; Key, Value
    expect(table('stages')).toBe(' class="text-1 text-2 text-4"');
    expect(table('environment')).toBe(' class="text-1 text-2"');
    // the steps' figures right, their verdict (the last column) left
    const steps = page.slice(page.indexOf('<section id="steps">'));
    const columns = (/<thead><tr>(.*?)<\/tr>/.exec(steps)![1].match(/<th>/g) ?? []).length;
    expect(table('steps')).toBe(` class="text-${columns}"`);
    // the rule for each such class, as CSS counts columns
    expect(outsideMedia(HTML_STYLE)).toContain('.text-2 :is(th, td):nth-child(2)');
    expect(outsideMedia(HTML_STYLE)).toMatch(
      new RegExp(
        `\\.text-${TEXT_COLUMNS_MAX} :is\\(th, td\\):nth-child\\(${TEXT_COLUMNS_MAX}\\) \\{ text-align: left; \\}`,
      ),
    );
    expect(outsideMedia(HTML_STYLE)).toMatch(/th, td \{[^}]*text-align: right;/);
  });

  it('reads a figure as a figure, whatever its unit, bound or marker, and a step with its attempt as one', () => {
    const isText = (...cells: string[]) => textColumns(cells.map((c) => [c])).size === 1;
    for (const figure of [
      '1',
      '1,600',
      '-0.20',
      '≤ 1.50×',
      '~56.0 ms* (n=250)',
      '18%',
      '30.1 s',
      '4 (attempt 2)',
      '2 (2)',
    ])
      expect(isText(figure), figure).toBe(false);
    for (const text of ['pass', 'http_5xx 17', 'holds (attempt 2)', 'generator-bound', 'node', 'v20.19.0'])
      expect(isText(text), text).toBe(true);
    // a word among figures (1 / (1 − ρ)'s "saturated") leaves the column to its figures; blanks count for neither
    expect(isText('1.50×', 'saturated', '2.00×')).toBe(false);
    expect(isText('pass', '–', '', 'skipped')).toBe(true);
  });
});

describe('report.html of a run whose every request failed', () => {
  it('says why the latency section has no chart, where it drew an empty frame', () => {
    const failed = fakeRun({ steps: [{ ratePerSec: 100, okPerSec: 0, failedPerSec: 100 }], holdS: 10, settleS: 2 });
    const page = renderHtml(failed, charts(failed));
    expect(page).toContain(
      '<section id="latency">\n<h2>Latency</h2>\n<p>No latency to draw: no steady window had a successful request.</p>',
    );
    expect(page).not.toContain('id="chart-latency"');
    expect(page).toContain('id="chart-delivery"');
  });
});
