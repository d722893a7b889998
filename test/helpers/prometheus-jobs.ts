/**
 * A real Prometheus server that scrapes several endpoints every second (one job each), for a test
 * whose series live on more than one endpoint: a service's own /metrics and its downstream's
 * exporter, as a user's Prometheus holds them. test/helpers/prometheus.ts starts one for a single
 * target; this one takes a list. Child process on 127.0.0.1, temp config and TSDB, removed on stop.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { spawnPrometheus } from './prometheus.ts';

export interface PrometheusJobs {
  /** http://127.0.0.1:PORT */
  url: string;
  /** Resolves once every job has been scraped successfully (up == 1). */
  waitForEveryJob(timeoutMs?: number): Promise<void>;
  log(): string;
  stop(): Promise<void>;
}

/** Prometheus scraping each `jobs[name]` (http://127.0.0.1:PORT/path) every second. */
export async function startPrometheusJobs(binary: string, jobs: Record<string, string>): Promise<PrometheusJobs> {
  const dir = mkdtempSync(join(tmpdir(), 'plateau-prometheus-'));
  const scrapeConfigs = Object.entries(jobs).flatMap(([job, at]) => {
    const u = new URL(at);
    return [
      `  - job_name: ${JSON.stringify(job)}`,
      `    metrics_path: ${JSON.stringify(u.pathname)}`,
      '    static_configs:',
      `      - targets: [${JSON.stringify(u.host)}]`,
    ];
  });
  writeFileSync(
    join(dir, 'prometheus.yml'),
    ['global:', '  scrape_interval: 1s', '  scrape_timeout: 1s', 'scrape_configs:', ...scrapeConfigs, ''].join('\n'),
  );
  const p = await spawnPrometheus(binary, dir);
  return {
    url: p.url,
    log: p.log,
    stop: p.stop,
    waitForEveryJob: (timeoutMs = 15_000) =>
      p.until(async () => {
        const res = await request(`${p.url}/api/v1/query?query=${encodeURIComponent('up == 1')}`);
        const body = (await res.body.json()) as { data?: { result?: unknown[] } };
        return (body.data?.result?.length ?? 0) >= Object.keys(jobs).length;
      }, timeoutMs),
  };
}
