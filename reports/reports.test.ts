import { describe, expect, it } from 'vitest';
import { buildInput, fakeRun, type FakeRunSpec } from '../analysis/testing/builders.ts';
import { analyzeRun } from '../analysis/analyze.ts';
import type { RunResult, StageOutcome, StepResult, Symptom } from '../analysis/types.ts';
import { MACHINE_ADDRESSES_KEY } from '../analysis/machine.ts';
import { runWarnings } from '../analysis/warnings.ts';
import { renderers } from './index.ts';
import { renderMarkdown } from './markdown.ts';
import { serverSection } from './markdown-verdicts.ts';
import { renderHtml } from './html.ts';
import { renderStepsCsv, STEPS_CSV_COLUMNS } from './steps-csv.ts';
import { renderSummaryJson, type Summary } from './summary-json.ts';
import { renderPlateauTable } from './table.ts';
import { stageLineText } from './cells.ts';
import { warningText, warningTexts } from './warning-text.ts';
import { nameResult, withNames } from '../analysis/compare/testing.ts';

const HOSTILE = 'upstream | failed\nsecond line <script>alert(1)</script> & \\ done';

const KNEE: FakeRunSpec = {
  steps: [100, 200, 300, 400, 450, 500].map((ratePerSec, i) => ({
    ratePerSec,
    okPerSec: [100, 200, 300, 400, 410, 380][i],
    failedPerSec: i >= 4 ? 20 : 0,
    errorSample: HOSTILE,
    droppedPerSec: i === 5 ? 2 : 0,
  })),
  target: 'http://127.0.0.1:8080/<b>orders</b>|x',
};

const run = fakeRun(KNEE);
const hostileRun: RunResult = {
  ...run,
  environment: { ...run.environment, note: HOSTILE },
  steps: run.steps.map((s, i) => (i === 4 ? { ...s, reasons: ['=cmd|"/c calc"!A1', ...s.reasons] } : s)),
};

/** Cells of a Markdown table row: split on pipes not escaped by an odd run of backslashes. */
function mdCells(line: string): string[] {
  const cells: string[] = [];
  let cell = '';
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (ch === '\\') {
      cell += ch + (line[i + 1] ?? '');
      i++;
      continue;
    }
    if (ch === '|') {
      cells.push(cell);
      cell = '';
      continue;
    }
    cell += ch;
  }
  cells.push(cell);
  return cells.slice(1, -1);
}

