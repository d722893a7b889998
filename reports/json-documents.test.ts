import { describe, expect, it } from 'vitest';
import { fakeRun, stepResult } from '../analysis/testing/builders.ts';
import type { RunResult } from '../analysis/types.ts';
import { compareDocument, relativeChange } from './compare-json.ts';
import { gateDocument } from './gate-json.ts';
import type { GateDecision } from '../analysis/gate/decide.ts';
import { planDocument, type PlanJsonInput } from './plan-json.ts';

const RULES = { deliveryMin: 0.9, captureMin: 0.6, minTailSamples: 30 };

function planInput(over: Partial<PlanJsonInput> = {}): PlanJsonInput {
  const steps = [100, 200].map((ratePerSec, index) => ({
    index,
    ratePerSec,
    rampStartS: index * 11,
    holdStartS: index * 11 + 1,
    holdEndS: index * 11 + 11,
    steadyStartS: index * 11 + 3,
    steadyEndS: index * 11 + 11,
  }));
  return {
    plan: {
      target: 'http://t/x',
      steps,
      durationS: 22,
      settleS: 2,
      rules: RULES,
      vus: { preAllocatedVUs: 10, maxVUs: 40, reason: 'given' },
      expectedSteadySamples: [800, 1600],
    },
    steps: { startPerSec: 100, stepPerSec: 100, maxPerSec: 250, rampS: 1, holdS: 10 },
    warmup: { enabled: true, ratePerSec: 50, stableWindows: 3, windowS: 2, tolerance: 0.15, maxS: 20 },
    reset: [{ kind: 'sql', database: 'db', statements: 2, tables: ['orders'] }],
    resetRuns: true,
    threads: { sizes: false, why: 'the engine cannot size threads' },
    scenario: null,
    traffic: null,
    engine: { kind: 'k6', executionSegment: '0:1/2', segmentShare: 0.5 },
    ...over,
  };
}

describe('the plan document', () => {
  it('holds each step with its expected samples and the percentiles they back, and its warnings', () => {
    const doc = planDocument(planInput());
    expect(doc.steps.map((s) => [s.ratePerSec, s.expectedSamples, s.trustedPercentiles])).toEqual([
      [100, 800, [50, 90]],
      [200, 1600, [50, 90]],
    ]);
    expect(doc.steps[0].untrustedPercentiles).toEqual([
      { q: 99, requiredSamples: 3000 },
      { q: 99.9, requiredSamples: 30000 },
    ]);
    expect(doc.warnings.map((w) => w.code)).toEqual(['last-step-below-max', 'few-samples', 'few-samples']);
    // steps numbered as the text numbers them (step 1, step 2), not by their 0-based index
    expect(doc.warnings.flatMap((w) => (w.code === 'few-samples' ? [w.step] : []))).toEqual([1, 2]);
    expect(doc.warnings[1].text).toMatch(/^step 1 expects/);
    expect(doc.timing).toEqual({ rampS: 1, holdS: 10, settleS: 2, steadyS: 8 });
    // a rerun of each step counted, as the text plan and the arrivals a unique source must cover count it
    expect(doc.durations).toEqual({ stepsS: 22, warmupMaxS: 20, atMostS: 65 });
    expect(doc.stages).toEqual(['preflight', 'reset', 'rtt', 'warmup', 'steps', 'report']);
    expect(doc.engine.segmentShare).toBe(0.5);
  });

  it('counts the load at most limits.maxDurationS, where the run is stopped', () => {
    expect(planDocument(planInput({ maxDurationS: 50 })).durations).toEqual({
      stepsS: 22,
      warmupMaxS: 20,
      atMostS: 50,
    });
    expect(planDocument(planInput({ maxDurationS: 3600 })).durations.atMostS).toBe(65);
  });

  it('a disabled warmup adds no time, and a grid that reaches its top warns of nothing but samples', () => {
    const doc = planDocument(
      planInput({ warmup: { ...planInput().warmup, enabled: false }, steps: { ...planInput().steps, maxPerSec: 200 } }),
    );
    expect(doc.warmup).toEqual({ enabled: false });
    expect(doc.durations).toEqual({ stepsS: 22, warmupMaxS: null, atMostS: 44 });
    expect(doc.stages).toEqual(['preflight', 'reset', 'rtt', 'steps', 'report']);
    expect(doc.warnings.some((w) => w.code === 'last-step-below-max')).toBe(false);
  });

  it('warns of the transactions only preflight measures, with the figures of what it refuses', () => {
    const doc = planDocument(planInput({ transactions: ['checkout'], transactionTimeoutMs: 30_000 }));
    expect(doc.warnings.find((w) => w.code === 'transaction-unmeasured')).toMatchObject({
      transactions: ['checkout'],
      settleS: 2,
      judgedS: 8,
      underLoad: 1.5,
      transactionTimeoutMs: 30_000,
      text: expect.stringMatching(
        /^transaction "checkout": plan cannot tell how long it lasts .* to that plus 8, keeping the judged 8 s of each hold/,
      ),
    });
    expect(planDocument(planInput()).warnings.some((w) => w.code === 'transaction-unmeasured')).toBe(false);
  });

  // a review: plan's own list of stages had no threads, which run goes through between the warmup and the steps
  it.each<[string, Partial<PlanJsonInput>, string[]]>([
    [
      'threads sized, in the run order',
      { threads: { sizes: true, of: 4 } },
      ['preflight', 'reset', 'rtt', 'warmup', 'threads', 'steps', 'report'],
    ],
    [
      'no reset hook, threads sized',
      { resetRuns: false, reset: [], threads: { sizes: true, of: 4 } },
      ['preflight', 'rtt', 'warmup', 'threads', 'steps', 'report'],
    ],
  ])('lists the stages the run goes through: %s', (_, over, stages) => {
    const doc = planDocument(planInput(over));
    expect(doc.stages).toEqual(stages);
    expect(doc.threads).toEqual(over.threads);
  });
});

