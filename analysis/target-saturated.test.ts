import { describe, expect, it } from 'vitest';
import { classifyFailure, heldSymptoms } from './verdicts.ts';
import { unloadedOf } from './target-saturated.ts';
import { attemptsAtTarget, generatorBoundFailure } from './deciding-steps.ts';
import { serverWindowOf, stepResult } from './testing/builders.ts';
import type { StepResult, WarmupRecord } from './types.ts';

/** A review's pool-2 run: step 1 already queued 135 requests for 2 connections; step 2's rerun lagged too. */
const step1 = stepResult({
  server: serverWindowOf(210.7, 555.96, { poolActiveMax: 2, poolPendingMax: 135, poolMax: 2, poolActiveMean: 2 }),
});
const lagged = (server: StepResult['server']) =>
  stepResult({ index: 1, attempt: 2, ratePerSec: 280, verdict: 'fails', lagP99Ms: 25.5, lagSamples: 4000, server });
/** A warmup at 100 arrivals/s whose 2 s windows read these medians. */
const warmupOf = (p50s: number[], stable: boolean, tookS: number): WarmupRecord => ({
  stable,
  tookS,
  ratePerSec: 100,
  windows: p50s.map((p50Ms, i) => ({ fromS: 5 + 2 * i, throughputPerSec: 100, p50Ms })),
});
const warmup = warmupOf([370.94, 21.5, 11.23], false, 11.5);
const unloaded = unloadedOf(warmup, 0.586, 'arrivals/s');
const p50 = (valueMs: number) => [{ q: 50, valueMs, lowerMs: 0, upperMs: 0, n: 600, reliable: true }];

