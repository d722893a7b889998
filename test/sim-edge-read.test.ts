/**
 * The live verdict waits for the reading of its window's end edge, in simulated time: with the
 * target's metrics taking 300 ms to answer, each step is judged with the server window the report
 * has (the reading at the steady window's end), not the reading before it; a reading that hangs
 * delays the judging by EDGE_TOLERANCE_S at most, and the run still stops at its plateau; a judging
 * that throws stops the leg and fails the stage with its error.
 */
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { EDGE_TOLERANCE_S } from '../analysis/server-window.ts';
import { runStage } from '../harness/pipeline/stage.ts';
import { runSteps } from '../harness/pipeline/steps.ts';
import { analyzeStore } from '../harness/report.ts';
import { SIM_RTT_MS, simContext } from './helpers/sim-context.ts';
import { tempRunsDir } from './helpers/pipeline.ts';

const runsDir = tempRunsDir();
afterAll(() => fs.rmSync(runsDir, { recursive: true, force: true }));

/** Steps against a 300 req/s queue whose metrics answer after readMs, read at the edges and every 5 s. */
async function run(runId: string, readMs: number, o: { throwAtStep?: number } = {}) {
  const { clock, target, store, ctx, engine } = simContext({
    runsDir,
    runId,
    model: { capacityPerSec: 300, serviceMs: 5, overload: 'queue' },
    config: {
      steps: { startPerSec: 100, stepPerSec: 100, maxPerSec: 500, rampS: 1, holdS: 6, settleS: 2 },
      verdicts: { confirmFailedStep: false },
      metrics: { url: '/metrics', scrapeEveryS: 5 },
    },
  });
  const judgedAtMs: number[] = [];
  const stepJudged = ctx.progress.stepJudged.bind(ctx.progress);
  ctx.progress.stepJudged = (...a) => {
    if (judgedAtMs.length + 1 === o.throwAtStep) throw new Error('the progress line broke');
    judgedAtMs.push(clock.now());
    stepJudged(...a);
  };
  ctx.readServer = () => new Promise((resolve) => clock.setTimeout(() => resolve(target.reading(clock.now())), readMs));
  const steps = await clock
    .run(
      runStage(
        'steps',
        (s) => store.addStage(s),
        () => runSteps(ctx, engine, 0, SIM_RTT_MS),
        clock,
      ),
    )
    .catch((err: Error) => ({ error: err, simS: clock.now() / 1000 }));
  if ('error' in steps) {
    store.close();
    return { ...steps, report: analyzeStore(store.dir) };
  }
  store.update({ status: 'complete', finishedAt: new Date(0).toISOString() });
  store.close();
  return { error: null, live: steps.judged, attempts: steps.attempts, judgedAtMs, report: analyzeStore(store.dir) };
}

/** The run of a stage that succeeded. */
function ok<T extends { error: Error | null }>(r: T): Extract<T, { error: null }> {
  if (r.error) throw r.error;
  return r as Extract<T, { error: null }>;
}

describe('the live verdict and the end edge of its window', () => {
  it('judges each step once the end edge is read, with the server window the report has', async () => {
    const r = ok(await run('slow-metrics', 300));
    expect(r.live.map((s) => s.verdict)).toEqual(['holds', 'holds', 'holds', 'fails']);
    for (const [i, s] of r.live.entries()) {
      const a = r.attempts[i]!;
      // read from the steady end edge to 300 ms later: the reading stands at its middle
      expect(s.server?.toS, `step ${i + 1}`).toBe(a.steadyEndS + 0.15);
      expect(r.judgedAtMs[i]).toBe(a.steadyEndS * 1000 + 300);
      expect(s.server).toEqual(r.report.result.steps[i]!.server);
    }
    expect(r.report.meta.attempts?.map((a) => a.action?.kind)).toEqual(['go-on', 'go-on', 'go-on', 'stop']);
    expect(r.report.result.stopReason).toBe('plateau');
  });

  it('judges without the edge after EDGE_TOLERANCE_S when the reading hangs, and still stops at the plateau', async () => {
    const r = ok(await run('hung-metrics', 4000));
    expect(r.live.map((s) => s.verdict)).toEqual(['holds', 'holds', 'holds', 'fails']);
    for (const [i, a] of r.attempts.entries()) expect(r.judgedAtMs[i]).toBe((a.steadyEndS + EDGE_TOLERANCE_S) * 1000);
    expect(r.report.result.stopReason).toBe('plateau');
  });

  it('a judging that throws stops the leg and fails the stage with its error, the buckets kept', async () => {
    const r = await run('judge-throws', 300, { throwAtStep: 2 });
    if (!r.error) throw new Error('the stage did not fail');
    expect(r.error.message).toBe('the progress line broke');
    // stopped at step 2's judging (its end edge at 16 s, read by 16.3 s), not at the plan's end
    expect(r.simS).toBeLessThan(17);
    expect(r.report.result.steps.map((x) => x.verdict)).toEqual(['holds', 'holds']);
  });
});
