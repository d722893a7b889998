import { describe, expect, it } from 'vitest';
import { aggregate } from './buckets.ts';
import { judgeStep, steadyWindowS } from './judge.ts';
import { requestErrorRate } from './judge-server.ts';
import { analyzeRun } from './analyze.ts';
import { warningTexts } from '../reports/warning-text.ts';
import { kneeResult } from './deciding-steps.ts';
import {
  buildInput,
  buildPlan,
  buildRecords,
  DEFAULT_RULES,
  fakeRun,
  followingSteps,
  stepResult,
  topologySamples,
  withAttempts,
  type FakeRunSpec,
  type FakeStep,
} from './testing/builders.ts';
import type { StepResult, StopReason } from './types.ts';

/** Steps at the given rates achieving the given successful throughput. */
function steps(rates: number[], okPerSec: number[], extra: Partial<FakeStep>[] = []): FakeStep[] {
  return rates.map((ratePerSec, i) => ({ ratePerSec, okPerSec: okPerSec[i], ...extra[i] }));
}

interface Case {
  name: string;
  spec: FakeRunSpec;
  verdicts: StepResult['verdict'][];
  stopReason: StopReason;
  capacityPerSec: number | null;
  /** What the run held at least (default: the capacity). */
  heldAtLeastPerSec?: number | null;
  kneeStep: number | null;
  peakStep: number | null;
  detail: RegExp;
}

