/**
 * The steps stage's decision paths in simulated time: the real runSteps, judging the real buckets
 * of a simulated engine over a model target, with the run store and its analysis (what `plateau
 * report` reads) as the outcome. Each run takes milliseconds of wall time where the same run
 * against a real target takes its seconds.
 */
import { SIM_RTT_MS, simContext } from './helpers/sim-context.ts';
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../analysis/types.ts';
import type { PlateauConfigInput } from '../harness/config/schema.ts';
import { type ModelTargetOptions } from '../harness/engine/model-target.ts';
import { runStage } from '../harness/pipeline/stage.ts';
import { warmup } from '../harness/pipeline/warmup.ts';
import { keepAllReason, sizeThreads } from '../harness/pipeline/threads.ts';
import { DurationCap } from '../harness/limits.ts';
import { runSteps } from '../harness/pipeline/steps.ts';
import { analyzeStore } from '../harness/report.ts';
import { RunStore } from '../harness/store/run-store.ts';
import { tempRunsDir } from './helpers/pipeline.ts';
import { warningTexts } from '../reports/warning-text.ts';

const runsDir = tempRunsDir();
afterAll(() => fs.rmSync(runsDir, { recursive: true, force: true }));

let runs = 0;

interface SimRun {
  model: ModelTargetOptions;
  config: Partial<PlateauConfigInput>;
  /** VUs the engine starts with (default: the plan's sizing). */
  vus?: { preAllocated: number; max: number };
  /** Simulated seconds after the steps start at which the run is interrupted. */
  interruptAtS?: number;
  /** Target seconds already lived before the steps (the warmup's time). */
  targetAgeS?: number;
  /** Run the warmup and the threads stage first, as the pipeline does, on this many engine instances. */
  warm?: { instances: number; costUsPerArrival: number };
}

/** Runs the steps stage in simulated time and reads the store back as `plateau report` does. */
async function simSteps(o: SimRun) {
  const runId = `sim-${++runs}`;
  const { config, clock, engine, store, interrupt, ctx } = simContext({
    runsDir,
    runId,
    model: o.model,
    config: o.config,
    vus: o.vus,
    targetAgeS: o.targetAgeS,
    instances: o.warm?.instances,
    costUsPerArrival: o.warm?.costUsPerArrival,
  });
  if (o.interruptAtS !== undefined) clock.setTimeout(() => interrupt.trigger(), o.interruptAtS * 1000);
  const cap = new DurationCap(config.limits.maxDurationS, interrupt, () => undefined, clock);
  ctx.loadCap = cap;
  const wallMs = performance.now();
  const record = (s: Parameters<RunStore['addStage']>[0]) => store.addStage(s);
  let seqOffset = 0;
  if (o.warm) {
    const warmed = await clock.run(runStage('warmup', record, () => warmup(ctx, engine), clock));
    seqOffset = warmed.lastSeq;
    const keepAll = keepAllReason(ctx, engine, { stable: warmed.verdict.stable });
    if (keepAll) throw new Error(`the threads stage would not run: ${keepAll}`);
    await clock.run(runStage('threads', record, () => sizeThreads(ctx, engine, warmed.records), clock));
  }
  const stepsT0S = clock.now() / 1000;
  const steps = await clock.run(runStage('steps', record, () => runSteps(ctx, engine, seqOffset, SIM_RTT_MS), clock));
  cap.end();
  store.update({
    interruptedAtStep: steps.interruptedAtStep,
    status: interrupt.interrupted ? 'interrupted' : 'complete',
    finishedAt: new Date(0).toISOString(),
  });
  store.close();
  const { result, meta: stored } = analyzeStore(store.dir);
  return {
    result,
    stored,
    engine,
    simS: clock.now() / 1000,
    stepsS: clock.now() / 1000 - stepsT0S,
    wallMs: performance.now() - wallMs,
    dir: store.dir,
  };
}

const steps = (startPerSec: number, stepPerSec: number, maxPerSec: number) => ({
  startPerSec,
  stepPerSec,
  maxPerSec,
  rampS: 1,
  holdS: 10,
  settleS: 2,
});
const attempts = (r: RunResult) =>
  r.steps.map(
    (s) =>
      `${s.ratePerSec}#${s.attempt ?? 1}:${s.verdict}${s.transient ? ':transient' : ''}${s.generatorBound ? ':generator-bound' : ''}${s.contaminated ? ':contaminated' : ''}`,
  );

