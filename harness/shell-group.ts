/**
 * A user's shell command (a reset hook, topology.command) in a process group of its own, so that a
 * timeout kills it whole: `sh -c 'a | b'` or `sh -c 'kubectl ...'` killed alone leaves its children
 * running, holding its pipes open, and the wait for its end runs on past the timeout. A group still
 * running when plateau exits (an interrupt mid-reset) is killed with it, as the terminal's signal
 * would have done had the group not been detached from plateau's.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';

const live = new Set<number>();
let hooked = false;

export function spawnShellGroup(cmd: string): ChildProcessByStdio<null, Readable, Readable> {
  const child = spawn('sh', ['-c', cmd], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const pid = child.pid;
  if (pid !== undefined) {
    live.add(pid);
    child.on('exit', () => live.delete(pid));
    if (!hooked) {
      hooked = true;
      process.on('exit', () => {
        for (const p of live) killShellGroup(p);
      });
    }
  }
  return child;
}

/** SIGKILL to the command's whole group; nothing where it is gone already. */
export function killShellGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}
