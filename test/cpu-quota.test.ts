/**
 * A container's CPU limit: plateau's CLI run inside a real cgroup limited to 1 CPU on a machine
 * whose affinity mask offers more. Node 20 (libuv 1.46) says "2" there; plateau must size its
 * engine by the quota (one thread), record the quota with the run, and give k6 (a Go program,
 * here its stand-in) GOMAXPROCS from it. Needs root and a writable
 * cgroup cpu controller (v1 or v2); skipped with the reason otherwise.
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

/** Makes a cgroup limited to 1 CPU; its directory, or why it cannot be made here. */
function makeCgroup(): { dir: string } | { why: string } {
  if (process.getuid?.() !== 0) return { why: 'not root' };
  if (os.availableParallelism() < 2) return { why: 'this machine offers 1 CPU: a 1-CPU quota changes nothing' };
  const name = `plateau-test-${process.pid}`;
  const tries: [string, (dir: string) => void][] = [
    ['/sys/fs/cgroup/cpu', (dir) => fs.writeFileSync(path.join(dir, 'cpu.cfs_quota_us'), '100000')], // v1 (period 100 ms)
    ['/sys/fs/cgroup/cpu,cpuacct', (dir) => fs.writeFileSync(path.join(dir, 'cpu.cfs_quota_us'), '100000')],
    ['/sys/fs/cgroup', (dir) => fs.writeFileSync(path.join(dir, 'cpu.max'), '100000 100000')], // v2
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

const cg = makeCgroup();

/** Sets the cgroup's quota to `quotaUs` of CPU time per 100 ms period (v2's cpu.max, or v1's cfs quota). */
function setQuota(dir: string, quotaUs: number): void {
  if (fs.existsSync(path.join(dir, 'cpu.max'))) fs.writeFileSync(path.join(dir, 'cpu.max'), `${quotaUs} 100000`);
  else fs.writeFileSync(path.join(dir, 'cpu.cfs_quota_us'), String(quotaUs));
}
let target: Awaited<ReturnType<typeof tinyServer>>;

beforeAll(async () => {
  target = await tinyServer((_req, res) => res.end('ok\n'));
});
afterAll(async () => {
  await target.close();
  fs.rmSync(runsDir, { recursive: true, force: true });
  if ('dir' in cg) fs.rmdirSync(cg.dir); // empty again: the run has exited
});

describe('a cgroup CPU quota', () => {
  it.skipIf(!('dir' in cg))(
    `sizes the engine by the quota, not by the host's cores${'why' in cg ? ` (skipped: ${cg.why})` : ''}`,
    async () => {
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
        'quota',
      ];
      // The shell moves itself into the cgroup, then becomes plateau (its children follow).
      await run('sh', ['-c', `echo $$ > ${dir}/cgroup.procs && exec "$@"`, 'sh', process.execPath, ...argv], {
        timeout: 60_000,
      });
      const env = JSON.parse(fs.readFileSync(path.join(runsDir, 'quota', 'run.json'), 'utf8')).environment;
      expect(env.engine).toMatch(/^native \(1 thread\)/);
      expect(env.cpuQuota).toMatch(
        new RegExp(`^1 CPU \\(cgroup v[12] .* in ${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\)$`),
      );
      expect(os.availableParallelism()).toBeGreaterThan(1); // what Node alone would have sized it by
    },
    90_000,
  );

  it.skipIf(!('dir' in cg))(
    `a generator that needs more CPU than its quota is told it was throttled${'why' in cg ? ` (skipped: ${cg.why})` : ''}`,
    async () => {
      const dir = (cg as { dir: string }).dir;
      // Two threads burning 1 ms a request at 1,000 req/s want 1 CPU, twice the quota's half.
      const argv = [
        'bin/plateau.js',
        'run',
        '--target',
        target.url,
        '--scenario',
        'test/fixtures/scenarios/burn-cpu.ts',
        '--workers',
        '2',
        '--start-rate',
        '1000',
        '--step-rate',
        '1000',
        '--max-rate',
        '1000',
        '--ramp',
        '1',
        '--hold',
        '3',
        '--settle',
        '1',
        '--no-warmup',
        // VUs to spare: no drops, so the generator-bound step stops the run instead of a rerun with more
        '--max-vus',
        '4000',
        '--out',
        runsDir,
        '--run-id',
        'throttled',
      ];
      // Half a CPU for this run: beside the CPU hog of `make test` the host itself gave a 1-CPU cgroup
      // less than its quota (52 ms throttled, not the 1,670 ms of a quiet machine, and no warning), so
      // the quota must be what binds even when another process holds a core.
      setQuota(dir, 50_000);
      try {
        await run('sh', ['-c', `echo $$ > ${dir}/cgroup.procs && exec "$@"`, 'sh', process.execPath, ...argv], {
          timeout: 60_000,
        }).catch(() => undefined);
      } finally {
        setQuota(dir, 100_000);
      }
      const [step] = JSON.parse(fs.readFileSync(path.join(runsDir, 'throttled', 'summary.json'), 'utf8')).steps;
      expect(step.throttledMs).toBeGreaterThan(100);
      // its process's CPU over the quota's half CPU, not the host's 2 cores (which would read at most
      // 0.25 for it): most of it
      expect(step.generatorCpu).toBeGreaterThan(0.55);
      expect(step.generatorCpu).toBeLessThanOrEqual(1);
      const report = fs.readFileSync(path.join(runsDir, 'throttled', 'report.md'), 'utf8');
      expect(report).toMatch(
        /step 1: the generator's container was throttled by its CPU quota, [\d,.]+ ms in all \(summed over its CPUs\) in the 2 s steady window/,
      );
    },
    90_000,
  );

  it.skipIf(!('dir' in cg))(
    `gives k6 GOMAXPROCS from the quota${'why' in cg ? ` (skipped: ${cg.why})` : ''}`,
    async () => {
      const dir = (cg as { dir: string }).dir;
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
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        K6_BIN: `${fix}/fake-k6.mjs`,
        FAKE_K6_REPLAY: `${fix}/stepped-queue.ndjson.gz`,
      };
      delete env.GOMAXPROCS;
      // The stand-in replays a longer run than this plan: whatever plateau makes of it, k6's console is kept.
      await run('sh', ['-c', `echo $$ > ${dir}/cgroup.procs && exec "$@"`, 'sh', process.execPath, ...argv], {
        timeout: 60_000,
        env,
      }).catch(() => undefined);
      expect(fs.readFileSync(path.join(runsDir, 'quota-k6', 'k6/leg-0/console.log'), 'utf8')).toContain(
        'fake k6: GOMAXPROCS=1',
      );
    },
    90_000,
  );
});
