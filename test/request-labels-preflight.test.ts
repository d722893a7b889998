/**
 * Preflight's check of metrics.requests.labels and routes through a real Prometheus scraping the
 * demo (harness/pipeline/request-labels-check.ts): a `job` filter naming no job Prometheus holds is
 * refused with the job there; a route that matches nothing is said with the route values there.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemo } from '../demo/server.ts';
import { requestSeriesOf } from '../analysis/request-series.ts';
import { checkRequestLabelsInPrometheus } from '../harness/pipeline/request-labels-check.ts';
import { PlateauError } from '../harness/errors.ts';
import { findPrometheus, startPrometheus, type PrometheusHandle } from './helpers/prometheus.ts';

const PROMETHEUS = findPrometheus();

describe.skipIf(!PROMETHEUS)(
  `preflight: the request series' labels and routes through Prometheus${PROMETHEUS ? '' : ' (skipped: prometheus not installed; make test installs it)'}`,
  () => {
    let demo: Awaited<ReturnType<typeof startDemo>>;
    let prom: PrometheusHandle;
    let sentAtMs: number;
    beforeAll(async () => {
      demo = await startDemo({ slots: 2, holdMs: 1, rows: 10 });
      prom = await startPrometheus({ binary: PROMETHEUS!, targetUrl: demo.url, scrapeIntervalS: 1 });
      await fetch(`${demo.url}/orders/seed-1`);
      sentAtMs = Date.now();
      await prom.waitForScrapeAfter(sentAtMs);
    }, 60_000);
    afterAll(async () => {
      await prom?.stop();
      await demo?.close();
    });

    it('refuses a job label Prometheus holds no series of, naming the job it holds', async () => {
      const r = requestSeriesOf({ labels: { job: 'targett' } });
      const err = await checkRequestLabelsInPrometheus(prom.url, r, sentAtMs).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PlateauError);
      expect((err as PlateauError).message).toMatch(
        /^Prometheus at http:\/\/127\.0\.0\.1:\d+: metrics\.requests\.labels \{job="targett"\} match none of the \d+ series of http_server_requests_seconds_count \(job: "target"\): every step's cross-check would be empty$/,
      );
      expect((err as PlateauError).exitCode).toBe(3);
    });

    it('passes the right job, and names a mapped route absent from the series with the routes there', async () => {
      const r = requestSeriesOf({ labels: { job: 'target' }, routes: { read: '/orders/{id}', wrong: '/orderz' } });
      const note = await checkRequestLabelsInPrometheus(prom.url, r, sentAtMs);
      expect(note).toMatch(
        /^metrics\.requests\.routes\["wrong"\] \{uri="\/orderz"\} matches no series .* \(uri values there: .*"\/orders\/\{id\}"/,
      );
      expect(note).not.toContain('routes["read"]');
    });
  },
);
