/**
 * A server mean of fewer requests than rules.minTailSamples is no evidence (docs/decisions/061):
 * neither the cross-check nor the failed or held step's tail is judged by it, and their words say
 * why, with its n and what gives it more.
 */
import { describe, expect, it } from 'vitest';
import { decideAttempt, type Evidence } from './decision.ts';
import { DEFAULT_GENERATOR_BOUNDS } from './generator-symptoms.ts';
import { crossCheck } from './cross-check.ts';
import { withServer } from './judge-server.ts';
import { classifyFailure, heldSymptoms } from './verdicts.ts';
import { buildInput, emptySample, nameResult, serverWindowOf, stepWithP99, type FakeStep } from './testing/builders.ts';
import type { AttemptRecord, CrossCheck, DecisionPolicy, StepPlan, StepResult } from './types.ts';

/** A 5 s window (serverWindowOf's) of `n` requests at `meanMs` each. */
const windowOf = (n: number, meanMs: number) => serverWindowOf(n / 5, meanMs);

const THIN_WORDS =
  /latency not compared: the server's mean rests on 29 requests, fewer than the 30 a mean needs \(rules\.minTailSamples\): too few to stand for its time per request; hold the steps longer \(steps\.holdS\) or offer higher rates$/;

describe('the cross-check compares the means only where the server mean rests on enough requests', () => {
  it.each<[string, number, number | null, number, CrossCheck['verdict'], RegExp]>([
    // the client's 29 requests over the same 5 s agree in throughput; its mean is 30 ms over the server's
    ['29 requests: the gap is not called queueing', 29, 40.5, 10, 'consistent', THIN_WORDS],
    [
      '30 requests: it is, as before',
      30,
      40.5,
      10,
      'client-queueing',
      /30\.00 ms per request is spent in the generator/,
    ],
    ['29 requests slower than the client: not called other traffic', 29, 10.5, 30, 'consistent', THIN_WORDS],
    ['30 requests slower than the client: other traffic, as before', 30, 10.5, 30, 'traffic-extra', /slower than/],
    ['30 requests that agree: the gap and its tolerance, as before', 30, 10.6, 10, 'consistent', /within the/],
    ['1 request', 1, 40.5, 10, 'consistent', /rests on 1 request, fewer than the 30/],
  ])('%s', (_, n, clientMeanMs, serverMeanMs, verdict, detail) => {
    const c = crossCheck(n / 5, clientMeanMs, 0.5, windowOf(n, serverMeanMs));
    expect(c.verdict, c.detail).toBe(verdict);
    expect(c.detail).toMatch(detail);
    // the figures themselves are still given, marked in the report by their count
    expect(c.serverMeanMs).toBe(serverMeanMs);
  });

  it("counts against the run's own rules.minTailSamples", () => {
    const c = crossCheck(60 / 5, 40.5, 0.5, windowOf(60, 10), 0, 'arrivals', { share: 0 }, 61);
    expect(c.verdict).toBe('consistent');
    expect(c.detail).toMatch(/rests on 60 requests, fewer than the 61 a mean needs/);
    expect(crossCheck(60 / 5, 40.5, 0.5, windowOf(60, 10), 0, 'arrivals', { share: 0 }, 60).verdict).toBe(
      'client-queueing',
    );
  });

  it('leaves the throughputs compared: a count, not a sample (decision 059: one request against 240 per second)', () => {
    expect(crossCheck(240, 10, 0.5, windowOf(1, 0.449)).verdict).toBe('traffic-missing');
    expect(crossCheck(240, null, 0.5, null).verdict).toBe('no-data');
    expect(crossCheck(29 / 5, null, 0.5, windowOf(29, 10)).detail).toMatch(/no latency to compare$/);
  });

  it("judges a step's and a mapped name's by the rules the step was judged with (withServer)", () => {
    const sample = (tS: number, count: number, sumS: number, read: [number, number]) =>
      emptySample(tS, {
        requestsCount: count,
        requestsSumS: sumS,
        routes: { read: { count: read[0], sumS: read[1] } },
      });
    // 1,000 requests of 10 ms in the window, 29 of them the route's
    const samples = [sample(10, 0, 0, [0, 0]), sample(15, 1000, 10, [29, 0.29])];
    const plan = { index: 0, ratePerSec: 200, rampStartS: 9, steadyStartS: 10, steadyEndS: 15 } as StepPlan;
    const step = stepWithP99({
      steadyStartS: 10,
      steadyEndS: 15,
      completedPerSec: 200,
      meanMs: 40.5,
      byName: { read: nameResult(29, { meanMs: 40.5 }) },
    });
    const r = withServer(step, plan, { samples, rttMs: 0.5, routes: { read: '/r' } }, 30);
    expect(r.crossCheck!.verdict).toBe('client-queueing');
    expect(r.byName!.read!.crossCheck).toMatchObject({ verdict: 'consistent' });
    expect(r.byName!.read!.crossCheck!.detail).toMatch(/^route \/r: .*rests on 29 requests, fewer than the 30/);
    expect(withServer(step, plan, { samples, rttMs: 0.5 }, 1001).crossCheck!.detail).toMatch(
      /rests on 1,000 requests, fewer than the 1,001 a mean needs/,
    );
  });
});

