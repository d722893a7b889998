/** The ordinary stop reasons (stop-reason.ts) as summarizeStop gives them: the generator's limit, the first step failed, the plateau. */
import { describe, expect, it } from 'vitest';
import { summarizeStop } from './stop.ts';
import { overloadShape } from './overload-shape.ts';
import { DEFAULT_RULES, fakeRun, stepResult } from './testing/builders.ts';
import { unjudgeableReasons } from './gate/judgeable.ts';
import type { StepResult } from './types.ts';

/** A run whose second step failed because the generator could not drive it. */
function stopWith(bad: Partial<StepResult>) {
  const held = stepResult({ index: 0, ratePerSec: 100 });
  const failed = stepResult({
    index: 1,
    ratePerSec: 200,
    throughputPerSec: 150,
    delivery: 0.75,
    verdict: 'fails',
    generatorBound: true,
    reasons: ['generator-limited, not a server limit: ...'],
    ...bad,
  });
  return summarizeStop([held, failed], 4, false, DEFAULT_RULES);
}

describe('a generator-bound stop says what would let the generator keep up', () => {
  it('dropped arrivals: more VUs', () => {
    const s = stopWith({ dropped: 300, vusAllocatedMax: 64 });
    expect(s.stopReason).toBe('generator-bound');
    expect(s.stopDetail).toMatch(
      /cannot establish capacity; at least 100\.0 req\/s held\. To measure further, allow more VUs \(vus\.max and verdicts\.maxVUsBound; 64 were allocated\)$/,
    );
  });

  it('drops refused on a saturated thread (TLS): not more VUs', () => {
    expect(stopWith({ dropped: 300, droppedBusy: 300, generatorBusy: 0.92 }).stopDetail).toMatch(
      /To measure further, give the generator more cores or workers \(--workers\), or a machine of its own$/,
    );
    expect(stopWith({ dropped: 300, droppedBusy: 299, generatorBusy: 0.92 }).stopDetail).toMatch(/allow more VUs/);
  });

  it('late while mostly idle: a machine of its own, or a quieter one', () => {
    expect(stopWith({ lagP99Ms: 40, generatorBusy: 0.45 }).stopDetail).toMatch(
      /To measure further, run the generator on a machine of its own or a quieter one: its threads were mostly idle, so it was stalled, not short of CPU$/,
    );
  });

  it('late while busy, or not measured: more cores or workers', () => {
    expect(stopWith({ lagP99Ms: 40, generatorBusy: 0.95 }).stopDetail).toMatch(
      /To measure further, give the generator more cores or workers \(--workers\), or a machine of its own$/,
    );
    expect(stopWith({ generatorBusy: null, generatorCpu: 0.95 }).stopDetail).toMatch(
      /To measure further, give the generator more cores or a machine of its own \(k6 can split the plan over machines: k6.executionSegment\)$/,
    );
    expect(stopWith({ lagP99Ms: 40 }).stopDetail).toMatch(/more cores or workers/);
  });
});

describe("the generator's fix is one sentence, in the stop reason and in the gate's", () => {
  it.each<[string, Partial<StepResult>]>([
    ['dropped arrivals', { dropped: 300, vusAllocatedMax: 64 }],
    ['drops refused on a saturated thread', { dropped: 300, droppedBusy: 300, generatorBusy: 0.92 }],
    ['late while mostly idle', { lagP99Ms: 40, generatorBusy: 0.45 }],
    ['late while busy', { lagP99Ms: 40, generatorBusy: 0.95 }],
    ["k6's process short of CPU", { generatorBusy: null, generatorCpu: 0.95 }],
  ])('%s', (_name, bad) => {
    const stop = stopWith(bad);
    const fix = /To measure further, (.+)$/.exec(stop.stopDetail)?.[1];
    expect(fix).toBeDefined();
    const run = fakeRun({ steps: [{ ratePerSec: 100 }] });
    const steps = [
      stepResult({ index: 0, ratePerSec: 100 }),
      stepResult({ index: 1, ratePerSec: 200, verdict: 'fails', generatorBound: true, ...bad }),
    ];
    expect(unjudgeableReasons({ ...run, ...stop, steps })).toContain(
      `generator-bound: the load generator, not the target, was the limit (step 2); ${fix}`,
    );
  });
});