describe('the gate document', () => {
  const decision: GateDecision = {
    status: 'invalid',
    exitCode: 3,
    headline: 'cannot judge: x',
    reasons: ['x'],
    warnings: ['w'],
    baselinePerSec: 400,
    currentPerSec: null,
    stepPerSec: 100,
    tolerance: 0.05,
  };
  it('a side without a knee says null, not step 0', () => {
    const none: RunResult = fakeRun({
      steps: [
        { ratePerSec: 100, okPerSec: 10 },
        { ratePerSec: 200, okPerSec: 10 },
      ],
    });
    const held = fakeRun({ steps: [100, 200, 300].map((r) => ({ ratePerSec: r, okPerSec: Math.min(r, 210) })) });
    const doc = gateDocument(decision, none, held, null);
    expect(doc.run).toMatchObject({ knee: null, comparedPerSec: null });
    // 1-based as compare --json numbers its knee, never summary.json's 0-based kneeStep under its name
    expect(doc.baseline).toMatchObject({ knee: { step: held.kneeStep! + 1, ratePerSec: 200 }, comparedPerSec: 400 });
    expect(doc.baseline).not.toHaveProperty('kneeStep');
    expect(doc.baseline.peakPerSec).toBe(held.peakPerSec);
    expect(doc).toMatchObject({ status: 'invalid', exitCode: 3, reasons: ['x'], warnings: ['w'], cost: null });
  });
});

describe('the compare document', () => {
  it.each([
    [100, 110, 0.1],
    [0, 5, null],
    [null, 5, null],
    [200, 150, -0.25],
  ])('relativeChange(%s, %s) = %s', (a, b, v) => {
    const c = relativeChange(a, b);
    if (v === null) expect(c).toBeNull();
    else expect(c).toBeCloseTo(v, 12);
  });

  it("a run whose only step measured was cut short has no peak: no change against it, as the table's dash", () => {
    const a = fakeRun({ steps: [{ ratePerSec: 100 }, { ratePerSec: 200 }] }),
      b = fakeRun({ steps: [{ ratePerSec: 100 }, { ratePerSec: 200 }], stopAtS: 18, interrupted: true });
    const doc = compareDocument({ a, b, rows: [], warnings: [], cost: null });
    expect(doc.b).toMatchObject({ peakPerSec: 0 });
    expect(doc.change.peak).toBeNull();
  });

  it('a rate only one run offered has null on the other side and no change', () => {
    const a = fakeRun({ steps: [{ ratePerSec: 100 }] }),
      b = fakeRun({ steps: [{ ratePerSec: 100 }, { ratePerSec: 200 }] });
    const s = stepResult({ ratePerSec: 200, index: 1, throughputPerSec: 190 });
    const doc = compareDocument({ a, b, rows: [{ ratePerSec: 200, a: null, b: s }], warnings: [], cost: null });
    expect(doc.rates[0]).toEqual({
      ratePerSec: 200,
      a: null,
      b: expect.objectContaining({
        step: 2,
        throughputPerSec: 190,
        p50: { valueMs: 10, samples: 500, reliable: true },
        p99: null,
      }),
      change: { throughput: null, p99: null },
    });
  });
});
