/**
 * The fault matrix (issue 8): a target that breaks on purpose, one way per test. For each fault the
 * whole pipeline runs against the fault server on 127.0.0.1, and the test checks that plateau kept
 * running (arrivals in every second of the step, exit 0), counted the failure under its own error
 * kind, showed it in report.md's errors section, and kept memory bounded.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { BucketRecord, RunResult } from '../analysis/types.ts';
import { startFaultServer, startWitness, type FaultOptions, type FaultServer } from './helpers/fault-server.ts';
import { runQuietly, tempRunsDir } from './helpers/pipeline.ts';

const runsDir = tempRunsDir();
afterAll(() => fs.rmSync(runsDir, { recursive: true, force: true }));

// 30 req/s for 2 s: the same ~60 arrivals a fault gets as at 20 req/s for 3 s, in two thirds of the time.
const RATE_PER_SEC = 30;
const HOLD_S = 2;
const STEPS = {
  startPerSec: RATE_PER_SEC,
  stepPerSec: RATE_PER_SEC,
  maxPerSec: RATE_PER_SEC,
  rampS: 0,
  holdS: HOLD_S,
  settleS: 1,
};
/**
 * The deadline of the hang and the slow drip, and the graceful stop that lets the last arrivals of
 * the hold reach it. Not 500 ms: preflight's sample request has the same deadline, and a stall of
 * this process (the runs beside it render their reports on this thread) held it past 500 ms on a
 * slow day. Their step is held 3 s with no settle, so that the steady window takes the timeouts of
 * the arrivals of its first second and a half: with 2 s of hold and 1 of settle, the window was the
 * step's second second only, and a stall of a second near its end (another run's report, before
 * reports gave the loop a turn between charts: decision 040) pushed every timeout out of it (12-06,
 * in CI and beside busy cores).
 */
const DEADLINE_HOLD_S = 3;
const DEADLINE = {
  http: { timeoutMs: 1500 },
  gracefulStopS: 2,
  steps: { ...STEPS, holdS: DEADLINE_HOLD_S, settleS: 0 },
};

type Client = 'undici' | 'socket';

/** The same faults through each HTTP client; only the transport's own wording differs. */
const CLIENTS: { client: Client; reset: RegExp; malformed: RegExp }[] = [
  { client: 'undici', reset: /ECONNRESET|other side closed/, malformed: /does not match the HTTP\/1\.1 protocol/ },
  {
    client: 'socket',
    reset: /ECONNRESET|closed the connection before the response ended/,
    malformed: /invalid HTTP response: Expected HTTP\//,
  },
];

function config(url: string, runId: string, client: Client, extra: Record<string, unknown> = {}) {
  return {
    target: { url: `${url}/load` },
    steps: STEPS,
    warmup: { enabled: false },
    rtt: { samples: 3 },
    // A deadline no fault here reaches by itself: a stall of this busy process (the runs beside it
    // share its event loop) then delays a request without failing it. The hang and the slow drip,
    // which test the deadline, set their own (DEADLINE).
    http: { timeoutMs: 5000, client },
    verdicts: { confirmFailedStep: false },
    gracefulStopS: 1,
    // The engine thread itself: starting worker threads costs ~2 s a run, and the VU pool (with its
    // deadline sweep) is the same code in a worker.
    workers: 1,
    output: { dir: runsDir, runId },
    ...extra,
  };
}

interface Totals {
  started: number;
  dropped: number;
  completed: number;
  ok: number;
  errors: Record<string, number>;
  statuses: Record<string, number>;
  samples: string[];
  bytesIn: number;
  seconds: BucketRecord[];
}