const CASES: Case[] = [
  {
    name: 'clean knee: follows 100..400, flattens at ~410',
    spec: { steps: steps([100, 200, 300, 400, 450, 500], [100, 200, 300, 400, 410, 411]) },
    verdicts: ['holds', 'holds', 'holds', 'holds', 'fails', 'fails'],
    stopReason: 'plateau',
    capacityPerSec: 400,
    kneeStep: 3,
    peakStep: 5,
    detail:
      /^step 5 \(450 req\/s\) captured 0\.20 < 0\.60 of the added rate \(\+10\.0 req\/s for \+50 offered\): throughput stopped following the offered rate at about 410 req\/s$/,
  },
  {
    name: 'collapse: throughput falls after the knee',
    spec: { steps: steps([100, 200, 300, 400, 500, 600], [100, 200, 300, 400, 250, 150]) },
    verdicts: ['holds', 'holds', 'holds', 'holds', 'fails', 'fails'],
    stopReason: 'plateau',
    capacityPerSec: 400,
    kneeStep: 3,
    peakStep: 3,
    detail:
      /^step 5 \(500 req\/s\) delivered 0\.50 < 0\.90 .*about 400 req\/s; throughput fell from 400\.0 to 250\.0 req\/s \(collapse\)$/,
  },
  {
    name: 'noisy: a step at 0.91 delivery still holds',
    spec: { steps: steps([100, 200, 300, 400], [100, 182, 290, 385]) },
    verdicts: ['holds', 'holds', 'holds', 'holds'],
    stopReason: 'max-rate-reached',
    capacityPerSec: null,
    heldAtLeastPerSec: 385,
    kneeStep: 3,
    peakStep: 3,
    detail: /^all 4 planned steps held/,
  },
  {
    name: 'capture below 0.60 fails although delivery >= 0.90',
    spec: { steps: steps([100, 200, 250], [100, 200, 227]) },
    verdicts: ['holds', 'holds', 'fails'],
    stopReason: 'plateau',
    capacityPerSec: 200,
    kneeStep: 1,
    peakStep: 2,
    detail: /captured 0\.54 < 0\.60/,
  },
  {
    // a stall just before step 3's window: its backlog completed inside it, 3% over what was offered
    name: 'a window that drained a backlog (delivery over 1): the next step captures from the offered rate',
    spec: { steps: steps([100, 200, 300, 350, 400], [100, 200, 309, 335, 340]) },
    verdicts: ['holds', 'holds', 'holds', 'holds', 'fails'],
    stopReason: 'plateau',
    // step 4 captured (335 - 300) / 50 = 0.70; from the drained 309 it read 0.52 and stopped the
    // run there, a step early, on a plateau that was not there
    capacityPerSec: 335,
    kneeStep: 3,
    peakStep: 4,
    detail: /^step 5 \(400 req\/s\) delivered 0\.85 < 0\.90/,
  },
  {
    // the knee itself drained a backlog: what it sustained is at most what it was offered
    name: 'a knee that delivered over 1 gives the offered rate as the capacity, not its surge',
    spec: { steps: steps([100, 200, 300], [100, 206, 212]) },
    verdicts: ['holds', 'holds', 'fails'],
    stopReason: 'plateau',
    capacityPerSec: 200,
    kneeStep: 1,
    peakStep: 2,
    detail: /^step 3 \(300 req\/s\) delivered 0\.71 < 0\.90/,
  },
  {
    name: 'fail-fast 503s: many completions, few successes',
    spec: { steps: steps([100, 200, 300], [100, 200, 120], [{}, {}, { failedPerSec: 180, latencyMs: 1 }]) },
    verdicts: ['holds', 'holds', 'fails'],
    stopReason: 'plateau',
    capacityPerSec: 200,
    kneeStep: 1,
    peakStep: 1,
    detail: /delivered 0\.40 < 0\.90 \(120\.0 req\/s achieved\).*60\.00% of completed requests failed/,
  },
  {
    name: 'first step fails',
    spec: { steps: steps([100, 200], [50, 60]) },
    verdicts: ['fails', 'fails'],
    stopReason: 'failed-first-step',
    capacityPerSec: null,
    kneeStep: null,
    peakStep: 1,
    detail: /^step 1 \(100 req\/s\), the first step, delivered 0\.50 < 0\.90/,
  },
  {
    name: 'all steps hold',
    spec: { steps: followingSteps(5) },
    verdicts: ['holds', 'holds', 'holds', 'holds', 'holds'],
    // every planned step held: no capacity was established, only what the run held at least
    stopReason: 'max-rate-reached',
    capacityPerSec: null,
    heldAtLeastPerSec: 500,
    kneeStep: 4,
    peakStep: 4,
    detail: /step 5 \(500 req\/s\), achieved 500\.0 req\/s/,
  },
  {
    name: 'interrupted mid-step',
    // step 2's steady window is [80, 105): stop 12 s into it
    spec: { steps: followingSteps(5), stopAtS: 92, interrupted: true },
    verdicts: ['holds', 'holds', 'incomplete'],
    stopReason: 'interrupted',
    capacityPerSec: null,
    heldAtLeastPerSec: 200,
    kneeStep: 1,
    // step 3's 12 s of its window are not the peak (decision 049)
    peakStep: 1,
    detail:
      /^interrupted during step 3 \(300 req\/s, its hold, 12 s into its 25 s steady window\), after step 2 \(200 req\/s\); /,
  },
  {
    // an imported k6 run goes on past a failure: a step that held after it says it was no limit
    name: 'a later step that held contradicts the failure: no capacity (unconfirmed), the knee a lower bound',
    spec: { steps: steps([100, 200, 300, 400], [100, 200, 150, 400]) },
    verdicts: ['holds', 'holds', 'fails', 'holds'],
    stopReason: 'unconfirmed',
    capacityPerSec: null,
    heldAtLeastPerSec: 200,
    kneeStep: 1,
    peakStep: 3,
    detail:
      /^step 3 \(300 req\/s\) delivered 0\.50 .*, but step 4 \(400 req\/s\) held after it \(400\.0 req\/s achieved\): the failure was no limit .*capacity not established \(200\.0 req\/s held before it\)/,
  },
  {
    name: 'run ends early without being marked interrupted',
    spec: { steps: followingSteps(4), stopAtS: 92 },
    verdicts: ['holds', 'holds', 'incomplete'],
    stopReason: 'error',
    capacityPerSec: null,
    heldAtLeastPerSec: 200,
    kneeStep: 1,
    peakStep: 1,
    detail: /not marked interrupted/,
  },
];

