/**
 * Reruns and flagged attempts in every output: a transient (or generator-bound, contaminated,
 * generator-limited) attempt never reads as a confirmed result, a rerun's model row and chart
 * point are its own, and a figure on the failing side of its bound never prints as the bound.
 */
import { describe, expect, it } from 'vitest';
import { analyzeRun } from '../analysis/analyze.ts';
import { buildInput, fakeRun, withAttempts, type FakeStep } from '../analysis/testing/builders.ts';
import type { RunResult, StepResult } from '../analysis/types.ts';
import { throughputSpec } from './charts/throughput.ts';
import { uslSpec } from './charts/usl.ts';
import { verdictLabel } from './cells.ts';
import { renderHtml } from './html.ts';
import { renderMarkdown } from './markdown.ts';
import { modelRows } from './models-text.ts';
import { renderStepsCsv, STEPS_CSV_COLUMNS } from './steps-csv.ts';
import { renderPlateauTable } from './table.ts';

/** Steps 100, 200, 300 (transient: 150 achieved), 300 again (attempt 2, holds), 400. */
function transientRun(): RunResult {
  const input = buildInput({
    steps: [
      { ratePerSec: 100 },
      { ratePerSec: 200 },
      { ratePerSec: 300, okPerSec: 150 },
      { ratePerSec: 300 },
      { ratePerSec: 400 },
    ],
  });
  return analyzeRun(withAttempts(input, { 3: { index: 2 } }));
}

/** Steps 100..400 hold; 500 fails twice (a confirmed failure: both attempts decide). */
function confirmedRun(): RunResult {
  const steps: FakeStep[] = [
    { ratePerSec: 100 },
    { ratePerSec: 200 },
    { ratePerSec: 300 },
    { ratePerSec: 400 },
    { ratePerSec: 500, okPerSec: 350, latencyMs: 50 },
    { ratePerSec: 500, okPerSec: 300, latencyMs: 80 },
  ];
  return analyzeRun(withAttempts(buildInput({ steps }), { 5: { index: 4 } }));
}

/** Cells of the rows of report.md's step table that start with `start` (no escaped pipes in these rows). */
function mdRowCells(md: string, start: string): string[][] {
  const steps = md.slice(md.indexOf('## Steps'), md.indexOf('\n## ', md.indexOf('## Steps')));
  return steps
    .split('\n')
    .filter((l) => l.startsWith(start))
    .map((l) =>
      l
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    );
}

/** Text cells of the HTML table rows of a section. */
function htmlRows(html: string, id: string): string[][] {
  const section = html.slice(
    html.indexOf(`<section id="${id}">`),
    html.indexOf('</section>', html.indexOf(`<section id="${id}">`)),
  );
  return [...section.matchAll(/<tr[^>]*>(.*?)<\/tr>/g)].map((m) =>
    [...m[1].matchAll(/<td>(.*?)<\/td>/g)].map((c) => c[1]),
  );
}

const LAG = { code: 'late-arrivals', step: 0, figures: { quantile: 99, lagMs: 30, boundMs: 20, lagSamples: 5000 } };

