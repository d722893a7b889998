/**
 * The bench's mix case (issue 27, "Speed"): one thread of the native engine at a fixed arrival
 * rate against nginx, in alternating rounds of six runs of scripts/bench/engine-profile.ts, each
 * its own process with its own nginx:
 *
 * - one: this tree's engine with the default one-request scenario;
 * - mix: the same with scripts/bench/mix-scenario.ts (three entries, one a two-request transaction);
 * - gets: the same with scripts/bench/mix-scenario-get.ts (those entries, weights and transaction,
 *   every request a GET and no body read: the mix's own machinery, without its bodies);
 * - before: the default scenario on the commit before issue 27 (8bf094a), its own engine-profile.ts
 *   and engine, from a git worktree in the bench's temp directory (node_modules a symlink to this
 *   checkout's), removed at the end;
 * - bareOne and bareMix, the peer: engine-profile.ts --mode bare, undici's dispatch() in a loop with
 *   no engine, sending one GET per arrival, then the mix's very requests (--traffic mix).
 *
 * The rounds rotate the order of the variants (roundOrder) so that a drift of the machine falls on each
 * alike. The figures and ratios are in mix-table.ts; they are printed, never asserted.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { runMeasured } from './proc.ts';
import { parseProfileLine, roundOrder, VARIANTS, type ProfileRun, type Variant } from './mix-table.ts';

export { BEFORE_REV } from './mix-table.ts';

export interface MixCaseSettings {
  /** This checkout's root (its node_modules are the worktree's too). */
  repo: string;
  /** Where the worktree goes (the bench's temp directory). */
  tmp: string;
  /** Arrivals per second. */
  rate: number;
  /** Each run's schedule, seconds. */
  seconds: number;
  rounds: number;
  /** VUs of the one thread (engine-profile --vus). */
  vus: number;
  /** engine-profile --client (socket or undici), or its default. */
  client: string | null;
  /** The port of each run's own nginx on 127.0.0.1 (the runs take turns). */
  port: number;
  /** The mix variant's scenario module (default scripts/bench/mix-scenario.ts of this checkout). */
  scenario?: string;
  /** The gets variant's scenario module, or null to leave that variant out. */
  getsScenario: string | null;
  /** The commit of the before variant, or null to leave it out. */
  beforeRev: string | null;
  /** Whether the peer runs: the bare undici loop with one request and with the mix's requests (bareOne, bareMix). */
  peer: boolean;
  env: NodeJS.ProcessEnv;
  log(m: string): void;
}

export interface MixCaseResult {
  runs: ProfileRun[];
  failures: string[];
  /** The before variant's commit, resolved to its short hash, when it ran. */
  beforeRev: string | null;
}

const git = (repo: string, args: string[]): string =>
  execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/** A detached worktree of rev under tmp, with this checkout's node_modules linked in; and how to remove it. */
export function beforeWorktree(repo: string, tmp: string, rev: string): { dir: string; rev: string; remove(): void } {
  let full: string;
  try {
    full = git(repo, ['rev-parse', '--verify', '--quiet', `${rev}^{commit}`]);
  } catch {
    throw new Error(
      `commit ${rev} is not in this clone (a shallow clone?); fetch it (git fetch --unshallow) or pass --mix-before none`,
    );
  }
  const dir = path.join(tmp, `before-${full.slice(0, 12)}`);
  git(repo, ['worktree', 'add', '--detach', '--quiet', dir, full]);
  let removed = false;
  const remove = () => {
    if (removed) return;
    removed = true;
    try {
      git(repo, ['worktree', 'remove', '--force', dir]);
    } catch {
      fs.rmSync(dir, { recursive: true, force: true });
      try {
        git(repo, ['worktree', 'prune']);
      } catch {
        /* nothing more to do */
      }
    }
  };
  // Removed however the bench ends (Ctrl-C exits through process.exit).
  process.once('exit', remove);
  try {
    fs.symlinkSync(path.join(repo, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    if (!fs.existsSync(path.join(dir, 'scripts/bench/engine-profile.ts')))
      throw new Error(`commit ${rev} has no scripts/bench/engine-profile.ts; pass --mix-before a later commit or none`);
  } catch (err) {
    remove();
    throw err;
  }
  return { dir, rev: git(repo, ['rev-parse', '--short', full]), remove };
}

async function profileRun(
  root: string,
  s: MixCaseSettings,
  variant: Variant,
): Promise<ReturnType<typeof parseProfileLine>> {
  const args = [
    '--import',
    'tsx',
    path.join(root, 'scripts/bench/engine-profile.ts'),
    '--rate',
    String(s.rate),
    '--seconds',
    String(s.seconds),
    '--vus',
    String(s.vus),
    '--port',
    String(s.port),
  ];
  const bare = variant === 'bareOne' || variant === 'bareMix';
  // the bare loop is undici's own: --client is the engine's
  if (s.client && !bare) args.push('--client', s.client);
  if (variant === 'mix') args.push('--scenario', s.scenario ?? path.join(root, 'scripts/bench/mix-scenario.ts'));
  if (variant === 'gets' && s.getsScenario) args.push('--scenario', s.getsScenario);
  if (bare) args.push('--mode', 'bare', '--traffic', variant === 'bareMix' ? 'mix' : 'one');
  const r = await runMeasured(process.execPath, args, {
    cwd: root,
    env: s.env,
    timeoutMs: (s.seconds + 60) * 1000,
    sampleEveryMs: 0,
  });
  if (r.code !== 0)
    throw new Error(
      `engine-profile (${variant}) exited ${r.code ?? r.signal}${r.timedOut ? ' after its time bound' : ''}: ${(r.stderr || r.stdout).slice(-1500)}`,
    );
  return parseProfileLine(r.stdout);
}

export async function runMixCase(s: MixCaseSettings): Promise<MixCaseResult> {
  const runs: ProfileRun[] = [];
  const failures: string[] = [];
  let before: ReturnType<typeof beforeWorktree> | null = null;
  if (s.beforeRev) {
    try {
      before = beforeWorktree(s.repo, s.tmp, s.beforeRev);
      s.log(`mix: ${before.rev} checked out in ${before.dir} for the before variant`);
    } catch (err) {
      failures.push(`mix case, before variant: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  const variants = VARIANTS.filter(
    (v) =>
      (v !== 'before' || before) &&
      (v !== 'gets' || s.getsScenario) &&
      ((v !== 'bareOne' && v !== 'bareMix') || s.peer),
  );
  try {
    for (let round = 1; round <= s.rounds; round++) {
      for (const variant of roundOrder(round, variants)) {
        const root = variant === 'before' ? before!.dir : s.repo;
        const label = `mix round ${round}/${s.rounds}: ${variant}${variant === 'before' ? ` (${before!.rev})` : ''} at ${s.rate}/s`;
        s.log(`${label} ...`);
        try {
          const line = await profileRun(root, s, variant);
          runs.push({ variant, round, line });
          s.log(
            `${label}: ${line.completed} requests, ${line.dropped ?? '?'} dropped, CPU ${line.cpuPer10k} s/10k requests${line.loadCpuPer10k != null ? ` (schedule ${line.loadCpuPer10k})` : ''}`,
          );
        } catch (err) {
          failures.push(`${label}: ${(err as Error).message.split('\n').slice(0, 6).join(' | ')}`);
          s.log(`${label} FAILED: ${(err as Error).message.slice(0, 800)}`);
        }
        await new Promise((r) => setTimeout(r, 1000)); // TIME_WAITs and the scheduler settle between runs
      }
    }
  } finally {
    before?.remove();
  }
  return { runs, failures, beforeRev: before?.rev ?? null };
}
