import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { RunResult, ServerWindow, StepResult } from '../analysis/types.ts';
import { crossCheck } from '../analysis/cross-check.ts';
import { judgedWindow } from '../analysis/server-histogram.ts';
import { renderHtml } from './html.ts';
import { renderMarkdown } from './markdown.ts';
import { serverLatencyText, serverMeanText, serverNamesText, serverPercentileText } from './server-latency.ts';

const FIXED = JSON.parse(
  fs.readFileSync(new URL('../test/golden/fixed-run.json', import.meta.url), 'utf8'),
) as RunResult;

const window = (extra: Partial<ServerWindow>): ServerWindow => ({
  source: 'scrape',
  fromS: 7,
  toS: 23,
  throughputPerSec: 105,
  meanMs: 11.5,
  maxMs: null,
  poolActiveMax: null,
  poolPendingMax: null,
  poolMax: null,
  ...extra,
});

/** As a step's judging leaves them (judgedWindow, rules.minTailSamples 30): the p99 of 1,680 requests is thin (it needs 3,000). */
const PERCENTILES = judgedWindow(
  window({
    percentiles: [
      { q: 50, valueMs: 9.1, lowerMs: 5, upperMs: 10, n: 1680 },
      { q: 90, valueMs: 21.3, lowerMs: 10, upperMs: 25, n: 1680 },
      { q: 99, valueMs: 41.2, lowerMs: 25, upperMs: 50, n: 1680 },
    ],
  }),
  30,
)!.percentiles!;

/** The fixed run with the server read through the otel preset on its first step (its "create order" mapped). */
function withHistogram(requestSeries = 'otel (http_server_request_duration_seconds, seconds)'): RunResult {
  const s0 = FIXED.steps[0]!;
  const w = window({ percentiles: PERCENTILES, problems: ['x_bucket{a="1"} has no le="+Inf" bucket: ...; fix it'] });
  const route = window({ throughputPerSec: 25, meanMs: 9.5, percentiles: PERCENTILES });
  const create = s0.byName!['create order']!;
  const c = crossCheck(create.completedPerSec, create.meanMs, 0.5, route);
  const step: StepResult = {
    ...s0,
    server: w,
    crossCheck: crossCheck(105, s0.meanMs, 0.5, w, 0, 'requests'),
    byName: {
      ...s0.byName,
      'create order': { ...create, server: route, crossCheck: { ...c, detail: `route /orders: ${c.detail}` } },
    },
  };
  return { ...FIXED, requestSeries, steps: [step, ...FIXED.steps.slice(1)] };
}