describe('analyzeRun: the plateau rule', () => {
  it.each(CASES)('$name', (c) => {
    const run = fakeRun(c.spec);
    expect(run.steps.map((s) => s.verdict)).toEqual(c.verdicts);
    expect(run.stopReason).toBe(c.stopReason);
    if (c.capacityPerSec === null) expect(run.capacityPerSec).toBeNull();
    else expect(run.capacityPerSec).toBeCloseTo(c.capacityPerSec, 6);
    expect(run.kneeStep).toBe(c.kneeStep);
    expect(run.peakStep).toBe(c.peakStep);
    expect(run.stopDetail).toMatch(c.detail);
    expect(run.interrupted).toBe(c.spec.interrupted ?? false);
    expect(run.schemaVersion).toBe(2);
    expect(run.heldAtLeastPerSec ?? null).toBe(
      c.heldAtLeastPerSec === undefined ? run.capacityPerSec : c.heldAtLeastPerSec,
    );
  });

  it('gives reasons with numbers for a failing step', () => {
    const run = fakeRun({ steps: steps([200, 250], [200, 205.1]) });
    expect(run.steps[1].reasons).toEqual([
      'delivery 0.82 < 0.90: 205.1 req/s achieved of 250 offered',
      'capture 0.10 < 0.60: +5.1 req/s for +50 offered',
    ]);
    expect(run.steps[0].reasons).toEqual([]);
  });

  it('never reads "0.90 < 0.90": a ratio just under its bound gets the decimals that show it', () => {
    const run = fakeRun({ steps: steps([30_000, 33_000], [30_000, 29_593]) });
    expect(run.steps[1].reasons[0]).toBe('delivery 0.897 < 0.90: 29,593.0 req/s achieved of 33,000 offered');
    expect(run.stopDetail).toMatch(/^step 2 \(33,000 req\/s\) delivered 0\.897 < 0\.90 /);
  });

  it('counts only successful completions as throughput; failures go to completedPerSec and errorRate', () => {
    const run = fakeRun({
      steps: [{ ratePerSec: 300, okPerSec: 120, failedPerSec: 180, status: '503', errorSample: 'Service Unavailable' }],
    });
    const [s] = run.steps;
    expect(s.throughputPerSec).toBe(120);
    expect(s.completedPerSec).toBe(300);
    expect(s.errorRate).toBeCloseTo(0.6, 9);
    expect(s.errors).toEqual({ http_5xx: 4500 });
    expect(s.statuses).toEqual({ '503': 4500 });
    expect(s.errorSamples).toEqual(['Service Unavailable']);
    expect(s.latency.every((p) => p.n === 3000)).toBe(true);
  });
});

describe('judgeStep: only the steady window counts', () => {
  const spec: FakeRunSpec = { steps: followingSteps(3), transient: 'garbage', warmupS: 10 };
  const plan = buildPlan(spec);
  const records = buildRecords(spec);

  it('ignores zero-throughput ramp, settle and warmup seconds', () => {
    const run = fakeRun(spec);
    expect(run.steps.map((s) => s.verdict)).toEqual(['holds', 'holds', 'holds']);
    expect(run.steps.map((s) => s.throughputPerSec)).toEqual([100, 200, 300]);
    expect(run.steps.map((s) => s.steadyS)).toEqual([25, 25, 25]);
  });

  it('a whole-step average would have failed the same step', () => {
    const step = plan[1];
    const whole = aggregate(records, 'steps', step.rampStartS, step.holdEndS);
    const wholeDelivery = whole.ok / whole.seconds / step.ratePerSec;
    expect(wholeDelivery).toBeLessThan(DEFAULT_RULES.deliveryMin);
    expect(judgeStep(step, null, records, DEFAULT_RULES).delivery).toBe(1);
  });

  it('capture is null without a previous step and when the rate did not increase', () => {
    const first = judgeStep(plan[0], null, records, DEFAULT_RULES);
    expect(first.capture).toBeNull();
    const second = judgeStep(plan[1], first, records, DEFAULT_RULES);
    expect(second.capture).toBe(1);
    expect(judgeStep(plan[1], second, records, DEFAULT_RULES).capture).toBeNull();
  });

  it('is not-run without data, and reads whole buckets of a fractional window', () => {
    const late = { ...plan[2], index: 3, steadyStartS: 500, steadyEndS: 525 };
    const r = judgeStep(late, null, records, DEFAULT_RULES);
    expect(r.verdict).toBe('not-run');
    expect(r.latency.every((p) => p.valueMs === null && !p.reliable)).toBe(true);
    expect(steadyWindowS({ ...plan[0], steadyStartS: 15.5, steadyEndS: 40 })).toEqual({
      fromS: 16,
      toS: 40,
      plannedS: 24,
    });
  });

  it('fills latency, lag, VU and count figures', () => {
    const r = judgeStep(plan[1], null, records, DEFAULT_RULES);
    expect(r.latency.map((p) => p.q)).toEqual([50, 90, 99, 99.9]);
    expect(r.latency[0].valueMs).toBeCloseTo(10, 0);
    expect(r.latency.map((p) => p.reliable)).toEqual([true, true, true, false]);
    expect(r.meanMs).toBeGreaterThan(10);
    expect(r.maxMs).toBeGreaterThanOrEqual(r.latency[3].valueMs ?? Infinity);
    expect(r.lagP99Ms).toBeCloseTo(0.1, 3);
    expect(r.started).toBe(5000);
    expect(r.vusActiveMax).toBe(3);
    expect(r.vusAllocatedMax).toBe(100);
  });
});