describe('the verdict label', () => {
  const run = transientRun();

  it('names the attempt and its classification', () => {
    expect(run.steps.map(verdictLabel)).toEqual(['holds', 'holds', 'fails (transient)', 'holds (attempt 2)', 'holds']);
    const s = run.steps[0];
    expect(verdictLabel({ ...s, verdict: 'fails', generatorBound: true })).toBe('fails (generator-bound)');
    expect(verdictLabel({ ...s, generatorLimited: LAG })).toBe('holds (generator-limited)');
    expect(verdictLabel({ ...s, verdict: 'fails', attempt: 2, contaminated: true })).toBe(
      'fails (attempt 2, contaminated)',
    );
  });

  it('is what the terminal table, report.md and report.html show', () => {
    const table = renderPlateauTable(run)
      .split('\n')
      .filter((l) => /^\s+3\s/.test(l));
    expect(table.map((l) => l.replace(/.*\d\s{2}/, ''))).toEqual(['fails (transient)', 'holds (attempt 2)']);
    expect(mdRowCells(renderMarkdown(run), '| 3 | 300 | ').map((r) => r[11])).toEqual([
      'fails (transient)',
      'holds (attempt 2)',
    ]);
    expect(renderMarkdown(run)).toContain('- **step 3** (fails, transient): delivery 0.50 < 0.90');
    const html = renderHtml(run, []);
    expect(
      htmlRows(html, 'steps')
        .filter((r) => r[0] === '3')
        .map((r) => r[11]),
    ).toEqual(['fails (transient)', 'holds (attempt 2)']);
    expect(html).toContain('<tr class="verdict-fails set-aside">');
  });

  it('steps.csv gives each row its attempt and flags, in columns after the old ones', () => {
    const rows = renderStepsCsv(run)
      .trim()
      .split('\n')
      .map((l) => l.split(','));
    const col = (name: string) => rows[0].indexOf(name);
    expect(rows[0].slice(0, 24)).toEqual(STEPS_CSV_COLUMNS.slice(0, 24));
    expect(rows[0].slice(24, 31)).toEqual([
      'attempt',
      'transient',
      'generator_bound',
      'generator_limited',
      'waited_on_target',
      'inconclusive',
      'contaminated',
    ]);
    expect(
      rows.slice(1).map((r) => [r[col('step')], r[col('attempt')], r[col('transient')], r[col('verdict')]]),
    ).toEqual([
      ['1', '1', 'false', 'holds'],
      ['2', '1', 'false', 'holds'],
      ['3', '1', 'true', 'fails'],
      ['3', '2', 'false', 'holds'],
      ['4', '1', 'false', 'holds'],
    ]);
    const limited = renderStepsCsv({
      ...run,
      steps: [{ ...run.steps[0], generatorLimited: LAG, generatorBound: true, contaminated: true }],
    });
    // the symptom is worded from its figures: no target-controlled text reaches this column
    expect(limited.split('\n')[1]).toMatch(
      /,1,false,true,"generator-limited while holding: scheduler lag p99 30\.0 ms > 20 ms; the rate was served[^"]*",false,false,true,/,
    );
  });
});

/** A chart's point layers (theme.ts verdictPoints): the counted attempts filled, then those set aside hollow. */
type PointLayer = {
  data: { values: { offered: number; achieved: number; verdict: string; step: string }[] };
  mark: { type: string; filled: boolean };
  encoding: { color: { scale: { domain: string[]; range: string[] } } };
};
function pointLayers(spec: unknown): { counted?: PointLayer; aside?: PointLayer } {
  const layers = (spec as { layer: { layer?: PointLayer[] }[] }).layer.find((l) =>
    l.layer?.some((x) => x.mark.type === 'point'),
  )!.layer!;
  return { counted: layers.find((l) => l.mark.filled), aside: layers.find((l) => !l.mark.filled) };
}

describe('the throughput chart', () => {
  it('draws a transient attempt in its own colour, hollow, off the achieved line', () => {
    const spec = throughputSpec(transientRun()) as unknown as {
      layer: { data: { values: { achieved?: number }[] }; mark: { type: string } }[];
    };
    const line = spec.layer.find((l) => l.mark.type === 'line' && l.data.values.some((v) => 'achieved' in v))!;
    expect(line.data.values.map((v) => v.achieved)).toEqual([100, 200, 300, 400]);
    const { counted, aside } = pointLayers(spec);
    expect(counted!.data.values.map((v) => v.verdict)).toEqual(['holds', 'holds', 'holds', 'holds']);
    expect(aside!.data.values.map((v) => [v.offered, v.verdict])).toEqual([[300, 'transient']]);
    const { domain, range } = aside!.encoding.color.scale;
    expect(domain).toEqual(['transient']);
    expect(counted!.encoding.color.scale.range).not.toContain(range[0]);
  });

  it('adds no category a run does not have', () => {
    const run = fakeRun({ steps: [{ ratePerSec: 100 }, { ratePerSec: 200 }] });
    // holds and fails always; incomplete and not-run only where drawn, and no set-aside layer without one
    const plain = pointLayers(throughputSpec(run));
    expect(plain.counted!.encoding.color.scale.domain).toEqual(['holds', 'fails']);
    expect(plain.aside).toBeUndefined();
    const cut = pointLayers(
      throughputSpec({ ...run, steps: [run.steps[0], { ...run.steps[1], verdict: 'incomplete' }] }),
    );
    expect(cut.counted!.encoding.color.scale.domain).toEqual(['holds', 'fails']);
    expect(cut.aside!.encoding.color.scale.domain).toEqual(['incomplete']);
  });
});