/** A small RFC 4180 parser (quoted fields, doubled quotes, CRLF or LF). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [],
    field = '',
    quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += ch;
  }
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

describe('renderMarkdown', () => {
  const md = renderMarkdown(hostileRun);

  it('puts capacity and the stop reason at the top, then how to read it', () => {
    const lines = md.split('\n');
    expect(lines[0]).toBe('# plateau run run-test');
    expect(md).toContain('**Capacity: 400.0 req/s (step 4)**');
    expect(md).toMatch(/\*\*Stop reason: plateau\*\*: step 5 \(450 req\/s\) captured 0\.20 < 0\.60/);
    expect(md.indexOf('Capacity')).toBeLessThan(md.indexOf('## How to read this'));
    for (const term of ['**Delivery**', '**Capture**', '**Steady window**', '**Dropped iterations**'])
      expect(md).toContain(term);
    expect(md).not.toContain('INTERRUPTED');
  });

  it('shows percentiles with their sample counts and marks unreliable ones', () => {
    const row = md
      .slice(md.indexOf('## Steps'))
      .split('\n')
      .find((l) => l.startsWith('| 1 | 100 |'));
    expect(row).toBeDefined();
    const cells = mdCells(row ?? '').map((c) => c.trim());
    expect(cells).toHaveLength(12);
    expect(cells.slice(0, 5)).toEqual(['1', '100', '100.0', '1.00', '–']);
    expect(cells[5]).toMatch(/^\d+\.\d+ ms \(n=2,500\)$/);
    expect(cells[7]).toMatch(/^~\d+\.?\d* ms\\\* \(n=2,500\)$/);
    expect(cells[11]).toBe('holds');
    expect(md).toContain('\\* unreliable');
  });

  it('has the stages, generator, errors, warnings and environment sections', () => {
    for (const h of ['## Stages', '## Load generator', '## Steps', '## Errors', '## Warnings', '## Environment'])
      expect(md).toContain(h);
    expect(md).toContain('| preflight | pass | 120 ms |');
    expect(md).toContain('HTTP median 0.500 ms, p90 0.800 ms (20 samples)');
    expect(md).toMatch(/step 6 dropped 50 arrivals/);
  });

  it("says when the target shares the generator's machine, and only then", () => {
    expect(md).toMatch(/- Target on the generator's own machine[^:]*: the two share its cores/);
    expect(renderMarkdown({ ...run, target: 'http://orders.internal:8080/orders' })).not.toContain(
      "generator's own machine",
    );
    // the overload shape's meaning (the target's design) is qualified on one machine, and only there
    expect(md).toContain("**On one machine**: the target shares the generator's cores");
    expect(renderMarkdown({ ...run, target: 'http://orders.internal:8080/orders' })).not.toContain('On one machine');
    // the machine's LAN address, as the run recorded it: the same test the threads stage used
    const lan = {
      ...run,
      target: 'http://10.0.0.5:8080/orders',
      environment: { ...run.environment, [MACHINE_ADDRESSES_KEY]: '10.0.0.5 fe80::1' },
    };
    expect(renderMarkdown(lan)).toMatch(/- Target on the generator's own machine[^:]*: the two share its cores/);
    expect(renderMarkdown({ ...lan, target: 'http://10.0.0.6:8080/orders' })).not.toContain("generator's own machine");
    // a run older than the record: loopback only, as its report always said
    expect(renderMarkdown({ ...lan, environment: run.environment })).not.toContain("generator's own machine");
    // the page says it under the headline, where the capacity is read (not only in its last sections)
    const html = renderHtml(run, []);
    const note = html.indexOf('<p class="note"><strong>Note</strong>: Target on the generator&#39;s own machine');
    expect(note).toBeGreaterThan(html.indexOf('class="capacity"'));
    expect(note).toBeLessThan(html.indexOf('</header>'));
    expect(renderHtml({ ...run, target: 'http://orders.internal:8080/orders' }, [])).not.toContain(
      'class="note"><strong>Note',
    );
  });

  it('an import infers nothing from the importing machine: a loopback URL says k6 and the target shared one, no CPUs, no addresses', () => {
    // the environment is the importing machine's (its CPUs, its LAN address), not the one k6 ran on
    const imported: RunResult = {
      ...run,
      engine: 'k6',
      rules: { ...run.rules, imported: true },
      target: 'http://127.0.0.1:9101',
      environment: { ...run.environment, cpus: '2 x AMD EPYC', [MACHINE_ADDRESSES_KEY]: '192.0.2.2 fd00::2' },
    };
    const md = renderMarkdown(imported);
    expect(md).not.toContain("generator's own machine");
    expect(md).not.toContain('AMD EPYC):');
    expect(md).toContain(
      "- Target on a loopback address (127.0.0.1): k6 and the target ran on one machine and shared its cores, so what is measured is the target's capacity with what k6 left it. For numbers to defend, run k6 from another machine.",
    );
    expect(md).toContain('**On one machine**');
    // an address of the importing machine says nothing of where k6 ran
    const lan = renderMarkdown({ ...imported, target: 'http://192.0.2.2:9101' });
    expect(lan).not.toMatch(/own machine|one machine|loopback/);
    expect(renderHtml({ ...imported, target: 'http://192.0.2.2:9101' }, [])).not.toContain('class="note"><strong>Note');
  });

  it("a k6 run's Load generator section leaves out the paragraph on figures k6 does not measure (lag, loop delay, busy), keeping what it does", () => {
    const lagNote = "scheduler lag is each arrival's actual start minus its intended one";
    expect(renderMarkdown(run)).toContain(lagNote);
    const live: RunResult = { ...run, engine: 'k6' };
    const imported: RunResult = { ...live, rules: { ...run.rules, imported: true } };
    for (const r of [live, imported]) {
      expect(renderMarkdown(r)).not.toContain(lagNote);
      expect(renderHtml(r, [])).not.toContain(lagNote);
      expect(renderMarkdown(r)).toContain("VUs busy and allocated are k6's vus and vus_max gauges");
    }
    expect(renderMarkdown(live)).toContain("that k6's process used");
    expect(renderMarkdown(imported)).toContain("its output holds no figure of its machine's CPU");
  });

  it("shows the generator's figures for every step, busy share included when it was measured", () => {
    const measured = renderMarkdown(
      fakeRun({
        steps: [
          { ratePerSec: 100, busy: 0.42, processCpu: 0.3, lagMs: 0.3, loopDelayMaxMs: 12 },
          { ratePerSec: 200, busy: 0.93, lagMs: 25 },
        ],
      }),
    );
    const header =
      '| Step | Target req/s | Scheduler lag p99 | Event-loop delay max | Busiest thread busy | Generator CPU | VUs busy (max) | VUs allocated (max) | Dropped |';
    const rows = measured
      .split('\n')
      .slice(measured.split('\n').indexOf(header) + 2)
      .slice(0, 2)
      .map(mdCells);
    expect(rows[0]).toEqual([
      ' 1 ',
      ' 100 ',
      ' 0.300 ms ',
      ' 12.0 ms ',
      ' 42% ',
      ' 30% ',
      expect.any(String),
      expect.any(String),
      ' 0 ',
    ]);
    expect(rows[1].slice(2, 6)).toEqual([' 25.0 ms ', ' 0 ms ', ' 93% ', ' – ']); // measured, so a 0 is a 0
    expect(measured).toMatch(/step 2: the generator's busiest thread was busy 93% of the steady window/);
    // k6 does not report it: the cell says so rather than 0%
    const unmeasured = renderMarkdown(fakeRun({ steps: [{ ratePerSec: 100 }] }));
    expect(mdCells(unmeasured.split('\n').find((l) => l.startsWith('| 1 | 100 | 0.100 ms'))!).slice(3, 6)).toEqual([
      ' – ',
      ' – ',
      ' – ',
    ]);
    // k6: its process's share of the CPUs is read, its threads are not
    const k6 = renderMarkdown(fakeRun({ steps: [{ ratePerSec: 100, processCpu: 0.87 }] }));
    expect(mdCells(k6.split('\n').find((l) => l.startsWith('| 1 | 100 | 0.100 ms'))!).slice(3, 6)).toEqual([
      ' – ',
      ' – ',
      ' 87% ',
    ]);
    expect(k6).toMatch(/step 1: the generator's process used 87% of the CPUs it may use in the steady window/);
  });

  it("reads the busy share against the run's own bound (verdicts.generatorBusyMax), not the default", () => {
    const cells = (r: RunResult) =>
      mdCells(
        renderMarkdown(r)
          .split('\n')
          .find((l) => l.startsWith('| 1 | 100 | '))!,
      ).slice(4, 6);
    const r = fakeRun({ steps: [{ ratePerSec: 100, busy: 0.504, processCpu: 0.3 }] });
    expect(cells(r)).toEqual([' 50% ', ' 30% ']);
    // over a bound of 0.5, 0.504 must not read as "50%"
    expect(cells({ ...r, generatorBusyMax: 0.5 })).toEqual([' 50.4% ', ' 30% ']);
  });

  it('escapes hostile target text so tables keep their shape and no HTML gets through', () => {
    expect(md).not.toContain('<script>');
    expect(md).not.toContain('<b>');
    expect(md).toContain('&lt;script>');
    const tableLines = md.split('\n').filter((l) => l.startsWith('|'));
    const widths = new Map<string, number>();
    let header = '';
    for (const line of tableLines) {
      if (!line.startsWith('|---') && !/^\|\s*\d/.test(line) && !/^\| (preflight|steps|node|engine|note) /.test(line))
        header = line;
      const n = mdCells(line).length;
      if (!widths.has(header)) widths.set(header, n);
      expect(n, line).toBe(widths.get(header));
    }
    const errorRow = tableLines.find((l) => l.includes('upstream'));
    // the message's own line break is shown, not made: a <br> parts one message from the next
    expect(errorRow).toContain('upstream \\| failed ↵ second line &lt;script>');
  });

  it('lists the error samples one a line, so that a message holding " / " (a path) reads as one', () => {
    const r = fakeRun(KNEE);
    const step = {
      ...r.steps[4],
      errorSamples: ['http_5xx: GET /a / b failed', 'timeout: after\n5 s', 'other: a\rb\r\nc'],
    };
    const out = renderMarkdown({ ...r, steps: r.steps.map((s, i) => (i === 4 ? step : s)) });
    expect(out).toContain('| http\\_5xx: GET /a / b failed<br>timeout: after ↵ 5 s<br>other: a ↵ b ↵ c |');
  });

  it('says INTERRUPTED when the run was interrupted', () => {
    const interrupted = fakeRun({ steps: KNEE.steps.slice(0, 4), stopAtS: 92, interrupted: true });
    expect(renderMarkdown(interrupted)).toMatch(/\*\*INTERRUPTED\*\*/);
    expect(renderMarkdown(interrupted)).toContain('**Stop reason: interrupted**');
    // the steps stage as the pipeline records an interrupt (harness/pipeline/stage.ts), not a failure
    expect(renderMarkdown(interrupted)).toMatch(/^\| steps \| interrupted \| /m);
  });

  it('a run cut short after its limit was confirmed: its capacity stands, and no banner calls it a lower bound', () => {
    // an import (it reruns nothing): 300 failed, 400 confirmed it, the file ends 4 s into 500's steady window
    const cut = analyzeRun({
      ...buildInput({
        steps: [100, 200, 300, 400, 500].map((r) => ({ ratePerSec: r, okPerSec: Math.min(r, 210) })),
        holdS: 12,
        rampS: 1,
        settleS: 2,
        stopAtS: 13 * 4 + 7,
        interrupted: true,
      }),
      imported: true,
    });
    expect(cut).toMatchObject({ interrupted: true, stopReason: 'plateau', capacityPerSec: 200 });
    const md = renderMarkdown(cut);
    expect(md).toContain('**Capacity: 200.0 req/s (step 2)**');
    expect(md).toContain(
      '> **CUT SHORT**: the run was interrupted after its limit was confirmed (interrupted during step 5 (500 req/s, its hold, 4 s into its 10 s steady window), after step 4 (400 req/s)): the capacity stands; the steps after the cut were not run.',
    );
    expect(md).not.toMatch(/INTERRUPTED|lower bound/);
    expect(renderHtml(cut, [])).toContain(
      '<p class="banner">CUT SHORT: the run was interrupted after its limit was confirmed',
    );
    expect(renderHtml(cut, [])).not.toContain('INTERRUPTED');
    expect(renderPlateauTable(cut)).toMatch(/^stop {6}plateau \(then cut short\): step 3 \(300 req\/s\) delivered/m);
  });
});