function totals(dir: string): Totals {
  const recs = fs
    .readFileSync(path.join(dir, 'buckets.ndjson'), 'utf8')
    .trim()
    .split('\n')
    .map((l, i) => {
      try {
        return JSON.parse(l) as BucketRecord;
      } catch (err) {
        throw new Error(
          `${dir}/buckets.ndjson line ${i + 1} is not JSON (${String(err)}): ${JSON.stringify(l.slice(0, 300))}`,
        );
      }
    })
    .filter((r) => r.phase === 'steps');
  const t: Totals = {
    started: 0,
    dropped: 0,
    completed: 0,
    ok: 0,
    errors: {},
    statuses: {},
    samples: [],
    bytesIn: 0,
    seconds: recs,
  };
  for (const r of recs) {
    t.started += r.started;
    t.dropped += r.dropped;
    t.completed += r.completed;
    t.ok += r.ok;
    t.bytesIn += r.bytesIn;
    for (const [k, v] of Object.entries(r.errors)) t.errors[k] = (t.errors[k] ?? 0) + (v ?? 0);
    for (const [k, v] of Object.entries(r.statuses)) t.statuses[k] = (t.statuses[k] ?? 0) + v;
    for (const s of r.samples ?? []) if (!t.samples.includes(s)) t.samples.push(s);
  }
  return t;
}

/** report.md's errors section; kinds are Markdown-escaped there (http\_5xx). */
function errorsSection(dir: string): string {
  const md = fs.readFileSync(path.join(dir, 'report.md'), 'utf8');
  const from = md.indexOf('## Errors');
  return md.slice(from, md.indexOf('\n## ', from + 1));
}
const mdKind = (kind: string) => kind.replace(/_/g, '\\_');

async function runFault(
  client: Client,
  runId: string,
  fault: FaultOptions,
  extra: Record<string, unknown> = {},
  before?: (s: FaultServer) => void,
) {
  const server = await startFaultServer(fault);
  before?.(server);
  try {
    const r = await runQuietly(config(server.url, `${runId}-${client}`, client, extra));
    // A run that stopped before its steps (a preflight that failed) has no buckets: say why.
    const buckets = path.join(r.dir, 'buckets.ndjson');
    if (!fs.existsSync(buckets) || !fs.readFileSync(buckets, 'utf8').trim())
      throw new Error(`the run recorded no second of load (exit ${r.exitCode}):\n${r.lines.join('')}`);
    return { r, t: totals(r.dir), errors: errorsSection(r.dir), server };
  } finally {
    await server.close();
  }
}

/** What a failed expectation shows: the run's seconds, its step, and what it printed. */
function perSecond(r: { lines: string[]; result: RunResult }, t: Totals): string {
  const seconds = t.seconds.map(
    (b) => `${b.tS}: ${b.started} started, ${b.dropped} dropped, ${b.completed} done, ${b.completed - b.ok} failed`,
  );
  return `${seconds.join('; ')}\nsteps: ${JSON.stringify(r.result.steps)}\n${r.lines.join('')}`;
}

/** Plateau kept offering load: every second of the step saw arrivals, and the run ended normally. */
function keptRunning(r: { exitCode: number; lines: string[]; result: RunResult }, t: Totals, holdS = HOLD_S): void {
  expect(r.exitCode, r.lines.join('')).toBe(0);
  const secondsWithArrivals = new Set(t.seconds.filter((b) => b.tS < holdS && b.started > 0).map((b) => b.tS)).size; // one bucket a second per engine thread
  expect(secondsWithArrivals, perSecond(r, t)).toBe(holdS);
  // Every scheduled arrival was either sent or counted as dropped (a busy machine can stall the VUs
  // that a fault holds), except where a stall of this process ran into the steady window's end and
  // the step, judged failing, stopped the engine before the arrivals it delayed went out: that step
  // must then show the stall (a known limit of the engine: docs/decisions/027).
  const step = r.result.steps[0];
  const stalled = step.loopDelayMaxMs! > 100 || (step.lagP99Ms ?? 0) > 20;
  // Most of them started; a stall the step shows may hold back more (47 of 60 beside the CPU hog, 12-06)
  expect(t.started, JSON.stringify(step)).toBeGreaterThanOrEqual((stalled ? 0.5 : 0.8) * RATE_PER_SEC * holdS);
  if (!stalled || step.verdict === 'holds')
    expect(t.started + t.dropped, JSON.stringify(step)).toBeGreaterThanOrEqual(RATE_PER_SEC * holdS - 2);
}

