/**
 * scripts/with-cpu-hog.sh, run for real for a moment (its hog busy for under a second each):
 * the --first work's exit status and the command's both count, the command waits for the first
 * work, the first work runs in a cgroup of its own where one can be made (else before the command,
 * saying so), PLATEAU_NO_CPU_HOG=1 runs both alone, and a bad call is a usage error.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SCRIPT = path.resolve('scripts/with-cpu-hog.sh');

function hog(args: string[], env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync('sh', [SCRIPT, ...args], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 20_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('with-cpu-hog.sh --first', () => {
  it("exits with the first work's failure when the command passes", () => {
    const r = hog(['--first', 'exit 3', 'true']);
    expect(r.code).toBe(3);
    expect(r.err).toContain('`exit 3` exited 3');
  });

  it("exits with the command's failure first", () => {
    expect(hog(['--first', 'exit 3', 'sh', '-c', 'exit 5']).code).toBe(5);
  });

  it('waits for the first work when the command ends before it, and both pass', () => {
    const r = hog(['--first', 'sleep 0.5; echo first-done', 'true']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('first-done');
    expect(r.err).toContain("waiting for the hog's first work");
    expect(r.err).toMatch(/CPU hog \(pid \d+\) stopped after/);
  });

  it('runs the first work in a cgroup of its own where one can be made, else before the command, saying so', () => {
    const r = hog(['--first', 'cat /proc/self/cgroup', 'true']);
    expect(r.code).toBe(0);
    if (r.err.includes('no cgroup of the cpu controller can be made here')) {
      expect(r.err).toContain('runs first, then the command beside the loop alone');
    } else {
      const cg = /in cgroup (\S+) at the default weight/.exec(r.err)![1]!;
      expect(r.out).toContain(path.basename(cg));
    }
  });

  it('PLATEAU_NO_CPU_HOG=1 runs the first work, then the command, with no hog', () => {
    const r = hog(['--first', 'echo first', 'echo', 'command'], { PLATEAU_NO_CPU_HOG: '1' });
    expect(r.code).toBe(0);
    expect(r.out).toBe('first\ncommand\n');
    expect(r.err).not.toContain('CPU hog running');
    expect(hog(['--first', 'exit 4', 'echo', 'command'], { PLATEAU_NO_CPU_HOG: '1' })).toMatchObject({
      code: 4,
      out: '',
    });
  });

  it('a call without a command, or --first without its work, is a usage error', () => {
    expect(hog(['--first'])).toMatchObject({ code: 2 });
    expect(hog(['--first', 'true']).err).toContain('no command given');
    expect(hog([]).code).toBe(2);
  });
});