describe('the stop rule in simulated time', () => {
  it('a queue of capacity 400 stepped by 100: stops at the plateau, capacity within 3%, the failure confirmed once', async () => {
    const r = await simSteps({
      model: { capacityPerSec: 400, serviceMs: 10, overload: 'queue' },
      config: { steps: steps(100, 100, 800) },
    });
    // 500 offered to a 400 req/s queue fails; its confirmation fails too; nothing past it runs
    expect(attempts(r.result)).toEqual([
      '100#1:holds',
      '200#1:holds',
      '300#1:holds',
      '400#1:holds',
      '500#1:fails',
      '500#2:fails',
    ]);
    expect(r.result.stopReason).toBe('plateau');
    expect(r.result.overload?.shape).toBe('plateau');
    expect(Math.abs(r.result.capacityPerSec! - 400) / 400).toBeLessThan(0.03);
    expect(r.stored.attempts?.map((a) => a.action?.kind)).toEqual([
      'go-on',
      'go-on',
      'go-on',
      'go-on',
      'rerun',
      'stop',
    ]);
    // six attempts of 11 s each and the gaps between legs, in a blink
    expect(r.simS).toBeGreaterThan(66);
    expect(r.wallMs).toBeLessThan(5000);
  });

  it('reject: the excess answered with 503s, shape errors, capacity at the limit', async () => {
    const r = await simSteps({
      model: { capacityPerSec: 300, serviceMs: 5, overload: 'reject' },
      config: { steps: steps(100, 100, 600), verdicts: { confirmFailedStep: false } },
    });
    expect(attempts(r.result)).toEqual(['100#1:holds', '200#1:holds', '300#1:holds', '400#1:fails']);
    expect(r.result.overload?.shape).toBe('errors');
    expect(Math.abs(r.result.capacityPerSec! - 300) / 300).toBeLessThan(0.03);
  });

  it('collapse: throughput falls past the peak, and the shape says so', async () => {
    const r = await simSteps({
      model: { capacityPerSec: 400, serviceMs: 10, overload: 'collapse' },
      config: { steps: steps(150, 150, 900), verdicts: { confirmFailedStep: false } },
    });
    expect(attempts(r.result)).toEqual(['150#1:holds', '300#1:holds', '450#1:fails']);
    expect(r.result.overload?.shape).toBe('collapse');
    expect(r.result.capacityPerSec).toBeCloseTo(300, -1);
  });

  it('a failure that its rerun does not repeat is transient, and the run goes on', async () => {
    // twice as slow (capacity 150) for the target's first 25 s: step 2 (200 req/s) fails, its rerun after 25 s holds
    const r = await simSteps({
      model: { capacityPerSec: 300, serviceMs: 10, overload: 'queue', cold: { forS: 25, slowdown: 2 } },
      config: { steps: steps(100, 100, 300) },
    });
    expect(attempts(r.result)).toEqual(['100#1:holds', '200#1:fails:transient', '200#2:holds', '300#1:holds']);
    expect(r.result.stopReason).toBe('max-rate-reached');
  });
});

describe('generator-bound in simulated time', () => {
  const slow: ModelTargetOptions = { capacityPerSec: 10_000, serviceMs: 40, overload: 'queue' };

  it('drops for want of VUs while the tail stays low: maxVUs doubled and the step rerun, which holds', async () => {
    // 4 VUs x 25 req/s each = 100 req/s: 150 drops a third; with 8 VUs (200 req/s) it holds
    const r = await simSteps({
      model: slow,
      config: { steps: steps(50, 50, 150), verdicts: { maxVUsBound: 64 } },
      vus: { preAllocated: 4, max: 4 },
    });
    expect(attempts(r.result)).toEqual([
      '50#1:holds',
      '100#1:holds',
      '150#1:fails:transient:generator-bound',
      '150#2:holds',
    ]);
    const failed = r.result.steps.find((s) => s.generatorBound)!;
    expect(failed.dropped).toBeGreaterThan(0);
    expect(failed.latency.find((p) => p.q === 99)!.valueMs!).toBeLessThan(3 * 56); // the tail stayed at the model's service time
    expect(r.stored.attempts?.map((a) => a.maxVUs)).toEqual([4, 4, 4, 8]);
    expect(r.engine.maxVUs).toBe(8);
    expect(r.result.stopReason).toBe('max-rate-reached');
  });

  it('no room to raise maxVUs: the run stops generator-bound and the headline claims no capacity', async () => {
    const r = await simSteps({
      model: slow,
      config: { steps: steps(50, 50, 150), verdicts: { maxVUsBound: 4 } },
      vus: { preAllocated: 4, max: 4 },
    });
    expect(attempts(r.result)).toEqual(['50#1:holds', '100#1:holds', '150#1:fails:generator-bound']);
    expect(r.result.stopReason).toBe('generator-bound');
    expect(r.result.generatorBound).toBe(true);
    expect(r.result.overload?.shape).toBe('generator-bound');
    expect(r.result.capacityPerSec).toBeNull();
    expect(r.result.heldAtLeastPerSec).toBeCloseTo(100, -1);
    const bad = r.result.steps.find((s) => s.generatorBound)!;
    expect(bad.reasons.join(' ')).toMatch(/generator-limited, not a server limit: \d+ arrivals dropped/);
    expect(r.result.stopDetail).toMatch(
      /cannot establish capacity; .*To measure further, allow more VUs \(vus\.max and verdicts\.maxVUsBound; \d+ were allocated\)$/,
    );
  });
});

