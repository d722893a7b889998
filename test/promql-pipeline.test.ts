/**
 * The PromQL path in a whole run: a real Prometheus server scrapes the demo every second; the
 * report's per-step server figures through PromQL match the direct scrapes within 5%, and the
 * percentiles of the demo's timer histogram fall in the same bucket or the next.
 */
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { startDemo } from '../demo/server.ts';
import { analyzeRun } from '../analysis/analyze.ts';
import { loadRun } from '../harness/store/run-store.ts';
import { findPrometheus, startPrometheus } from './helpers/prometheus.ts';
import { DEMO_SCENARIO, runQuietly, tempRunsDir } from './helpers/pipeline.ts';

const PROMETHEUS = findPrometheus();
const KEY = 'promql-pipeline-key-' + process.pid;
const runsDir = tempRunsDir();
afterAll(() => fs.rmSync(runsDir, { recursive: true, force: true }));

describe('metrics.prometheus in a run', () => {
  it.skipIf(!PROMETHEUS)(
    `reads every steady window through PromQL, within 5% of the direct scrape${PROMETHEUS ? '' : ' (skipped: prometheus not installed; make test installs it)'}`,
    async () => {
      const demo = await startDemo({ slots: 4, holdMs: 5, hmacKey: KEY });
      const prom = await startPrometheus({ binary: PROMETHEUS!, targetUrl: demo.url, scrapeIntervalS: 1 });
      try {
        await prom.waitForScrapes(2);
        const requests = { name: 'http_server_requests_seconds', labels: { uri: '/orders' } };
        const r = await runQuietly(
          {
            target: { url: `${demo.url}/orders`, rttPath: '/ping' },
            scenario: DEMO_SCENARIO,
            steps: { startPerSec: 100, stepPerSec: 100, maxPerSec: 200, rampS: 1, holdS: 6, settleS: 1 }, // two windows to compare
            warmup: { enabled: false },
            rtt: { samples: 5 },
            metrics: { url: '/metrics', scrapeEveryS: 1, requests, prometheus: { url: prom.url, settleS: 2.5 } },
            output: { dir: runsDir, runId: 'promql-run' },
          },
          { env: { ...process.env, PLATEAU_DEMO_HMAC_KEY: KEY } },
        );
        expect(r.exitCode, r.lines.join('')).toBe(0);
        const viaPromql = r.result.steps.map((s) => s.server!);
        expect(viaPromql.every((w) => w.source === 'promql')).toBe(true);
        // The same store analysed without the PromQL windows gives the direct scrape's figures.
        const { meta, records, samples } = loadRun(r.dir);
        const direct = analyzeRun({
          runId: meta.runId,
          target: meta.target,
          engine: meta.engine,
          startedAt: meta.startedAt,
          rules: meta.plan!.rules,
          steps: meta.plan!.steps,
          attempts: meta.attempts!,
          policy: meta.policy,
          plannedSteps: meta.plan!.steps.length,
          records,
          stages: meta.stages,
          vus: meta.vus!,
          rtt: meta.rtt,
          environment: meta.environment,
          interrupted: false,
          samples,
        }).steps.map((s) => s.server!);
        expect(direct.every((w) => w.source === 'scrape')).toBe(true);
        viaPromql.forEach((p, i) => {
          expect(
            Math.abs(p.throughputPerSec! - direct[i].throughputPerSec!) / direct[i].throughputPerSec!,
            `step ${i + 1} throughput`,
          ).toBeLessThan(0.05);
          // PromQL's window runs from its first to its last raw sample inside the steady window, up to a
          // scrape interval short of the direct scrape's at each edge: a busy machine's stalls in those
          // edges move a mean of ~5 ms by up to a millisecond between the two (0.5 ms, 9%, was seen).
          expect(
            Math.abs(p.meanMs! - direct[i].meanMs!),
            `step ${i + 1} mean ${p.meanMs} vs ${direct[i].meanMs} ms`,
          ).toBeLessThan(Math.max(0.05 * direct[i].meanMs!, 1));
          // the demo's timer is a Micrometer percentile histogram too: its percentiles through PromQL
          // from the bucket deltas, each inside its bucket, over every request of the window (the
          // +Inf bucket's delta is the count's); the median as the direct scrape's within 20% (the
          // tail rests on a few requests, which the windows' different edges change)
          expect(
            p.percentiles!.map((x) => x.q),
            `step ${i + 1} percentiles`,
          ).toEqual([50, 90, 99]);
          for (const x of p.percentiles!) {
            const text = `step ${i + 1} p${x.q}: ${x.valueMs} ms in (${x.lowerMs}, ${x.upperMs}] of ${x.n}`;
            expect(x.valueMs! >= x.lowerMs && x.valueMs! <= (x.upperMs ?? Infinity), text).toBe(true);
            expect(Math.abs(x.n - p.throughputPerSec! * (p.toS - p.fromS)), text).toBeLessThan(1);
          }
          const [pq50, direct50] = [p.percentiles![0]!.valueMs!, direct[i].percentiles![0]!.valueMs!];
          expect(Math.abs(pq50 - direct50), `step ${i + 1} p50 ${pq50} vs ${direct50} ms`).toBeLessThan(
            Math.max(0.2 * direct50, 1),
          );
        });
      } finally {
        await prom.stop();
        await demo.close();
      }
    },
    90_000,
  );
});
