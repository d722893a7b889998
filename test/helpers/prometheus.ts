/**
 * A real Prometheus server for tests: a child process on 127.0.0.1 (random free port), with a
 * temp config that scrapes one target's /metrics every second and a temp TSDB, removed on stop.
 * `make test` installs Debian's package first (scripts/ensure-servers.sh); without it,
 * findPrometheus() returns null and the test skips with that reason.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { request } from 'undici';
import { freePort } from './free-port.ts';

export interface PrometheusHandle {
  /** http://127.0.0.1:PORT */
  url: string;
  /** Resolves once Prometheus has scraped the target successfully (up == 1) at least `scrapes` times. */
  waitForScrapes(scrapes: number, timeoutMs?: number): Promise<void>;
  /** Resolves once Prometheus holds a scrape of the target taken after `epochMs` (Date.now() clock). */
  waitForScrapeAfter(epochMs: number, timeoutMs?: number): Promise<void>;
  /** Prometheus's stderr so far (for a failing test's message). */
  log(): string;
  stop(): Promise<void>;
}

/** The prometheus binary on PATH (or PROMETHEUS), null when absent. */
export function findPrometheus(env: NodeJS.ProcessEnv = process.env): string | null {
  const candidates = env.PROMETHEUS
    ? [env.PROMETHEUS]
    : (env.PATH ?? '')
        .split(delimiter)
        .filter(Boolean)
        .map((d) => join(d, 'prometheus'));
  for (const c of candidates) {
    try {
      accessSync(c, constants.X_OK);
      return c;
    } catch {
      // not here
    }
  }
  return null;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Start Prometheus scraping `targetUrl` (http://127.0.0.1:PORT) at `metricsPath` every scrapeIntervalS. */
export async function startPrometheus(o: {
  binary: string;
  targetUrl: string;
  metricsPath?: string;
  scrapeIntervalS?: number;
  /** Also accept remote write (POST /api/v1/write) with native histograms: the flags k6's experimental-prometheus-rw output needs. */
  remoteWrite?: boolean;
}): Promise<PrometheusHandle> {
  const dir = mkdtempSync(join(tmpdir(), 'plateau-prometheus-'));
  const target = new URL(o.targetUrl);
  const intervalS = o.scrapeIntervalS ?? 1;
  writeFileSync(
    join(dir, 'prometheus.yml'),
    [
      'global:',
      `  scrape_interval: ${intervalS}s`,
      `  scrape_timeout: ${intervalS}s`,
      `  evaluation_interval: ${intervalS}s`,
      'scrape_configs:',
      '  - job_name: target',
      `    metrics_path: ${JSON.stringify(o.metricsPath ?? '/metrics')}`,
      '    static_configs:',
      `      - targets: [${JSON.stringify(target.host)}]`,
      '',
    ].join('\n'),
  );
  const p = await spawnPrometheus(
    o.binary,
    dir,
    o.remoteWrite ? ['--web.enable-remote-write-receiver', '--enable-feature=native-histograms'] : [],
  );
  const { url, until } = p;
  return {
    url,
    log: p.log,
    stop: p.stop,
    waitForScrapes: (scrapes, timeoutMs = 15_000) =>
      until(async () => {
        const q = 'sum_over_time(up{job="target"}[1h])'; // successful scrapes so far
        const res = await request(`${url}/api/v1/query?query=${encodeURIComponent(q)}`);
        const body = (await res.body.json()) as { data?: { result?: Array<{ value: [number, string] }> } };
        return Number(body.data?.result?.[0]?.value[1] ?? 0) >= scrapes;
      }, timeoutMs),
    waitForScrapeAfter: (epochMs, timeoutMs = 10_000) =>
      until(async () => {
        const res = await request(`${url}/api/v1/query?query=${encodeURIComponent('timestamp(up{job="target"})')}`);
        const body = (await res.body.json()) as { data?: { result?: Array<{ value: [number, string] }> } };
        return Number(body.data?.result?.[0]?.value[1] ?? 0) * 1000 > epochMs;
      }, timeoutMs),
  };
}

/** A Prometheus started on the config `dir`/prometheus.yml, ready to query. */
export interface SpawnedPrometheus {
  url: string;
  /** Its stderr so far. */
  log(): string;
  /** Polls `ok` every 100 ms until it holds; rejects at the timeout or when Prometheus exited. */
  until(ok: () => Promise<boolean>, timeoutMs: number): Promise<void>;
  /** Stops it and removes `dir`. */
  stop(): Promise<void>;
}

/**
 * Prometheus on a free port of 127.0.0.1 with the config `dir`/prometheus.yml and its TSDB in
 * `dir`, resolved once it answers /-/ready (stopped, `dir` removed, and rejected when it does not).
 */
export async function spawnPrometheus(binary: string, dir: string, flags: string[] = []): Promise<SpawnedPrometheus> {
  const port = await freePort();
  const child = spawn(
    binary,
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--storage.tsdb.retention.time=1h',
      '--log.level=warn',
      ...flags,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-20_000)));
  const url = `http://127.0.0.1:${port}`;
  const p: SpawnedPrometheus = {
    url,
    log: () => stderr,
    until: (ok, timeoutMs) => until(ok, timeoutMs, () => child.exitCode !== null),
    stop: () => stopChild(child, dir),
  };
  try {
    await p.until(async () => (await request(`${url}/-/ready`)).statusCode === 200, 30_000);
  } catch (err) {
    await p.stop();
    throw new Error(`prometheus did not become ready on ${url}: ${(err as Error).message}\n${stderr}`);
  }
  return p;
}

/** Poll `ok` every 100 ms until it holds; rejects at the timeout or when `dead()` says the process died. */
async function until(ok: () => Promise<boolean>, timeoutMs: number, dead: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (dead()) throw new Error('prometheus exited');
    try {
      if (await ok()) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`not ready within ${timeoutMs} ms`);
    await sleep(100);
  }
}

/** SIGTERM, wait (bounded) for a clean exit, SIGKILL if needed; then remove the temp dir. */
async function stopChild(child: ChildProcess, dir: string): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
  rmSync(dir, { recursive: true, force: true });
}

/**
 * Direct scrapes every `everyMs` until the clock (Date.now) reaches `untilMs`: a test then sets the
 * figures PromQL gives over its own window (between Prometheus's scrapes) beside the direct ones
 * over the same part, from the scrapes nearest its edges (nearestScrape).
 */
export async function scrapeEvery<T extends { atMs: number }>(
  scrape: () => Promise<T>,
  untilMs: number,
  everyMs = 100,
): Promise<T[]> {
  const out: T[] = [];
  while (Date.now() < untilMs) {
    await new Promise((r) => setTimeout(r, everyMs));
    out.push(await scrape());
  }
  return out;
}

/** The scrape taken nearest to atMs. */
export function nearestScrape<T extends { atMs: number }>(scrapes: readonly T[], atMs: number): T {
  return scrapes.reduce((m, x) => (Math.abs(x.atMs - atMs) < Math.abs(m.atMs - atMs) ? x : m));
}
