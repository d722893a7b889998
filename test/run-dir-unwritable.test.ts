/**
 * A run directory that stops taking writes during the run (a full disk, a mount gone read-only; as
 * root a chmod does not do it, so the store's final write is made to fail as the kernel fails it):
 * the run ends as that, with the fix and the table of what it stored, not as a bug report.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EXIT } from '../harness/errors.ts';
import { RunStore } from '../harness/store/run-store.ts';
import { runQuietly, tempRunsDir } from './helpers/pipeline.ts';
import { tinyServer } from './helpers/tiny-server.ts';

const runsDir = tempRunsDir();
let srv: Awaited<ReturnType<typeof tinyServer>>;
beforeAll(async () => {
  srv = await tinyServer((_req, res) => res.end('ok'));
});
afterAll(async () => {
  vi.restoreAllMocks();
  await srv.close();
  fs.rmSync(runsDir, { recursive: true, force: true });
});

/** One short step against the tiny server, into the test's runs directory. */
const oneStep = (runId: string) => ({
  target: { url: `${srv.url}/`, healthPath: '/' },
  steps: { startPerSec: 20, stepPerSec: 20, maxPerSec: 20, rampS: 1, holdS: 2, settleS: 1 },
  warmup: { enabled: false },
  rtt: { samples: 3 },
  output: { dir: runsDir, runId },
});

const refused = () => Object.assign(new Error("EROFS: read-only file system, open 'run.json.tmp'"), { code: 'EROFS' });

describe('a run directory that cannot be written any more', () => {
  it('ends the run with exit 4, the directory named with the fix, and the table of what it stored', async () => {
    const update = RunStore.prototype.update;
    vi.spyOn(RunStore.prototype, 'update').mockImplementation(function (this: RunStore, patch) {
      // the run's end: its status and time are the first write the mount refuses
      if ('finishedAt' in patch) throw refused();
      return update.call(this, patch);
    });
    const write = fs.writeFileSync;
    vi.spyOn(fs, 'writeFileSync').mockImplementation((file, ...rest) => {
      if (String(file).endsWith('report.md')) throw refused();
      return write(file, ...(rest as [string]));
    });
    const r = await runQuietly(oneStep('unwritable'));
    vi.restoreAllMocks();
    expect(r.exitCode).toBe(EXIT.stage);
    expect(r.error?.message).toMatch(
      /^the run directory .*unwritable cannot be written any more \(EROFS: read-only file system/,
    );
    expect(r.error?.hint).toMatch(/then rebuild the reports from what it stored with `plateau report .*unwritable`$/);
    // the step it stored, judged for the table
    expect(r.result.steps.map((s) => [s.ratePerSec, s.steadyS > 0])).toEqual([[20, true]]);
  });

  it('mid-run, as the store appends a second: the load stops and the run ends the same, not hung nor as a bug', async () => {
    // the device fills as the steps' seconds are written: the fourth is refused, as the kernel refuses it
    let steps = 0;
    const writeSync = fs.writeSync;
    vi.spyOn(fs, 'writeSync').mockImplementation(((fd: number, data: string, ...rest: unknown[]) => {
      if (typeof data === 'string' && data.includes('"phase":"steps"') && ++steps > 3)
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      return (writeSync as (...a: unknown[]) => number)(fd, data, ...rest);
    }) as typeof fs.writeSync);
    const r = await runQuietly(oneStep('unwritable-mid-run'));
    vi.restoreAllMocks();
    expect(r.exitCode).toBe(EXIT.stage);
    expect(r.error?.message).toMatch(/^the run directory .*unwritable-mid-run cannot be written any more \(ENOSPC/);
  });
});
