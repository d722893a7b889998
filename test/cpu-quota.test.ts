/**
 * A container's CPU limit: plateau's CLI run inside a real cgroup limited to 1 CPU on a machine
 * whose affinity mask offers more. Node 20 (libuv 1.46) says "2" there; plateau must size its
 * engine by the quota (one thread), record the quota with the run, and give k6 (a Go program,
 * here its stand-in) GOMAXPROCS from it; a generator in a cgroup of half a CPU that wants more is
 * told it was throttled. Needs root and a writable cgroup cpu controller (v1 or v2); skipped with
 * the reason otherwise.
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tinyServer } from './helpers/tiny-server.ts';
import { tempRunsDir } from './helpers/pipeline.ts';

const run = promisify(execFile);
const runsDir = tempRunsDir();

/**
 * Makes a cgroup limited to `quotaUs` of CPU time per 100 ms period (100,000: 1 CPU); its
 * directory, or why it cannot be made here. A `favoured` cgroup also gets 10x the default weight
 * (v1's cpu.shares, v2's cpu.weight): the host then gives it up to its quota even beside a CPU
 * hog, so the quota is what binds (see the throttled test).
 */
function makeCgroup(suffix: string, quotaUs: number, favoured = false): { dir: string } | { why: string } {
  if (process.getuid?.() !== 0) return { why: 'not root' };
  if (os.availableParallelism() < 2) return { why: 'this machine offers 1 CPU: a 1-CPU quota changes nothing' };
  const name = `plateau-test-${process.pid}-${suffix}`;
  const v1 = (dir: string) => {
    fs.writeFileSync(path.join(dir, 'cpu.cfs_quota_us'), String(quotaUs)); // v1 (period 100 ms)
    if (favoured) fs.writeFileSync(path.join(dir, 'cpu.shares'), '10240'); // default 1024
  };
  const v2 = (dir: string) => {
    fs.writeFileSync(path.join(dir, 'cpu.max'), `${quotaUs} 100000`);
    if (favoured) fs.writeFileSync(path.join(dir, 'cpu.weight'), '1000'); // default 100
  };
  const tries: [string, (dir: string) => void][] = [
    ['/sys/fs/cgroup/cpu', v1],
    ['/sys/fs/cgroup/cpu,cpuacct', v1],
    ['/sys/fs/cgroup', v2],
  ];
  for (const [base, limit] of tries) {
    const dir = path.join(base, name);
    try {
      fs.mkdirSync(dir);
      try {
        limit(dir);
        // A process must be able to move in (cgroup v2 refuses some placements).
        execFileSync('sh', ['-c', `echo $$ > ${dir}/cgroup.procs`], { stdio: 'ignore' });
        return { dir };
      } catch {
        fs.rmdirSync(dir);
      }
    } catch {
      /* not this hierarchy */
    }
  }
  return { why: 'no writable cgroup cpu controller' };
}

/** 1 CPU: the sizing test's, and the k6 test's own (each its own CPU: they run at once). */
const cg = makeCgroup('1cpu', 100_000);
const forK6 = 'dir' in cg ? makeCgroup('k6', 100_000) : cg;
/**
 * Half a CPU, favoured, for the throttled test alone. Beside the CPU hog of `make test` a cgroup
 * of the default weight was given less than its quota by the host: it competes as one entity
 * against every busy thread outside it (the hog, the other test file, this test), so it got its
 * share of them and was never throttled (52 ms, then 0 ms throttled, not the 1,670 ms of a quiet
 * machine, and no warning). With 10x the weight it gets its half CPU whatever else runs, and the
 * quota binds.
 */
const half = 'dir' in cg ? makeCgroup('half', 50_000, true) : cg;
const skipped = (c: { dir: string } | { why: string }) => ('why' in c ? ` (skipped: ${c.why})` : '');

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Runs `node argv` inside the cgroup `dir`: the shell moves itself in, then becomes node (its children follow). */
function runIn(dir: string, argv: string[], env: NodeJS.ProcessEnv = process.env) {
  return run('sh', ['-c', `echo $$ > ${dir}/cgroup.procs && exec "$@"`, 'sh', process.execPath, ...argv], {
    timeout: 60_000,
    env,
  });
}

let target: Awaited<ReturnType<typeof tinyServer>>;

beforeAll(async () => {
  target = await tinyServer((_req, res) => res.end('ok\n'));
});
afterAll(async () => {
  await target.close();
  fs.rmSync(runsDir, { recursive: true, force: true });
  for (const c of new Set([cg, half, forK6])) if ('dir' in c) fs.rmdirSync(c.dir); // empty again: the runs have exited
});

