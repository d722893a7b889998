/**
 * The unit-beside project's rule, enforced (vitest.config.ts): its files run as the CPU hog's work
 * beside the integration set, in a cgroup at one process's weight, so they may start no process
 * (but the `git rev-parse` of harness/environment.ts, which the thread waits for) and no thread.
 * esbuild starts its service as a process, so a build fails here too. A file that needs any of
 * them belongs in the unit project.
 */
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import workerThreads from 'node:worker_threads';

const GUARDED = Symbol.for('plateau.pure-guard');
const cp = childProcess as unknown as Record<string | symbol, unknown>;

function refuse(what: string): never {
  throw new Error(
    `${what} in a unit-beside test: this project starts no process or thread (vitest.config.ts UNIT_FIRST); move the file to the unit project`,
  );
}

if (!cp[GUARDED]) {
  cp[GUARDED] = true;
  const execFileSync = childProcess.execFileSync;
  for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'fork'] as const)
    cp[name] = () => refuse(`child_process.${name}`);
  cp.execFileSync = ((file: string, ...rest: unknown[]) =>
    file === 'git'
      ? (execFileSync as (...a: unknown[]) => unknown)(file, ...rest)
      : refuse(`child_process.execFileSync(${file})`)) as typeof execFileSync;
  (workerThreads as unknown as Record<string, unknown>).Worker = class {
    constructor() {
      refuse('new worker_threads.Worker');
    }
  };
  syncBuiltinESMExports();
}
