/**
 * Interruption and crashes (issue 8), against a real `node bin/plateau.js run` child process:
 * SIGINT/SIGTERM stop the load within a second and write the report marked interrupted (exit
 * 130); a repeat within half a second is the same request; a later second SIGINT exits at once without corrupting the store; after kill -9 mid-step,
 * `plateau report` rebuilds every output and at most the last second is lost. An unwritable run
 * directory fails before any load.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BucketRecord } from '../analysis/types.ts';
import { checkDisk } from '../harness/pipeline/generator-limits.ts';
import { startFaultServer, type FaultServer } from './helpers/fault-server.ts';
import { tempRunsDir } from './helpers/pipeline.ts';

const runsDir = tempRunsDir();
const servers: FaultServer[] = [];
const runs: Run[] = [];
afterAll(async () => {
  // a run whose test failed before its signal would run on to the end of its plan
  for (const r of runs) if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGKILL');
  await Promise.all(runs.map((r) => r.exit));
  await Promise.all(servers.map((s) => s.close()));
  fs.rmSync(runsDir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Run {
  child: ChildProcess;
  dir: string;
  server: FaultServer;
  output: () => string;
  exit: Promise<number | null>;
  signal: () => NodeJS.Signals | null;
  /** Date.now() when the store first held a second of the steps phase, watched from the start. */
  firstStepsAt: Promise<number>;
}

/** `plateau run` as a child process against a target of its own, its store watched for its first second of steps. */
async function startRun(runId: string, out = runsDir, env: NodeJS.ProcessEnv = process.env): Promise<Run> {
  const server = await startFaultServer({ mode: 'ok' });
  servers.push(server);
  const child = spawn(
    process.execPath,
    [
      'bin/plateau.js',
      'run',
      '--target',
      `${server.url}/load`,
      '--start-rate',
      '40',
      '--step-rate',
      '40',
      '--max-rate',
      '160',
      '--hold',
      '60',
      '--ramp',
      '1',
      '--settle',
      '1',
      '--no-warmup',
      '--run-id',
      runId,
      '--out',
      out,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env },
  );
  let text = '';
  child.stdout!.on('data', (d: Buffer) => {
    text += d.toString();
  });
  child.stderr!.on('data', (d: Buffer) => {
    text += d.toString();
  });
  const exit = once(child, 'exit').then(([code]) => code as number | null);
  const dir = path.join(out, runId);
  const output = () => text;
  const run: Run = {
    child,
    dir,
    server,
    output,
    exit,
    signal: () => child.signalCode,
    firstStepsAt: waitForSteps(dir, 1, output, exit),
  };
  // a run that never writes a second fails in its own test, when that test reads this
  run.firstStepsAt.catch(() => undefined);
  runs.push(run);
  return run;
}

/** Buckets of the steps phase in the store (a torn last line skipped), and how many lines were torn. */
function stepsBuckets(dir: string): { records: BucketRecord[]; torn: number } {
  const file = path.join(dir, 'buckets.ndjson');
  if (!fs.existsSync(file)) return { records: [], torn: 0 };
  const records: BucketRecord[] = [];
  let torn = 0;
  for (const l of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!l) continue;
    try {
      records.push(JSON.parse(l) as BucketRecord);
    } catch {
      torn++;
    }
  }
  return { records: records.filter((r) => r.phase === 'steps'), torn };
}
const seconds = (records: BucketRecord[]) => [...new Set(records.map((r) => r.tS))].sort((a, b) => a - b);

/** Polls the store until the steps phase has written `n` seconds; resolves with when that was seen. */
async function waitForSteps(dir: string, n: number, output: () => string, exit?: Promise<unknown>): Promise<number> {
  // five runs start at once: on a slow day their start-up alone took 20 s
  const deadline = Date.now() + 60_000;
  let exited = false;
  void exit?.then(() => (exited = true));
  for (;;) {
    if (seconds(stepsBuckets(dir).records).length >= n) return Date.now();
    if (exited || Date.now() > deadline)
      throw new Error(
        `the steps phase did not write ${n} seconds${exited ? ' before the run exited' : ' in time'}:\n${output()}`,
      );
    await sleep(25);
  }
}

