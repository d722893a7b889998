/**
 * A real Prometheus server for tests: a child process on 127.0.0.1 (random free port), with a
 * temp config that scrapes one target's /metrics every second and a temp TSDB, removed on stop.
 * `make test` installs Debian's package first (scripts/ensure-servers.sh); without it,
 * findPrometheus() returns null and the test skips with that reason.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { request } from 'undici';
import { freePort } from './free-port.ts';
import { parsePromText, sumOf } from '../../harness/metrics/prom-text.ts';

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

/** One scrape Prometheus took through a MetricsTap: when the tap received it, and the text passed on. */
export interface TappedScrape {
  atMs: number;
  text: string;
}

/**
 * A pass-through for Prometheus's scrapes of `upstreamUrl` that keeps each text it passed on, so a
 * test sets PromQL's figures beside the very readings Prometheus stored: a stall of the test's
 * process then moves both alike, where scrapes of its own would be taken at other instants.
 */
export interface MetricsTap {
  /** http://127.0.0.1:PORT: give Prometheus this as its target. */
  url: string;
  scrapes: TappedScrape[];
  close(): Promise<void>;
}

export async function startMetricsTap(upstreamUrl: string): Promise<MetricsTap> {
  const scrapes: TappedScrape[] = [];
  const server = createServer((req, res) => {
    const atMs = Date.now();
    request(`${upstreamUrl}${req.url ?? '/'}`)
      .then(async (up) => {
        const text = await up.body.text();
        scrapes.push({ atMs, text });
        res.writeHead(up.statusCode, { 'content-type': String(up.headers['content-type'] ?? 'text/plain') });
        res.end(text);
      })
      .catch((err: Error) => {
        res.writeHead(502);
        res.end(err.message);
      });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    scrapes,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/**
 * The tapped scrape Prometheus stored at `epochMs` (a raw sample's timestamp): the first one the tap
 * received from then on. Prometheus stamps a sample with its scrape's start (aligned to the interval
 * within 2 ms), and the tap receives it after that start, however long a stall delays it; the 100 ms
 * of slack covers the alignment and is well under the 1 s between scrapes.
 */
export function tappedAt(scrapes: readonly TappedScrape[], epochMs: number): TappedScrape {
  const s = scrapes.find((x) => x.atMs >= epochMs - 100);
  if (!s) throw new Error(`no tapped scrape at or after ${new Date(epochMs).toISOString()}`);
  return s;
}

/** A request series' cumulative count and sum (s) in a scrape's text (0 where the series is absent). */
export function countersIn(
  text: string,
  series: { name: string; labels: Record<string, string> },
): { count: number; sumS: number } {
  const samples = parsePromText(text);
  return {
    count: sumOf(samples, `${series.name}_count`, series.labels) ?? 0,
    sumS: sumOf(samples, `${series.name}_sum`, series.labels) ?? 0,
  };
}

/**
 * The two tapped scrapes a PromQL window was read between, found by what they hold: the pair whose
 * count grew by exactly `requests` and whose mean is `meanMs` to one part in a million (a float sum
 * of latencies matches no other pair by chance). Undefined when no pair does.
 */
export function storedWindow(
  scrapes: readonly TappedScrape[],
  series: { name: string; labels: Record<string, string> },
  requests: number,
  meanMs: number,
): { from: { count: number; sumS: number }; to: { count: number; sumS: number } } | undefined {
  const read = scrapes.map((s) => countersIn(s.text, series));
  for (let i = 0; i < read.length; i++)
    for (let j = i + 1; j < read.length; j++) {
      const [from, to] = [read[i]!, read[j]!];
      if (to.count - from.count !== requests) continue;
      const mean = ((to.sumS - from.sumS) / requests) * 1000;
      if (Math.abs(mean - meanMs) <= 1e-6 * meanMs) return { from, to };
    }
  return undefined;
}
