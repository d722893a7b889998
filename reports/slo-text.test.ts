/** The capacity within the latency objective in report.md, report.html and the terminal; nothing without one. */
import { describe, expect, it } from 'vitest';
import { analyzeRun } from '../analysis/analyze.ts';
import { buildInput, DEFAULT_RULES, stepResult } from '../analysis/testing/builders.ts';
import { sloOf } from '../analysis/slo.ts';
import type { RunResult, SloConfig, StepResult } from '../analysis/types.ts';
import { renderHtml } from './html.ts';
import { renderMarkdown } from './markdown.ts';
import { sloCapacityText, sloNotes, sloRows } from './slo-text.ts';
import { renderPlateauTable } from './table.ts';
import { renderStepsCsv } from './steps-csv.ts';
import { parseCsv } from '../harness/scenario/csv-rows.ts';

const CLIENT: SloConfig = { quantile: 0.99, maxMs: 300, source: 'client' };
// median 10 ms: p99 about 38 ms; 100 ms: about 382 ms (the builders' exponential tail); 10 s steady windows
const SPEC = {
  steps: [
    { ratePerSec: 300, latencyMs: 10 },
    { ratePerSec: 400, latencyMs: 20 },
    { ratePerSec: 500, latencyMs: 100 },
    { ratePerSec: 600, okPerSec: 510, latencyMs: 200 },
  ],
  holdS: 12,
  rampS: 1,
  settleS: 2,
};
const run = (slo?: SloConfig): RunResult => analyzeRun({ ...buildInput(SPEC), ...(slo ? { slo } : {}) });