describe("a step whose target saturated is not the generator's, whatever the generator showed beside it", () => {
  it("the unloaded figure is the warmup's median minus the RTT", () => {
    expect(unloaded?.ms).toBeCloseTo(21.5 - 0.586, 6);
    expect(unloaded?.text).toBe("the unloaded figure, the warmup's median at 100 arrivals/s minus the RTT, 20.9 ms");
    expect(unloadedOf(null, 0.5, 'req/s')).toBeNull();
  });
  it('a pool at its limit with requests waiting: the target is the limit, though the tail grew only 2.4x on step 1', () => {
    const s = lagged(
      serverWindowOf(202.3, 1325.81, { poolActiveMax: 2, poolPendingMax: 592, poolMax: 2, poolActiveMean: 2 }),
    );
    // read against a step 1 already saturated alone, its tail stayed low: generator-bound
    expect(classifyFailure(lagged(serverWindowOf(202.3, 1325.81)), step1, 0.586).generatorBound).toBe(true);
    const c = classifyFailure(s, step1, 0.586, undefined, undefined, unloaded);
    expect(c.generatorBound).toBe(false);
    expect(c.detail).toMatch(
      /but the target was saturated \(its connection pool was at its limit, active up to 2 of 2 with up to 592 requests waiting for a connection\): the target is the limit$/,
    );
  });
  it('no pool reading: a server median far above the unloaded figure is saturation; one within it leaves the generator blamed', () => {
    const far = classifyFailure(
      lagged({ ...serverWindowOf(202.3, 1325.81), percentiles: p50(1495) }),
      step1,
      0.586,
      undefined,
      undefined,
      unloaded,
    );
    expect(far.generatorBound).toBe(false);
    expect(far.detail).toMatch(/its server median 1,500 ms is over 3x the unloaded figure/);
    const near = lagged({ ...serverWindowOf(202.3, 40), percentiles: p50(30) });
    const c = classifyFailure(
      near,
      { ...step1, server: serverWindowOf(210.7, 30) },
      0.586,
      undefined,
      undefined,
      unloaded,
    );
    expect(c.generatorBound).toBe(true);
    expect(c.detail).toMatch(/its server median 30.0 ms is within 3x the unloaded figure, the warmup's median/);
  });
});

describe("without the server's figures, a step whose only symptom is drops for want of a VU is read by the client's median", () => {
  // a target queueing past its capacity from step 1 on (a newcomer's run): warmup median 5.3 ms at 175/s
  const warm = unloadedOf(warmupOf([5.4, 5.3, 5.2], true, 7), 0.6, 'arrivals/s');
  const lat = (p50Ms: number, p99Ms: number) => [
    { q: 50, valueMs: p50Ms, n: 960, reliable: true },
    { q: 99, valueMs: p99Ms, n: 960, reliable: false },
  ];
  const first = stepResult({ index: 0, ratePerSec: 345, throughputPerSec: 316.7, latency: lat(302, 448) });
  const dropped = (over: Partial<StepResult>) =>
    stepResult({
      index: 1,
      ratePerSec: 395,
      throughputPerSec: 322,
      delivery: 0.82,
      verdict: 'fails',
      dropped: 219,
      vusAllocatedMax: 200,
      latency: lat(593, 623),
      ...over,
    });
  it('a median far over the unloaded figure: the VUs ran out waiting on the target, though its p99 grew only 1.4x on step 1', () => {
    expect(classifyFailure(dropped({}), first, 0.6).generatorBound).toBe(true);
    const c = classifyFailure(dropped({}), first, 0.6, undefined, { deliveryMin: 0.9 }, warm);
    expect(c.generatorBound).toBe(false);
    expect(c.detail).toMatch(
      /but the target was saturated \(its median 593 ms less the RTT and the generator's loop delay \(5\.00 ms\) is over 3x the unloaded figure, the warmup's median at 100 arrivals\/s minus the RTT, 4\.70 ms\): the target is the limit$/,
    );
    // with no step held before it, the same evidence blames the target rather than leaving it inconclusive
    const alone = classifyFailure(dropped({ index: 0 }), null, 0.6, undefined, { deliveryMin: 0.9 }, warm);
    expect(alone).toMatchObject({ generatorBound: false });
    expect(alone.inconclusive).toBeUndefined();
  });
  it("a median near the unloaded figure leaves the drops the generator's: too few VUs for a target that kept its time", () => {
    const c = classifyFailure(dropped({ latency: lat(9, 30) }), first, 0.6, undefined, { deliveryMin: 0.9 }, warm);
    expect(c.generatorBound).toBe(true);
    expect(c.detail).toMatch(
      /; its median 9\.00 ms less the RTT and the generator's loop delay \(5\.00 ms\) is not over 3x/,
    );
  });
  it("a first step that held with such drops: the target's (waited), not generator-limited", () => {
    const held = dropped({ index: 0, verdict: 'holds', delivery: 0.92, dropped: 30 });
    expect(heldSymptoms(held, null, 0.6)).toMatchObject({ generatorLimited: { code: 'dropped' }, waited: null });
    const h = heldSymptoms(held, null, 0.6, undefined, undefined, warm);
    expect(h.generatorLimited).toBeNull();
    expect(h.waited).toMatch(/^the target was saturated \(its median 593 ms less the RTT/);
    expect(
      heldSymptoms({ ...held, latency: lat(9, 30) }, null, 0.6, undefined, undefined, warm).generatorLimited,
    ).toMatchObject({ code: 'dropped' });
  });
  it("the generator's own loop delay is taken off the median before it is read", () => {
    // 60 ms of median, 50 of them the generator's loop: 9.4 ms left, under 3 x 4.7
    expect(
      classifyFailure(dropped({ latency: lat(60, 80), loopDelayMaxMs: 50 }), first, 0.6, undefined, undefined, warm)
        .generatorBound,
    ).toBe(true);
  });
  it("another symptom beside the drops (a busy thread, late arrivals, drops on a saturated thread): the client's median is not read", () => {
    for (const over of [
      { generatorBusy: 0.95 },
      { lagP99Ms: 45, lagSamples: 4000 },
      { droppedBusy: 10 },
    ] satisfies Partial<StepResult>[])
      expect(classifyFailure(dropped(over), first, 0.6, undefined, undefined, warm).generatorBound).toBe(true);
  });
});

describe('one reading of a generator-bound run: the deciding failure, as the headline reads it', () => {
  const held = stepResult({ index: 0, ratePerSec: 200 });
  const atTarget = stepResult({ index: 1, ratePerSec: 280, verdict: 'fails' });
  const confirmation = stepResult({ index: 1, attempt: 2, ratePerSec: 280, verdict: 'fails', generatorBound: true });
  it("a failure at the target whose confirming rerun was generator-bound stays the target's", () => {
    expect(generatorBoundFailure([held, atTarget, confirmation])).toBeNull();
    expect(attemptsAtTarget([held, atTarget, confirmation], atTarget)).toEqual([atTarget]);
  });
  it("a first failure of the generator's is the run's limit", () => {
    const first = { ...atTarget, generatorBound: true };
    expect(generatorBoundFailure([held, first])).toBe(first);
    expect(attemptsAtTarget([held, first], first)).toEqual([first]);
  });
});

describe('a failed first step with a generator symptom', () => {
  const first = (server: StepResult['server']) =>
    stepResult({ index: 0, ratePerSec: 200, verdict: 'fails', lagP99Ms: 25.5, lagSamples: 4000, server });
  it("is the target's where its pool queued: no step held to judge a tail by, and none is needed", () => {
    const c = classifyFailure(
      first(serverWindowOf(160.2, 1180, { poolActiveMax: 2, poolPendingMax: 410, poolMax: 2, poolActiveMean: 2 })),
      null,
      0.586,
      undefined,
      undefined,
      unloaded,
    );
    expect(c.inconclusive).toBeUndefined();
    expect(c.generatorBound).toBe(false);
    expect(c.detail).toMatch(
      /but the target was saturated \(its connection pool was at its limit, active up to 2 of 2 with up to 410 requests waiting/,
    );
  });
  it('stays inconclusive without such evidence: a pool with nobody waiting, a median within 3x the unloaded figure', () => {
    const calm = first({
      ...serverWindowOf(160.2, 30, { poolActiveMax: 1, poolPendingMax: 0, poolMax: 2, poolActiveMean: 0.6 }),
      percentiles: p50(30),
    });
    const c = classifyFailure(calm, null, 0.586, undefined, undefined, unloaded);
    expect(c.inconclusive).toBe(true);
    expect(c.generatorBound).toBe(false);
  });
});

describe('a fast target (review G3, G4)', () => {
  // the client's warmup median 0.62 ms, the fastest round trip 0.58 ms: an unloaded figure near 0
  const fastWarmup = warmupOf([0.7, 0.62, 0.61], true, 10);
  const near0 = unloadedOf(fastWarmup, 0.58, 'req/s');
  const failed = (server: StepResult['server']) =>
    stepResult({ index: 1, ratePerSec: 5000, verdict: 'fails', lagP99Ms: 80, lagSamples: 4000, server });
  const held = stepResult({
    index: 0,
    ratePerSec: 1000,
    server: { ...serverWindowOf(1000, 0.36), percentiles: p50(0.35) },
  });
  it('a median that never moved is not saturation, however many times a near-0 unloaded figure it is', () => {
    const c = classifyFailure(
      failed({ ...serverWindowOf(4990, 0.36), percentiles: p50(0.35) }),
      held,
      0.58,
      undefined,
      undefined,
      near0,
    );
    expect(c.generatorBound).toBe(true);
    expect(c.detail).toMatch(/its server median 0\.350 ms is within 5 ms of the unloaded figure, .* under 0\.1 ms\)$/);
  });
  it('a median more than 5 ms and 3x above it is', () => {
    const c = classifyFailure(
      failed({ ...serverWindowOf(4990, 9), percentiles: p50(8) }),
      held,
      0.58,
      undefined,
      undefined,
      near0,
    );
    expect(c.generatorBound).toBe(false);
  });
  it("requests waiting for a connection are saturation where the pool's size is not read", () => {
    const c = classifyFailure(
      failed(serverWindowOf(4990, 0.36, { poolActiveMax: 10, poolPendingMax: 40, poolMax: null })),
      held,
      0.58,
      undefined,
      undefined,
      null,
    );
    expect(c.generatorBound).toBe(false);
    expect(c.detail).toMatch(
      /the target was saturated \(its connection pool was at its limit with up to 40 requests waiting for a connection\)/,
    );
  });
});
