/**
 * The warmup stage in simulated time: the real warmup() on a simulated engine over a model target
 * (harness/engine/model-target.ts), the topology read through the real Prober from the model.
 * Each run takes milliseconds of wall time: minS, the topology wait and maxS, and the cold target
 * the warmup passes while slow, flagged by coldTarget on the steps that follow.
 */
import { SIM_RTT_MS, simContext } from './helpers/sim-context.ts';
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { coldTarget } from '../analysis/cold-target.ts';
import type { PlateauConfigInput } from '../harness/config/schema.ts';
import { type ModelTargetOptions } from '../harness/engine/model-target.ts';
import { runStage } from '../harness/pipeline/stage.ts';
import { runSteps } from '../harness/pipeline/steps.ts';
import { warmup } from '../harness/pipeline/warmup.ts';
import { analyzeStore } from '../harness/report.ts';
import { RunStore } from '../harness/store/run-store.ts';
import { tempRunsDir } from './helpers/pipeline.ts';

const runsDir = tempRunsDir();
afterAll(() => fs.rmSync(runsDir, { recursive: true, force: true }));
let runs = 0;

/** The warmup (and, with `steps`, the steps stage after it) in simulated time; the store read back as `plateau report` does. */
async function simWarmup(
  model: ModelTargetOptions,
  config: Partial<PlateauConfigInput>,
  withSteps = false,
  interruptAtMs?: number,
) {
  const runId = `warm-sim-${++runs}`;
  const { clock, engine, store, ctx, lines } = simContext({
    runsDir,
    runId,
    model,
    config: { steps: { startPerSec: 100, stepPerSec: 100, maxPerSec: 100, rampS: 1, holdS: 4, settleS: 1 }, ...config },
  });
  if (interruptAtMs !== undefined) clock.setTimeout(() => ctx.interrupt.trigger(), interruptAtMs);
  const record = (s: Parameters<RunStore['addStage']>[0]) => store.addStage(s);
  const wallMs = performance.now();
  const warmed = await clock.run(runStage('warmup', record, () => warmup(ctx, engine), clock));
  if (withSteps)
    await clock.run(runStage('steps', record, () => runSteps(ctx, engine, warmed.lastSeq, SIM_RTT_MS), clock));
  store.update({ status: 'complete', finishedAt: new Date(0).toISOString() });
  store.close();
  const { result, meta: stored } = analyzeStore(store.dir);
  const stage = stored.stages.find((s) => s.name === 'warmup')!;
  return { stage, record: stage.warmup!, result, wallMs: performance.now() - wallMs, lines };
}

const queue = (more: Partial<ModelTargetOptions> = {}): ModelTargetOptions => ({
  capacityPerSec: 400,
  serviceMs: 10,
  overload: 'queue',
  ...more,
});
const warm = (more: Record<string, number> = {}) => ({
  warmup: { ratePerSec: 50, windowS: 1, stableWindows: 3, maxS: 20, ...more },
});

describe('the warmup stage in simulated time', () => {
  it.each([
    // name, model, config, tookS range, detail
    [
      'a steady target: stable after 3 windows of 1 s past the ramp',
      queue(),
      warm(),
      [4, 4.5],
      /^stable after 4\.\d s at 50 req\/s: last 3 windows/,
    ],
    [
      'warmup.minS holds a stable target until it',
      queue(),
      warm({ minS: 10 }),
      [10, 10.5],
      /^stable after 10\.\d s .*; warmup\.minS 10 s$/,
    ],
    [
      'the topology probe: one value, no wait',
      queue({ topology: { atS: 60, from: 1, to: 2 } }),
      { ...warm(), topology: { metric: 'instances', everyS: 1 } },
      [4, 4.5],
      /; topology steady at 1 over the last 3 windows$/,
    ],
    // read 1 at 1 and 2 s, 2 from 3 s: the windows from 3 s on are the first 3 to read one value
    [
      'the topology changes at 2.5 s: the 3 stable windows start after it',
      queue({ topology: { atS: 2.5, from: 1, to: 2 } }),
      { ...warm(), topology: { metric: 'instances', everyS: 1 } },
      [6, 6.5],
      /^stable after \d\.\d s .*; topology steady at 2 over the last 3 windows$/,
    ],
    [
      'a topology that is never read: maxS ends the warmup, not stable',
      queue(),
      { ...warm({ maxS: 8 }), topology: { metric: 'instances', everyS: 1 } },
      [9, 9.5],
      /^not stable within 8 s .*topology not read; waiting for a topology reading\); continuing/,
    ],
  ] as const)('%s', async (_name, model, config, [minS, maxS], detail) => {
    const r = await simWarmup(model, config as Partial<PlateauConfigInput>);
    expect(r.stage.detail).toMatch(detail);
    expect(r.record.tookS, r.stage.detail).toBeGreaterThanOrEqual(minS);
    expect(r.record.tookS, r.stage.detail).toBeLessThanOrEqual(maxS);
    expect(r.record.stable).toBe(/^stable/.test(r.stage.detail));
    // recorded pass (it ran its course: its figures size the steps); shown warn where it never settled
    expect(r.stage.status).toBe('pass');
    expect(r.result.stages.find((s) => s.name === 'warmup')?.status).toBe(r.record.stable ? 'pass' : 'warn');
    expect(r.wallMs).toBeLessThan(5000);
    // progress: past the ramp's first second, whole seconds at the rate, never the part of one written at the stop
    for (const l of r.lines.filter((x) => !x.includes(' t=0s ')))
      expect(l).toMatch(/^warmup at 50\/s {2}t=\d+s {2}achieved 50\/s /);
  });

  it('interrupted before it was stable: says so, not "not stable within 20 s ... continuing"', async () => {
    // a target that never settles (its capacity moves), Ctrl-C 2.5 s in
    const r = await simWarmup(queue({ topology: { atS: 1, from: 1, to: 2 } }), warm(), false, 2500);
    expect(r.stage.detail).toMatch(/^interrupted after [23]\.\d s at 50 req\/s, before it was stable \(/);
    expect(r.stage.detail).not.toMatch(/continuing/);
    // the Stages table reads "interrupted", not "pass"
    expect(r.stage.status).toBe('interrupted');
  });

  it('the finding: a target 3x slower for its first 30 s, steady while slow, passes the warmup cold; coldTarget flags it and the cold steps', async () => {
    // capacity 900 req/s warm, 300 cold: every step stays under the cold capacity
    const r = await simWarmup(
      queue({ capacityPerSec: 900, cold: { forS: 30, slowdown: 3 } }),
      {
        warmup: { ratePerSec: 50, windowS: 2, stableWindows: 3, maxS: 30 },
        steps: { startPerSec: 100, stepPerSec: 100, maxPerSec: 300, rampS: 1, holdS: 10, settleS: 2 },
      },
      true,
    );
    expect(r.record.stable).toBe(true);
    expect(r.record.tookS).toBeLessThan(10); // stable while still slow
    for (const w of r.record.windows) expect(w.p50Ms!).toBeGreaterThan(25); // 3 x 10 ms
    const symptoms = coldTarget(r.record, r.result.steps);
    const p50s = r.result.steps.map((s) => `${s.ratePerSec}: ${s.latency[0]!.valueMs}`).join(', ');
    // warmup 0..7 s, steps of 11 s: steps 1 and 2 end before 30 s (cold); step 3's steady window (32..40 s) is warm
    expect(
      symptoms.map((s) => [s.step, s.figures.measured, s.figures.laterStep]),
      p50s,
    ).toEqual([
      [null, 'warmup', 2],
      [0, 'step', 2],
      [1, 'step', 2],
    ]);
  });
});