// The three runs are separate processes in their own cgroups, judged by what they record (the
// engine's size, the quota, throttling, GOMAXPROCS), not by timings: they run at once.
describe.concurrent('a cgroup CPU quota', () => {
  it.skipIf(!('dir' in cg))(`sizes the engine by the quota, not by the host's cores${skipped(cg)}`, async () => {
    const dir = (cg as { dir: string }).dir;
    const argv = [
      'bin/plateau.js',
      'run',
      '--target',
      target.url,
      '--start-rate',
      '50',
      '--step-rate',
      '50',
      '--max-rate',
      '50',
      // one second of load: the engine is sized before it, and run.json records the quota at the start
      '--ramp',
      '0',
      '--hold',
      '1',
      '--settle',
      '0',
      '--no-warmup',
      '--out',
      runsDir,
      '--run-id',
      'quota',
    ];
    await runIn(dir, argv);
    const env = JSON.parse(fs.readFileSync(path.join(runsDir, 'quota', 'run.json'), 'utf8')).environment;
    expect(env.engine).toMatch(/^native \(1 thread\)/);
    expect(env.cpuQuota).toMatch(new RegExp(`^1 CPU \\(cgroup v[12] .* in ${escape(dir)}\\)$`));
    expect(os.availableParallelism()).toBeGreaterThan(1); // what Node alone would have sized it by
  });

  it.skipIf(!('dir' in half))(
    `a generator that needs more CPU than its quota is told it was throttled${skipped(half)}`,
    async () => {
      const dir = (half as { dir: string }).dir;
      // One step, judged once: the first attempt is the one read, and a confirming rerun of the
      // failed step would double the run. The in-flight backlog is not waited for long.
      const config = path.join(runsDir, 'throttled.json');
      fs.writeFileSync(config, JSON.stringify({ verdicts: { confirmFailedStep: false }, gracefulStopS: 0.5 }));
      // Two threads burning 1 ms a request at 600 req/s want 0.6 CPU for the burns alone, more than
      // the quota's half on any machine. Not 1,000 req/s: the arrivals queued behind the quota (it
      // served 95 to 127 a second of them) kept a 3 s hold's stage running 8 s beside the CPU hog
      // (600/s: 5 s).
      const argv = [
        'bin/plateau.js',
        'run',
        '--config',
        config,
        '--target',
        target.url,
        '--scenario',
        'test/fixtures/scenarios/burn-cpu.ts',
        '--workers',
        '2',
        '--start-rate',
        '600',
        '--step-rate',
        '600',
        '--max-rate',
        '600',
        // no ramp, and a 1 s steady window (hold 2, settle 1): ten quota periods, each throttled
        // for about half its 100 ms on each CPU (beside the CPU hog: 1,930 ms in it in all)
        '--ramp',
        '0',
        '--hold',
        '2',
        '--settle',
        '1',
        '--no-warmup',
        // VUs to spare: no drops, so the step fails on its own figures instead of a rerun with more
        '--max-vus',
        '4000',
        '--out',
        runsDir,
        '--run-id',
        'throttled',
      ];
      await runIn(dir, argv).catch(() => undefined);
      const [step] = JSON.parse(fs.readFileSync(path.join(runsDir, 'throttled', 'summary.json'), 'utf8')).steps;
      const stat = fs.readFileSync(path.join(dir, 'cpu.stat'), 'utf8');
      // 2,455 ms when written (a throttled half of every 100 ms period, summed over 2 CPUs)
      expect(step.throttledMs, stat).toBeGreaterThan(100);
      // its process's CPU over the quota's half CPU, not the host's 2 cores (which would read at most
      // 0.25 for it): most of it
      expect(step.generatorCpu).toBeGreaterThan(0.55);
      expect(step.generatorCpu).toBeLessThanOrEqual(1);
      const report = fs.readFileSync(path.join(runsDir, 'throttled', 'report.md'), 'utf8');
      expect(report).toMatch(
        /step 1: the generator's container was throttled by its CPU quota, [\d,.]+ ms in all \(summed over its CPUs\) in the 1 s steady window/,
      );
    },
  );

  it.skipIf(!('dir' in forK6))(`gives k6 GOMAXPROCS from the quota${skipped(forK6)}`, async () => {
    const dir = (forK6 as { dir: string }).dir;
    const fix = path.resolve('test/fixtures/k6');
    const argv = [
      'bin/plateau.js',
      'run',
      '--engine',
      'k6',
      '--target',
      target.url,
      '--start-rate',
      '50',
      '--step-rate',
      '50',
      '--max-rate',
      '50',
      '--ramp',
      '1',
      '--hold',
      '2',
      '--settle',
      '1',
      '--no-warmup',
      '--out',
      runsDir,
      '--run-id',
      'quota-k6',
    ];
    // The stand-in prints GOMAXPROCS before its replay: the first 2,000 lines of a real k6 output
    // are replay enough (the whole of stepped-queue's 84,131 kept this run 20 s beside the CPU hog).
    const replay = path.join(runsDir, 'quota-k6-replay.ndjson');
    fs.writeFileSync(
      replay,
      fs.readFileSync(`${fix}/stepped-reject.ndjson`, 'utf8').split('\n').slice(0, 2000).join('\n'),
    );
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      K6_BIN: `${fix}/fake-k6.mjs`,
      FAKE_K6_REPLAY: replay,
    };
    delete env.GOMAXPROCS;
    // The stand-in replays another run than this plan: whatever plateau makes of it, k6's console is kept.
    await runIn(dir, argv, env).catch(() => undefined);
    expect(fs.readFileSync(path.join(runsDir, 'quota-k6', 'k6/leg-0/console.log'), 'utf8')).toContain(
      'fake k6: GOMAXPROCS=1',
    );
  });
});
