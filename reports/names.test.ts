/**
 * The figures by name in every renderer, from a hand-built run: two request names and a
 * transaction (with its two requests), the traffic mix, and what sized the VUs.
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fakeRun } from '../analysis/testing/builders.ts';
import type { NameResult, Percentile, RunResult, StepResult } from '../analysis/types.ts';
import { chartsOf } from './charts/index.ts';
import { renderHtml } from './html.ts';
import { openedSteps } from './html-names.ts';
import { optionalRenderers } from './index.ts';
import { renderMarkdown } from './markdown.ts';
import { namesKneeSentence, nameOrder } from './names-text.ts';
import { renderStepsByNameCsv, STEPS_BY_NAME_CSV_COLUMNS } from './steps-by-name-csv.ts';
import { renderSummaryJson } from './summary-json.ts';

/** CSV text to one record per row, keyed by the header (RFC 4180: quoted fields, doubled quotes). */
function parse(text: string, _opts: { columns: true }): Record<string, string>[] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
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
    } else if (ch === '\n') {
      rows.push([...row, field]);
      row = [];
      field = '';
    } else field += ch;
  }
  if (field !== '' || row.length > 0) rows.push([...row, field]);
  const [header, ...body] = rows;
  return body.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i]])));
}

/** p50, p90, p99 over `n` samples, reliable as the analysis would judge them (30 samples beyond each). */
function pcts([p50, p90, p99]: number[], n: number): Percentile[] {
  return [
    { q: 50, valueMs: p50, n, reliable: n >= 60 },
    { q: 90, valueMs: p90, n, reliable: n >= 300 },
    { q: 99, valueMs: p99, n, reliable: n >= 3000 },
  ];
}

/** A name's steady window of 25 s. */
function named(perSec: number, ms: number[], o: { transaction?: boolean; failedPerSec?: number } = {}): NameResult {
  const completed = Math.round(perSec * 25);
  const failed = Math.round((o.failedPerSec ?? 0) * 25);
  return {
    ...(o.transaction ? { transaction: true as const } : {}),
    completedPerSec: perSec,
    throughputPerSec: perSec - (o.failedPerSec ?? 0),
    completed,
    ok: completed - failed,
    failed,
    errorRate: failed / completed,
    errors: failed > 0 ? { http_5xx: failed - 2, timeout: 2 } : {},
    latency: pcts(ms, completed - failed),
    meanMs: ms[0],
    maxMs: ms[2] * 2,
  };
}

// 100 ... 450 arrivals/s; the knee is step 4 (400/s). p99 by step: "create order" doubles at step 4.
const READ = [
  [5, 8, 12],
  [5, 8, 12],
  [5, 9, 13],
  [6, 10, 15],
  [60, 200, 400],
];
const CREATE = [
  [9, 14, 20],
  [9, 15, 22],
  [10, 18, 25],
  [14, 30, 55],
  [80, 300, 600],
];
const CHECKOUT = [
  [40, 50, 60],
  [40, 52, 62],
  [42, 55, 70],
  [50, 90, 100],
  [300, 700, 900],
];
/** The transaction's first request: grows, but less than "create order". */
const CHECKOUT_CREATE = CREATE.map(([p50, p90, p99], i) => [p50, p90, i === 3 ? 48 : p99]);
const base = fakeRun({
  steps: [100, 200, 300, 400, 450].map((ratePerSec, i) => ({
    ratePerSec,
    okPerSec: [100, 200, 300, 400, 410][i],
    failedPerSec: i === 4 ? 5 : 0,
  })),
});
/** Sample counts large enough for every p99 from step 2 on (the mix is scaled up 10x in samples). */
const big = (r: NameResult, i: number): NameResult =>
  i === 0 ? r : { ...r, latency: r.latency.map((p) => ({ ...p, n: p.n * 10, reliable: true })) };
const MIXED: RunResult = {
  ...base,
  traffic: {
    entries: [
      { name: 'read order', weight: 70, transaction: false },
      { name: 'create order', weight: 25, transaction: false },
      { name: 'checkout', weight: 5, transaction: true },
    ],
    sizedFrom: 'warmup',
  },
  steps: base.steps.map((s, i) => ({
    ...s,
    requestsPerSec: s.completedPerSec * 1.05,
    byName: {
      // insertion order is not the report's order: the mix's entries first, then the other names
      'checkout: create': big(named(s.ratePerSec * 0.05, CHECKOUT_CREATE[i]), i),
      checkout: big(named(s.ratePerSec * 0.05, CHECKOUT[i], { transaction: true }), i),
      'create order': big(named(s.ratePerSec * 0.25, CREATE[i], { failedPerSec: i === 4 ? 5 : 0 }), i),
      'read order': big(named(s.ratePerSec * 0.7, READ[i]), i),
      'checkout: confirm': big(named(s.ratePerSec * 0.05, READ[i]), i),
    },
  })),
};
const ORDER = ['read order', 'create order', 'checkout', 'checkout: confirm', 'checkout: create'];

/** The lines of report.md's section `title`, up to the next section. */
function section(md: string, title: string): string[] {
  const lines = md.split('\n');
  const start = lines.indexOf(`## ${title}`);
  expect(start, `## ${title}`).toBeGreaterThanOrEqual(0);
  const end = lines.findIndex((l, i) => i > start && l.startsWith('## '));
  return lines.slice(start, end < 0 ? undefined : end);
}