describe('drops the target caused, in simulated time', () => {
  it("a saturated target holds every VU: its drops are said to be the target's, not the generator's", async () => {
    // capacity 50 req/s at 20 ms: past it 8 VUs queue at the target, the tail grows, and arrivals find none free
    const r = await simSteps({
      model: { capacityPerSec: 50, serviceMs: 20, overload: 'queue' },
      config: { steps: steps(25, 25, 100), verdicts: { maxVUsBound: 8, confirmFailedStep: false } },
      vus: { preAllocated: 4, max: 8 },
    });
    const bad = r.result.steps.find((s) => s.verdict === 'fails')!;
    expect(bad.dropped).toBeGreaterThan(0);
    expect([bad.generatorBound ?? false, bad.waitedOnTarget]).toEqual([false, true]);
    expect(bad.reasons.join(' ')).toMatch(
      /arrivals dropped .*but the target's tail grew .*: the target is the limit and the VUs ran out waiting for it$/,
    );
    const n = bad.index + 1;
    const warnings = warningTexts(r.result);
    expect(warnings).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^step ${n} dropped [\\d,]+ arrivals: no free VU, all 8 VUs waiting on the target \\(Little's law: [\\d.]+ req/s x [\\d,.]+ ms mean = \\d+ requests in flight on average\\): the drops follow from the target's limit`,
        ),
      ),
    );
    expect(warnings.join('\n')).not.toMatch(new RegExp(`step ${n} dropped .*raise maxVUs`));
    expect(r.result.stopReason).toBe('plateau');
    expect(r.result.capacityPerSec).toBeCloseTo(50, -1);
  });
});

describe('interruption in simulated time', () => {
  it('mid-step: the run stops at once and keeps every second it had', async () => {
    // step 3 (300 req/s) runs from 22 s to 33 s: interrupted at 27.5 s
    const r = await simSteps({
      model: { capacityPerSec: 1000, serviceMs: 10, overload: 'queue' },
      config: { steps: steps(100, 100, 500) },
      interruptAtS: 27.5,
    });
    expect(r.result.interrupted).toBe(true);
    expect(r.result.stopReason).toBe('interrupted');
    expect(r.stored.interruptedAtStep).toBe(2);
    expect(r.stored.stages.find((s) => s.name === 'steps')).toMatchObject({
      status: 'interrupted',
      detail: 'interrupted during step 3 of 5 (its hold), after step 2',
    });
    // the stop line says the same, in the same words (analysis/cut.ts), with the rates
    expect(r.result.stopDetail).toMatch(
      /^interrupted during step 3 \(300 req\/s, its hold, 2 s into its 8 s steady window\), after step 2 \(200 req\/s\); /,
    );
    expect(attempts(r.result).slice(0, 2)).toEqual(['100#1:holds', '200#1:holds']);
    expect(r.stored.attempts?.at(-1)).toMatchObject({ index: 2, action: null });
    // it stopped within a second of the signal, and the store has every second up to it
    expect(r.simS).toBeLessThan(27.5 + 1);
    const lines = fs
      .readFileSync(`${r.dir}/buckets.ndjson`, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { tS: number });
    expect(lines.map((b) => b.tS)).toEqual(Array.from({ length: 28 }, (_, i) => i));
    // the second the signal fell in (27 s, half of it) is kept in the store but not judged: step 3
    // reads what it delivered in its whole seconds, not a collapse, and is incomplete
    const third = r.result.steps.find((s) => s.index === 2)!;
    expect(third.verdict).toBe('incomplete');
    expect(third.throughputPerSec).toBeGreaterThan(290);
    // a window cut short is never the peak (decision 049): step 2's whole window is
    expect(r.result.peakStep).toBe(1);
    expect(r.result.peakPerSec).toBeLessThan(210);
  });
});

describe('topology in simulated time', () => {
  it('a replica change inside a step contaminates it; it is rerun and kept out of the decision', async () => {
    // instances 1 -> 2 at 15 s: inside step 2 (11 s to 22 s)
    const r = await simSteps({
      model: { capacityPerSec: 1000, serviceMs: 10, overload: 'queue', topology: { atS: 15, from: 1, to: 2 } },
      config: { steps: steps(100, 100, 300), topology: { metric: 'replicas', everyS: 1, rerun: true } },
    });
    expect(r.result.steps.map((s) => `${s.ratePerSec}#${s.attempt ?? 1}:${s.verdict}`)).toEqual([
      '100#1:holds',
      '200#1:holds',
      '200#2:holds',
      '300#1:holds',
    ]);
    expect(r.result.steps.map((s) => s.contaminated ?? false)).toEqual([false, true, false, false]);
    expect(r.result.contaminated).toBe(true);
    expect(r.stored.attempts?.map((a) => a.action?.kind)).toEqual(['go-on', 'rerun', 'go-on', 'go-on']);
  });
});