describe('a step that failed mostly of kind other is not laid at the target', () => {
  const failing = (errors: StepResult['errors'], index = 0) =>
    stepResult({
      index,
      ratePerSec: 100 * (index + 1),
      throughputPerSec: 40,
      delivery: 0.4,
      errorRate: 0.6,
      errors,
      errorSamples: ['other: t: name "order 123" is built from data; give each request a fixed name'],
      verdict: 'fails',
      reasons: ['delivered 0.40 < 0.90'],
    });

  it('the first step: the stop line points at the errors table, not at the target', () => {
    const s = summarizeStop([failing({ other: 60 })], 4, false, DEFAULT_RULES);
    expect(s.stopReason).toBe('failed-first-step');
    expect(s.stopDetail).not.toMatch(/the target sustains less/);
    expect(s.stopDetail).toContain(
      '100% of its failures are of kind other, which no answer of the target\'s made (the scenario threw or was refused, or a transport error plateau does not classify; the first: "t: name "order 123" is built from data; give each request a fixed name"): read the errors table and fix that before taking this step as the target\'s limit',
    );
  });

  it('past a held step: the plateau line says so too', () => {
    const s = summarizeStop(
      [stepResult({ index: 0 }), failing({ other: 40, http_5xx: 20 }, 1)],
      4,
      false,
      DEFAULT_RULES,
    );
    expect(s.stopReason).toBe('plateau');
    expect(s.stopDetail).toMatch(/; but 67% of its failures are of kind other/);
  });

  it('nor does the overload shape: its meaning is the same clause', () => {
    const shape = overloadShape(stepResult(), failing({ other: 60 }, 1));
    expect(shape.shape).toBe('errors');
    expect(shape.meaning).toMatch(/^100% of its failures are of kind other/);
    expect(overloadShape(stepResult(), failing({ http_5xx: 60 }, 1)).meaning).toMatch(
      /fails requests instead of queueing/,
    );
  });

  it('a few of kind other among thousands (under 1% of the completions) cast no doubt', () => {
    const few = { ...failing({ other: 2 }), errorRate: 2 / 40_000 };
    expect(summarizeStop([few], 4, false, DEFAULT_RULES).stopDetail).toMatch(/the target sustains less/);
    const s = summarizeStop([stepResult({ index: 0 }), { ...few, index: 1 }], 4, false, DEFAULT_RULES);
    expect(s.stopDetail).not.toMatch(/kind other/);
  });

  it("failures mostly the target's (statuses, timeouts) keep today's wording", () => {
    const s = summarizeStop([failing({ other: 20, http_5xx: 40 })], 4, false, DEFAULT_RULES);
    expect(s.stopDetail).toMatch(/the target sustains less than the lowest offered rate; start lower/);
    expect(s.stopDetail).not.toMatch(/kind other/);
  });
});

