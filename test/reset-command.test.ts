// A reset command that overruns its timeoutS is killed whole: sh killed alone left `sleep | cat`
// running, holding the pipes, so the reset stage waited for the sleep, not the timeout.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runHook } from '../harness/reset/hooks.ts';
import { PlateauError } from '../harness/errors.ts';

/** Processes whose command line holds marker (this machine's /proc). */
function running(marker: string): number[] {
  const pids: number[] = [];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').replace(/\0/g, ' ').includes(marker)) pids.push(Number(d));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

describe('reset command hooks', () => {
  it("a command past its timeoutS is killed with its children, and the stage's error says so", async () => {
    const marker = `${process.pid}${Date.now() % 100_000}`; // digits: `sleep 59.<marker>` is a valid sleep
    const hook = { kind: 'command' as const, run: `sleep 59.${marker} | cat`, timeoutS: 0.5 };
    const started = Date.now();
    const err = await runHook(hook, 'http://127.0.0.1:9/').then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(PlateauError);
    expect((err as PlateauError).message).toMatch(/was killed \(SIGKILL, timeout 0\.5 s\)/);
    // the sleep's own 59 s are not waited for (a bound 30x the timeout: no timing judged finer)
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(running(`sleep 59.${marker}`)).toEqual([]);
  }, 30_000);

  it('a command that ends in time is its line of evidence', async () => {
    const line = await runHook({ kind: 'command', run: 'echo reset done | cat', timeoutS: 10 }, 'http://127.0.0.1:9/');
    expect(line).toBe('command exited 0: reset done');
  });
});