/** Polls the child's output until it matches `re`. */
async function waitForOutput(output: () => string, re: RegExp): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!re.test(output())) {
    if (Date.now() > deadline) throw new Error(`no ${re} in the run's output in time:\n${output()}`);
    await sleep(5);
  }
}

const plateauReport = (dir: string) =>
  promisify(execFile)(process.execPath, ['bin/plateau.js', 'report', dir], { timeout: 30_000 });

/**
 * Every run of this file starts before its tests, at once, each against its own target: the
 * project runs three tests at a time (maxConcurrency), and a fourth run that its test started
 * waited for one of the first three to end (28 s for the file beside the CPU hog, two runs' time).
 * Each test then signals its own run (or judges its exit) and judges only that run; a test that
 * gets its turn late signals later, still in step 1: 60 s of hold outlast any wait for a turn.
 */
const started: Partial<Record<'SIGINT' | 'SIGTERM' | 'double' | 'killed' | 'unwritable', Run>> = {};
const runOf = (name: keyof typeof started): Run => started[name]!;
beforeAll(async () => {
  const file = path.join(runsDir, 'a-file');
  fs.writeFileSync(file, 'not a directory');
  [started.killed, started.SIGINT, started.SIGTERM, started.double, started.unwritable] = await Promise.all([
    startRun('killed'),
    startRun('signal-SIGINT'),
    startRun('signal-SIGTERM'),
    // no window in which a repeat is the same request (GNU timeout's second copy, 500 ms by
    // default): a report written within it would end the run before a deliberate second came
    startRun('double-sigint', runsDir, { ...process.env, PLATEAU_SIGNAL_REPEAT_MS: '0' }),
    // Tests run as root in CI, and chmod does not stop root. A path below a regular file fails for
    // every user (ENOTDIR), so that is the honest unwritable directory here.
    startRun('unwritable', path.join(file, 'runs')),
  ]);
});