/** The seconds of the steps in which arrivals were offered (started or dropped), from the run's buckets. */
function loadSeconds(dir: string): number[] {
  const offered = fs
    .readFileSync(`${dir}/buckets.ndjson`, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { phase?: string; tS: number; started: number; dropped: number })
    .filter((b) => b.phase !== 'warmup' && b.started + b.dropped > 0)
    .map((b) => b.tS);
  return [...new Set(offered)].sort((a, b) => a - b);
}

describe('the duration cap in simulated time', () => {
  it('a run whose reruns would outlast limits.maxDurationS is stopped when it reaches it, as an interruption', async () => {
    // every step fails (503s for all but 10 req/s) and is confirmed: 2 attempts x 11 s > 15 s
    const r = await simSteps({
      model: { capacityPerSec: 10, serviceMs: 5, overload: 'reject' },
      config: {
        steps: { ...steps(100, 100, 100), holdS: 10 },
        limits: { maxDurationS: 15 },
        warmup: { enabled: false },
      },
    });
    expect(r.result.interrupted).toBe(true);
    expect(r.stored.attempts?.map((a) => a.attempt)).toEqual([1, 2]);
    // 15 s of load: the first attempt's 11, the rerun's first 4 (the gap before the rerun is no load)
    expect(loadSeconds(r.dir)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 13, 14, 15, 16]);
  });

  it('a plan whose load is exactly limits.maxDurationS runs whole: the cap stops only load past it', async () => {
    // two held steps of 1 s ramp + 10 s hold: 22 s of load, the cap 22 s (plan accepts it as fitting)
    const r = await simSteps({
      model: { capacityPerSec: 1000, serviceMs: 5, overload: 'queue' },
      config: { steps: steps(100, 100, 200), limits: { maxDurationS: 22 }, warmup: { enabled: false } },
    });
    expect(attempts(r.result)).toEqual(['100#1:holds', '200#1:holds']);
    expect(r.result.interrupted).toBe(false);
    expect(r.result.stopReason).toBe('max-rate-reached');
    expect(loadSeconds(r.dir)).toHaveLength(22);
  });
});

describe('the threads stage in simulated time', () => {
  const model: ModelTargetOptions = { capacityPerSec: 5000, serviceMs: 5, overload: 'queue' };
  // on this machine, workers auto: the warmup's cost per arrival sizes the threads
  const config = {
    target: { url: 'http://127.0.0.1:9/orders' },
    workers: 'auto',
    steps: steps(200, 200, 400),
    warmup: { ratePerSec: 200, windowS: 1, stableWindows: 3, maxS: 20, minS: 8 },
  } as Partial<PlateauConfigInput>;

  it('a cheap arrival: the steps run on one of the two threads', async () => {
    const r = await simSteps({ model, config, warm: { instances: 2, costUsPerArrival: 50 } });
    const threads = r.stored.stages.find((s) => s.name === 'threads');
    expect(threads?.threads, threads?.detail).toEqual({ kept: 1, of: 2 });
    const sources = new Set(
      fs
        .readFileSync(`${r.dir}/buckets.ndjson`, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { phase: string; source: string })
        .filter((b) => b.phase === 'steps')
        .map((b) => b.source),
    );
    expect(sources).toEqual(new Set(['sim/0']));
    expect(attempts(r.result)).toEqual(['200#1:holds', '400#1:holds']);
  });

  it('a costly arrival (one thread would be 80% busy at the top rate): both threads kept, on the same warm seconds', async () => {
    const r = await simSteps({ model, config, warm: { instances: 2, costUsPerArrival: 2000 } });
    expect(r.stored.stages.find((s) => s.name === 'threads')?.threads).toEqual({ kept: 2, of: 2 });
  });
});