describe('report.md by name', () => {
  const md = renderMarkdown(MIXED);

  it('counts arrivals where the traffic has a transaction: arrivals/s in the headline and the step table', () => {
    expect(md).toMatch(/^\*\*Capacity: [\d,.]+ arrivals\/s \(step \d+\)\*\*$/m);
    expect(md).toContain('| Step | Target arrivals/s | Achieved arrivals/s |');
    const oneRequest = {
      ...MIXED,
      traffic: { ...MIXED.traffic!, entries: MIXED.traffic!.entries.filter((e) => !e.transaction) },
    };
    expect(renderMarkdown(oneRequest)).toContain('| Step | Target req/s | Achieved req/s |');
  });

  it('shows the traffic near the top: entries, weights, shares, transactions, and what sized the VUs', () => {
    const lines = section(md, 'Traffic');
    expect(md.indexOf('## Traffic')).toBeLessThan(md.indexOf('## How to read this'));
    expect(lines).toEqual(
      expect.arrayContaining([
        '| Entry | Weight | Share | Kind |',
        '| read order | 70 | 70.00% | request |',
        '| create order | 25 | 25.00% | request |',
        '| checkout | 5 | 5.00% | transaction |',
      ]),
    );
    expect(lines.join('\n')).toContain("**VUs sized from**: the warmup's measured time per arrival");
  });

  it.each<[NonNullable<NonNullable<RunResult['traffic']>['sizedFrom']>, RegExp]>([
    ['warmup', /sized from\*\*: the warmup's measured time per arrival/],
    ['expectedServiceMs', /sized from\*\*: vus\.expectedServiceMs/],
    ['given', /sized from\*\*: the VU counts the config gives/],
  ])('says the VUs were sized from %s', (sizedFrom, re) => {
    expect(renderMarkdown({ ...MIXED, traffic: { ...MIXED.traffic!, sizedFrom } })).toMatch(re);
  });

  it.each<[NonNullable<NonNullable<RunResult['traffic']>['sizedFrom']>, 'preAllocated' | 'max', string]>([
    [
      'warmup',
      'max',
      "the warmup's measured time per arrival (the whole entry, think time included, plus the RTT), by Little's law for the preallocated VUs (at most the given max); the max as the config gives it (vus.max, --max-vus).",
    ],
    [
      'expectedServiceMs',
      'max',
      "vus.expectedServiceMs (the configured service time) plus the RTT, by Little's law for the preallocated VUs (at most the given max): no warmup measured a longer time per arrival; the max as the config gives it (vus.max, --max-vus).",
    ],
    [
      'warmup',
      'preAllocated',
      "the warmup's measured time per arrival (the whole entry, think time included, plus the RTT), by Little's law for the max VUs; the preallocated VUs as the config gives them (vus.preAllocated, --vus).",
    ],
  ])('says which count %s sized where the config gave only %s', (sizedFrom, vusGiven, text) => {
    const md = renderMarkdown({ ...MIXED, traffic: { ...MIXED.traffic!, sizedFrom, vusGiven } });
    expect(md).toContain(`**VUs sized from**: ${text}`);
    expect(md).not.toContain('the VU counts the config gives');
  });

  it('a table per step with every name in the mix order, transactions marked, unreliable percentiles marked', () => {
    const lines = section(md, 'Steps by name');
    const step1 = lines.indexOf(
      '### Step 1 · 100/s offered, holds: 100.0 arrivals/s successful, 105.0 requests/s completed',
    );
    expect(step1).toBeGreaterThan(0);
    expect(lines.slice(step1 + 2, step1 + 9)).toEqual([
      '| Name | Kind | Completed/s | Successful/s | p50 | p90 | p99 | Error rate | Errors by kind |',
      '|---|---|---|---|---|---|---|---|---|',
      '| read order | request | 70.0 | 70.0 | 5.00 ms (n=1,750) | 8.00 ms (n=1,750) | ~12.0 ms\\* (n=1,750) | 0.00% | – |',
      '| create order | request | 25.0 | 25.0 | 9.00 ms (n=625) | 14.0 ms (n=625) | ~20.0 ms\\* (n=625) | 0.00% | – |',
      '| checkout | transaction | 5.0 | 5.0 | 40.0 ms (n=125) | ~50.0 ms\\* (n=125) | ~60.0 ms\\* (n=125) | 0.00% | – |',
      '| checkout: confirm | request | 5.0 | 5.0 | 5.00 ms (n=125) | ~8.00 ms\\* (n=125) | ~12.0 ms\\* (n=125) | 0.00% | – |',
      '| checkout: create | request | 5.0 | 5.0 | 9.00 ms (n=125) | ~14.0 ms\\* (n=125) | ~20.0 ms\\* (n=125) | 0.00% | – |',
    ]);
    // the failing step: its error rate and kinds, by name
    expect(lines.find((l) => l.startsWith('| create order | request | 112.5'))).toBe(
      '| create order | request | 112.5 | 107.5 | 80.0 ms (n=26,880) | 300 ms (n=26,880) | 600 ms (n=26,880) | 4.44% | http\\_5xx 123, timeout 2 |',
    );
    expect(lines.filter((l) => l.startsWith('### Step '))).toHaveLength(5);
    expect(lines.filter(Boolean).at(-1)).toMatch(/^\\\* unreliable: fewer than 30 samples/);
  });

  it('names the entries whose p99 grew at one step on the way to the knee together, first none of them', () => {
    expect(section(md, 'Steps by name')).toContain(
      '**Degraded on the way to the knee (step 4) together with checkout: create, all at one step (named here: the largest growth; which came first within the step cannot be told): create order (request), whose p99 reached 55.0 ms at step 4, at the knee, the first p99 past 2× its own baseline, and more than 5 ms above it, that stayed there up to the knee (reliable percentiles only): 2.5× its 22.0 ms at step 2.**',
    );
  });

  it('calls an entry first to degrade only where another judged name had not grown by then', () => {
    // checkout: create's p99 at step 4 as at step 2: only create order grew there
    const steady: RunResult = {
      ...MIXED,
      steps: MIXED.steps.map((s) =>
        s.index === 3
          ? { ...s, byName: { ...s.byName!, 'checkout: create': MIXED.steps[1].byName!['checkout: create'] } }
          : s,
      ),
    };
    expect(namesKneeSentence(steady)).toMatch(
      /^First to degrade on the way to the knee \(step 4\): create order \(request\), whose p99 reached 55\.0 ms at step 4/,
    );
  });

  it('says where another request rose as many ms at that step, short of the factor only for its larger baseline (a review of the demo: a shared pool)', () => {
    // checkout: create's p99 at step 4 as at step 2; read order's p99 12 -> 26 ms (+14, 2.2x) crossed
    // 2x, create order's 22 -> 40 ms (+18, 1.8x) did not, for its larger baseline
    const shared: RunResult = {
      ...MIXED,
      steps: MIXED.steps.map((s) =>
        s.index === 3
          ? {
              ...s,
              byName: {
                ...s.byName!,
                'checkout: create': MIXED.steps[1].byName!['checkout: create'],
                'create order': big(named(s.ratePerSec * 0.25, [14, 30, 40]), 3),
                'read order': big(named(s.ratePerSec * 0.7, [6, 10, 26]), 3),
              },
            }
          : s,
      ),
    };
    const text = namesKneeSentence(shared);
    expect(text).toMatch(
      /^First past 2× its baseline on the way to the knee \(step 4\), not alone in its rise: read order \(request\)/,
    );
    expect(text).toContain(
      '; at that step create order\'s p99 rose as much or more in ms (22.0 to 40.0 ms), short of 2× only for its larger baseline: a cause they share (a pool, a lock) adds the same wait to each, so "first" may be the smallest baseline\'s, not a cause of its own',
    );
    // a rise of fewer ms than the named one's is no shared wait
    expect(namesKneeSentence(MIXED)).not.toContain('rose as much or more in ms');
  });

  it("says which steps it left out for the generator's stalls", () => {
    const stalled = (at: number[]): RunResult => ({
      ...MIXED,
      steps: MIXED.steps.map((s) => (at.includes(s.index) ? { ...s, loopDelayMaxMs: 72.9 } : s)),
    });
    // a held step whose loop stalled past 50 ms but within the verdict's 100 ms: left out without contradicting its verdict
    expect(namesKneeSentence(stalled([0]))).toMatch(
      / Step 1 is left out, the generator's own delays being in its latencies: step 1's event loop stalled up to 72\.9 ms, past the 50 ms from which its stalls show in the latencies compared, though within the verdict's bound, which asks only whether the rate was served: its verdict and throughput stand\.$/,
    );
    expect(namesKneeSentence(stalled([0, 2]))).toMatch(
      / Steps 1 and 3 are left out, the generator's own delays being in their latencies: the event loop of steps 1 and 3 stalled up to 72\.9 ms, past the 50 ms .*: their verdicts and throughput stand\.$/,
    );
    // held generator-limited: said so, no loop-delay figure claimed
    const limited: RunResult = {
      ...MIXED,
      steps: MIXED.steps.map((s) =>
        s.index === 1 ? { ...s, generatorLimited: { code: 'late-arrivals', step: 1, figures: {} } } : s,
      ),
    };
    expect(namesKneeSentence(limited)).toMatch(
      / Step 2 is left out, the generator's own delays being in its latencies: step 2 held generator-limited\.$/,
    );
    expect(namesKneeSentence(MIXED)).not.toMatch(/left out/);
    // every step but one left out: said as that, not as a run with no step before the knee
    const one = stalled(MIXED.steps.map((s) => s.index).filter((i) => i !== MIXED.kneeStep));
    expect(namesKneeSentence(one)).toMatch(
      /^Which entry degraded first cannot be told: of the steps up to the knee \(step \d+\), fewer than two can be judged\. Steps .* are left out/,
    );
  });

  it('escapes a name: no markup, and a pipe does not split its row', () => {
    const name = 'read | <script>alert(1)</script>';
    const hostile: RunResult = {
      ...MIXED,
      traffic: { entries: [{ name, weight: 1, transaction: false }] },
      steps: MIXED.steps.map((s) => ({ ...s, byName: { [name]: s.byName!['read order'] } })),
    };
    const text = renderMarkdown(hostile);
    expect(text).not.toContain('<script');
    const rows = text.split('\n').filter((l) => l.startsWith('| read \\| &lt;script>'));
    // the traffic table's row and one row per step, each with the table's own cells
    expect(rows).toHaveLength(1 + 5);
    expect(rows.slice(1).every((r) => r.split(/(?<!\\)\|/).length === 11)).toBe(true);
  });

  /** MIXED with every name's percentiles from `q` up unreliable. */
  const reliableBelow = (q: number): RunResult => ({
    ...MIXED,
    steps: MIXED.steps.map((s) => ({
      ...s,
      byName: Object.fromEntries(
        Object.entries(s.byName!).map(([k, r]) => [
          k,
          { ...r, latency: r.latency.map((p) => ({ ...p, reliable: p.q < q })) },
        ]),
      ),
    })),
  });

  it('judges p90 when no p99 rests on enough samples, and says so', () => {
    expect(namesKneeSentence(reliableBelow(99))).toBe(
      "Degraded on the way to the knee (step 4) together with create order, all at one step (named here: the largest growth; which came first within the step cannot be told): checkout: create (request), whose p90 reached 30.0 ms at step 4, at the knee, the first p90 past 2× its own baseline, and more than 5 ms above it, that stayed there up to the knee (reliable percentiles only; p90 because no name's p99 rests on 3,000 samples at two steps, which longer holds collect): 2.1× its 14.0 ms at step 1.",
    );
  });

  it('says so when no name has enough samples to tell', () => {
    const few = reliableBelow(90);
    expect(namesKneeSentence(few)).toBe(
      "Which entry degraded first cannot be told: no name's p99 or p90 rests on enough samples at two steps up to the knee (step 4); p99 needs 3,000 samples of that name in a window and p90 300, which longer holds collect.",
    );
    expect(namesKneeSentence(few)).toMatch(/ up to the knee \(step \d+\)/);
    // a run that established no capacity (every planned step held) has no knee to name, only its highest held step
    const noCapacity = { ...few, capacityPerSec: null, stopReason: 'max-rate-reached' as const };
    expect(namesKneeSentence(noCapacity)).toMatch(/ up to the highest step held \(step \d+\)/);
    expect(namesKneeSentence(noCapacity)).not.toMatch(/knee/);
  });

  it('a knee at step 1 says no earlier step gives a baseline, and to start lower (not that holds are too short)', () => {
    const first = { ...MIXED, kneeStep: 0 };
    expect(namesKneeSentence(first)).toBe(
      "Which entry degraded first cannot be told: the knee is step 1, and no step before it gives the entries' latency to grow from; start lower (steps.startPerSec) to see which grows first.",
    );
    // an imported k6 run: its script's stages, not plateau's config
    expect(namesKneeSentence({ ...first, rules: { ...first.rules, imported: true } })).toMatch(
      /; start the k6 script's stages lower to see which grows first\.$/,
    );
  });

  it("an imported k6 run of one request an iteration speaks its rate unit and of names, not of a mix's entries and transactions", () => {
    const imported: RunResult = {
      ...MIXED,
      traffic: { entries: [], iterations: { requestsPerArrival: 1 } },
      rules: { ...MIXED.rules, imported: true, rateUnit: 'req/s' },
      steps: MIXED.steps.map((s) => ({
        ...s,
        requestsPerSec: s.completedPerSec,
        byName: { 'read order': s.byName!['read order'], 'create order': s.byName!['create order'] },
      })),
    };
    const lines = section(renderMarkdown(imported), 'Steps by name');
    // it read "100.0 arrivals/s successful" and explained transactions and mix entries it had none of
    expect(lines).toContain('### Step 1 · 100/s offered, holds: 100.0 req/s successful, 100.0 requests/s completed');
    expect(lines[2]).toBe(
      "Completed/s counts each name's requests, Successful/s those that succeeded. Percentiles are of the successful ones, steady window only.",
    );
    expect(namesKneeSentence({ ...imported, kneeStep: 0 })).toMatch(
      /^Which name degraded first cannot be told: the knee is step 1, and no step before it gives the names' latency to grow from; start the k6 script's stages lower/,
    );
    expect(renderHtml(imported, [])).toContain(
      '<summary>Step 1 · 100/s offered, holds: 100.0 req/s successful, 100.0 requests/s completed</summary>',
    );
  });

  /** MIXED with two names whose p90s (ms) by step are `read` and `create`, each on 500 samples (no reliable p99). */
  const p90s = (read: number[], create: number[], over: Partial<RunResult> = {}): RunResult => ({
    ...MIXED,
    ...over,
    steps: MIXED.steps.map((s, i) => ({
      ...s,
      byName: {
        'read order': named(20, [1, read[i], read[i] * 1.2]),
        'create order': named(20, [5, create[i], create[i] * 1.2]),
      },
    })),
  });
  /** Every planned step held: no capacity, the last step the highest held. */
  const noKnee: Partial<RunResult> = { capacityPerSec: null, stopReason: 'max-rate-reached', kneeStep: 4 };

  it('says the rule as it is where none degraded, and names a name that went past 2x without staying', () => {
    // a reviewer's run: read order's p90 2.88 ms, 7.74 at step 4 (2.69x, +4.86 ms), 4.42 at step 5
    const run = p90s([2.88, 3.0, 3.1, 7.74, 4.42], [10, 10, 11, 12, 13], noKnee);
    expect(namesKneeSentence(run)).toBe(
      "No entry's p90 rose past 2× its first reliable p90, and more than 5 ms above it, to stay there up to the highest step held (step 5): none degraded ahead of the others; p90 because no name's p99 rests on 3,000 samples at two steps, which longer holds collect; read order reached 2.7× at step 4, only 4.86 ms above its 2.88 ms, within the 5 ms floor, and fell back: 1.5× at step 5.",
    );
    // past 2x and the floor, then back
    expect(namesKneeSentence(p90s([2.88, 3.0, 3.1, 12, 4.42], [10, 10, 11, 12, 13], noKnee))).toMatch(
      /; read order reached 4\.2× at step 4 but fell back: 1\.5× at step 5\.$/,
    );
  });

  it('with one name judged, says that whether any degraded ahead of the others cannot be told, not that none did', () => {
    // a user's run (g-steady): read fast judged, the other names' p90s on too few samples
    const oneJudged = (run: RunResult): RunResult => ({
      ...run,
      steps: run.steps.map((s) => ({
        ...s,
        byName: { ...s.byName!, 'create order': named(4, [5, 10, 12]) },
      })),
    });
    const run = oneJudged(p90s([2.88, 3.0, 3.1, 3.2, 3.3], [10, 10, 11, 12, 13], noKnee));
    const text = namesKneeSentence(run)!;
    expect(text).toBe(
      "Only read order's p90 could be judged, and it did not rise past 2× its first reliable p90, and more than 5 ms above it, to stay there up to the highest step held (step 5): whether any entry degraded ahead of the others cannot be told, no other name's p90 resting on enough samples at two steps; p90 because no name's p99 rests on 3,000 samples at two steps, which longer holds collect.",
    );
    expect(text).not.toContain('none degraded');
    // a touch past 2x that fell back is still said
    expect(namesKneeSentence(oneJudged(p90s([2.88, 3.0, 3.1, 7.74, 4.42], [10, 10, 11, 12, 13], noKnee)))).toMatch(
      /cannot be told, no other name's p90 resting on enough samples at two steps; .*; read order reached 2\.7× at step 4, only 4\.86 ms above its 2\.88 ms, within the 5 ms floor, and fell back: 1\.5× at step 5\.$/,
    );
    // two judged: none degraded ahead of the others stands
    expect(namesKneeSentence(p90s([2.88, 3.0, 3.1, 3.2, 3.3], [10, 10, 11, 12, 13], noKnee))).toMatch(
      /: none degraded ahead of the others;/,
    );
  });

  it('a few ms over a baseline of a few ms is no finding: the rise must pass 5 ms too', () => {
    // the mix fixture's read order: p90 2.42 -> 5.33 ms at step 2 (2.2x, +2.9 ms) was named first to
    // degrade, where it and create order rose 70x and 3x at the knee
    const run = p90s([2.42, 5.33, 5.5, 171, 500], [10, 10.5, 11, 30, 500]);
    expect(namesKneeSentence(run)).toMatch(
      /^Degraded on the way to the knee \(step 4\) together with create order, .*: read order \(request\), whose p90 reached 171 ms at step 4, at the knee, the first p90 past 2× its own baseline, and more than 5 ms above it, that stayed there up to the knee .*: 70\.7× its 2\.42 ms at step 1\.$/,
    );
  });

  it('names the steps compared where the knee itself was left out, and never says knee where there is none', () => {
    const kneeOut: RunResult = {
      ...MIXED,
      steps: MIXED.steps.map((s) => (s.index === 3 ? { ...s, loopDelayMaxMs: 83.6 } : s)),
    };
    expect(namesKneeSentence(kneeOut)).toMatch(
      /^No entry's p99 rose past 2× its first reliable p99, and more than 5 ms above it, to stay there up to step 3: none degraded ahead of the others\. Step 4, the knee, is left out, the generator's own delays being in its latencies: step 4's event loop stalled up to 83\.6 ms/,
    );
    const twoOut: RunResult = {
      ...kneeOut,
      steps: kneeOut.steps.map((s) => (s.index === 1 ? { ...s, loopDelayMaxMs: 60 } : s)),
    };
    expect(namesKneeSentence(twoOut)).toMatch(/ Steps 2 and 4 \(the knee among them\) are left out, /);
    // every planned step held: the highest step held, never a knee
    const grew = namesKneeSentence({ ...MIXED, capacityPerSec: null, stopReason: 'max-rate-reached' })!;
    expect(grew).toMatch(/ that stayed there up to the highest step held \(/);
    expect(grew).not.toMatch(/knee/);
    const left = namesKneeSentence({ ...kneeOut, capacityPerSec: null, stopReason: 'max-rate-reached' })!;
    expect(left).toMatch(/ up to step 3: .* Step 4, the highest step held, is left out/);
    expect(left).not.toMatch(/knee/);
  });

  it('says which names failed a share of their arrivals up to the knee, beside the tails, and never that none degraded', () => {
    /** `run` with `name` failing `perSec` of its arrivals/s at the steps `at` (0-based). */
    const failing = (run: RunResult, name: string, at: number[], perSec: number, tx = false): RunResult => ({
      ...run,
      steps: run.steps.map((s, i) => {
        const r = s.byName![name];
        if (!at.includes(i)) return s;
        const ms = [50, 90, 99].map((q) => r.latency.find((p) => p.q === q)!.valueMs!);
        return {
          ...s,
          byName: { ...s.byName!, [name]: named(r.completedPerSec, ms, { failedPerSec: perSec, transaction: tx }) },
        };
      }),
    });
    // no tail grew: create order failed 13% of its requests at step 3 and 10% at step 4
    const steady = failing(p90s([3, 3.1, 3.2, 3.3, 500], [10, 10, 11, 12, 500]), 'create order', [2, 3], 2);
    expect(namesKneeSentence(steady)).toBe(
      "No entry's p90 rose past 2× its first reliable p90, and more than 5 ms above it, to stay there up to the knee (step 4): none degraded ahead of the others in latency; p90 because no name's p99 rests on 3,000 samples at two steps, which longer holds collect. By errors: create order (request) failed 10% of its requests at step 3 and 10% at step 4. Its error rate was 5% or more, on 5 failures at least, at every step compared from there up to the knee (step 4).",
    );
    // a tail that grew first is first in latency, not first of all; a transaction fails its arrivals
    const grew = failing(p90s([3, 3.1, 30, 40, 500], [10, 10, 11, 12, 500]), 'create order', [2, 3], 2);
    expect(namesKneeSentence(grew)).toMatch(
      /^First to degrade in latency on the way to the knee \(step 4\): read order /,
    );
    const tx = failing(MIXED, 'checkout', [3], 2.4, true);
    expect(namesKneeSentence(tx)).toMatch(
      / By errors: checkout \(transaction\) failed 12% of its arrivals at step 4\. Its error rate was /,
    );
    // a share under 5%, or one the name fell back from, is not said
    expect(namesKneeSentence(failing(MIXED, 'create order', [3], 0.5))).not.toMatch(/By errors/);
    expect(namesKneeSentence(failing(MIXED, 'create order', [1], 2))).not.toMatch(/By errors/);
    // several: the earliest first, each with its share
    const two = failing(failing(steady, 'read order', [1, 2, 3], 3), 'create order', [2, 3], 2);
    expect(namesKneeSentence(two)).toMatch(
      / By errors: read order \(request\) failed 15% of its requests at step 2 and 15% at step 4; create order \(request\) failed 10% .*\. Each one's error rate was 5% or more/,
    );
  });

  it('a run of one name (no figures by name) has neither section, nor the file, nor the chart', () => {
    const plain = renderMarkdown(base);
    expect(plain).not.toContain('## Traffic');
    expect(plain).not.toContain('## Steps by name');
    expect(renderStepsByNameCsv(base)).toBeNull();
    expect(chartsOf(base).map((c) => c.name)).not.toContain('names');
    expect(namesKneeSentence(base)).toBeNull();
  });
});

describe('steps-by-name.csv', () => {
  const rows = parse(renderStepsByNameCsv(MIXED)!, { columns: true }) as Record<string, string>[];

  it('one row per step x name, in the reports order, with the columns of its header', () => {
    expect(Object.keys(rows[0])).toEqual([...STEPS_BY_NAME_CSV_COLUMNS]);
    expect(rows).toHaveLength(5 * 5);
    expect(rows.slice(0, 5).map((r) => r.name)).toEqual(ORDER);
    expect(rows.map((r) => r.step)).toEqual(['1', '2', '3', '4', '5'].flatMap((s) => Array(5).fill(s)));
  });

  it('each row: step, attempt, rate, name, transaction, rates, error rate, percentiles with n and reliability, errors by kind', () => {
    const row = rows.find((r) => r.step === '5' && r.name === 'create order')!;
    expect(row).toMatchObject({
      attempt: '1',
      rate_per_sec: '450',
      transaction: 'false',
      completed_per_sec: '112.5',
      ok_per_sec: '107.5',
      error_rate: '0.044437',
      p50_ms: '80',
      p99_ms: '600',
      p99_n: '26880',
      p99_reliable: 'true',
      errors_http_5xx: '123',
      errors_timeout: '2',
      errors_check: '0',
    });
    expect(rows.find((r) => r.step === '1' && r.name === 'checkout')).toMatchObject({
      transaction: 'true',
      p90_reliable: 'false',
      p99_n: '125',
    });
  });

  it("marks the mix's entries: their rows of a step sum to its arrivals, the others are a transaction's requests", () => {
    const entries = new Set(MIXED.traffic!.entries.map((e) => e.name));
    expect(rows.filter((r) => r.entry === 'true').map((r) => r.name)).toEqual(
      rows.filter((r) => entries.has(r.name)).map((r) => r.name),
    );
    expect(rows.some((r) => r.entry === 'false')).toBe(true);
    // the demo mix's stored run (test/fixtures/runs/mix): each step's entries add up to its arrivals
    const dir = fileURLToPath(new URL('../test/fixtures/runs/mix/', import.meta.url));
    const stored = parse(fs.readFileSync(`${dir}steps-by-name.csv`, 'utf8'), { columns: true }) as Record<
      string,
      string
    >[];
    const summary = JSON.parse(fs.readFileSync(`${dir}summary.json`, 'utf8')) as {
      steps: { index: number; attempt?: number; completedPerSec: number }[];
    };
    for (const s of summary.steps) {
      const of = stored.filter((r) => r.step === String(s.index + 1) && r.attempt === String(s.attempt ?? 1));
      const sum = (rs: typeof of) => rs.reduce((a, r) => a + Number(r.completed_per_sec), 0);
      expect(sum(of.filter((r) => r.entry === 'true'))).toBeCloseTo(s.completedPerSec, 1);
      expect(of.some((r) => r.entry === 'false')).toBe(true);
    }
    // no entries recorded (an imported k6 run): the column stays empty
    const imported = parse(renderStepsByNameCsv({ ...MIXED, traffic: undefined })!, { columns: true }) as Record<
      string,
      string
    >[];
    expect(new Set(imported.map((r) => r.entry))).toEqual(new Set(['']));
  });

  it('a name cannot start a formula', () => {
    const hostile: RunResult = {
      ...MIXED,
      traffic: undefined,
      steps: MIXED.steps.map((s) => ({ ...s, byName: { '=HYPERLINK("x")': s.byName!['read order'] } })),
    };
    const names = (parse(renderStepsByNameCsv(hostile)!, { columns: true }) as Record<string, string>[]).map(
      (r) => r.name,
    );
    expect(new Set(names)).toEqual(new Set(['\'=HYPERLINK("x")']));
  });

  it('is the optional renderer of steps-by-name.csv', () => {
    expect(optionalRenderers.map((r) => r.file)).toEqual(['steps-by-name.csv']);
    expect(optionalRenderers[0].render(MIXED)).toBe(renderStepsByNameCsv(MIXED));
  });
});

describe('summary.json by name', () => {
  const summary = JSON.parse(renderSummaryJson(MIXED));

  it('steps[].byName keyed by name, with the fields of a step’s latency and errors, and steps[].requestsPerSec', () => {
    expect(summary.schemaVersion).toBe(2);
    const step = summary.steps[4];
    expect(step.requestsPerSec).toBeCloseTo(415 * 1.05, 9);
    expect(Object.keys(step.byName).sort()).toEqual([...ORDER].sort());
    expect(step.byName['create order']).toEqual({
      completedPerSec: 112.5,
      throughputPerSec: 107.5,
      completed: 2813,
      ok: 2688,
      failed: 125,
      errorRate: 125 / 2813,
      errors: { http_5xx: 123, timeout: 2 },
      latency: [
        { q: 50, valueMs: 80, n: 26880, reliable: true },
        { q: 90, valueMs: 300, n: 26880, reliable: true },
        { q: 99, valueMs: 600, n: 26880, reliable: true },
      ],
      meanMs: 80,
      maxMs: 1200,
    });
    expect(step.byName.checkout.transaction).toBe(true);
    expect(summary.traffic).toEqual(MIXED.traffic);
  });

  it('adds nothing to a run of one name', () => {
    const plain = JSON.parse(renderSummaryJson(base));
    expect(plain.steps.some((s: object) => 'byName' in s || 'requestsPerSec' in s)).toBe(false);
    expect('traffic' in plain).toBe(false);
  });
});

describe('report.html by name', () => {
  const charts = chartsOf(MIXED).map(({ spec: _spec, ...c }) => ({
    ...c,
    svg: `<svg data-chart="${c.name}"></svg>`,
    warnings: [],
  }));
  const html = renderHtml(MIXED, charts);

  it('has the traffic, the tables by name, the finding and the chart by name, linked from the navigation', () => {
    for (const [id, label] of [
      ['traffic', 'Traffic'],
      ['names', 'By name'],
    ]) {
      expect(html).toContain(`<a href="#${id}">${label}</a>`);
      expect(html).toContain(`<section id="${id}">`);
    }
    const names = html.slice(
      html.indexOf('<section id="names">'),
      html.indexOf('</section>', html.indexOf('<section id="names">')),
    );
    expect(names).toContain('<svg data-chart="names"></svg>');
    expect(names).toContain('Degraded on the way to the knee (step 4) together with checkout: create');
    expect((names.match(/<details class="names-step"( open)?>\n<summary>Step /g) ?? []).length).toBe(5);
    expect(names).toContain('<tr><td>checkout</td><td>transaction</td>');
  });

  /** The step numbers of the open tables by name, in page order. */
  const opened = (run: RunResult) =>
    [...renderHtml(run, charts).matchAll(/<details class="names-step"( open)?>\n<summary>Step (\d+)/g)]
      .filter((m) => m[1])
      .map((m) => Number(m[2]));

  it("opens the knee's table and the next step's, folding the others under their titles", () => {
    expect(MIXED.kneeStep).toBe(3);
    // and step 2's, the baseline the finding cites (the test below)
    expect(opened(MIXED)).toEqual([2, 4, 5]);
    // kneeStep is a step's number: a rerun before the knee shifts positions, not what opens;
    // every attempt of the knee's step and of the next opens
    const [s1, s2, ...rest] = MIXED.steps;
    const again = (s: StepResult) => ({ ...s, attempt: 2 });
    const rerunBefore = [s1, s2, again(s2), ...rest.flatMap((s) => (s.index === 3 ? [s, again(s)] : [s]))];
    expect(opened({ ...MIXED, steps: rerunBefore })).toEqual([2, 4, 4, 5]);
    // the knee the last step run: its table alone (and the baseline's)
    expect(opened({ ...MIXED, steps: rerunBefore.filter((s) => s.index <= 3) })).toEqual([2, 4, 4]);
    // no knee: the last step run, every attempt of it (no finding cites a step)
    const rerun = { ...MIXED.steps.at(-1)!, attempt: 2 };
    expect(opened({ ...MIXED, kneeStep: null, steps: [...MIXED.steps, rerun] })).toEqual([5, 5]);
    expect(openedSteps({ ...MIXED, kneeStep: null, steps: [] }).size).toBe(0);
  });

  it('opens the tables of the steps the finding cites, which a printed page showed folded', () => {
    // the finding's "at step N" and "at step N (attempt k)": where the name grew, and its baseline
    const cited = (run: RunResult) =>
      [...namesKneeSentence(run)!.matchAll(/ at step (\d+)(?: \(attempt (\d+)\))?/g)].map((m) => [
        Number(m[1]),
        Number(m[2] ?? 1),
      ]);
    const [s1, s2, ...rest] = MIXED.steps;
    const rerunBefore = [s1, s2, { ...s2, attempt: 2 }, ...rest];
    for (const run of [MIXED, { ...MIXED, steps: rerunBefore }]) {
      expect(cited(run).length, namesKneeSentence(run)!).toBe(2);
      const open = [...openedSteps(run)].map((s) => [s.index + 1, s.attempt ?? 1]);
      for (const step of cited(run)) expect(open).toContainEqual(step);
    }
    // step 2's table, folded before, is open; step 1's, cited by nothing, stays folded
    expect(opened(MIXED)).toContain(2);
    expect(opened(MIXED)).not.toContain(1);
  });

  it("its chart's alt text names each panel and the knee it rules", () => {
    const alt = chartsOf(MIXED).find((c) => c.name === 'names')!.alt;
    expect(alt).toBe(
      "Latency by name: p50, p90 and p99 per step of each name's successful ones, one panel for each of 5 names on one log scale: read order, create order, checkout (transaction), checkout: confirm and checkout: create; the knee (step 4) ruled in each",
    );
  });

  it('escapes a name', () => {
    const hostile: RunResult = {
      ...MIXED,
      traffic: { entries: [{ name: '<img src=x onerror=alert(1)>', weight: 1, transaction: false }] },
      steps: MIXED.steps.map((s) => ({ ...s, byName: { '<img src=x onerror=alert(1)>': s.byName!['read order'] } })),
    };
    const page = renderHtml(hostile, charts);
    expect(page).not.toContain('<img');
    expect(page).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('a chart by name: one panel per name in the reports order, p50/p90/p99 per step, unreliable ones hollow', () => {
    const spec = chartsOf(MIXED).find((c) => c.name === 'names')!.spec as unknown as {
      // the sample-count legend's view, then the grid of panels
      vconcat: [
        unknown,
        {
          concat: {
            title: { text: string };
            data: { values: { step: string; percentile: string; reliability: string }[] };
          }[];
        },
      ];
    };
    expect(nameOrder(MIXED)).toEqual(ORDER);
    expect(spec.vconcat[1].concat.map((p) => p.title.text)).toEqual([
      'read order',
      'create order',
      'checkout (transaction)',
      'checkout: confirm',
      'checkout: create',
    ]);
    const rows = spec.vconcat[1].concat[2].data.values;
    expect(new Set(rows.map((r) => r.percentile))).toEqual(new Set(['p50', 'p90', 'p99']));
    expect(rows.filter((r) => r.step === '1 · 100/s').map((r) => r.reliability)).toEqual([
      'reliable',
      'unreliable (too few samples)',
      'unreliable (too few samples)',
    ]);
  });

  it('its panels share one y range and rule the knee, so one name is read against the others', () => {
    type Layer = {
      mark: { type: string } | string;
      encoding?: { y?: { scale?: { domain?: number[] } } };
      data?: { values: { step: string }[] };
    };
    const spec = chartsOf(MIXED).find((c) => c.name === 'names')!.spec as unknown as {
      title: { subtitle: string[] };
      vconcat: [unknown, { concat: { data: { values: { ms: number }[] }; layer: Layer[] }[] }];
    };
    const all = spec.vconcat[1].concat.flatMap((p) => p.data.values.map((r) => r.ms));
    const domains = spec.vconcat[1].concat.map((p) => JSON.stringify(p.layer[0].encoding!.y!.scale!.domain));
    // a quarter beyond the extremes on the log scale: no point sits on an axis, half cut off
    expect(new Set(domains)).toEqual(new Set([JSON.stringify([Math.min(...all) / 1.25, Math.max(...all) * 1.25])]));
    const knee = MIXED.steps.find((s) => s.index === MIXED.kneeStep)!;
    const rules = spec.vconcat[1].concat.map((p) =>
      p.layer.find((l) => typeof l.mark === 'object' && l.mark.type === 'rule'),
    );
    expect(rules.every((r) => r?.data?.values[0].step === `${knee.index + 1} · ${knee.ratePerSec}/s`)).toBe(true);
    expect(spec.title.subtitle.join(' ')).toContain(`orange dashed: the knee (step ${knee.index + 1})`);
  });

  it("shades, in every panel, the steps whose latencies hold the generator's own delays", () => {
    type Spec = {
      title: { subtitle: string[] };
      vconcat: [unknown, { concat: { layer: { mark: { type: string }; data?: { values: { step: string }[] } }[] }[] }];
    };
    const namesOf = (run: RunResult) => chartsOf(run).find((c) => c.name === 'names')!.spec as unknown as Spec;
    const stalled = { ...MIXED, steps: MIXED.steps.map((s, i) => (i === 1 ? { ...s, loopDelayMaxMs: 120 } : s)) };
    const spec = namesOf(stalled);
    const second = stalled.steps[1];
    for (const panel of spec.vconcat[1].concat) {
      expect(panel.layer[0].mark.type).toBe('rect');
      expect(panel.layer[0].data!.values).toEqual([{ step: `2 · ${second.ratePerSec}/s` }]);
    }
    expect(spec.title.subtitle.join(' ')).toContain('pale orange:');
    const plain = namesOf(MIXED);
    expect(plain.vconcat[1].concat.every((p) => p.layer.every((l) => l.mark.type !== 'rect'))).toBe(true);
    expect(plain.title.subtitle.join(' ')).not.toContain('pale orange');
  });
});