describe('renderStepsCsv', () => {
  const csv = renderStepsCsv(hostileRun);
  const rows = parseCsv(csv);

  it('parses back to a header and one row per step', () => {
    expect(rows).toHaveLength(hostileRun.steps.length + 1);
    expect(rows[0]).toEqual([...STEPS_CSV_COLUMNS]);
    expect(rows.every((r) => r.length === STEPS_CSV_COLUMNS.length)).toBe(true);
    const col = (name: string) => STEPS_CSV_COLUMNS.indexOf(name as (typeof STEPS_CSV_COLUMNS)[number]);
    expect(rows[4][col('throughput_per_sec')]).toBe('400');
    expect(rows[1][col('p99_9_reliable')]).toBe('false');
    expect(rows[1][col('p50_n')]).toBe('2500');
    // every percentile's sample count and reliability, appended after the older columns
    expect(STEPS_CSV_COLUMNS.slice(-9, -4)).toEqual(['p50_reliable', 'p90_n', 'p90_reliable', 'p99_n', 'p99_reliable']);
    // then the latency objective's (reports/slo-text.test.ts), then every request of every arrival
    expect(STEPS_CSV_COLUMNS.slice(-4)).toEqual(['slo_value_ms', 'slo_met', 'slo_unjudged', 'requests_per_sec']);
    // one request per arrival here: the requests are the completions
    expect(rows[4][col('requests_per_sec')]).toBe(rows[4][col('throughput_per_sec')]);
    expect(col('p50_reliable')).toBeGreaterThan(col('generator_cpu'));
    expect([
      rows[1][col('p50_reliable')],
      rows[1][col('p90_n')],
      rows[1][col('p90_reliable')],
      rows[1][col('p99_n')],
      rows[1][col('p99_reliable')],
    ]).toEqual(['true', '2500', 'true', '2500', 'false']);
    expect([rows[2][col('p99_n')], rows[2][col('p99_reliable')]]).toEqual(['5000', 'true']);
    expect(rows[5][col('verdict')]).toBe('fails');
    expect(rows[1][col('lag_p99_ms')]).toBe('0.1');
    expect(rows[1][col('generator_busy')]).toBe(''); // not measured in this run
    expect(rows[1][col('reconnects')]).toBe(''); // not counted in this run
    const counted = parseCsv(renderStepsCsv({ ...run, steps: [{ ...run.steps[0], reconnects: 12 }] }));
    expect(counted[1][col('reconnects')]).toBe('12');
    expect(rows[1][col('dropped_thread_busy')]).toBe('0');
    const busy = parseCsv(renderStepsCsv({ ...run, steps: [{ ...run.steps[0], dropped: 40, droppedBusy: 30 }] }));
    expect([busy[1][col('dropped')], busy[1][col('dropped_thread_busy')]]).toEqual(['40', '30']);
    expect(rows[1][col('throttled_ms')]).toBe(''); // no CPU quota read
    expect(
      parseCsv(renderStepsCsv({ ...run, steps: [{ ...run.steps[0], throttledMs: 412.5 }] }))[1][col('throttled_ms')],
    ).toBe('412.5');
    expect(rows[1][col('cpu_steal')]).toBe('');
    expect(
      parseCsv(renderStepsCsv({ ...run, steps: [{ ...run.steps[0], cpuSteal: 0.0314 }] }))[1][col('cpu_steal')],
    ).toBe('0.031');
    expect(rows[1][col('generator_cpu')]).toBe('');
    expect(
      parseCsv(renderStepsCsv({ ...run, steps: [{ ...run.steps[0], generatorCpu: 0.8764 }] }))[1][col('generator_cpu')],
    ).toBe('0.876');
  });

  it('neutralises a cell that would start a formula', () => {
    const reasons = rows[5][STEPS_CSV_COLUMNS.indexOf('reasons')];
    expect(reasons.startsWith(`'=cmd`)).toBe(true);
    expect(csv).not.toMatch(/(^|,)"?=cmd/m);
  });
});

describe('renderSummaryJson', () => {
  it('is pretty JSON of the RunResult with schemaVersion 2 first', () => {
    const text = renderSummaryJson(run);
    const parsed = JSON.parse(text) as Summary;
    expect(parsed.schemaVersion).toBe(2);
    expect(Object.keys(parsed)[0]).toBe('schemaVersion');
    // every warning keeps its value and gains its words
    expect(parsed).toEqual(
      JSON.parse(JSON.stringify({ ...run, warnings: run.warnings.map((w) => ({ ...w, text: warningText(w, run) })) })),
    );
    expect(
      parsed.warnings.every((w) => typeof w.code === 'string' && typeof (w as { text?: unknown }).text === 'string'),
    ).toBe(true);
    expect(text).toContain('\n  "runId": "run-test"');
  });

  it('loopDelayMaxMs: null where the engine measured none (k6), never 0; the figure where it did (native)', () => {
    const k6 = fakeRun({ steps: [{ ratePerSec: 100, loopDelayMaxMs: null, processCpu: 0.4 }] });
    const native = fakeRun({
      steps: [
        { ratePerSec: 100, loopDelayMaxMs: 0, busy: 0.3 },
        { ratePerSec: 200, loopDelayMaxMs: 12.5, busy: 0.3 },
      ],
    });
    const stepsOf = (r: RunResult) => (JSON.parse(renderSummaryJson(r)) as Summary).steps.map((s) => s.loopDelayMaxMs);
    expect(stepsOf(k6)).toEqual([null]);
    expect(stepsOf(native)).toEqual([0, 12.5]);
    const col = STEPS_CSV_COLUMNS.indexOf('loop_delay_max_ms');
    expect(parseCsv(renderStepsCsv(k6))[1][col]).toBe('');
    expect(
      parseCsv(renderStepsCsv(native))
        .slice(1)
        .map((row) => row[col]),
    ).toEqual(['0', '12.5']);
  });
});

describe('renderPlateauTable', () => {
  it('prints a fixed-width table and the capacity and stop lines', () => {
    const text = renderPlateauTable(hostileRun);
    const lines = text.split('\n');
    expect(lines[0]).toMatch(/^step\s+target\/s\s+achieved\/s/);
    expect(lines).toHaveLength(1 + 6 + 1 + 2 + 1 + 1);
    expect(text).toContain('capacity  400.0 req/s (step 4); peak 410.0 req/s (step 5)');
    expect(text).toMatch(/^stop\s+plateau: step 5 \(450 req\/s\)/m);
    expect(text).not.toMatch(/\u001b/);
    const interrupted = fakeRun({ steps: KNEE.steps.slice(0, 4), stopAtS: 92, interrupted: true });
    expect(renderPlateauTable(interrupted)).toContain('stop      INTERRUPTED: interrupted during step 3');
    expect(text).not.toContain('by name');
  });

  // a review: plateau run printed a failed preflight's error three times, on the stage's line, the
  // stop line and the last line (plateau: ...); the last, with its fix, is the one kept
  it("points a failed stage's stop line to the error printed below it (plateau run); a stored run's keeps its detail", () => {
    const detail = 'secret environment variable MY_API_TOKEN not set';
    const failed: RunResult = { ...hostileRun, stopReason: 'preflight-failed', stopDetail: detail };
    expect(renderPlateauTable(failed, { errorBelow: true })).toMatch(/^stop {6}preflight failed \(see below\)$/m);
    expect(renderPlateauTable(failed, { errorBelow: true })).not.toContain(detail);
    expect(renderPlateauTable(failed)).toContain(`stop      preflight failed: ${detail}`);
    // a stop of the run's own (the plateau) is said in full whatever follows it
    expect(renderPlateauTable(hostileRun, { errorBelow: true })).toMatch(/^stop\s+plateau: step 5 \(450 req\/s\)/m);
  });

  it("a run with names lists each name at the knee, in the traffic's order, before the capacity line", () => {
    const named = withNames(
      {
        ...hostileRun,
        traffic: {
          entries: [
            { name: 'write', weight: 30, transaction: false },
            { name: 'read', weight: 70, transaction: false },
          ],
        },
      },
      (st) => ({
        read: { perSec: 0.7 * st.ratePerSec, p99Ms: 12 },
        write: { perSec: 0.3 * st.ratePerSec, p99Ms: 40, errorRate: 0.01 },
      }),
    );
    const lines = renderPlateauTable(named).split('\n');
    const at = lines.indexOf('by name at the knee, step 4 (400 req/s):');
    expect(at).toBeGreaterThan(6);
    expect(lines[at + 1]).toMatch(/^name\s+kind\s+ok\/s\s+p50 ms\s+p99 ms\s+errors$/);
    expect(lines[at + 2]).toMatch(/^write\s+request\s+118\.8\s+20\.0\s+40\.0\s+1\.00%$/);
    expect(lines[at + 3]).toMatch(/^read\s+request\s+280\.0\s+6\.00\s+12\.0\s+0\.00%$/);
    expect(lines.findIndex((l) => l.startsWith('capacity'))).toBeGreaterThan(at + 3);
    // no limit found: the names are those of the highest step held, said as such
    const allHeld = withNames(fakeRun({ steps: [{ ratePerSec: 100 }, { ratePerSec: 200 }] }), () => ({
      read: { perSec: 50, p99Ms: 5 },
    }));
    expect(renderPlateauTable(allHeld)).toContain('by name at the highest step held, step 2 (200 req/s):');
    // names k6 took from URLs share their start: cut in the middle, they stay apart
    const base = 'http://orders-service.internal:8080/api/v1/orders/';
    const urls = withNames(fakeRun({ steps: [{ ratePerSec: 100 }, { ratePerSec: 200 }] }), () => ({
      [`${base}search`]: { perSec: 50, p99Ms: 5 },
      [`${base}summary`]: { perSec: 10, p99Ms: 5 },
    }));
    const cells = renderPlateauTable(urls)
      .split('\n')
      .filter((l) => l.startsWith('http'))
      .map((l) => l.split(/\s{2,}/)[0]);
    expect(cells).toEqual(['http://orde…v1/orders/search', 'http://orde…1/orders/summary']);
  });
});

describe('renderers', () => {
  it('registers report.md, summary.json and steps.csv', () => {
    expect(renderers.map((r) => r.file)).toEqual(['report.md', 'summary.json', 'steps.csv']);
    for (const r of renderers) expect(r.render(run).length).toBeGreaterThan(0);
  });
});

describe('the cold-target warning', () => {
  it("names the entry of a mix it read, and the run's rate unit", () => {
    const w = {
      code: 'cold-target' as const,
      step: 0,
      figures: {
        name: 'read order',
        measured: 'step',
        ratePerSec: 100,
        p50Ms: 6,
        laterStep: 1,
        laterAttempt: 1,
        laterRatePerSec: 200,
        laterP50Ms: 2,
        ratio: 0.333,
        ratioMax: 0.6,
      },
    };
    const traffic = { entries: [{ name: 'checkout', weight: 1, transaction: true }] };
    expect(warningText(w, { steps: [], traffic })).toMatch(
      /^read order: step 1 \(100\.0 arrivals\/s\) read a median of 6\.00 ms, and step 2 at 200\.0 arrivals\/s read 2\.00 ms/,
    );
    const { name: _name, ...pooled } = w.figures;
    expect(warningText({ ...w, figures: pooled }, { steps: [], traffic: undefined })).toMatch(
      /^step 1 \(100\.0 req\/s\) read a median/,
    );
  });
});

describe('the Stages tables', () => {
  it("give a failed stage's fix beside its detail, as the terminal does; a passing stage's evidence stays out", () => {
    const failed: RunResult = {
      ...run,
      stages: [
        {
          name: 'reset',
          status: 'fail',
          durationMs: 3,
          detail: 'the environment variable RESET_DATABASE_URL is not set',
          evidence: ['fix: export RESET_DATABASE_URL=postgres://user@host/db before the run'],
        },
        { name: 'rtt', status: 'pass', durationMs: 5, detail: 'median 0.4 ms', evidence: ['fix: not a fix'] },
      ],
    };
    const row = 'the environment variable RESET\\_DATABASE\\_URL is not set; fix: export RESET\\_DATABASE\\_URL=';
    const md = renderMarkdown(failed);
    expect(md).toContain(row);
    expect(md).not.toContain('not a fix');
    expect(renderHtml(failed, [])).toContain(
      'the environment variable RESET_DATABASE_URL is not set; fix: export RESET_DATABASE_URL=postgres://user@host/db before the run',
    );
  });
});

describe('a warmup that never settled', () => {
  const NOT_STABLE =
    'not stable within 30 s at 50 req/s (median spread 40%; waiting for stable windows); continuing, the first step may be noisy';
  const warmup: StageOutcome = {
    name: 'warmup',
    status: 'pass',
    durationMs: 31_000,
    detail: NOT_STABLE,
    evidence: [],
    warmup: { stable: false, tookS: 31, ratePerSec: 50, windows: [{ fromS: 1, throughputPerSec: 50, p50Ms: 4 }] },
  };
  const input = buildInput(KNEE);
  // run.json as recorded (and as every run stored before warn): pass, with the record saying not stable
  const unsettled = analyzeRun({ ...input, stages: [input.stages[0], warmup, ...input.stages.slice(1)] });

  it('reads warn, with its reason, in the Stages tables and summary.json', () => {
    expect(
      mdCells(
        renderMarkdown(unsettled)
          .split('\n')
          .find((l) => l.startsWith('| warmup '))!,
      ).map((c) => c.trim()),
    ).toEqual(['warmup', 'warn', '31.0 s', NOT_STABLE]);
    expect(renderHtml(unsettled, [])).toMatch(
      /<td[^>]*>warmup<\/td><td[^>]*>warn<\/td><td[^>]*>31\.0 s<\/td><td[^>]*>not stable within 30 s/,
    );
    const summary = JSON.parse(renderSummaryJson(unsettled)) as Summary;
    expect(summary.stages.find((s) => s.name === 'warmup')).toMatchObject({ status: 'warn', detail: NOT_STABLE });
  });

  it("reads warn in the terminal's stage line as it is recorded; a settled one passes", () => {
    expect(stageLineText(warmup)).toBe(`warmup: warn (31000 ms) ${NOT_STABLE}`);
    const settled = { ...warmup, detail: 'stable after 7.0 s', warmup: { ...warmup.warmup!, stable: true } };
    expect(stageLineText(settled)).toBe('warmup: pass (31000 ms) stable after 7.0 s');
  });
});

describe('an entry that failed while the run held', () => {
  it('is said under the capacity in every headline (the terminal, report.md, report.html), not only among the warnings', () => {
    const failing: RunResult = {
      ...run,
      warnings: [
        ...run.warnings,
        {
          code: 'names-failing',
          step: null,
          figures: { name: 'get b', steps: [1, 2, 3], errorRate: 1, transaction: false },
        },
      ],
    };
    const said = /"get b" failed 100% of its requests in steps 2-4, which held on the run's arrivals as a whole/;
    const table = renderPlateauTable(failing);
    expect(table).toMatch(/\ncapacity {2}.*\n {10}but "get b" failed 100%/);
    expect(table).toMatch(said);
    expect(renderMarkdown(failing)).toMatch(/\*\*Capacity: .*\*\*\n\n> \*\*But\*\* "get b" failed 100%/);
    expect(renderHtml(failing, [])).toMatch(/<p class="banner">But &quot;get b&quot; failed 100%/);
    // a run without such an entry: no "but"
    expect(renderPlateauTable(run)).not.toMatch(/ but /);
  });
});

describe('arrivals failing in held steps', () => {
  const withFailures = (failedPerSec: readonly number[]) =>
    fakeRun({
      steps: [100, 200, 300, 400, 450].map((ratePerSec, i) => ({
        ratePerSec,
        okPerSec: [100, 200, 300, 400, 400][i] - failedPerSec[i],
        failedPerSec: failedPerSec[i],
      })),
    });

  it('are warned of, and said under the capacity where the knee had them', () => {
    const r = withFailures([0, 0, 10, 20, 0]);
    expect(r.kneeStep).toBe(3);
    const said =
      /requests failed in the held steps 3 and 4 \(up to 5% of a step's, at step 4\): a step holds on the requests that succeeded/;
    expect(warningTexts(r).some((t) => said.test(t))).toBe(true);
    expect(renderPlateauTable(r)).toMatch(/\ncapacity {2}.*\n {10}but requests failed in the held steps 3 and 4/);
    expect(renderMarkdown(r)).toMatch(/> \*\*But\*\* requests failed in the held steps 3 and 4/);
  });

  it('below the knee only: warned of, the capacity left unqualified', () => {
    const r = withFailures([0, 10, 0, 0, 0]);
    expect(r.kneeStep).toBe(3);
    expect(warningTexts(r).some((t) => t.startsWith('requests failed in the held step 2 (up to 5%'))).toBe(true);
    expect(renderPlateauTable(r)).not.toMatch(/ but /);
  });
});

describe('a capacity resting on a step held generator-limited', () => {
  it('is said under the capacity in every headline, with the fix', () => {
    const r = fakeRun({
      steps: [100, 200, 300, 400, 450].map((ratePerSec) => ({ ratePerSec, okPerSec: Math.min(ratePerSec, 400) })),
    });
    const knee = r.kneeStep!;
    const limited: RunResult = {
      ...r,
      steps: r.steps.map((s) =>
        s.index === knee
          ? {
              ...s,
              generatorLimited: { code: 'loop-delay', step: knee, figures: { loopDelayMaxMs: 130, boundMs: 100 } },
            }
          : s,
      ),
    };
    const said =
      /\n {10}but it rests on step 4, which held while the generator was over its bounds \(.*130.*\): the generator may have held its throughput or latencies back, and the gate will not judge it; /;
    expect(renderPlateauTable(limited)).toMatch(said);
    expect(renderMarkdown(limited)).toMatch(
      /> \*\*But\*\* it rests on step 4, which held while the generator was over its bounds/,
    );
    expect(renderPlateauTable(r)).not.toMatch(/ but /);
  });
});

describe('a request that failed after its arrival ended (a late send)', () => {
  const late = 'other: buy: late: http.send after the transaction ended: await every send inside run(ctx, http)';
  const base = fakeRun({ steps: [{ ratePerSec: 20 }] });
  const name = (failed: number) => ({
    ...nameResult({ completed: 40, errorRate: failed / 40, perSec: 20 }),
    errors: failed > 0 ? { other: failed } : {},
  });
  const steps = base.steps.map((s) => ({
    ...s,
    errorSamples: [late],
    byName: { 'buy: get': name(0), 'buy: late': name(40) },
  }));
  const r: RunResult = { ...base, steps, warnings: runWarnings(steps, base.rules) };

  it('has a row in the errors table with its message, where no arrival failed', () => {
    const md = renderMarkdown(r);
    expect(md).not.toContain('No failed requests in any steady window');
    expect(md).toMatch(
      /\| no arrival failed; requests: "buy: late" other 40 \|.*http\.send after the transaction ended/,
    );
    expect(renderHtml(r, [])).toContain('no arrival failed; requests: &quot;buy: late&quot; other 40');
  });

  it("its name's warning quotes the message, which the table by name does not give", () => {
    const [w] = r.warnings.filter((x) => x.code === 'names-failing');
    expect(warningText(w, r)).toMatch(
      /; the first: "other: buy: late: http\.send after the transaction ended: await every send inside run\(ctx, http\)"$/,
    );
  });
});

/** A cross-check that found the server counting as the client did. */
const consistentCheck = (s: StepResult) => ({
  verdict: 'consistent' as const,
  detail: 'server counted as the client did',
  clientPerSec: s.throughputPerSec,
  serverPerSec: s.throughputPerSec,
  clientMeanMinusRttMs: 4.3,
  serverMeanMs: 4.28,
});

describe('the server-side view', () => {
  it('says when its figures came through PromQL, and over which span of each steady window', () => {
    const viaPromql: RunResult = {
      ...run,
      steps: run.steps.map((s) => ({
        ...s,
        server: {
          source: 'promql' as const,
          fromS: s.steadyStartS + 0.37,
          toS: s.steadyStartS + 1.37,
          throughputPerSec: s.throughputPerSec,
          meanMs: 4.28,
          maxMs: null,
          poolActiveMax: null,
          poolPendingMax: null,
          poolMax: null,
        },
        crossCheck: consistentCheck(s),
      })),
    };
    const md = serverSection(viaPromql).join('\n');
    expect(md).toContain("The target's own metrics through PromQL, over the scrapes Prometheus holds inside each");
    const s = viaPromql.steps[0];
    expect(md).toContain(
      `step 1 (through PromQL, ${(s.steadyStartS + 0.37).toFixed(2)}-${(s.steadyStartS + 1.37).toFixed(2)} s of the ${s.steadyStartS}-${s.steadyEndS} s window): server counted`,
    );
    // read directly: as before, no PromQL anywhere
    const direct: RunResult = {
      ...viaPromql,
      steps: viaPromql.steps.map((x) => ({ ...x, server: { ...x.server!, source: 'scrape' as const } })),
    };
    expect(serverSection(direct).join('\n')).not.toContain('PromQL');
  });

  it("a rerun's cross-check names its attempt, as its row does", () => {
    const check = (s: StepResult) => ({ ...s, crossCheck: consistentCheck(s) });
    const first = run.steps[0];
    const md = serverSection({ ...run, steps: [check(first), check({ ...first, attempt: 2 })] }).join('\n');
    expect(md).toContain('- step 1: server counted as the client did\n- step 1 (attempt 2): server counted');
  });
});

describe('the errors table', () => {
  it('says which counts are arrivals, and in an import of iterations which are requests (its statuses)', () => {
    const spec: FakeRunSpec = { steps: [{ ratePerSec: 100, okPerSec: 90, failedPerSec: 10 }] };
    const requests = fakeRun(spec);
    expect(renderMarkdown(requests)).toContain(
      '| Step | Failed | Error rate | By kind | By status | Sample messages |',
    );
    const arrivals: RunResult = {
      ...fakeRun(spec),
      traffic: { entries: [{ name: 'checkout', weight: 1, transaction: true }] },
    };
    // natively one kind and one status per failed arrival, its failing request's
    expect(renderMarkdown(arrivals)).toContain(
      '| Step | Failed arrivals | Error rate | By kind | By status | Sample messages |',
    );
    const imported: RunResult = { ...arrivals, rules: { ...arrivals.rules, imported: true } };
    expect(renderMarkdown(imported)).toContain(
      '| Step | Failed arrivals | Error rate | By kind (arrivals) | By status (requests) | Sample messages |',
    );
    expect(renderHtml(imported, [])).toContain('<th>By status (requests)</th>');
  });

  it("says how many failed arrivals the window's failed requests leave unexplained (an iteration failed before the window), and nothing where they cover them", () => {
    const run = fakeRun({ steps: [{ ratePerSec: 100, okPerSec: 90, failedPerSec: 10 }] });
    const failed = run.steps[0].failed;
    const row = (requestsFailed: number) =>
      renderMarkdown({ ...run, steps: [{ ...run.steps[0], requestsFailed }] })
        .split('## Errors')[1]
        .split('\n')
        .find((l) => l.startsWith('| 1 |'))!;
    expect(failed).toBeGreaterThan(2);
    expect(row(failed - 2)).toContain(`| 1 | ${failed} (at least 2 failed by a request sent before the window) |`);
    for (const n of [failed, failed + 5]) expect(row(n)).toContain(`| 1 | ${failed} | 10.00% |`);
  });
});

describe('the label filter that matched nothing (review G17)', () => {
  it('names its steps and quotes the reading that names the values there', () => {
    const line =
      'metrics.requests.labels {uri="/order"} match none of the 3 series of http_server_requests_seconds_count (uri: "/health", "/orders"); set metrics.requests.labels to values the target exposes';
    const w: Symptom = { code: 'labels-unseen', step: null, figures: { steps: [0, 1, 2], line } };
    expect(warningText(w, { steps: [], traffic: undefined })).toBe(
      `the label filter read no series in steps 1-3, so none has a server cross-check: ${line}`,
    );
    expect(
      warningText(
        { ...w, figures: { steps: [0], line: `through PromQL: Prometheus holds no samples` } },
        { steps: [], traffic: undefined },
      ),
    ).toBe(`the label filter read no series in step 1, so none has a server cross-check: Prometheus holds no samples`);
  });
});
