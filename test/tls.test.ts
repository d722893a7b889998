/**
 * TLS targets: plateau's CLI against an https server on 127.0.0.1 whose certificate a private CA
 * signed (test/fixtures/tls). Trusted through NODE_EXTRA_CA_CERTS, a run holds its steps over
 * kept-alive TLS connections with either HTTP client, on worker threads too; untrusted, or https
 * to a port that speaks plain HTTP, preflight stops it before any load and names the fix.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tinyServer } from './helpers/tiny-server.ts';
import { tempRunsDir } from './helpers/pipeline.ts';

const FIXTURES = path.resolve('test/fixtures/tls');
const CA = path.join(FIXTURES, 'ca.pem');
const runsDir = tempRunsDir();

interface TlsTarget {
  url: string;
  /** Handshakes the server completed (resumed: those that resumed a session), and requests answered. */
  seen: { handshakes: number; resumed: number; requests: number };
  close(): Promise<void>;
}
const targets: TlsTarget[] = [];

/**
 * Each run's own https server (the runs go at once, and each counts its own handshakes).
 * `closeEach`: answer every request with Connection: close (a server that never keeps a connection).
 */
async function tlsTarget(closeEach = false): Promise<TlsTarget> {
  const seen = { handshakes: 0, resumed: 0, requests: 0 };
  const server = https.createServer(
    {
      key: fs.readFileSync(path.join(FIXTURES, 'server.key')),
      cert: fs.readFileSync(path.join(FIXTURES, 'server.pem')),
      keepAliveTimeout: 60_000,
    },
    (_req, res) => {
      seen.requests++;
      if (closeEach) res.setHeader('connection', 'close');
      res.end('ok\n');
    },
  );
  server.on('secureConnection', (s) => {
    seen.handshakes++;
    if (s.isSessionReused()) seen.resumed++;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const target: TlsTarget = {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    seen,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  targets.push(target);
  return target;
}

afterAll(async () => {
  await Promise.all(targets.map((t) => t.close()));
  fs.rmSync(runsDir, { recursive: true, force: true });
});

/** The environment without NODE_EXTRA_CA_CERTS, plus `extra`. */
function envWith(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  if (!('NODE_EXTRA_CA_CERTS' in extra)) delete env.NODE_EXTRA_CA_CERTS;
  return env;
}

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** `plateau run` against `target`; `stepsEnded` resolves when its steps stage has ended (or the run has). */
function plateau(
  target: string,
  id: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): { done: Promise<Outcome>; stepsEnded: Promise<void> } {
  const argv = [
    'bin/plateau.js',
    'run',
    '--target',
    target,
    '--start-rate',
    '50',
    '--step-rate',
    '50',
    '--max-rate',
    '100',
    // no ramp: each step goes to its rate at once, and its settling second absorbs the change
    '--ramp',
    '0',
    '--hold',
    '3',
    '--settle',
    '1',
    '--no-warmup',
    '--out',
    runsDir,
    '--run-id',
    id,
    ...args,
  ];
  let stepsEnded!: () => void;
  const ended = new Promise<void>((resolve) => (stepsEnded = resolve));
  const done = new Promise<Outcome>((resolve) => {
    const child = execFile(process.execPath, argv, { env, timeout: 100_000 }, (err, stdout, stderr) => {
      stepsEnded();
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (/^steps: /m.test(out)) stepsEnded();
    });
  });
  return { done, stepsEnded: ended };
}

function stepsOf(id: string): { verdict: string; throughputPerSec: number }[] {
  return JSON.parse(fs.readFileSync(path.join(runsDir, id, 'summary.json'), 'utf8')).steps;
}

const TRUSTED = [
  ['the socket client on two worker threads', 'tls-socket', ['--http-client', 'socket', '--workers', '2']],
  ['undici on one thread', 'tls-undici', ['--http-client', 'undici', '--workers', '1']],
] as const;

/**
 * The runs start before their tests, each a child process against its own server and judged by
 * its own counts and verdicts. The three that load their target start together, so that their
 * start-ups, their steps and their reports come about together; the two short preflight runs
 * start once all three have ended their steps, beside their reports (with all five started at
 * once, the undici run's first step met the others' start-up and dropped 18 arrivals, 12-07).
 * Until 12-07 the run of a server that closes every connection went beside the preflight runs
 * only, and the trusted runs after it (25 s for the file beside the CPU hog): beside the trusted
 * runs a step of it had counted 121 reconnects of 154 requests, where 90% was asked (12-02). Its
 * test now asks, per step, for the requests less two per VU (decision 014: a VU's first
 * connection and a request after it sat idle for a second are not reconnects, at most two of a
 * VU's requests in a 2 s window, however a stall spreads them), and 60% over the run.
 */
const runs: Record<string, Promise<Outcome>> = {};
const seenBy: Record<string, TlsTarget['seen']> = {};
let plainServer: Awaited<ReturnType<typeof tinyServer>>;
beforeAll(async () => {
  const [close, untrusted, ...trusted] = await Promise.all([
    tlsTarget(true),
    tlsTarget(),
    ...TRUSTED.map(() => tlsTarget()),
  ]);
  plainServer = await tinyServer((_q, res) => res.end('ok'));
  const trust = envWith({ NODE_EXTRA_CA_CERTS: CA });
  const loading = [
    plateau(close.url, 'tls-close', ['--http-client', 'socket', '--workers', '1'], trust),
    ...TRUSTED.map(([, id, args], i) => plateau(trusted[i].url, id, [...args], trust)),
  ];
  runs.close = loading[0].done;
  seenBy.close = close.seen;
  TRUSTED.forEach(([, id], i) => {
    runs[id] = loading[i + 1].done;
    seenBy[id] = trusted[i].seen;
  });
  const stepsEnded = Promise.all(loading.map((r) => r.stepsEnded));
  runs.untrusted = stepsEnded.then(() => plateau(untrusted.url, 'tls-untrusted', [], envWith({})).done);
  seenBy.untrusted = untrusted.seen;
  const plainUrl = plainServer.url.replace('http://', 'https://') + '/';
  runs.plain = stepsEnded.then(() => plateau(plainUrl, 'tls-plain', [], trust).done);
});
afterAll(() => plainServer?.close());

describe.concurrent('https target with a private CA', () => {
  it('a server that closes every connection: each VU resumes its TLS session, and every request counts as a reconnect', async () => {
    const seen = seenBy.close;
    const r = await runs.close;
    expect(r.code, r.stderr).toBe(0);
    expect(seen.handshakes).toBeGreaterThan(300); // a connection per request
    // Only a VU's first connection (and preflight's and RTT's) is a full handshake.
    expect(seen.resumed / seen.handshakes).toBeGreaterThan(0.8);
    const steps = JSON.parse(fs.readFileSync(path.join(runsDir, 'tls-close', 'summary.json'), 'utf8')).steps as {
      completed: number;
      reconnects: number;
      vusAllocatedMax: number;
    }[];
    // not reconnects: a VU's first connection (one allocated under load) and a request after its VU
    // sat idle for a second (decision 014), at most two of a VU's requests in the 2 s steady window;
    // 90 of 100 counted with 14 VUs after a stall (lag p99 90 ms) beside the CPU hog (12-05)
    for (const s of steps)
      expect(s.reconnects, JSON.stringify(s)).toBeGreaterThanOrEqual(s.completed - 2 * s.vusAllocatedMax);
    expect(steps.reduce((a, s) => a + s.reconnects, 0)).toBeGreaterThan(
      0.6 * steps.reduce((a, s) => a + s.completed, 0),
    );
  });

  it('untrusted: preflight stops the run before any request and says to set NODE_EXTRA_CA_CERTS', async () => {
    const seen = seenBy.untrusted;
    const r = await runs.untrusted;
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/TLS certificate of 127\.0\.0\.1:\d+ is not trusted \(UNABLE_TO_VERIFY_LEAF_SIGNATURE/);
    expect(r.stderr).toMatch(/fix: export NODE_EXTRA_CA_CERTS=\/path\/to\/ca\.pem/);
    expect(seen.requests).toBe(0);
    // The run still leaves its report, saying why it stopped.
    expect(fs.readFileSync(path.join(runsDir, 'tls-untrusted', 'report.md'), 'utf8')).toMatch(/is not trusted/);
  });

  it('https to a port that speaks plain HTTP: preflight says so and names http://', async () => {
    const r = await runs.plain;
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/127\.0\.0\.1:\d+ does not speak TLS/);
    expect(r.stderr).toMatch(/fix: use http:\/\/127\.0\.0\.1:\d+ if this port serves plain HTTP/);
  });

  it.for(TRUSTED)(
    'trusted through NODE_EXTRA_CA_CERTS: %s holds every step on kept-alive TLS connections',
    async ([, id]) => {
      const seen = seenBy[id];
      const r = await runs[id];
      expect(r.code, r.stderr).toBe(0);
      const steps = stepsOf(id);
      expect(
        steps.map((s) => s.verdict),
        r.stdout,
      ).toEqual(['holds', 'holds']);
      // "holds" is at least 90% of each rate delivered. No more is asked: the two runs and both TLS
      // targets share this machine with the CPU hog, and a stall moves a few answers out of the 2 s
      // window (93.5 req/s of 100 in a fresh-clone CI of 12-06, where this asked for 95)
      const stored = JSON.parse(fs.readFileSync(path.join(runsDir, id, 'run.json'), 'utf8'));
      expect(stored.environment.extraCaCerts).toBe(CA);
      expect(seen.requests).toBeGreaterThan(300); // 2 steps of 3 s at 50 and 100 req/s, plus preflight and RTT
      // Each VU keeps its TLS connection (14 handshakes for 573 requests when written): one per
      // request would be hundreds.
      expect(seen.handshakes).toBeGreaterThan(0);
      expect(seen.handshakes).toBeLessThan(60);
    },
  );
});