describe('a step past the knee that missed delivery while its capture held', () => {
  const held = [100, 200].map((r, index) =>
    stepResult({ index, ratePerSec: r, throughputPerSec: r, completedPerSec: r }),
  );
  const third = (over: Partial<StepResult>) =>
    stepResult({ index: 2, ratePerSec: 300, verdict: 'fails', reasons: ['delivered 0.89 < 0.90'], ...over });

  it('still followed the offered rate, short of it: the limit lies between the knee and it (a shortfall, no flat plateau)', () => {
    const bad = third({ throughputPerSec: 266.7, completedPerSec: 266.7, delivery: 0.889, capture: 0.667 });
    const s = summarizeStop([...held, bad], 4, false, DEFAULT_RULES);
    expect(s.stopReason).toBe('plateau');
    expect(s.stopDetail).toMatch(
      /delivered 0\.89 < 0\.90 \(266\.7 req\/s achieved\): throughput still followed the offered rate \(captured 0\.67 of the added rate\), short of it: the limit lies between the 200\.0 req\/s held and the 266\.7 achieved \(finer steps find it: --step-rate\)$/,
    );
    expect(s.stopDetail).not.toMatch(/stopped following/);
    expect(overloadShape(held[1], bad, held[1], 'req/s', false, DEFAULT_RULES).shape).toBe('shortfall');
    // capture under its bound: the plateau proper, as before
    const flat = third({ throughputPerSec: 210, completedPerSec: 210, delivery: 0.7, capture: 0.1 });
    expect(summarizeStop([...held, flat], 4, false, DEFAULT_RULES).stopDetail).toMatch(
      /throughput stopped following the offered rate at about 210/,
    );
    expect(overloadShape(held[1], flat, held[1], 'req/s', false, DEFAULT_RULES).shape).toBe('plateau');
  });

  it('its completions kept up and a share failed already below the knee: the failures, not the throughput', () => {
    const knee = stepResult({ index: 1, ratePerSec: 200, throughputPerSec: 180, completedPerSec: 200, errorRate: 0.1 });
    const bad = third({
      throughputPerSec: 261,
      completedPerSec: 290,
      delivery: 0.87,
      capture: 0.81,
      errorRate: 0.1,
      errors: { check: 290 },
    });
    const s = summarizeStop([held[0], knee, bad], 4, false, DEFAULT_RULES);
    expect(s.stopDetail).toMatch(
      /: its completions kept up \(290\.0 of 300 req\/s\), but 10\.00% of them failed \(check 290\): failures, not throughput, took its delivery under 0\.90$/,
    );
    const shape = overloadShape(knee, bad, knee, 'req/s', false, DEFAULT_RULES);
    expect(shape.shape).toBe('errors');
    expect(shape.meaning).toMatch(
      /^10\.00% of requests already failed at the knee \(step 2\): these failures were there below the knee too/,
    );
  });

  it("a fail-fast pool's 503s past a knee where the throughput stopped following keep the plateau's words", () => {
    const bad = third({
      throughputPerSec: 120,
      completedPerSec: 300,
      delivery: 0.4,
      capture: -0.8,
      errorRate: 0.6,
      errors: { http_5xx: 900 },
    });
    const s = summarizeStop([...held, bad], 4, false, DEFAULT_RULES);
    expect(s.stopDetail).toMatch(
      /throughput stopped following the offered rate at about 200 req\/s; .*60\.00% of completed requests failed/,
    );
    expect(overloadShape(held[1], bad, held[1], 'req/s', false, DEFAULT_RULES).meaning).toMatch(
      /fails requests instead of queueing/,
    );
  });

  it('a first step failed of its checks or 4xx: a lower rate would fail them too, not "start lower"', () => {
    const first = stepResult({
      index: 0,
      throughputPerSec: 70,
      completedPerSec: 100,
      delivery: 0.7,
      errorRate: 0.3,
      errors: { check: 150 },
      verdict: 'fails',
    });
    const s = summarizeStop([first], 4, false, DEFAULT_RULES);
    expect(s.stopDetail).toMatch(
      /its completions kept up \(100\.0 of 100 req\/s\), but 30\.00% of them failed \(check 150\).*a lower rate would fail them too/,
    );
    expect(s.stopDetail).not.toMatch(/start lower/);
    // 5xx at the first step may be the target's overload: the old advice stands
    const shed = { ...first, errors: { http_5xx: 150 } };
    expect(summarizeStop([shed], 4, false, DEFAULT_RULES).stopDetail).toMatch(/start lower/);
  });
});
