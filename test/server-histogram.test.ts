/**
 * An OpenTelemetry-named histogram target (test/helpers/otel-target.ts) through the pipeline with
 * `metrics.requests.preset: 'otel'`: report.md and summary.json have the server's p50/p90/p99
 * beside the client's minus the RTT, with the bounds of each one's bucket, and the two agree within
 * the bucket resolution; each mapped name gets its own cross-check; a route that matches nothing
 * is a report line and the run goes on; the wrong preset is refused in preflight naming the
 * families the target has. The same histogram through PromQL on a real Prometheus server (skipped,
 * saying why, where it is not installed) gives the same percentiles as the scrapes it stored and as
 * Prometheus's own histogram_quantile.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult, ServerPercentile } from '../analysis/types.ts';
import { histogramDelta, serverPercentiles } from '../analysis/server-histogram.ts';
import { parseConfigOrThrow } from '../harness/config/validate.ts';
import { toSample } from '../harness/metrics/prober.ts';
import { histogramOf, parsePromText, sumOf } from '../harness/metrics/prom-text.ts';
import { queryWindow } from '../harness/metrics/promql.ts';
import { routeWindows } from '../harness/metrics/promql-windows.ts';
import { OTEL_BOUNDS_S, startOtelTarget, type OtelTarget } from './helpers/otel-target.ts';
import {
  findPrometheus,
  startMetricsTap,
  startPrometheus,
  tappedAt,
  type MetricsTap,
  type PrometheusHandle,
} from './helpers/prometheus.ts';
import { runQuietly, tempRunsDir } from './helpers/pipeline.ts';

const PROMETHEUS = findPrometheus();
const runsDir = tempRunsDir();
const scenarioDir = fs.mkdtempSync(path.join(os.tmpdir(), 'plateau-otel-scenario-'));
const SCENARIO = path.join(scenarioDir, 'scenario.ts');
fs.writeFileSync(
  SCENARIO,
  [
    "import { defineScenario } from 'plateau';",
    'export default defineScenario({',
    "  name: 'otel shop',",
    '  mix: {',
    "    'read item': { weight: 8, request: (ctx) => ({ url: `/items/${ctx.pick(100)}` }), check: (r) => r.status === 200 || `got ${r.status}` },",
    "    search: { weight: 2, request: () => ({ url: '/search?q=x' }) },",
    "    health: { weight: 1, request: () => ({ url: '/health' }) },",
    '  },',
    '});',
    '',
  ].join('\n'),
);
/** "health" is mapped to a route the target does not have: a report line, not a failure. */
const ROUTES = { 'read item': '/items/{id}', search: '/search', health: '/healthz' };
/** The bucket bounds in ms with 0 below the first: bucket k is (B[k], B[k+1]]. */
const B = [0, ...OTEL_BOUNDS_S.map((b) => Math.round(b * 1000))];

let target: OtelTarget;
/** Prometheus as it starts: the pipeline's run does not wait for it; the PromQL test does. */
let promStarting: Promise<PrometheusHandle> | undefined;
let tap: MetricsTap | undefined;
beforeAll(async () => {
  target = await startOtelTarget();
  // started now, so that it has scraped for a while by the PromQL test (its first scrape takes ~6 s)
  // through a tap, so that the PromQL test sets its figures beside the very scrapes Prometheus stored
  if (PROMETHEUS) {
    tap = await startMetricsTap(target.url);
    promStarting = startPrometheus({ binary: PROMETHEUS, targetUrl: tap.url, scrapeIntervalS: 1 });
    promStarting.catch(() => undefined); // its failure is the PromQL test's, said there
  }
}, 60_000);
afterAll(async () => {
  await (await promStarting?.catch(() => undefined))?.stop();
  await tap?.close();
  await target.close();
  fs.rmSync(runsDir, { recursive: true, force: true });
  fs.rmSync(scenarioDir, { recursive: true, force: true });
});

const run = (runId: string, requests: Record<string, unknown>) =>
  runQuietly({
    target: { url: `${target.url}/items/1`, rttPath: '/ping' },
    scenario: SCENARIO,
    steps: { startPerSec: 60, stepPerSec: 60, maxPerSec: 120, rampS: 1, holdS: 3, settleS: 1 },
    warmup: { enabled: false },
    rtt: { samples: 5 },
    metrics: { url: '/metrics', scrapeEveryS: 1, requests },
    output: { dir: runsDir, runId },
  });