describe('server latency in the reports', () => {
  it("puts each server percentile with its bucket's bounds beside the client's minus the RTT, and says which series", () => {
    const t = serverLatencyText(withHistogram())!;
    expect(t.paragraphs[0]!.text).toMatch(/^Request series: otel \(http_server_request_duration_seconds, seconds\)\./);
    expect(t.table!.header).toEqual([
      'Step',
      'Client p50 - RTT',
      'Server p50',
      'Client p90 - RTT',
      'Server p90',
      'Client p99 - RTT',
      'Server p99',
    ]);
    // the fixed run's client p99 38.239 ms minus its RTT (the median, 0.5 ms: no min recorded), unreliable;
    // the server's p99 of 1,680 requests as unreliable, by the same rule, and both with their n
    const n = '1,600'; // the fixed run's step 1: its successful requests
    expect(t.table!.rows).toEqual([
      [
        '1',
        `9.36 ms (n=${n})`,
        '9.10 ms (n=1,680; bucket 5 to 10 ms)',
        `20.4 ms (n=${n})`,
        '21.3 ms (n=1,680; bucket 10 to 25 ms)',
        `~37.7 ms* (n=${n})`,
        '~41.2 ms* (n=1,680; bucket 25 to 50 ms)',
      ],
    ]);
    expect(t.paragraphs[0]!.text).toContain(
      "~value* marks one, client's or server's, with fewer than 30 samples beyond it (p90 needs 300 in the window, p99 3,000)",
    );
    expect(t.items).toEqual(['step 1: x_bucket{a="1"} has no le="+Inf" bucket: ...; fix it']);
  });

  it('report.md and report.html both carry it after the server-side view, with the per-name row', () => {
    const run = withHistogram();
    const md = renderMarkdown(run);
    expect(md).toMatch(/## Server-side view[\s\S]*## Server latency[\s\S]*## Server-side view by name/);
    expect(md).toMatch(/\| 1 \| 9\.36 ms \(n=1,600\) \| 9\.10 ms \(n=1,680; bucket 5 to 10 ms\) \|/);
    expect(md).toMatch(
      /\| 1 \| create order \| 25\.0 \| 25\.0 \| 9\.40 ms \| 9\.50 ms \| ~19\.5 ms\\\* \(n=[\d,]+\) \| ~41\.2 ms\\\* \(n=1,680; bucket 25 to 50 ms\) \| consistent \|/,
    );
    expect(md).toContain('- step 1 "create order": route /orders: server counted 25.0 req/s');
    const html = renderHtml(run, []);
    expect(html).toContain('<section id="server-latency">');
    expect(html).toContain('<td>~41.2 ms* (n=1,680; bucket 25 to 50 ms)</td>');
    expect(html).toContain('<section id="server-names">');
  });

  it('nginx: latency not compared (a request counter); spring without buckets: says so with the fix', () => {
    const nginx = serverLatencyText(
      withHistogram('nginx (nginx_http_requests_total, a request counter: throughput only)'),
    )!;
    expect(nginx.paragraphs[0]!.text).toMatch(/Latency not compared \(a request counter\)/);
    expect(nginx.table).toBeUndefined();
    expect(
      serverNamesText(withHistogram('nginx (nginx_http_requests_total, a request counter: throughput only)'))!.table!
        .header,
    ).not.toContain('Server p99');
    const run = withHistogram('spring (http_server_requests_seconds, seconds)');
    run.steps[0] = { ...run.steps[0]!, server: window({}) };
    expect(serverLatencyText(run)!.paragraphs[0]!.text).toMatch(/no histogram buckets .*percentiles-histogram/);
  });

  it('a window with a counter reset shows no figure; the +Inf bucket reads as above the highest bound', () => {
    const run = withHistogram();
    run.steps[0] = {
      ...run.steps[0]!,
      server: window({ counterReset: true, percentiles: null, throughputPerSec: null }),
    };
    expect(serverLatencyText(run)!.table!.rows[0]).toContain('– (counter reset)');
    expect(
      serverPercentileText({ q: 99, valueMs: 10_000, lowerMs: 10_000, upperMs: null, n: 5000, reliable: true }),
    ).toBe('> 10,000 ms (n=5,000; the +Inf bucket: above the highest bound)');
    expect(serverPercentileText({ q: 50, valueMs: 3.75, lowerMs: 2.5, upperMs: 5, n: 500, reliable: true })).toBe(
      '3.75 ms (n=500; bucket 2.5 to 5 ms)',
    );
  });

  it('a percentile capped at a max reads as at most it, with its bucket and what capped it, and the text says so only then', () => {
    const p99 = { q: 99, valueMs: 487.69, lowerMs: 447.392426, upperMs: 536.870911, n: 4258, reliable: true };
    expect(serverPercentileText({ ...p99, cappedBy: 'server-max', interpolatedMs: 533.27 })).toBe(
      "≤ 488 ms (n=4,258; bucket 447 to 537 ms, capped at the server's max)",
    );
    expect(serverPercentileText({ ...p99, valueMs: 469.76, cappedBy: 'client-max', interpolatedMs: 527.2 })).toBe(
      "≤ 470 ms (n=4,258; bucket 447 to 537 ms, capped at the client's max)",
    );
    const sentence = /≤ marks a server percentile whose interpolation landed above the slowest request known/;
    expect(serverLatencyText(withHistogram())!.paragraphs[0]!.text).not.toMatch(sentence);
    const run = withHistogram();
    const capped = { ...PERCENTILES[2]!, valueMs: 30, cappedBy: 'client-max' as const, interpolatedMs: 41.2 };
    run.steps[0] = { ...run.steps[0]!, server: window({ percentiles: [PERCENTILES[0]!, PERCENTILES[1]!, capped] }) };
    const t = serverLatencyText(run)!;
    expect(t.paragraphs[0]!.text).toMatch(sentence);
    expect(t.table!.rows[0]!.at(-1)).toBe("≤ ~30.0 ms* (n=1,680; bucket 25 to 50 ms, capped at the client's max)");
  });

  it("marks a server percentile on too few samples as the client's beside it, with its n (b1's step 1: 171 requests)", () => {
    const run = withHistogram();
    const b1 = [
      { q: 50, valueMs: 8.258, lowerMs: 6.990506, upperMs: 8.388607, n: 171 },
      { q: 90, valueMs: 42.431, lowerMs: 39.146836, upperMs: 44.739241, n: 171 },
      { q: 99, valueMs: 44.568, lowerMs: 39.146836, upperMs: 44.739241, n: 171 },
    ];
    run.steps[0] = { ...run.steps[0]!, server: judgedWindow(window({ percentiles: b1 }), run.rules.minTailSamples) };
    const [, , p50, , p90, , p99] = serverLatencyText(run)!.table!.rows[0]!;
    expect(p50).toBe('8.26 ms (n=171; bucket 6.99 to 8.39 ms)');
    expect(p90).toBe('~42.4 ms* (n=171; bucket 39.1 to 44.7 ms)');
    expect(p99).toBe('~44.6 ms* (n=171; bucket 39.1 to 44.7 ms)');
    // capped, and past the highest bound, the mark stays on the figure
    expect(serverPercentileText({ ...b1[1]!, reliable: false, cappedBy: 'client-max', interpolatedMs: 43 })).toBe(
      "≤ ~42.4 ms* (n=171; bucket 39.1 to 44.7 ms, capped at the client's max)",
    );
    expect(
      serverPercentileText({ q: 99, valueMs: 10_000, lowerMs: 10_000, upperMs: null, n: 5, reliable: false }),
    ).toBe('> ~10,000 ms* (n=5; the +Inf bucket: above the highest bound)');
    // one never judged (no reliable: a window as read) is not shown as trusted
    expect(serverPercentileText(b1[0])).toBe('~8.26 ms* (n=171; bucket 6.99 to 8.39 ms)');
    const md = renderMarkdown(run);
    expect(md).toContain('| ~44.6 ms\\* (n=171; bucket 39.1 to 44.7 ms) |');
    expect(renderHtml(run, [])).toContain('<td>~44.6 ms* (n=171; bucket 39.1 to 44.7 ms)</td>');
  });

  it("marks a server mean of fewer requests than rules.minTailSamples with its count, in both tables (b2's step 6: 1 request)", () => {
    // 0.25 req/s over a 4 s window: one request
    const b2 = window({ fromS: 56.006, toS: 60.005, throughputPerSec: 0.2500625156289071, meanMs: 0.44908 });
    expect(serverMeanText(b2, { minTailSamples: 30 })).toBe('~0.449 ms* (n=1)');
    expect(serverMeanText(window({ fromS: 0, toS: 4, throughputPerSec: 7.25 }), { minTailSamples: 30 })).toBe(
      '~11.5 ms* (n=29)',
    );
    expect(serverMeanText(window({ fromS: 0, toS: 4, throughputPerSec: 7.5 }), { minTailSamples: 30 })).toBe('11.5 ms');
    expect(serverMeanText(window({ fromS: 0, toS: 4, throughputPerSec: 7.5 }), { minTailSamples: 31 })).toBe(
      '~11.5 ms* (n=30)',
    );
    expect(serverMeanText(window({ meanMs: null }), { minTailSamples: 30 })).toBe('–');

    const sentence = /~value\* marks a server mean of fewer than 30 requests/;
    expect(renderMarkdown(withHistogram())).not.toMatch(sentence);
    const run = withHistogram();
    const s0 = run.steps[0]!;
    const create = s0.byName!['create order']!;
    run.steps[0] = {
      ...s0,
      server: { ...b2, percentiles: s0.server!.percentiles },
      byName: {
        ...s0.byName,
        'create order': { ...create, server: { ...create.server!, throughputPerSec: 2, fromS: 7, toS: 11 } },
      },
    };
    const md = renderMarkdown(run);
    expect(md).toMatch(/## Server-side view\n\n[^\n]*~value\\\* marks a server mean of fewer than 30 requests/);
    expect(md).toMatch(
      /too few to stand for its time per request, so the cross-check does not compare it with the client's mean, nor is a step's tail judged by it\./,
    );
    expect(md).toMatch(/\| 1 \| [\d.]+ \| 0\.3 \| [\d.]+ ms \| ~0\.449 ms\\\* \(n=1\) \|/);
    expect(md).toMatch(/\| 1 \| create order \| 25\.0 \| 2\.0 \| 9\.40 ms \| ~9\.50 ms\\\* \(n=8\) \|/);
    expect(serverNamesText(run)!.paragraphs[0]!.text).toMatch(sentence);
    expect(renderHtml(run, [])).toContain('<td>~0.449 ms* (n=1)</td>');
  });

  it('prints nothing for a run without a recorded request series (stored reports unchanged)', () => {
    expect(serverLatencyText(FIXED)).toBeNull();
    expect(serverNamesText(FIXED)).toBeNull();
    const noSeries = { ...withHistogram(), requestSeries: undefined };
    expect(serverLatencyText(noSeries)).toBeNull();
  });
});
