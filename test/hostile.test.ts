/**
 * Hostile strings (issue 8): a target's responses, a scenario's name and check() messages, the
 * target URL and the config can carry markup, Markdown table breakers and spreadsheet formulas.
 * Every output of a run must neutralise them: report.html (escaped, no markup from the target),
 * report.md (no raw HTML, one table row per line, cells split only on our pipes), steps.csv (no
 * cell a spreadsheet would run as a formula), summary.json (valid JSON).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeRun } from '../analysis/testing/builders.ts';
import type { RunResult } from '../analysis/types.ts';
import { renderHtmlFiles } from '../reports/html.ts';
import { renderers } from '../reports/index.ts';
import { startFaultServer, type FaultServer } from './helpers/fault-server.ts';
import { runQuietly, tempRunsDir } from './helpers/pipeline.ts';

const runsDir = tempRunsDir();
const MARKUP = ['<script>alert(1)</script>', '<img src=x onerror=alert(1)>', '<svg onload=alert(1)>'];
const EVIL_HEADER = `${MARKUP[0]} | cell | ${MARKUP[2]} =cmd|' /C calc'!A0`;

/** Cells of a Markdown table row: split on pipes not escaped by a backslash. */
function mdCells(row: string): string[] {
  return row
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/);
}

/** Every Markdown table keeps one row per line with as many cells as its header. */
function expectTablesIntact(md: string): void {
  const lines = md.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i].startsWith('|') || !lines[i + 1]?.startsWith('|---')) continue;
    const width = mdCells(lines[i]).length;
    for (let j = i + 2; j < lines.length && lines[j].startsWith('|'); j++) {
      expect(mdCells(lines[j]), lines[j]).toHaveLength(width);
    }
  }
  // a planted line break never starts a row of its own
  expect(md).not.toMatch(/^\| injected/m);
}

/** A small RFC 4180 reader: enough to see every cell as a spreadsheet would. */
function csvCells(text: string): string[] {
  const cells: string[] = [];
  let cell = '',
    quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',' || ch === '\n') {
      cells.push(cell);
      cell = '';
    } else if (ch !== '\r') cell += ch;
  }
  if (cell) cells.push(cell);
  return cells;
}

/** A cell is a formula when it starts with = + @ tab CR, or - not followed by a number. */
function expectNoFormula(csv: string): void {
  for (const c of csvCells(csv)) {
    expect(c, `CSV cell ${JSON.stringify(c)}`).not.toMatch(/^[=+@\t\r]|^-(?!\d)/);
  }
}

function expectNoMarkup(text: string, file: string): void {
  for (const m of MARKUP) expect(text, `${file} carries ${m}`).not.toContain(m);
  expect(text, file).not.toMatch(/<(script|img|svg)[^>]*on\w+=/i);
}

describe('hostile strings from a live target, through the whole pipeline', () => {
  let server: FaultServer;
  let dir: string;
  let files: Record<string, string>;

  beforeAll(async () => {
    server = await startFaultServer({ mode: 'ok', headers: { 'x-evil': EVIL_HEADER } });
    const r = await runQuietly({
      target: { url: `${server.url}/load?q=<script>alert(1)</script>|=cmd` },
      scenario: path.resolve('test/fixtures/scenarios/hostile-check.ts'),
      steps: { startPerSec: 20, stepPerSec: 20, maxPerSec: 20, rampS: 0, holdS: 3, settleS: 1 },
      warmup: { enabled: false },
      rtt: { samples: 2 },
      verdicts: { confirmFailedStep: false },
      output: { dir: runsDir, runId: 'hostile' },
    });
    expect(r.exitCode, r.lines.join('')).toBe(0);
    dir = r.dir;
    files = Object.fromEntries(
      fs
        .readdirSync(dir)
        .filter((f) => fs.statSync(path.join(dir, f)).isFile())
        .map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf8')]),
    );
  }, 60_000);
  afterAll(async () => {
    await server.close();
    fs.rmSync(runsDir, { recursive: true, force: true });
  });

  it('the hostile text did reach the store (so the outputs below are really tested)', () => {
    expect(files['buckets.ndjson']).toContain(
      '=HYPERLINK(\\"http://evil.example\\",\\"click\\") <script>alert(1)</script>',
    );
    expect(JSON.parse(files['run.json']).scenario).toMatch(/^<img src=x onerror=alert\(1\)>/);
  });

  it('report.html shows it escaped and carries no markup of the target', () => {
    const html = files['report.html'];
    expectNoMarkup(html, 'report.html');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('=HYPERLINK(&quot;http://evil.example&quot;');
    expect(html.match(/<script/gi) ?? []).toHaveLength(0); // the page runs no script at all
  });

  it('report.md escapes markup, keeps every table row on its line, and pipes inside cells', () => {
    const md = files['report.md'];
    expectNoMarkup(md, 'report.md');
    expect(md).toContain('&lt;script>alert(1)&lt;/script>');
    expectTablesIntact(md);
  });

  it('steps.csv has no cell a spreadsheet would run as a formula', () => {
    expectNoFormula(files['steps.csv']);
  });

  it('summary.json stays valid JSON and keeps the text verbatim', () => {
    const summary = JSON.parse(files['summary.json']);
    expect(JSON.stringify(summary)).toContain('<script>alert(1)</script>');
  });

  it('every other file of the run carries no live markup either (charts)', () => {
    for (const [f, text] of Object.entries(files)) {
      if (/\.(svg|html)$/.test(f)) expectNoMarkup(text, f);
    }
  });
});

describe('hostile strings in every field a renderer prints', () => {
  const H = `=cmd|' /C calc'!A0 ${MARKUP[1]}\n| row | break |\r\n+1 @x -y`;
  const base = fakeRun({
    steps: [100, 200, 300].map((ratePerSec, i) => ({
      ratePerSec,
      okPerSec: [100, 200, 210][i],
      failedPerSec: i === 2 ? 30 : 0,
      errorSample: H,
    })),
    target: `http://127.0.0.1:1/${MARKUP[0]}|x`,
  });
  const run: RunResult = {
    ...base,
    runId: H,
    stopDetail: H,
    warnings: [{ code: H, step: null, figures: {} }],
    environment: { ...base.environment, [H]: H },
    vus: { ...base.vus, reason: H },
    stages: [{ name: 'preflight', status: 'fail', durationMs: 5, detail: H, evidence: [H] }],
    steps: base.steps.map((s) => ({ ...s, reasons: [H, ...s.reasons], errorSamples: [H, H.toUpperCase()] })),
  };

  it('Markdown, CSV and JSON renderers', () => {
    for (const r of renderers) {
      const text = r.render(run);
      if (r.file.endsWith('.md')) {
        expectNoMarkup(text, r.file);
        expectTablesIntact(text);
      }
      if (r.file.endsWith('.csv')) expectNoFormula(text);
      if (r.file.endsWith('.json')) expect(() => JSON.parse(text)).not.toThrow();
    }
  });

  it('the HTML report and its charts', async () => {
    const out = await renderHtmlFiles(run);
    expect(out.length).toBeGreaterThan(0);
    for (const f of out) expectNoMarkup(f.content, f.file);
    const html = out.find((f) => f.file === 'report.html')!.content;
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });
});