describe('models of a rerun', () => {
  it('each attempt has its own row: utilisation is looked up by index and attempt', () => {
    const run = confirmedRun();
    expect(run.models!.little.map((l) => [l.index, l.attempt, l.throughputPerSec])).toEqual([
      [0, 1, 100],
      [1, 1, 200],
      [2, 1, 300],
      [3, 1, 400],
      [4, 1, 350],
      [4, 2, 300],
    ]);
    expect(run.models!.utilisation.map((u) => [u.index, u.attempt])).toEqual([
      [0, 1],
      [1, 1],
      [2, 1],
      [3, 1],
      [4, 1],
      [4, 2],
    ]);
    const rows = modelRows(run.models!, run.kneeStep);
    expect(rows[4].slice(0, 3)).toEqual(['5', '500', '350.0']);
    expect(rows[5].slice(0, 3)).toEqual(['5 (attempt 2)', '500', '300.0']);
    expect(rows[5][5]).toBe((300 / 400).toFixed(2));
    expect(rows[5][7]).toBe(`${run.models!.utilisation[5].latencyInflation!.toFixed(2)}×`);
    expect(rows[5][7]).not.toBe(rows[4][7]);
  });

  it('the USL chart colours a rerun by its own verdict, not the transient attempt before it', () => {
    const points = pointLayers(uslSpec(transientRun())).counted!.data.values;
    expect(points.map((p) => [p.step, p.verdict])).toEqual([
      ['step 1', 'holds'],
      ['step 2', 'holds'],
      ['step 3 (2)', 'holds'],
      ['step 4', 'holds'],
    ]);
  });
});

describe('a figure on the failing side of its bound never prints as the bound', () => {
  const base = fakeRun({ steps: [{ ratePerSec: 100 }, { ratePerSec: 200 }] });
  const close: StepResult = {
    ...base.steps[1],
    delivery: 0.8987,
    capture: 0.599,
    verdict: 'fails',
    generatorBusy: 0.904,
    generatorCpu: 0.9004,
  };
  const run: RunResult = { ...base, steps: [base.steps[0], close] };

  it('delivery 0.8987 and capture 0.599 in the step tables', () => {
    const md = renderMarkdown(run);
    expect(mdRowCells(md, '| 2 | 200 | ')[0].slice(3, 5)).toEqual(['0.899', '0.599']);
    expect(htmlRows(renderHtml(run, []), 'steps')[2].slice(3, 5)).toEqual(['0.899', '0.599']);
    expect(renderPlateauTable(run).split('\n')[2]).toMatch(/^\s+2\s+200\s+200\.0\s+0\.899\s+0\.599\s/);
    // on the passing side, or well below, two decimals as before
    const clear = renderMarkdown({ ...run, steps: [base.steps[0], { ...close, delivery: 0.904, capture: 0.5 }] });
    expect(mdRowCells(clear, '| 2 | 200 | ')[0].slice(3, 5)).toEqual(['0.90', '0.50']);
  });

  it('a busy share of 0.904 over the 0.9 bound in the generator table', () => {
    const header =
      '| Step | Target req/s | Scheduler lag p99 | Event-loop delay max | Busiest thread busy | Generator CPU |';
    const lines = renderMarkdown(run).split('\n');
    const row = lines[lines.findIndex((l) => l.startsWith(header)) + 3];
    expect(
      row
        .split('|')
        .slice(5, 7)
        .map((c) => c.trim()),
    ).toEqual(['90.4%', '90.04%']);
    expect(htmlRows(renderHtml(run, []), 'generator')[2].slice(4, 6)).toEqual(['90.4%', '90.04%']);
    const under = renderMarkdown({ ...run, steps: [base.steps[0], { ...close, generatorBusy: 0.896 }] }).split('\n');
    expect(under[under.findIndex((l) => l.startsWith(header)) + 3].split('|')[5].trim()).toBe('90%');
  });
});