describe("a failed step's tail is not judged by a thin server mean", () => {
  // the first step that held: a p99 of 12 ms, a server mean of 10 ms over `n` requests
  const baselineOf = (n: number) => stepWithP99({ p99: 12, server: windowOf(n, 10) });
  // a step with drops: its client p99 and its server mean over `n` requests
  const failedOf = (p99: number, n: number, meanMs: number) =>
    stepWithP99({ index: 3, dropped: 120, p99, verdict: 'fails', server: windowOf(n, meanMs) });
  const thinAt = (at: string) =>
    new RegExp(
      `the server's mean is too thin to judge by: it rests on ${at}, fewer than the 30 a mean needs \\(rules\\.minTailSamples\\): too few to stand for its time per request; hold the steps longer \\(steps\\.holdS\\) or offer higher rates`,
    );

  it.each<[string, StepResult, StepResult, boolean, RegExp, RegExp | null]>([
    // the server's mean would say low (11 against 10), the client's p99 grew 40-fold
    [
      'its own 29: by the p99, which grew',
      failedOf(500, 29, 11),
      baselineOf(1000),
      false,
      /p99 - RTT 499\.5 ms/,
      thinAt('29 requests at step 4'),
    ],
    // the server's mean would say grew (80 against 10), the client's p99 stayed low
    [
      'its own 29: by the p99, which stayed low',
      failedOf(13, 29, 80),
      baselineOf(1000),
      true,
      /p99 - RTT 12\.5 ms/,
      thinAt('29 requests at step 4'),
    ],
    [
      "the baseline's 29",
      failedOf(13, 1000, 80),
      baselineOf(29),
      true,
      /p99 - RTT 12\.5 ms/,
      thinAt('29 requests at step 1'),
    ],
    [
      'both thin',
      failedOf(13, 3, 80),
      baselineOf(1),
      true,
      /p99 - RTT/,
      thinAt('3 requests at step 4 and 1 request at step 1'),
    ],
    [
      '30 each: by the server mean, as before',
      failedOf(500, 30, 11),
      baselineOf(30),
      true,
      /\(server mean 11\.00 ms vs 10\.00 ms at step 1\)$/,
      null,
    ],
    [
      '30 each, grown: by the server mean, as before',
      failedOf(13, 30, 80),
      baselineOf(30),
      false,
      /server mean 80\.00 ms vs 10\.00 ms/,
      null,
    ],
    [
      'no server figures: by the p99, as before',
      stepWithP99({ index: 3, dropped: 120, p99: 13, verdict: 'fails' }),
      stepWithP99({ p99: 12 }),
      true,
      /\(p99 - RTT 12\.5 ms vs 11\.5 ms at step 1\)$/,
      null,
    ],
  ])('%s', (_, s, baseline, generatorBound, tail, thin) => {
    const c = classifyFailure(s, baseline, 0.5);
    expect(c.generatorBound, c.detail).toBe(generatorBound);
    expect(c.detail).toMatch(tail);
    if (thin) expect(c.detail).toMatch(thin);
    else expect(c.detail).not.toMatch(/too thin/);
  });

  it("counts against the run's own rules.minTailSamples", () => {
    const s = failedOf(13, 60, 80);
    expect(classifyFailure(s, baselineOf(1000), 0.5, undefined, { minTailSamples: 60 }).generatorBound).toBe(false);
    const thin = classifyFailure(s, baselineOf(1000), 0.5, undefined, { minTailSamples: 61 });
    expect(thin.generatorBound).toBe(true);
    expect(thin.detail).toMatch(/rests on 60 requests at step 4, fewer than the 61 a mean needs/);
  });

  it("a held step's drops are the target's only where a mean or p99 that can be judged by grew", () => {
    const held = (p99: number, n: number, meanMs: number) => ({
      ...failedOf(p99, n, meanMs),
      verdict: 'holds' as const,
    });
    // the thin mean would have said the VUs waited on the target; the p99 says they did not
    expect(heldSymptoms(held(13, 29, 80), baselineOf(1000), 0.5)).toMatchObject({
      generatorLimited: { code: 'dropped' },
      waited: null,
    });
    expect(heldSymptoms(held(13, 30, 80), baselineOf(1000), 0.5)).toMatchObject({ generatorLimited: null });
    const waited = heldSymptoms(held(500, 29, 11), baselineOf(1000), 0.5).waited;
    expect(waited).toMatch(
      /^the target's tail grew \(p99 - RTT 499\.5 ms vs 11\.5 ms at step 1; the server's mean is too thin/,
    );
    expect(heldSymptoms(held(13, 30, 80), baselineOf(1000), 0.5, undefined, 31).waited).toBeNull();
  });
});