describe.each(CLIENTS)('fault matrix ($client client): bodies of many megabytes', ({ client }) => {
  // First and alone, each client in turn: it measures this process's memory, which another run
  // beside it would blur.
  it('bodies of many megabytes: counted, discarded, memory bounded', async () => {
    const bodyBytes = 20 * 2 ** 20;
    global.gc?.();
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 50);
    // One engine thread: worker threads' own heaps would blur what this measures. 2 s of hold and 2
    // of graceful stop, not 3 and 1: the bodies have the same 4 s from the first arrival to finish,
    // and the run ends a second sooner where they finish early (12-07).
    const { r, t } = await runFault(
      client,
      'big',
      { mode: 'big-body', bigBytes: bodyBytes },
      {
        steps: { startPerSec: 8, stepPerSec: 8, maxPerSec: 8, rampS: 0, holdS: 2, settleS: 1 },
        http: { timeoutMs: 10_000, client },
        gracefulStopS: 2,
        workers: 1,
      },
    );
    clearInterval(sampler);
    expect(r.exitCode, r.lines.join('')).toBe(0);
    // 16 arrivals of 20 MiB; a busy machine may leave many in flight at the end of the step (10 of
    // 24 answered at a load average of 9 on 2 cores, in 3 s of hold and 1 of graceful stop). 8 or
    // more is 160 MiB through, more than the 150 MiB bound below: a client that kept the bodies
    // would still fail it.
    expect(t.ok).toBeGreaterThanOrEqual(8);
    expect(t.errors).toEqual({});
    const received = t.bytesIn;
    expect(received).toBeGreaterThanOrEqual(8 * bodyBytes); // >= 160 MiB went through
    // Keeping the bodies would grow by `received`; streaming them through grows by a few chunks a
    // body in flight (the undici client grew 79 MiB of 300 MiB received, beside the CPU hog and other
    // work, over the quarter this bound had been).
    expect(peak - baseline, `${received} bytes received`).toBeLessThan(received / 2);
    expect(peak - baseline).toBeLessThan(150 * 2 ** 20);
  });
});

