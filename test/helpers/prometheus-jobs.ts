/**
 * A real Prometheus server that scrapes several endpoints every second (one job each), for a test
 * whose series live on more than one endpoint: a service's own /metrics and its downstream's
 * exporter, as a user's Prometheus holds them. test/helpers/prometheus.ts starts one for a single
 * target; this one takes a list. Child process on 127.0.0.1, temp config and TSDB, removed on stop.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { freePort } from './free-port.ts';

export interface PrometheusJobs {
  /** http://127.0.0.1:PORT */
  url: string;
  /** Resolves once every job has been scraped successfully (up == 1). */
  waitForEveryJob(timeoutMs?: number): Promise<void>;
  log(): string;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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
  const port = await freePort();
  const child = spawn(
    binary,
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--storage.tsdb.retention.time=1h',
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-20_000)));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const until = async (ok: () => Promise<boolean>, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`prometheus exited: ${stderr}`);
      try {
        if (await ok()) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`prometheus: not ready within ${timeoutMs} ms: ${stderr}`);
      await sleep(100);
    }
  };
  try {
    await until(async () => (await request(`${url}/-/ready`)).statusCode === 200, 30_000);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    url,
    log: () => stderr,
    stop,
    waitForEveryJob: (timeoutMs = 15_000) =>
      until(async () => {
        const res = await request(`${url}/api/v1/query?query=${encodeURIComponent('up == 1')}`);
        const body = (await res.body.json()) as { data?: { result?: unknown[] } };
        return (body.data?.result?.length ?? 0) >= Object.keys(jobs).length;
      }, timeoutMs),
  };
}