describe('every output', () => {
  const r = run(CLIENT);

  it('report.md: the figure below the headline, the evidence, each step against the objective', () => {
    const md = renderMarkdown(r);
    expect(md).toContain(
      '**Capacity within SLO (p99 <= 300 ms, client minus RTT): 400.0 req/s (step 2)**: step 2 (400 req/s) met it',
    );
    expect(md.indexOf('Capacity within SLO')).toBeGreaterThan(md.indexOf('**Capacity: 500.0 req/s (step 3)**'));
    expect(md.indexOf('Capacity within SLO')).toBeLessThan(md.indexOf('## How to read this'));
    expect(md).toContain('| Step | Target req/s | Achieved req/s | p99 minus RTT | Samples | Objective |');
    expect(md).toMatch(/\| 2 \| 400 \| 400\.0 \| 76\.\d ms \| 4,000 \| met \(<= 300 ms\): capacity within SLO \|/);
    expect(md).toMatch(/\| 3 \| 500 \| 500\.0 \| 38\d ms \| 5,000 \| missed \(> 300 ms\) \|/);
    expect(md).toMatch(/\| 4 \| 600 \| 510\.0 \| .* \| past the knee, not counted: missed \(> 300 ms\) \|/);
    expect(md).toContain("- The client's percentiles minus the RTT (0.500 ms");
  });

  it('report.html: the same, escaped', () => {
    const html = renderHtml(r, []);
    expect(html).toContain(
      '<section id="slo">\n<h2>Capacity within SLO</h2>\n<p class="capacity">Capacity within SLO (p99 &lt;= 300 ms, client minus RTT): <strong>400.0 req/s (step 2)</strong></p>',
    );
    expect(html).toContain('<td>met (&lt;= 300 ms): capacity within SLO</td>');
    expect(html).toContain('<nav><a href="#slo">Capacity within SLO</a> · ');
  });

  it("steps.csv: each step's quantile against the objective, empty where there is none", () => {
    const rows = parseCsv(renderStepsCsv(r));
    expect(rows.map((x) => [x.slo_met, x.slo_unjudged])).toEqual(
      r.slo!.steps.map((x) => [x.met === null ? '' : String(x.met), x.unjudged ?? '']),
    );
    expect([rows[1]!.slo_met, rows[2]!.slo_met]).toEqual(['true', 'false']);
    expect(Number(rows[2]!.slo_value_ms)).toBeCloseTo(r.slo!.steps[2]!.valueMs!, 2);
    for (const x of parseCsv(renderStepsCsv(run()))) expect(x.slo_value_ms + x.slo_met + x.slo_unjudged).toBe('');
  });

  it('the terminal: one line below the capacity', () => {
    expect(renderPlateauTable(r)).toContain(
      'capacity  500.0 req/s (step 3); peak 510.0 req/s (step 4)\nslo       p99 <= 300 ms, client minus RTT: capacity 400.0 req/s (step 2)\nstop ',
    );
  });

  it('counts arrivals where the traffic has a transaction: arrivals/s in its capacity and table', () => {
    const mixed: RunResult = {
      ...r,
      traffic: { entries: [{ name: 'checkout', weight: 1, transaction: true }] },
    };
    expect(renderPlateauTable(mixed)).toContain('capacity 400.0 arrivals/s (step 2)\n');
    expect(renderMarkdown(mixed)).toContain('| Step | Target arrivals/s | Achieved arrivals/s | p99 minus RTT |');
  });

  it('summary.json: RunResult.slo itself', () => {
    expect(JSON.parse(JSON.stringify(r)).slo).toMatchObject({ capacityPerSec: 400, step: 1, atLeast: false });
  });

  it('a run without an objective renders as before', () => {
    const plain = run();
    expect(renderMarkdown(plain)).not.toMatch(/SLO/);
    expect(renderHtml(plain, [])).not.toMatch(/SLO|id="slo"|#slo/);
    expect(renderPlateauTable(plain)).not.toMatch(/^slo /m);
    expect(renderMarkdown(plain)).toBe(renderMarkdown({ ...r, slo: undefined }));
  });
});

describe('the headline never says more than the evidence', () => {
  it.each<[string, SloConfig, string]>([
    ['a miss above it', CLIENT, '400.0 req/s (step 2)'],
    [
      'no holding step missed it',
      { ...CLIENT, maxMs: 1000 },
      'at least 500.0 req/s (step 3; no holding step missed it: the plateau came first)',
    ],
    [
      'the first judged step missed it',
      { ...CLIENT, maxMs: 5 },
      'not established (step 1, the first judged holding step, missed it)',
    ],
    ['no server percentiles', { ...CLIENT, source: 'server' }, 'not established (no server percentiles)'],
  ])('%s', (_what, slo, text) => expect(sloCapacityText(run(slo).slo!)).toBe(text));

  it('every holding step too thin', () => {
    const thin = [stepResult({ index: 0, latency: [{ q: 99, valueMs: 5, n: 500, reliable: false }] })];
    const slo = sloOf(CLIENT, thin, null, DEFAULT_RULES);
    expect(sloCapacityText(slo)).toBe('not established (too few samples to trust in every holding step)');
    expect(sloRows(slo)[0]).toEqual([
      '1',
      '100',
      '100.0',
      '~5.00 ms*',
      '500 (needs 3,000)',
      'too few samples: not trusted',
    ]);
    expect(sloNotes(slo)[0]).toMatch(/^The RTT was not measured/);
  });
});

describe('the server source', () => {
  const window = (valueMs: number, lowerMs: number, upperMs: number | null): StepResult['server'] => ({
    source: 'scrape',
    fromS: 0,
    toS: 10,
    throughputPerSec: 100,
    meanMs: 5,
    maxMs: null,
    poolActiveMax: null,
    poolPendingMax: null,
    poolMax: null,
    percentiles: [{ q: 99, valueMs, lowerMs, upperMs, n: 5000 }],
  });
  const steps = [
    stepResult({ index: 0, server: window(120, 100, 250) }),
    stepResult({ index: 1, ratePerSec: 200, throughputPerSec: 200, server: window(280, 250, 500) }),
    stepResult({ index: 2, ratePerSec: 300, throughputPerSec: 300, server: window(2500, 2000, null) }),
  ];
  const slo = sloOf({ ...CLIENT, source: 'server' }, steps, null, DEFAULT_RULES);

  it("the bucket beside the value, and a note where it holds the objective's bound", () => {
    expect(sloRows(slo).map((r) => [r[3], r[4], r[6]])).toEqual([
      ['120 ms', '100–250 ms', 'met (<= 300 ms)'],
      ['280 ms', '250–500 ms', 'met (<= 300 ms): capacity within SLO'],
      ['2,500 ms', '2,000 ms – +Inf', 'missed (> 300 ms)'],
    ]);
    expect(sloNotes(slo)).toEqual([
      expect.stringMatching(/^Server percentiles are interpolated .*at step 2 the bucket holds/),
    ]);
  });
});