describe("the decision judges by the run's rules.minTailSamples", () => {
  /**
   * Step 1 holds (steady 10 to 35 s); step 2 (steady 45 to 70 s) drops arrivals, its client latency
   * as step 1's, and its server mean of 29 requests is eight times step 1's. Its result where a mean
   * needs `minTailSamples` requests.
   */
  function secondStep(second: FakeStep, minTailSamples: number): StepResult {
    const input = buildInput({ steps: [{ ratePerSec: 100 }, second] });
    const reading = (tS: number, count: number, sumS: number) =>
      emptySample(tS, { requestsCount: count, requestsSumS: sumS });
    const samples = [reading(10, 0, 0), reading(35, 2500, 25), reading(45, 2500, 25), reading(70, 2529, 27.32)];
    const ev: Evidence = { records: input.records, probes: [], rttMs: 0.5, server: { samples, rttMs: 0.5 } };
    const [first, next] = input.steps.map((s): AttemptRecord => ({ ...s, attempt: 1, maxVUs: 100 }));
    const policy: DecisionPolicy = {
      rules: { deliveryMin: 0.9, captureMin: 0.6, minTailSamples },
      bounds: DEFAULT_GENERATOR_BOUNDS,
      confirmFailedStep: true,
      rerunContaminated: true,
      maxVUsBound: 400,
    };
    return decideAttempt(decideAttempt([], first!, ev, policy).judged, next!, ev, policy).result;
  }
  const THIN =
    /p99 - RTT .*; the server's mean is too thin to judge by: it rests on 29 requests at step 2, fewer than the 30/;
  const GREW = /the target's tail grew \(server mean 80\.00 ms vs 10\.00 ms at step 1\)/;

  it('a failed step with drops: generator-bound by the p99 at 30, the target at 29', () => {
    const failed = { ratePerSec: 200, okPerSec: 120, droppedPerSec: 70 };
    const thin = secondStep(failed, 30);
    expect(thin.generatorBound).toBe(true);
    expect(thin.verdictDetail).toMatch(THIN);
    const judged = secondStep(failed, 29);
    expect(judged.generatorBound).toBeUndefined();
    expect(judged.verdictDetail).toMatch(GREW);
  });

  it('a held step with drops: generator-limited by the p99 at 30, waited on the target at 29', () => {
    const held = { ratePerSec: 200, okPerSec: 195, droppedPerSec: 5 };
    const thin = secondStep(held, 30);
    expect(thin).toMatchObject({ verdict: 'holds', generatorLimited: { code: 'dropped' } });
    expect(thin.waitedOnTarget).toBeUndefined();
    const judged = secondStep(held, 29);
    expect(judged).toMatchObject({ verdict: 'holds', waitedOnTarget: true });
    expect(judged.reasons.join('\n')).toMatch(GREW);
  });
});