/**
 * The client's value lies in the server's bucket or the one on either side of it: the resolution
 * the histogram has. Above it, the client may also carry the step's own measured event-loop stall
 * (`stallMs`, the step's loopDelayMaxMs): target and engine share this thread, and a request that
 * waits out a stall before the server's handler starts its timer is late for the client alone.
 */
function withinResolution(clientMs: number, p: ServerPercentile, stallMs: number): boolean {
  const k = B.indexOf(p.lowerMs);
  const lo = B[Math.max(0, k - 1)]!;
  const hi = p.upperMs === null ? Infinity : (B[B.indexOf(p.upperMs) + 1] ?? Infinity);
  return k >= 0 && clientMs >= lo && clientMs - stallMs <= hi;
}

describe('an OpenTelemetry histogram target through the pipeline', () => {
  let result: RunResult;
  let dir: string;
  beforeAll(async () => {
    const r = await run('otel', { preset: 'otel', routes: ROUTES });
    expect(r.exitCode, `${r.error?.message}\n${r.lines.join('')}`).toBe(0);
    result = r.result;
    dir = r.dir;
  }, 60_000);

  it("gives each step the server's p50/p90/p99 with their buckets, agreeing with the client's minus the RTT", () => {
    expect(result.requestSeries).toBe('otel (http_server_request_duration_seconds, seconds)');
    const rtt = result.rtt!.httpMinMs ?? result.rtt!.httpMedianMs;
    const seen: string[] = [];
    for (const s of result.steps) {
      const ps = s.server!.percentiles!;
      expect(ps.map((p) => p.q)).toEqual([50, 90, 99]);
      for (const p of ps) {
        const client = s.latency.find((c) => c.q === p.q)!.valueMs! - rtt;
        seen.push(
          `step ${s.index + 1} (steady ${s.steadyStartS}-${s.steadyEndS} s, server ${s.server!.fromS}-${s.server!.toS} s) p${p.q}: server ${p.valueMs?.toFixed(1)} in (${p.lowerMs}, ${p.upperMs}], client - RTT ${client.toFixed(1)}, loop stall up to ${s.loopDelayMaxMs!.toFixed(1)}`,
        );
        expect(B).toContain(p.lowerMs);
        expect(p.valueMs!).toBeGreaterThanOrEqual(p.lowerMs);
        expect(p.valueMs!).toBeLessThanOrEqual(p.upperMs ?? Infinity);
        expect(withinResolution(client, p, s.loopDelayMaxMs!), seen.join('\n')).toBe(true);
      }
      // the mix: 8 of 11 reads (9 in 10 at ~12 ms), 2 of 11 searches at ~55 ms: the median among the reads, the tail among the searches
      expect(ps[0]!.lowerMs).toBeGreaterThanOrEqual(10);
      expect(ps[0]!.upperMs).toBeLessThanOrEqual(50);
      expect(ps[2]!.lowerMs).toBeGreaterThanOrEqual(50);
      expect(ps[0]!.n).toBeGreaterThan(0.9 * s.completed);
    }
    console.log(seen.join('\n'));
  });

  it('report.md and summary.json carry them beside the client, brackets included, and the series used', () => {
    const md = fs.readFileSync(path.join(dir, 'report.md'), 'utf8');
    expect(md).toContain('Request series: otel (http\\_server\\_request\\_duration\\_seconds, seconds).');
    expect(md).toContain(
      '| Step | Client p50 - RTT | Server p50 | Client p90 - RTT | Server p90 | Client p99 - RTT | Server p99 |',
    );
    const p99 = result.steps[0]!.server!.percentiles![2]!;
    // with its n, marked ~value* where too few samples lie beyond it (the client's rule), capped where the
    // interpolation passed the slowest request known (decision 029): "≤ ~74.0 ms* (n=1,234; bucket 50 to 75 ms, capped at ...)"
    const mark = p99.reliable ? '' : '\\\\\\*';
    expect(md).toMatch(
      new RegExp(
        `\\| 1 \\|.* ms${mark} \\(n=${p99.n.toLocaleString('en-US')}; bucket ${p99.lowerMs} to ${p99.upperMs} ms(, capped at [^)]*)?\\) \\|\\n`,
      ),
    );
    expect(p99.reliable).toBe(p99.n >= 3000);
    const summary = JSON.parse(fs.readFileSync(path.join(dir, 'summary.json'), 'utf8')) as RunResult;
    expect(summary.requestSeries).toBe(result.requestSeries);
    expect(summary.steps[0]!.server!.percentiles).toEqual(result.steps[0]!.server!.percentiles);
  });

  it('gives each mapped name its own cross-check; a route that matches nothing is a line with the fix, and the run went on', () => {
    for (const s of result.steps) {
      for (const name of ['read item', 'search']) {
        const n = s.byName![name]!;
        expect(n.crossCheck!.detail).toMatch(
          new RegExp(`^route ${ROUTES[name as 'search'].replace(/[{}]/g, '\\$&')}: server counted`),
        );
        // the route's own count, not the target's (reads are 4 x the searches): a window of ~20 searches is
        // a few requests off by where its edges fall on a busy machine
        expect(Math.abs(n.server!.throughputPerSec! - n.completedPerSec) / n.completedPerSec, name).toBeLessThan(0.25);
        expect(n.server!.percentiles!.length).toBe(3);
      }
      expect(s.byName!.search!.server!.percentiles![0]!.lowerMs).toBeGreaterThanOrEqual(50);
      expect(s.byName!.health!.crossCheck!.verdict).toBe('no-data');
    }
    const md = fs.readFileSync(path.join(dir, 'report.md'), 'utf8');
    expect(md).toMatch(/## Server-side view by name[\s\S]*\| 1 \| read item \|/);
    expect(md).toContain(
      'metrics.requests.routes\\["health"\\] {http\\_route="/healthz"} matches no series of http\\_server\\_request\\_duration\\_seconds\\_count (http\\_route values there: "/health", "/items/{id}", "/ping", "/search"): no cross-check for "health"; set it to the route as the target labels it',
    );
  });

  it("refuses the wrong preset in preflight, naming the target's look-alike family and the preset it fits", async () => {
    const r = await run('spring-on-otel', {});
    expect(r.exitCode).toBe(3);
    expect(r.error!.message).toMatch(
      /has no series http_server_requests_seconds_count, http_server_requests_seconds_sum .*look alike: http_server_request_duration_seconds \(_bucket, _count, _sum\)/,
    );
    expect(r.error!.hint).toBe(
      "set metrics.requests.preset: 'otel' (the endpoint has http_server_request_duration_seconds_count)",
    );
  });

  it('a live exposition without its +Inf bucket gives no percentiles and a line naming the fix', async () => {
    const broken = await startOtelTarget({ omitInf: true });
    try {
      await (await request(`${broken.url}/items/1`)).body.dump();
      const text = await (await request(`${broken.url}/metrics`)).body.text();
      const config = parseConfigOrThrow({
        target: { url: broken.url },
        steps: { startPerSec: 1, stepPerSec: 1, maxPerSec: 1, rampS: 1, holdS: 3, settleS: 1 },
        metrics: { url: '/metrics', requests: { preset: 'otel' } },
      });
      const s = toSample(config, parsePromText(text), null);
      expect(s.requestsCount).toBe(1);
      expect(s.requestsBuckets).toBeNull();
      expect(s.problems).toEqual([
        expect.stringMatching(
          /has no le="\+Inf" bucket: server percentiles not computed.*expose the histogram with its \+Inf bucket/,
        ),
      ]);
    } finally {
      await broken.close();
    }
  });
});

describe('the histogram through PromQL', () => {
  it.skipIf(!PROMETHEUS)(
    `gives the percentiles of the very scrapes it stored, as Prometheus's own histogram_quantile does${PROMETHEUS ? '' : ' (skipped: prometheus not installed; make test installs it)'}`,
    async () => {
      const prom = await promStarting!;
      await prom.waitForScrapes(2);
      const agent = new Agent({ connections: 32 });
      // 3 reads to 1 search for 2.5 s at 100/s, due by the clock, never waited for
      let sent = 0;
      const inflight = new Set<Promise<void>>();
      const fromMs = Date.now();
      const timer = setInterval(() => {
        for (; sent < ((Date.now() - fromMs) / 1000) * 100; sent++) {
          const p: Promise<void> = request(`${target.url}${sent % 4 === 3 ? '/search' : `/items/${sent}`}`, {
            dispatcher: agent,
          })
            .then((res) => res.body.dump())
            .finally(() => inflight.delete(p));
          inflight.add(p);
        }
      }, 5);
      await new Promise((r) => setTimeout(r, 2500));
      const toMs = Date.now();
      await prom.waitForScrapeAfter(toMs);
      clearInterval(timer);
      await Promise.allSettled([...inflight]);
      await agent.close();

      const w = await queryWindow({
        prometheusUrl: prom.url,
        requests: { preset: 'otel' },
        fromMs,
        toMs,
        t0EpochMs: fromMs,
      });
      // the texts Prometheus stored at its window's edges, as the tap passed them on
      const from = parsePromText(tappedAt(tap!.scrapes, fromMs + w.fromS * 1000).text);
      const to = parsePromText(tappedAt(tap!.scrapes, fromMs + w.toS * 1000).text);
      const bucket = 'http_server_request_duration_seconds_bucket';
      const direct = serverPercentiles(
        histogramDelta(histogramOf(from, bucket, {}, 1000).reading, histogramOf(to, bucket, {}, 1000).reading!)!,
      );
      const rangeMs = Math.round(toMs - fromMs);
      const own = async (q: number) => {
        const query = `histogram_quantile(${q}, sum by (le) (increase(${bucket}[${rangeMs}ms])))`;
        const res = await request(
          `${prom.url}/api/v1/query?query=${encodeURIComponent(query)}&time=${(toMs / 1000).toFixed(3)}`,
        );
        return (
          Number(
            ((await res.body.json()) as { data: { result: { value: [number, string] }[] } }).data.result[0]!.value[1],
          ) * 1000
        );
      };
      const lines: string[] = [];
      for (const [i, p] of w.percentiles!.entries()) {
        const d = direct[i]!;
        const theirs = await own(p.q / 100);
        const width = (p.upperMs ?? p.lowerMs) - p.lowerMs || 1;
        lines.push(
          `p${p.q}: PromQL ${p.valueMs!.toFixed(2)} in (${p.lowerMs}, ${p.upperMs}], direct ${d.valueMs!.toFixed(2)} in (${d.lowerMs}, ${d.upperMs}], histogram_quantile ${theirs.toFixed(2)}`,
        );
        // the same samples: Prometheus's arithmetic and ours agree within a tenth of the bucket
        expect(Math.abs(p.valueMs! - theirs) / width, lines.join('\n')).toBeLessThan(0.1);
        // the same readings, straight from the text: the same bucket and value
        expect([d.lowerMs, d.upperMs], lines.join('\n')).toEqual([p.lowerMs, p.upperMs]);
        expect(d.valueMs!, lines.join('\n')).toBeCloseTo(p.valueMs!, 6);
      }
      console.log(`${sent} requests; ${lines.join('; ')}`);
      // 3 reads to 1 search: the median among the reads (9 in 10 at ~12 ms), p90 and p99 among the searches (~55 ms)
      expect(w.percentiles![0]!.lowerMs).toBeGreaterThanOrEqual(10);
      expect(w.percentiles![0]!.upperMs).toBeLessThanOrEqual(50);
      expect(w.percentiles![1]!.lowerMs).toBeGreaterThanOrEqual(50);
      const directMean =
        ((sumOf(to, 'http_server_request_duration_seconds_sum')! -
          sumOf(from, 'http_server_request_duration_seconds_sum')!) /
          (sumOf(to, 'http_server_request_duration_seconds_count')! -
            sumOf(from, 'http_server_request_duration_seconds_count')!)) *
        1000;
      expect(Math.abs(w.meanMs! - directMean) / directMean).toBeLessThan(1e-6);

      // each mapped name's route through PromQL: the request series with the route label added (3 reads to 1 search)
      const config = parseConfigOrThrow({
        target: { url: target.url },
        steps: { startPerSec: 10, stepPerSec: 10, maxPerSec: 10, rampS: 1, holdS: 3 },
        metrics: {
          prometheus: { url: prom.url },
          requests: {
            preset: 'otel',
            routeLabel: 'http_route',
            routes: { 'read item': '/items/{id}', search: '/search' },
          },
        },
      });
      const { routes } = await routeWindows(
        config.metrics!,
        { steadyStartS: 0, steadyEndS: (toMs - fromMs) / 1000 },
        fromMs,
      );
      const reads = routes!['read item']!.throughputPerSec!;
      const searches = routes!.search!.throughputPerSec!;
      expect(Math.abs(reads + searches - w.throughputPerSec!) / w.throughputPerSec!).toBeLessThan(0.02);
      expect(reads / searches).toBeGreaterThan(2.5);
      expect(reads / searches).toBeLessThan(3.5);
      expect(routes!.search!.percentiles![0]!.lowerMs).toBeGreaterThanOrEqual(50);
    },
    30_000,
  );
});