describe.concurrent.each(CLIENTS)(
  'fault matrix ($client client): plateau keeps measuring while the target breaks',
  ({ client, reset, malformed }) => {
    // The rest are counts of what each run recorded, not timings: both clients' runs share one pool,
    // a few at a time (maxConcurrency of the integration project), each against its own fault server.
    it.concurrent('connection refused mid-run: counted as refused, load goes on', async () => {
      const { r, t, errors } = await runFault(client, 'refused', { mode: 'refuse-mid-run', closeAfter: 20 });
      keptRunning(r, t);
      expect(t.errors.refused).toBeGreaterThan(10);
      expect(t.ok).toBeGreaterThanOrEqual(15);
      expect(errors).toContain('refused');
      expect(errors).toMatch(/ECONNREFUSED/);
    });

    it.concurrent('connection reset: counted as reset', async () => {
      const { r, t, errors } = await runFault(client, 'reset', { mode: 'reset', every: 3 });
      keptRunning(r, t);
      expect(t.errors.reset).toBeGreaterThanOrEqual(15);
      expect(t.ok).toBeGreaterThan(30);
      expect(errors).toContain('reset');
      expect(errors).toMatch(reset);
    });

    it.concurrent('a request that hangs past the timeout: counted as timeout within the deadline', async () => {
      const started = Date.now();
      const { r, t, errors } = await runFault(
        client,
        'hang',
        { mode: 'hang', every: 4 },
        // a quarter of the requests hold their VU for the deadline: VUs sized for the default 50 ms
        // ran out, and the step was rerun with more (three times as long)
        { ...DEADLINE, http: { ...DEADLINE.http, client }, vus: { expectedServiceMs: DEADLINE.http.timeoutMs / 4 } },
      );
      keptRunning(r, t, DEADLINE_HOLD_S);
      // every fourth request the step started hangs, and the graceful stop outlasts the deadline
      expect(t.errors.timeout).toBeGreaterThanOrEqual(Math.floor(t.started / 4) - 1);
      expect(errors, perSecond(r, t)).toContain('timeout');
      expect(Date.now() - started).toBeLessThan(15_000);
      // the client closes a timed-out request's connection, so that VU's next request connects
      // again: the reconnects the warning says are the timeouts', at most one each (decision 059)
      const reconnects = t.seconds.reduce((a, b) => a + (b.reconnects ?? 0), 0);
      expect(reconnects, perSecond(r, t)).toBeGreaterThan(0);
      expect(reconnects, perSecond(r, t)).toBeLessThanOrEqual(t.errors.timeout! + 1);
    });

    it.concurrent('a slow-drip body: http.timeoutMs is a total deadline, not an idle timer', async () => {
      // 100 bytes at one per 40 ms: alive the whole time (undici's body idle timer never fires), 4 s long.
      // Each request holds its VU for the deadline, and the VUs are sized by it: sized for the
      // default 50 ms, the 16 VUs ran out and the step was rerun with more (the run took twice as long).
      const { r, t, errors } = await runFault(
        client,
        'drip',
        { mode: 'slow-drip', dripBytes: 100, dripMs: 40 },
        { ...DEADLINE, http: { ...DEADLINE.http, client }, vus: { expectedServiceMs: DEADLINE.http.timeoutMs } },
      );
      keptRunning(r, t, DEADLINE_HOLD_S);
      expect(t.ok).toBe(0);
      expect(t.errors.timeout).toBeGreaterThanOrEqual(t.started - 2); // every one it started
      expect(t.samples.join('\n')).toMatch(/total deadline of 1500 ms \(http\.timeoutMs\)/);
      expect(t.bytesIn).toBeGreaterThan(0); // it did receive part of each body before the deadline
      expect(errors, perSecond(r, t)).toMatch(/total deadline of 1500 ms/);
    });

    it.concurrent("malformed HTTP: counted as other, with the parser's message", async () => {
      const { r, t, errors } = await runFault(client, 'malformed', { mode: 'malformed', every: 3 });
      keptRunning(r, t);
      expect(t.errors.other).toBeGreaterThanOrEqual(15);
      expect(t.samples.join('\n')).toMatch(malformed);
      expect(errors).toMatch(malformed);
      expect(t.ok).toBeGreaterThan(30);
    });

    it.concurrent('a burst of 5xx: every one counted as http_5xx with its status, the rest succeed', async () => {
      const { r, t, errors } = await runFault(client, 'burst', { mode: 'burst-5xx', burstFrom: 10, burstTo: 30 });
      keptRunning(r, t);
      expect(t.errors).toEqual({ http_5xx: 21 });
      expect(t.statuses).toEqual({ 503: 21 });
      expect(t.ok).toBe(t.completed - 21);
      expect(errors).toContain(mdKind('http_5xx'));
      expect(errors).toContain('503');
    });

    it.concurrent(
      'a redirect to another host is not followed: the other host sees nothing, the check names it',
      async () => {
        const witness = await startWitness();
        try {
          const { r, t, errors } = await runFault(
            client,
            'redirect',
            { mode: 'redirect', redirectTo: `${witness.url}/stolen` },
            { scenario: path.resolve('test/fixtures/scenarios/expect-200.ts') },
          );
          keptRunning(r, t);
          expect(witness.hits()).toBe(0);
          expect(t.ok).toBe(0);
          expect(t.errors.check).toBe(t.completed);
          expect(t.samples[0]).toBe(`check: expected 200, got 302 to ${witness.url}/stolen`);
          expect(errors).toContain('check');
        } finally {
          await witness.close();
        }
      },
    );

    it.concurrent(
      'a server that closes keep-alive after every request: a new connection each time, no error',
      async () => {
        const { r, t, server } = await runFault(client, 'close', { mode: 'close-keepalive' });
        keptRunning(r, t);
        expect(t.errors).toEqual({});
        expect(t.ok).toBe(t.completed);
        expect(server.stats.connections).toBeGreaterThanOrEqual(server.stats.load);
        // Every request after a VU's first had to connect again, and the record says so.
        const reconnects = t.seconds.reduce((a, b) => a + (b.reconnects ?? 0), 0);
        expect(reconnects).toBeGreaterThanOrEqual(t.completed - 50);
        expect(reconnects).toBeLessThanOrEqual(t.completed);
        const rec = t.seconds.find((b) => b.ok > 0)!;
        expect(rec.hist.connecting).toBeTruthy();
      },
    );
  },
);
