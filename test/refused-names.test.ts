/**
 * A scenario whose sends plateau refuses for their name, or whose names spread over two engine
 * threads pass 100 together (each thread under its own 100), through the whole pipeline against a
 * real server on 127.0.0.1: the run stops at that attempt with stop reason error and exit 4, keeps
 * its data and its report, and establishes no capacity (users' runs had read one from such names).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../harness/errors.ts';
import type { PlateauConfigInput } from '../harness/config/schema.ts';
import { runQuietly, tempRunsDir } from './helpers/pipeline.ts';
import { tinyServer } from './helpers/tiny-server.ts';

const runsDir = tempRunsDir();
let srv: Awaited<ReturnType<typeof tinyServer>>;
beforeAll(async () => {
  srv = await tinyServer((_req, res) => res.end('ok'));
});
afterAll(async () => {
  await srv.close();
  fs.rmSync(runsDir, { recursive: true, force: true });
});

// Two runs, each judged by the names it sent (counts, not timings), against the one server that
// answers every request alike: they go at once.
/** A run of `fixture` (test/fixtures/scenarios) against the server: two steps of 50/s, no warmup unless `over` gives one. */
function runOf(fixture: string, runId: string, over: Partial<PlateauConfigInput> = {}) {
  return runQuietly({
    target: { url: `${srv.url}/`, healthPath: '/' },
    scenario: path.resolve(`test/fixtures/scenarios/${fixture}.ts`),
    steps: { startPerSec: 50, stepPerSec: 50, maxPerSec: 100, rampS: 1, holdS: 3, settleS: 1 },
    warmup: { enabled: false },
    rtt: { samples: 3 },
    output: { dir: runsDir, runId },
    ...over,
  });
}
/** A warmup at 80/s, stable at the earliest after 3 s: 150 arrivals or more, a name each. */
const WARMUP = { warmup: { ratePerSec: 80, windowS: 1, stableWindows: 2, maxS: 6 } };

describe.concurrent('sends refused for their name', () => {
  it('stop the run at that step: stop reason error, exit 4, no capacity, every output written', async () => {
    // two steps planned; the 100th name comes within the first (its ramp and hold send 150 or so)
    const r = await runOf('refused-names', 'refused-names');
    expect(r.exitCode, r.lines.join('')).toBe(EXIT.stage);
    expect(r.error?.message).toMatch(
      /^step 1 \(50 arrivals\/s\): plateau refused \d+ sends? of the scenario for their name and failed their arrivals itself: those failures are the scenario's, not the target's; the first: "http\.send: name "page .*" is one past 100 names in the run/,
    );
    expect(r.result).toMatchObject({ stopReason: 'error', capacityPerSec: null, heldAtLeastPerSec: null });
    // stopped there: the second step never ran
    expect(new Set(r.result.steps.map((s) => s.index))).toEqual(new Set([0]));
    expect(r.result.stages.find((s) => s.name === 'steps')).toMatchObject({ status: 'fail' });
    for (const f of ['report.md', 'summary.json', 'steps.csv', 'buckets.ndjson'])
      expect(fs.existsSync(path.join(r.dir, f)), f).toBe(true);
    expect(fs.readFileSync(path.join(r.dir, 'report.md'), 'utf8')).toMatch(
      /\*\*Capacity: not established: no step held\*\*|Capacity: not established/,
    );
  });

  it('spread over two engine threads, each under its own 100, past 100 together: stop the run there alike, with the fix', async () => {
    // past 100 names within the first step: its ramp and hold send 175 or so, the 101st name about
    // 1.5 s before the hold's end (with a 2 s hold, 0.5 s: beside the CPU hog and three other runs,
    // step 1 dropped 34 to 42 of its arrivals, a dropped one sends no name, and its rerun met them)
    const r = await runOf('spread-names', 'spread-names', {
      workers: 2,
      steps: { startPerSec: 50, stepPerSec: 50, maxPerSec: 100, rampS: 1, holdS: 3, settleS: 1 },
    });
    expect(r.exitCode, r.lines.join('')).toBe(EXIT.stage);
    const drops = `dropped by step: ${r.result.steps.map((s) => `${s.dropped} (busy ${s.droppedBusy ?? 0}, VUs ${s.vusAllocatedMax})`).join(', ')}`;
    expect(r.error?.message, drops).toMatch(
      /^step 1 \(50 arrivals\/s\): the scenario's names, spread over the engine threads, passed the run's 100 together: \d+ distinct names, each thread under its own 100 .*; the first past 100: "[^"]+"$/,
    );
    // the fix once, as the error's own
    expect((r.error as { hint?: string }).hint).toMatch(/^give each request a fixed name/);
    expect(r.result).toMatchObject({ stopReason: 'error', capacityPerSec: null, heldAtLeastPerSec: null });
    expect(r.result.steps.every((s) => s.refusedNames === undefined)).toBe(true);
    expect(new Set(r.result.steps.map((s) => s.index))).toEqual(new Set([0]));
    for (const f of ['report.md', 'summary.json', 'steps.csv', 'buckets.ndjson'])
      expect(fs.existsSync(path.join(r.dir, f)), f).toBe(true);
    expect(fs.readFileSync(path.join(r.dir, 'report.md'), 'utf8')).toMatch(/and the run stopped at step 1 for them/);
  });

  it('in the warmup, stop the run there: the steps would size their VUs and threads from arrivals plateau failed', async () => {
    const r = await runOf('refused-names', 'refused-names-warmup', WARMUP);
    expect(r.exitCode, r.lines.join('')).toBe(EXIT.stage);
    expect(r.result.stopReason).toBe('warmup-failed');
    expect(r.result.stopDetail).toMatch(/^warmup: plateau refused \d+ sends? of the scenario for their name/);
    expect(r.result.steps.filter((s) => s.steadyS > 0)).toEqual([]);
    expect(fs.existsSync(path.join(r.dir, 'report.md'))).toBe(true);
  });
  it('spread over two engine threads in the warmup: stop the run there', async () => {
    const r = await runOf('spread-names', 'spread-names-warmup', { workers: 2, ...WARMUP });
    expect(r.exitCode, r.lines.join('')).toBe(EXIT.stage);
    expect(r.result.stopReason).toBe('warmup-failed');
    expect(r.result.stopDetail).toMatch(
      /^warmup: the scenario's names, spread over the engine threads, passed the run's 100 together: \d+ distinct names.*; the first past 100: "[^"]+"$/,
    );
    expect(r.result.steps.filter((s) => s.steadyS > 0)).toEqual([]);
    // the warning on the folded names says the warmup stopped for them, not that nothing counted them
    expect(fs.readFileSync(path.join(r.dir, 'report.md'), 'utf8')).toMatch(
      /and the run stopped in the warmup for them/,
    );
  });
});