describe('an interrupted run: the second the stop fell in', () => {
  it('is left out where it offered part of its rate, kept where it offered a whole one (a stop after the schedule)', () => {
    // Ctrl-C during the last step's graceful drain: every second of the schedule whole
    const drained = analyzeRun(buildInput({ steps: followingSteps(3), interrupted: true }));
    expect(drained.steps.map((st) => st.verdict)).toEqual(['holds', 'holds', 'holds']);
    // a stop 12 s into step 3's window: its second a third offered, left out
    const cut = fakeRun({ steps: followingSteps(5), stopAtS: 92, interrupted: true });
    expect(cut.steps[2]).toMatchObject({ verdict: 'incomplete', steadyS: 12, throughputPerSec: 300 });
  });
});

describe('analyzeRun: warnings', () => {
  it('names unreliable percentiles of holding steps, drops, lag, loop delay and short windows', () => {
    const run = fakeRun({
      steps: [
        { ratePerSec: 100 },
        { ratePerSec: 200, droppedPerSec: 50, lagMs: 23.4, loopDelayMaxMs: 87 },
        { ratePerSec: 300 },
      ],
      stopAtS: 92,
      interrupted: true,
    });
    expect(run.warnings.map((w) => [w.code, w.step])).toEqual([
      ['dropped', 1],
      ['late-start', 1],
      ['loop-delay', 1],
      ['window-short', 2],
      ['thin-percentile', null],
      ['thin-percentile', null],
    ]);
    expect(warningTexts(run)).toEqual([
      'step 2 dropped 1,250 arrivals: no free VU; raise maxVUs or this step measures the generator',
      'step 2 started arrivals late: scheduler lag p99 23.4 ms > 10 ms; the generator is short of CPU, so this step may measure the generator',
      'step 2 saw event-loop delay up to 87.0 ms > 50 ms: the generator stalled and its stalls are inside the latencies; use more cores or the k6 engine',
      'step 3 steady window is 12 s of 25 s planned: its figures rest on fewer seconds and it was not judged',
      'p99 of the held step 1 rests on 2,500 samples (needs 3,000): shown, marked unreliable; longer holds (--hold) or higher rates collect enough',
      'p99.9 of the held steps 1 and 2 rests on 2,500 to 5,000 samples (needs 30,000): shown, marked unreliable; longer holds (--hold) or higher rates collect enough',
    ]);
  });

  it('says which step delivered more than it was offered, and that the capacity counts at most the offered rate', () => {
    const run = fakeRun({ steps: steps([100, 200, 300], [100, 206, 212]) });
    expect(run.warnings.filter((w) => w.code === 'over-delivered').map((w) => w.step)).toEqual([1]);
    expect(warningTexts(run)).toContain(
      "step 2 delivered 1.03: 206.0 req/s succeeded of 200 offered, so arrivals from before its steady window (a stall as it began) completed inside it, a surge the target did not sustain; where the step is a baseline (the capacity, the next step's capture) it counts at most the 200 req/s offered",
    );
    // 2% over is the schedule's jitter: not said
    expect(fakeRun({ steps: steps([100, 200], [100, 204]) }).warnings.map((w) => w.code)).not.toContain(
      'over-delivered',
    );
  });

  it('a collapse is read from what the knee sustained, and "held at least" says the offered rate, not a surge', () => {
    // the knee (200/s) drained a backlog: 212; step 3 fell to 195, under 95% of 212 but not of 200
    const fell = fakeRun({ steps: steps([100, 200, 300], [100, 212, 195]) });
    expect(fell.stopDetail).not.toMatch(/collapse/);
    expect(fakeRun({ steps: steps([100, 200, 300], [100, 212, 180]) }).stopDetail).toMatch(
      /throughput fell from 200\.0 to 180\.0 req\/s \(collapse\)$/,
    );
    // every step held, the last over its rate: at least what it was offered
    expect(fakeRun({ steps: steps([100, 200], [100, 208]) }).stopDetail).toBe(
      'all 2 planned steps held; the last, step 2 (200 req/s), achieved 208.0 req/s: capacity is at least the 200 req/s offered, raise the top rate to find the plateau',
    );
  });

  it("a closed model's steps were offered no rate: their throughput is not capped at the flags' rates, nor said to exceed them", () => {
    const spec: FakeRunSpec = { steps: steps([100, 200, 300], [100, 260, 310]) };
    const open = analyzeRun(buildInput(spec));
    const closed = analyzeRun({ ...buildInput(spec), closedModel: true });
    // open: step 3 captured (310 - 200) / 100 from the 200 offered; closed: (310 - 260) / 100
    expect(open.steps.map((st) => st.verdict)).toEqual(['holds', 'holds', 'holds']);
    expect(closed.steps.map((st) => st.verdict)).toEqual(['holds', 'holds', 'fails']);
    expect(open.warnings.map((w) => w.code)).toContain('over-delivered');
    expect(closed.warnings.map((w) => w.code)).not.toContain('over-delivered');
  });

  it('merges raw buckets of several sources into the same result', () => {
    const spec: FakeRunSpec = { steps: steps([100, 200, 300], [100, 200, 230]) };
    const one = analyzeRun(buildInput(spec));
    const three = analyzeRun(buildInput({ ...spec, sources: 3 }));
    expect(three).toEqual(one);
  });
});