// In the order they get a turn: the kill first, whose test times the store against the run's
// first second of steps.
describe.concurrent('signals to a running plateau', () => {
  it('after kill -9 mid-step, `plateau report` rebuilds every output and loses at most the last second', async () => {
    const run = runOf('killed');
    const firstAt = await run.firstStepsAt;
    await waitForSteps(run.dir, 4, run.output, run.exit);
    await sleep(300);
    const killedAt = Date.now();
    run.child.kill('SIGKILL');
    await run.exit;
    // Second 0 is written once second 1 starts (within the recorder's 200 ms tick) and seen within a
    // 25 ms poll, so the steps phase started about 1 s before firstAt; at most that much earlier.
    const elapsedS = (killedAt - firstAt) / 1000 + 1.25;
    const { records } = stepsBuckets(run.dir);
    const kept = seconds(records);
    expect(kept).toEqual(kept.map((_, i) => i)); // no hole
    expect(kept.length).toBeGreaterThanOrEqual(Math.floor(elapsedS) - 1);
    for (const f of ['report.md', 'summary.json', 'steps.csv', 'report.html'])
      fs.rmSync(path.join(run.dir, f), { force: true });
    const { stdout } = await plateauReport(run.dir);
    expect(stdout).toMatch(/step/);
    for (const f of ['report.md', 'summary.json', 'steps.csv', 'report.html'])
      expect(fs.existsSync(path.join(run.dir, f)), f).toBe(true);
    expect(fs.readFileSync(path.join(run.dir, 'report.md'), 'utf8')).toMatch(/did not finish \(the process died\)/);
    const summary = JSON.parse(fs.readFileSync(path.join(run.dir, 'summary.json'), 'utf8'));
    expect(summary.steps.length).toBeGreaterThan(0);
    // run.json held the attempts as they ran: the one the kill cut short has no action yet
    const meta = JSON.parse(fs.readFileSync(path.join(run.dir, 'run.json'), 'utf8')) as {
      attempts?: { action: unknown }[];
    };
    expect(meta.attempts?.length).toBeGreaterThan(0);
    expect(meta.attempts!.some((a) => a.action === null)).toBe(true);
  });

  // SIGTERM twice back to back, as GNU timeout sends it (to the child, then to its group): one
  // request, the report written whole (REPEAT_WINDOW_MS in harness/pipeline/interrupt.ts)
  it.each([
    { signal: 'SIGINT', times: 1 },
    { signal: 'SIGTERM', times: 2 },
  ] as const)(
    '$signal ($times x back to back) stops the load within a second, writes the report marked interrupted, exits 130',
    async ({ signal, times }) => {
      const run = runOf(signal);
      const { dir, server } = run;
      await waitForSteps(dir, 3, run.output, run.exit);
      const signalledAt = Date.now();
      for (let i = 0; i < times; i++) run.child.kill(signal);
      const code = await run.exit;
      expect({ code, signal: run.signal() }, run.output()).toEqual({ code: 130, signal: null });
      expect(server.lastLoadAtMs() - signalledAt).toBeLessThan(1000);
      expect(run.output()).toMatch(new RegExp(`${signal}: stopping the load and writing the report`));
      const meta = JSON.parse(fs.readFileSync(path.join(dir, 'run.json'), 'utf8'));
      expect(meta.status).toBe('interrupted');
      expect(fs.readFileSync(path.join(dir, 'report.md'), 'utf8')).toMatch(/\*\*INTERRUPTED\*\*/);
      for (const f of ['summary.json', 'steps.csv', 'report.html'])
        expect(fs.existsSync(path.join(dir, f)), f).toBe(true);
      // and the run's last line names them
      expect(run.output()).toMatch(/report: .*report\.md and report\.html \(also summary\.json, steps\.csv, /);
      const { records, torn } = stepsBuckets(dir);
      expect(torn).toBe(0);
      expect(seconds(records).length).toBeGreaterThanOrEqual(3);
    },
  );

  it('a second SIGINT exits at once; the store stays readable and `plateau report` rebuilds it', async () => {
    const run = runOf('double');
    const { dir } = run;
    await waitForSteps(dir, 2, run.output, run.exit);
    run.child.kill('SIGINT');
    // The second once the first was handled (its line printed, the handlers given back), while the
    // report is being written: a fixed 30 ms could come first on a busy machine, when both reach the
    // handler still installed and the run just finishes its report.
    await waitForOutput(run.output, /press Ctrl-C again to exit at once/);
    const secondAt = Date.now();
    run.child.kill('SIGINT');
    const code = await run.exit;
    expect(Date.now() - secondAt).toBeLessThan(1000);
    // The second signal meets the OS default (the handler gave it back): killed by SIGINT, which a shell reports as 130.
    expect({ code, signal: run.signal() }, run.output()).toEqual({ code: null, signal: 'SIGINT' });
    expect(run.output()).toMatch(/press Ctrl-C again to exit at once/);
    expect(() => JSON.parse(fs.readFileSync(path.join(dir, 'run.json'), 'utf8'))).not.toThrow();
    const lines = fs.readFileSync(path.join(dir, 'buckets.ndjson'), 'utf8').split('\n').filter(Boolean);
    lines.slice(0, -1).forEach((l) => expect(() => JSON.parse(l)).not.toThrow()); // only the last line may be torn
    await plateauReport(dir);
    for (const f of ['report.md', 'summary.json', 'steps.csv', 'report.html'])
      expect(fs.existsSync(path.join(dir, f)), f).toBe(true);
  });
});

describe.concurrent('an unwritable run directory fails before any load', () => {
  it('a run whose --out lies below a regular file exits 3 with the reason, and sends nothing', async () => {
    const run = runOf('unwritable');
    const code = await run.exit;
    expect(code, run.output()).toBe(3);
    expect(run.output()).toMatch(/cannot write the run store .*a-file\/runs\/unwritable \(ENOTDIR\)/);
    expect(run.output()).toMatch(/fix: choose a writable directory/);
    expect(run.output()).not.toMatch(/internal error/);
    expect(run.server.stats.load).toBe(0);
  });

  it.skipIf(process.getuid?.() === 0)('a read-only directory (not as root: chmod does not bind root)', () => {
    const ro = path.join(runsDir, 'read-only');
    fs.mkdirSync(ro);
    fs.chmodSync(ro, 0o555);
    expect(() => checkDisk(ro, 10)).toThrow(/is not writable/);
  });

  it('a disk without room for the store: refused with what it needs (a plan of 10^9 s asks for more than any disk has)', () => {
    expect(() => checkDisk(runsDir, 1e9)).toThrow(/MiB free under .*; the run store needs about/);
    expect(checkDisk(runsDir, 60)).toMatch(/GiB free/);
  });
});
