import { describe, expect, it } from 'vitest';
import { summarizeStop } from './stop.ts';
import { overloadShape } from './overload-shape.ts';
import { DEFAULT_RULES, fakeRun, stepResult, type FakeStep } from './testing/builders.ts';
import { unjudgeableReasons } from './gate/judgeable.ts';
import { runWarnings } from './warnings.ts';
import { capacityText } from '../reports/cells.ts';
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

describe('a run in which plateau refused names the scenario sent', () => {
  const refusedNames = { count: 57, first: 'http.send: name "page echo black" is one past 100 names in the run' };

  it('establishes no capacity, whatever held or failed after, and keeps what held before as a lower bound', () => {
    // step 3 held with refusals, its step 4 failed at the target: without the refusal, capacity 290
    const steps = [
      stepResult({ index: 0, ratePerSec: 100, throughputPerSec: 100 }),
      stepResult({ index: 1, ratePerSec: 200, throughputPerSec: 200 }),
      stepResult({ index: 2, ratePerSec: 300, throughputPerSec: 290, refusedNames }),
      stepResult({ index: 3, ratePerSec: 400, throughputPerSec: 300, delivery: 0.75, verdict: 'fails' }),
    ];
    const s = summarizeStop(steps, 5, false, DEFAULT_RULES);
    expect(s).toMatchObject({ capacityPerSec: null, heldAtLeastPerSec: 200, kneeStep: 1, stopReason: 'error' });
    expect(s.stopDetail).toBe(
      `step 3 (300 req/s): plateau refused 57 sends of the scenario for their name and failed their arrivals itself: those failures are the scenario's, not the target's, so this run establishes no capacity (at least 200.0 req/s held before it); the first: "${refusedNames.first}"`,
    );
    expect(
      summarizeStop(
        steps.map(({ refusedNames: _, ...s }) => s),
        5,
        false,
        DEFAULT_RULES,
      ),
    ).toMatchObject({
      capacityPerSec: 290,
      stopReason: 'plateau',
    });
    // the headline says why
    const run = fakeRun({ steps: [{ ratePerSec: 100 }] });
    expect(capacityText({ ...run, ...s, steps })).toBe(
      'not established (at least 200.0 req/s held; plateau refused names the scenario sent, and failed their arrivals itself)',
    );
  });

  it('interrupted: the attempt the interrupt cut was never decided, so it reads interrupted, not error', () => {
    const steps = [
      stepResult({ index: 0 }),
      stepResult({ index: 1, ratePerSec: 200, refusedNames, verdict: 'incomplete' }),
    ];
    expect(summarizeStop(steps, 4, true, DEFAULT_RULES).stopReason).toBe('interrupted');
    expect(summarizeStop(steps, 4, false, DEFAULT_RULES).stopReason).toBe('error');
  });

  it('in its first step: no step held before it', () => {
    const s = summarizeStop([stepResult({ index: 0, refusedNames })], 4, false, DEFAULT_RULES);
    expect(s).toMatchObject({ capacityPerSec: null, heldAtLeastPerSec: null, kneeStep: null, stopReason: 'error' });
    expect(s.stopDetail).toMatch(/so this run establishes no capacity \(no step held before it\)/);
  });

  it('cuts a long first message at a word, with an ellipsis inside its quotes', () => {
    const long = { count: 1, first: `http.send: ${'word '.repeat(80)}end` };
    const s = summarizeStop([stepResult({ index: 0, refusedNames: long })], 4, false, DEFAULT_RULES);
    expect(s.stopDetail).toMatch(/plateau refused 1 send of the scenario .*; the first: "http\.send: (word )+word…"$/);
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

describe('a collapse in the stop line, where the successes are a lower bound', () => {
  const knee = stepResult({ index: 0, ratePerSec: 120, throughputPerSec: 120, completedPerSec: 120, delivery: 1 });
  const at = (throughputPerSec: number, completedPerSec: number) =>
    stepResult({
      index: 1,
      ratePerSec: 160,
      throughputPerSec,
      completedPerSec,
      delivery: throughputPerSec / 160,
      verdict: 'fails',
    });
  const bounded = { ...DEFAULT_RULES, okLowerBound: true as const };

  it('is read only where even every completion is under the knee, and says so', () => {
    // 113 ok of 150 completed: its failed requests, not a fall of what was served
    expect(summarizeStop([knee, at(113, 150)], 2, false, bounded).stopDetail).not.toMatch(/collapse/);
    expect(summarizeStop([knee, at(113, 150)], 2, false, DEFAULT_RULES).stopDetail).toMatch(
      /throughput fell from 120\.0 to 113\.0 req\/s \(collapse\)/,
    );
    expect(summarizeStop([knee, at(60, 70)], 2, false, bounded).stopDetail).toMatch(
      /throughput fell from at least 120\.0 to at most 70\.0 req\/s \(collapse\)/,
    );
  });
});

describe('a step that failed of refused connections: the target went away, no capacity', () => {
  const steps = (third: Partial<FakeStep>): FakeStep[] => [
    { ratePerSec: 50 },
    { ratePerSec: 100 },
    {
      ratePerSec: 150,
      okPerSec: 0,
      failedPerSec: 150,
      errorKind: 'refused',
      errorSample: 'connect ECONNREFUSED',
      ...third,
    },
  ];

  it('stops as target-unreachable, establishes nothing, and the gate cannot judge it', () => {
    const run = fakeRun({ steps: steps({}), holdS: 6, rampS: 1, settleS: 2 });
    expect([run.stopReason, run.capacityPerSec, run.heldAtLeastPerSec]).toEqual(['target-unreachable', null, 100]);
    expect(run.stopDetail).toMatch(
      /^step 3 \(150 req\/s\) failed of refused connections: \d[\d,]* of its requests \(100\.00% of its failures\) found nothing listening at the target, which stopped, crashed or restarted during it \(perhaps under this load\); that is an outage, not a plateau: at least 100\.0 req\/s held before it; rerun once the target is up \(and read its logs if it fell over under the load\)$/,
    );
    expect(capacityText(run)).toBe(
      'not established (at least 100.0 req/s held; the target stopped accepting connections (refused) in the step that failed: an outage, not a limit)',
    );
    expect(unjudgeableReasons(run)[0]).toMatch(/^the target was unreachable: step 3/);
    expect(run.warnings.map((w) => w.code)).toContain('refused');
  });

  /** Held at 50 and 100; the third step, at 150, delivered 100 and failed with `errors` over its 4 s window. */
  const thirdFailed = (errors: Record<string, number>, second?: Record<string, number>) => {
    const held = [50, 100].map((r, index) => stepResult({ index, ratePerSec: r, throughputPerSec: r }));
    const fail = (attempt: number, e: Record<string, number>) =>
      stepResult({
        index: 2,
        attempt,
        ratePerSec: 150,
        throughputPerSec: 100,
        delivery: 100 / 150,
        steadyS: 4,
        verdict: 'fails',
        errors: e,
      });
    return summarizeStop([...held, fail(1, errors), ...(second ? [fail(2, second)] : [])], 3, false, DEFAULT_RULES);
  };

  it("a saturated step's few refusals, or a failure of 503s with refusals among them, leave the limit it found", () => {
    // 3 refused of some 1,800: all its errors, but they do not explain a delivery of 0.67 (a review's case)
    expect(thirdFailed({ refused: 3 })).toMatchObject({ stopReason: 'plateau', capacityPerSec: 100 });
    // mostly 503s
    expect(thirdFailed({ http_5xx: 150, refused: 40 })).toMatchObject({ stopReason: 'plateau', capacityPerSec: 100 });
    // served, the refusals would have carried delivery to 0.9: the target went away
    expect(thirdFailed({ refused: 200 })).toMatchObject({ stopReason: 'target-unreachable', capacityPerSec: null });
  });

  it('an attempt that failed of 503s before the target fell over keeps its limit, though the confirmation met refusals', () => {
    expect(thirdFailed({ http_5xx: 200 }, { refused: 200 })).toMatchObject({
      stopReason: 'plateau',
      capacityPerSec: 100,
    });
  });

  it("warns of refusals, not of closed keep-alives, where the refusals explain the step's reconnects", () => {
    const s = stepResult({ completed: 1000, reconnects: 400, errors: { refused: 300 } });
    const codes = runWarnings([s], DEFAULT_RULES).map((w) => w.code);
    expect(codes).toContain('refused');
    expect(codes).not.toContain('reconnects');
    // reconnects with no refusal: the keep-alive warning, as before
    expect(runWarnings([{ ...s, errors: {} }], DEFAULT_RULES).map((w) => w.code)).toEqual(['reconnects']);
  });
});