describe('a held step whose generator was over its bounds', () => {
  it('is generator-limited from its own buckets (so a rebuilt report says it too), and still counts', () => {
    const run = fakeRun({ steps: [{ ratePerSec: 100 }, { ratePerSec: 200, lagMs: 54.2 }, { ratePerSec: 300 }] });
    expect(run.steps[1]).toMatchObject({
      verdict: 'holds',
      generatorLimited: { code: 'late-arrivals', step: 1, figures: { quantile: 99, boundMs: 20 } },
    });
    expect(run.steps[1].reasons).toHaveLength(1);
    expect(run.steps[1].reasons[0]).toMatch(
      /^generator-limited while holding: scheduler lag p99 5\d\.\d ms > 20 ms; the rate was served/,
    );
    expect(run.steps[0].generatorLimited).toBeUndefined();
    expect(run.capacityPerSec).toBeNull(); // every planned step held
    expect(run.heldAtLeastPerSec).toBe(run.steps[2].throughputPerSec);
  });
});

describe('reruns: the attempt that replaced another decides', () => {
  /** Steps 100, 200, 300 where 300 ran twice: attempt 1 as given, attempt 2 as the fourth fake step. */
  function rerunAt300(first: Partial<FakeStep>, second: Partial<FakeStep>) {
    const input = buildInput({
      steps: [{ ratePerSec: 100 }, { ratePerSec: 200 }, { ratePerSec: 300, ...first }, { ratePerSec: 300, ...second }],
    });
    return analyzeRun(withAttempts(input, { 3: { index: 2 } }));
  }

  it('a generator-bound attempt rerun with more VUs that then failed at the target: a plateau, not generator-bound', () => {
    const run = rerunAt300({ okPerSec: 230, droppedPerSec: 40 }, { okPerSec: 230, latencyMs: 200 });
    expect(run.steps[2]).toMatchObject({ attempt: 1, generatorBound: true });
    expect(run.steps[2].generatorSymptom?.code).toBe('dropped');
    expect(run.stopReason).toBe('plateau');
    expect(run.stopDetail).toMatch(/^step 3 \(300 req\/s\) delivered 0\.77 < 0\.90/);
    expect(run.generatorBound).toBe(false);
    expect(run.overload?.shape).not.toBe('generator-bound');
    expect(run.capacityPerSec).toBe(200);
  });

  it('a generator-bound failure followed by a step that held (an import) stays generator-bound, not unconfirmed', () => {
    const run = analyzeRun(
      buildInput({
        steps: [
          { ratePerSec: 100 },
          { ratePerSec: 200 },
          { ratePerSec: 300, okPerSec: 230, droppedPerSec: 40 },
          { ratePerSec: 400 },
        ],
      }),
    );
    expect(run.steps.map((s) => s.verdict)).toEqual(['holds', 'holds', 'fails', 'holds']);
    expect(run.steps[2].generatorBound).toBe(true);
    expect(run.stopReason).toBe('generator-bound');
    expect(run.capacityPerSec).toBeNull();
  });

  it('the stop detail gives the figures of the attempt that confirmed the failure, and says so', () => {
    const run = rerunAt300({ okPerSec: 240 }, { okPerSec: 255 });
    expect(run.steps.filter((s) => s.index === 2).map((s) => s.verdict)).toEqual(['fails', 'fails']);
    expect(run.stopReason).toBe('plateau');
    expect(run.stopDetail).toMatch(
      /^step 3 \(300 req\/s, attempt 2, which confirmed it\) delivered 0\.85 < 0\.90 \(255\.0 req\/s achieved\)/,
    );
    expect(run.capacityPerSec).toBe(200);
  });

  it("an imported k6 run's generator fix is its script's (maxVUs), a live run's plateau's config", () => {
    const input = buildInput({
      steps: [{ ratePerSec: 100 }, { ratePerSec: 200 }, { ratePerSec: 300, okPerSec: 230, droppedPerSec: 40 }],
    });
    expect(analyzeRun({ ...input, imported: true }).stopDetail).toMatch(
      /To measure further, raise the k6 scenario's maxVUs \(\d+ were allocated\) and run it again$/,
    );
    expect(analyzeRun(input).stopDetail).toMatch(
      /To measure further, allow more VUs \(vus\.max and verdicts\.maxVUsBound/,
    );
  });

  it("an imported k6 run's failure past the knee is confirmed by a later step that fails too, never by itself alone", () => {
    const once = buildInput({ steps: steps([100, 200, 300], [100, 200, 150]) });
    // a live run stops on a failure its policy confirmed
    expect(analyzeRun(once)).toMatchObject({ stopReason: 'plateau', capacityPerSec: 200 });
    const alone = analyzeRun({ ...once, imported: true });
    expect(alone).toMatchObject({ stopReason: 'unconfirmed', capacityPerSec: null, heldAtLeastPerSec: 200 });
    expect(alone.stopDetail).toMatch(
      /^step 3 \(300 req\/s\) delivered 0\.50 < 0\.90 .*, and no step after it confirmed the failure .*capacity not established \(200\.0 req\/s held before it\): run the k6 scenario with a stage or two past 300 req\/s$/,
    );
    const twice = buildInput({ steps: steps([100, 200, 300, 400], [100, 200, 150, 140]) });
    expect(analyzeRun({ ...twice, imported: true })).toMatchObject({ stopReason: 'plateau', capacityPerSec: 200 });
    // cut short after it (a k6 file of whole lines ending mid-step: interrupted), the failure a later
    // step confirmed still establishes the limit, and the cut is said after it
    const cut = buildInput({
      steps: steps([100, 200, 300, 400, 500], [100, 200, 150, 140, 130]),
      stopAtS: 172,
      interrupted: true,
    });
    const confirmedThenCut = analyzeRun({ ...cut, imported: true });
    expect(confirmedThenCut.steps.map((s) => s.verdict)).toEqual(['holds', 'holds', 'fails', 'fails', 'incomplete']);
    expect(confirmedThenCut).toMatchObject({ stopReason: 'plateau', capacityPerSec: 200, interrupted: true });
    expect(confirmedThenCut.stopDetail).toMatch(
      /^step 3 \(300 req\/s\) delivered 0\.50 .*; the run was then cut short \(interrupted during step 5 \(500 req\/s, its hold, 22 s into its 25 s steady window\), after step 4 \(400 req\/s\)\)$/,
    );
    // a next step the generator could not drive confirms nothing, and its fix is the generator's
    const thenBound = buildInput({
      steps: [
        { ratePerSec: 100 },
        { ratePerSec: 200 },
        { ratePerSec: 300, okPerSec: 150 },
        { ratePerSec: 400, okPerSec: 330, droppedPerSec: 60 },
      ],
    });
    const bound = analyzeRun({ ...thenBound, imported: true });
    expect(bound.steps[3].generatorBound).toBe(true);
    expect(bound).toMatchObject({ stopReason: 'unconfirmed', capacityPerSec: null });
    expect(bound.stopDetail).toMatch(
      /: step 4 \(400 req\/s\) could not confirm it, the generator's limit: raise the k6 scenario's maxVUs \(\d+ were allocated\) and run it again$/,
    );
    // a first step that fails keeps its own reason and fix (start lower)
    const first = buildInput({ steps: steps([100, 200], [50, 60]) });
    expect(analyzeRun({ ...first, imported: true }).stopReason).toBe('failed-first-step');
  });

  it('a generator-bound rerun of a generator-bound attempt still stops as generator-bound, and capacity is not established', () => {
    const input = buildInput({
      steps: [
        { ratePerSec: 100 },
        { ratePerSec: 200 },
        { ratePerSec: 300, okPerSec: 230, droppedPerSec: 40 },
        { ratePerSec: 300, okPerSec: 240, droppedPerSec: 30 },
      ],
    });
    const run = analyzeRun(withAttempts(input, { 3: { index: 2 } }));
    expect(run.steps.map((s) => s.generatorBound === true)).toEqual([false, false, true, true]);
    expect(run.stopReason).toBe('generator-bound');
    expect(run.generatorBound).toBe(true);
    expect(run.capacityPerSec).toBeNull();
    expect(run.heldAtLeastPerSec).toBe(200);
  });

  it('the models and the knee read the attempt that held, not the transient failure before it', () => {
    const input = buildInput({
      steps: [
        { ratePerSec: 100 },
        { ratePerSec: 200, okPerSec: 120 },
        { ratePerSec: 200 },
        { ratePerSec: 300, okPerSec: 210 },
      ],
    });
    const run = analyzeRun(withAttempts(input, { 2: { index: 1 } }));
    expect(run.steps.map((s) => s.transient === true)).toEqual([false, true, false, false]);
    expect(run.kneeStep).toBe(1);
    expect(kneeResult(run)).toMatchObject({ index: 1, attempt: 2, throughputPerSec: 200 });
    expect(run.models!.little.map((l) => [l.index, l.throughputPerSec])).toEqual([
      [0, 100],
      [1, 200],
      [2, 210],
    ]);
    expect(run.models!.little.map((l) => l.attempt)).toEqual([1, 2, 1]);
    expect(run.models!.utilisation.map((u) => [u.index, u.attempt])).toEqual([
      [0, 1],
      [1, 2],
      [2, 1],
    ]);
    expect(run.models!.utilisation.find((u) => u.index === 1)!.rho).toBeCloseTo(200 / 210, 3);
  });

  it('a step whose topology changed is contaminated, from the probe samples alone, and counts as run when the run ends early', () => {
    const input = buildInput({ steps: followingSteps(4) });
    const s3 = input.steps[3];
    input.samples = topologySamples([
      [s3.rampStartS, 2],
      [s3.steadyStartS, 2],
      [s3.steadyEndS, 3],
    ]);
    input.plannedSteps = 6;
    const run = analyzeRun(input);
    expect(run.steps.map((s) => s.contaminated === true)).toEqual([false, false, false, true]);
    expect(run.steps[3].topologyValues).toEqual([2, 3]);
    expect(run.stopReason).toBe('error');
    expect(run.stopDetail).toMatch(
      /^the run ended after step 4 \(\d+ req\/s\): the remaining 2 planned steps produced no data$/,
    );
  });

  it('a first step that failed with a generator symptom and nothing to compare its tail with blames neither side', () => {
    const input = buildInput({ steps: [{ ratePerSec: 500, okPerSec: 400, droppedPerSec: 50, latencyMs: 2000 }] });
    const run = analyzeRun(input);
    expect(run.stopReason).toBe('failed-first-step');
    expect(run.steps[0].inconclusive).toBe(true);
    expect(run.stopDetail).toMatch(
      /^step 1 \(500 req\/s\), the first step, delivered 0\.80 < 0\.90 \(400\.0 req\/s achieved\); \d+ arrivals dropped \(no free VU; \d+ allocated\), and no step held before it to tell whether the target's tail grew: .*start lower/,
    );
    expect(run.stopDetail).not.toMatch(/the target sustains less/);
    expect(run.capacityPerSec).toBeNull();
    expect(run.heldAtLeastPerSec).toBeNull();
  });
});

describe('requestErrorRate: what the server cross-check compares', () => {
  it('leaves out the arrivals of a one-request run that sent nothing (the scenario threw)', () => {
    // 100 arrivals/s, 10 of them unsent (so 90 requests/s), 19 failed in all: 9 of the 90 requests
    const s = stepResult({ completedPerSec: 100, requestsPerSec: 90, errorRate: 0.19 });
    expect(requestErrorRate(s)).toBeCloseTo(0.1, 10);
    // without requests counted apart, the arrivals' rate is the requests'
    expect(requestErrorRate(stepResult({ completedPerSec: 100, errorRate: 0.19 }))).toBe(0.19);
  });
});
