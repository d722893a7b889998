import { describe, expect, it } from 'vitest';
import { distributionOf, distributionWarnings, judgeDistribution } from './distribution.ts';
import type { DistributionRecord } from './types.ts';
import { warningTexts } from '../reports/warning-text.ts';
import { renderMarkdown } from '../reports/markdown.ts';
import { renderHtml } from '../reports/html.ts';
import { analyzeRun } from './analyze.ts';
import { DEFAULT_RULES } from './plan.ts';

const record = (counts: Record<string, number>, extra: Partial<DistributionRecord> = {}): DistributionRecord => ({
  name: 'leaders',
  when: 'before',
  source: 'sql',
  from: 'mysql at 127.0.0.1:2881/oceanbase',
  takenAt: '2024-06-01T10:00:00.000Z',
  counts,
  maxSkew: 1.5,
  ...extra,
});

describe('the SPREAD / SKEWED verdict: every expected node holds some, and max <= maxSkew x mean', () => {
  it.each([
    [
      '112/112/102 leaders on three servers (the reference reading that ruled leader skew out)',
      { a: 112, b: 112, c: 102 },
      {},
      'SPREAD',
      0,
    ],
    ['every leader on one server, the others idle but listed', { a: 326, b: 0, c: 0 }, {}, 'SKEWED', 2],
    [
      '150/150/0: the ratio alone (1.5 x the mean) would pass; an idle node does not',
      { a: 150, b: 150, c: 0 },
      {},
      'SKEWED',
      1,
    ],
    ['one server of three expected by name reported at all', { a: 326 }, { expectNodes: ['a', 'b', 'c'] }, 'SKEWED', 2],
    ['two of three expected by count', { a: 100, b: 100 }, { expectNodes: 3 }, 'SKEWED', 1],
    ['just at the bound: 150 over a mean of 100', { a: 150, b: 75, c: 75 }, {}, 'SPREAD', 0],
    ['just over it', { a: 151, b: 75, c: 74 }, {}, 'SKEWED', 0],
    ['a tighter bound of 1.02', { a: 112, b: 112, c: 102 }, { maxSkew: 1.02 }, 'SKEWED', 0],
    ['expectNodes: 3 and no row', {}, { expectNodes: 3 }, 'SKEWED', 3],
  ] as const)('%s', (_what, counts, extra, verdict, missingCount) => {
    const r = judgeDistribution(record(counts, extra as Partial<DistributionRecord>));
    expect(r.verdict).toBe(verdict);
    expect(r.missingCount).toBe(missingCount);
  });

  it('gives the figures the verdict rests on', () => {
    const r = judgeDistribution(record({ a: 112, b: 112, c: 102 }, { expectNodes: ['a', 'b', 'c', 'd'] }));
    expect(r).toMatchObject({ verdict: 'SKEWED', nodes: 4, totalCount: 326, missing: ['d'], counts: { d: 0 } });
    expect(r.meanCount).toBeCloseTo(81.5, 6);
    expect(r.skew).toBeCloseTo(112 / 81.5, 6);
    const even = judgeDistribution(record({ a: 112, b: 112, c: 102, x: 100 }, { expectNodes: ['a', 'b', 'c'] }));
    expect(even.unexpected).toEqual(['x']);
  });

  it('has no verdict for a probe that could not be read, or returned nothing without expectNodes', () => {
    expect(judgeDistribution(record({}, { problem: 'refused' }))).toMatchObject({ verdict: null, problem: 'refused' });
    expect(judgeDistribution(record({})).verdict).toBeNull();
  });
});

describe('before against after', () => {
  const readings = distributionOf([
    record({ p1: 100, p2: 100, p3: 100 }),
    record({ p1: 300, p2: 0, p3: 0 }, { when: 'after', takenAt: '2024-06-01T10:05:00.000Z' }),
  ]);

  it('names the change: verdicts, each count, the largest move of a share', () => {
    const change = readings[1].change!;
    expect(change).toMatchObject({
      verdictBefore: 'SPREAD',
      verdictAfter: 'SKEWED',
      changed: true,
      maxShareNode: 'p1',
    });
    expect(change.maxShareMove).toBeCloseTo(2 / 3, 6);
    expect(change.nodes).toEqual([
      { node: 'p1', before: 100, after: 300 },
      { node: 'p2', before: 100, after: 0 },
      { node: 'p3', before: 100, after: 0 },
    ]);
  });

  it('warns of a SKEWED reading before the run, of a changed verdict and of an unread probe, in words with the fix', () => {
    const skewedBefore = distributionOf([record({ a: 326, b: 0, c: 0 }, { require: 'spread' })]);
    const unread = distributionOf([record({}, { when: 'after', problem: 'cannot reach the server' })]);
    const all = [...readings, ...skewedBefore, ...unread];
    const warnings = distributionWarnings(all);
    expect(warnings.map((w) => w.code)).toEqual(['distribution-changed', 'distribution-skewed', 'distribution-unread']);
    const text = warningTexts({ steps: [], warnings });
    expect(text[0]).toMatch(
      /^distribution probe leaders read SPREAD before the run and SKEWED after it .*p1, 67% of the total.*find what moved it/,
    );
    expect(text[1]).toMatch(
      /read SKEWED before the run: 2 of 3 nodes hold nothing \(b, c\); a holds 3\.00x the mean \(over 1\.50x\); it requires 'spread', so the run stopped before any load/,
    );
    expect(text[2]).toMatch(/could not be read after the last step: cannot reach the server; fix the probe/);
  });
});

describe('in the reports', () => {
  const input = {
    runId: 'r',
    target: 'http://127.0.0.1:1/x',
    engine: 'native',
    startedAt: '2024-06-01T10:00:00.000Z',
    rules: { ...DEFAULT_RULES },
    steps: [],
    records: [],
    stages: [],
    vus: { preAllocatedVUs: 1, maxVUs: 1, reason: 'test' },
    rtt: null,
    environment: {},
    interrupted: false,
  };

  it('a section with both readings and the change in report.md and report.html; the run keeps them for summary.json', () => {
    const run = analyzeRun({
      ...input,
      distribution: [
        record({ p1: 100, p2: 100, p3: 100 }, { expectNodes: ['p1', 'p2', 'p3'] }),
        record({ p1: 300, p2: 0, p3: 0 }, { when: 'after', expectNodes: ['p1', 'p2', 'p3'] }),
      ],
    });
    expect(run.distribution?.map((r) => [r.name, r.when, r.verdict, r.counts])).toEqual([
      ['leaders', 'before', 'SPREAD', { p1: 100, p2: 100, p3: 100 }],
      ['leaders', 'after', 'SKEWED', { p1: 300, p2: 0, p3: 0 }],
    ]);
    const md = renderMarkdown(run);
    expect(md).toContain('## Data distribution');
    expect(md).toMatch(
      /\| leaders \| before \| SPREAD \| 3 of 3 hold some \| p1 100, p2 100, p3 100 \| 1\.00x \(at most 1\.50x\) \|/,
    );
    expect(md).toMatch(/\| leaders \| after \| SKEWED \| 1 of 3 hold some \| p1 300, p2 0, p3 0 \|/);
    expect(md).toMatch(
      /- leaders: changed during the run: SPREAD before, SKEWED after; p1 100 -> 300, p2 100 -> 0, p3 100 -> 0/,
    );
    const html = renderHtml(run, []);
    expect(html).toContain('<section id="distribution"');
    expect(html).toContain('changed during the run: SPREAD before, SKEWED after');
  });

  it('prints nothing for a run without a probe', () => {
    const run = analyzeRun(input);
    expect(run.distribution).toBeUndefined();
    expect(renderMarkdown(run)).not.toContain('Data distribution');
    expect(renderHtml(run, [])).not.toContain('id="distribution"');
  });
});
