import { describe, expect, it } from 'vitest';
import { classifyFailure, heldSymptoms } from './verdicts.ts';
import { serverWindowOf, stepResult, stepWithP99 as step } from './testing/builders.ts';

const baseline = step({ p99: 12 });

describe('classifyFailure', () => {
  it('drops with a low tail: the generator ran out of VUs', () => {
    const c = classifyFailure(step({ index: 3, dropped: 120, p99: 14, verdict: 'fails' }), baseline, 0.5);
    expect(c).toMatchObject({ generatorBound: true, needsVUs: true });
    expect(c.detail).toMatch(/^generator-limited, not a server limit: 120 arrivals dropped/);
  });
  it('drops refused on a saturated thread (TLS): the generator is short of CPU, and more VUs would not help', () => {
    const all = classifyFailure(
      step({ index: 3, dropped: 120, droppedBusy: 120, p99: 14, verdict: 'fails' }),
      baseline,
      0.5,
    );
    expect(all).toMatchObject({ generatorBound: true, needsVUs: false });
    expect(all.detail).toMatch(
      /120 arrivals dropped \(no free VU; \d+ allocated, all of them while the generator's thread was saturated, when it opens no new TLS connection\)/,
    );
    const some = classifyFailure(
      step({ index: 3, dropped: 120, droppedBusy: 20, p99: 14, verdict: 'fails' }),
      baseline,
      0.5,
    );
    expect(some).toMatchObject({ generatorBound: true, needsVUs: true });
    expect(some.detail).toMatch(/, 20 of them while the generator's thread was saturated/);
    // With the target's tail grown, the VUs did not run out waiting for it when none was wanted.
    expect(
      classifyFailure(step({ dropped: 120, droppedBusy: 120, p99: 900, verdict: 'fails' }), baseline, 0.5).detail,
    ).toMatch(/: the target is the limit$/);
  });
  it("drops too few to have failed the step: the target's failure, not the generator's, whatever the tail", () => {
    // a target shedding a third of its arrivals with fast 503s (its tail low), one arrival of 2,400 dropped
    const shed = step({
      index: 3,
      ratePerSec: 120,
      steadyS: 20,
      throughputPerSec: 80,
      dropped: 1,
      p99: 14,
      verdict: 'fails',
    });
    const c = classifyFailure(shed, baseline, 0.5, undefined, { deliveryMin: 0.9 });
    expect(c).toMatchObject({ generatorBound: false, needsVUs: false });
    expect(c.detail).toBe(
      '1 arrival dropped (no free VU; 10 allocated), but with every dropped arrival served the step would still deliver 0.667 < 0.9: the drops did not fail it, the target did',
    );
    // with no step held before it: the same (the drops cannot be what failed it)
    expect(classifyFailure(shed, null, 0.5, undefined, { deliveryMin: 0.9 })).toMatchObject({ generatorBound: false });
    expect(classifyFailure(shed, null, 0.5, undefined, { deliveryMin: 0.9 }).inconclusive).toBeUndefined();
    // drops that would have made the difference keep the generator's blame
    const short = { ...shed, throughputPerSec: 100, dropped: 200 };
    expect(classifyFailure(short, baseline, 0.5, undefined, { deliveryMin: 0.9 })).toMatchObject({
      generatorBound: true,
    });
    // a drop beside another symptom (the scheduler late by seconds, a busy thread) leaves the generator blamed
    const lagging = { ...shed, lagP99Ms: 4000, generatorBusy: 0.99 };
    expect(classifyFailure(lagging, baseline, 0.5, undefined, { deliveryMin: 0.9 })).toMatchObject({
      generatorBound: true,
    });
    // successes a lower bound: judged on every completion (the most served)
    expect(
      classifyFailure({ ...shed, completedPerSec: 110 }, baseline, 0.5, undefined, {
        deliveryMin: 0.9,
        okLowerBound: true,
      }),
    ).toMatchObject({ generatorBound: true });
    expect(
      classifyFailure({ ...shed, completedPerSec: 90 }, baseline, 0.5, undefined, {
        deliveryMin: 0.9,
        okLowerBound: true,
      }).detail,
    ).toMatch(/would still deliver at most 0\.750 < 0\.9/);
    // without the rules' bound (older callers): as before
    expect(classifyFailure(shed, baseline, 0.5)).toMatchObject({ generatorBound: true });
    // no step held before a failure whose drops could be what failed it: start lower, or for an import its stages
    expect(classifyFailure(short, null, 0.5, undefined, { deliveryMin: 0.9 }).detail).toMatch(
      /start lower \(steps\.startPerSec\)/,
    );
    expect(classifyFailure(short, null, 0.5, undefined, { deliveryMin: 0.9, imported: true }).detail).toMatch(
      /start the k6 script's stages lower/,
    );
  });
  it('drops where no request succeeded (every one timed out): the target is the limit, said without a tail it has not', () => {
    const hung = stepResult({
      dropped: 120,
      verdict: 'fails',
      latency: [{ q: 99, valueMs: null, n: 0, reliable: false }],
    });
    const c = classifyFailure(hung, baseline, 0.5);
    expect(c.generatorBound).toBe(false);
    expect(c.detail).toMatch(
      /, but none of its requests succeeded: every one failed or timed out: the target is the limit/,
    );
    expect(c.detail).not.toMatch(/tail grew/);
  });

  it('drops while requests timed out, the successes fast: the timeouts are the tail, the target is the limit', () => {
    // a user's hung confirm: 42 of 376 checkouts timed out, the p99 of the successes low
    const hung = step({ dropped: 120, p99: 13, verdict: 'fails', completed: 376, errors: { timeout: 42 } });
    const c = classifyFailure(hung, baseline, 0.5);
    expect(c.generatorBound).toBe(false);
    expect(c.detail).toMatch(
      /, but 42 of its 376 completions timed out \(11\.17%\): its tail is the timeout, not the p99 of its successes: the target is the limit/,
    );
    // under 1% of them: a p99 of the successes can still speak for the tail
    expect(classifyFailure({ ...hung, errors: { timeout: 3 } }, baseline, 0.5).generatorBound).toBe(true);
  });

  it('drops with a grown tail: the target is the limit, and its latency held the VUs', () => {
    const c = classifyFailure(step({ dropped: 120, p99: 900, verdict: 'fails' }), baseline, 0.5);
    expect(c.generatorBound).toBe(false);
    expect(c.detail).toMatch(
      /^120 arrivals dropped .*, but the target's tail grew \(p99 - RTT 899\.5 ms vs 11\.5 ms at step 1\): the target is the limit and the VUs ran out waiting for it$/,
    );
  });
  it('lag with a grown tail: the target is the limit; no VU ran out', () => {
    const c = classifyFailure(step({ lagP99Ms: 45, p99: 900, verdict: 'fails' }), baseline, 0.5);
    expect(c.generatorBound).toBe(false);
    expect(c.detail).toMatch(/: the target is the limit$/);
  });
  it('stalls with a low tail: the detail keeps the stall and the tail apart', () => {
    const c = classifyFailure(step({ lagP99Ms: 45, p99: 13, verdict: 'fails', generatorBusy: 0.5 }), baseline, 0.5);
    expect(c.detail).toMatch(
      /^generator-limited, not a server limit: scheduler lag p99 45\.0 ms > 20 ms while its busiest thread was busy only 50% of the time: .*not a generator short of CPU; the target's tail stayed low \(p99 - RTT 12\.5 ms vs 11\.5 ms at step 1\)$/,
    );
  });
  it('scheduler lag with a low tail: generator CPU', () => {
    expect(classifyFailure(step({ lagP99Ms: 45, p99: 13, verdict: 'fails' }), baseline, 0.5)).toMatchObject({
      generatorBound: true,
      needsVUs: false,
    });
  });
  it('no symptom: the target', () => {
    expect(classifyFailure(step({ verdict: 'fails', p99: 13 }), baseline, 0.5).generatorBound).toBe(false);
  });
  it('prefers the server mean when it was read', () => {
    const server = (meanMs: number) => ({
      source: 'scrape' as const,
      fromS: 0,
      toS: 5,
      throughputPerSec: 100,
      meanMs,
      maxMs: null,
      poolActiveMax: null,
      poolPendingMax: null,
      poolMax: null,
    });
    const b = step({ server: server(10) });
    expect(classifyFailure(step({ dropped: 5, p99: 500, server: server(11) }), b, 0.5).generatorBound).toBe(true);
    expect(classifyFailure(step({ dropped: 5, p99: 13, server: server(80) }), b, 0.5).generatorBound).toBe(false);
  });
});

describe('classifyFailure without a step that held before', () => {
  it('blames neither side: no baseline, not the failed step itself, against which its tail always reads low', () => {
    const first = step({ dropped: 250, p99: 7_600, verdict: 'fails' });
    for (const c of [classifyFailure(first, null, 0.5), classifyFailure(first, first, 0.5)]) {
      expect(c).toMatchObject({ generatorBound: false, needsVUs: true, inconclusive: true });
      expect(c.detail).toMatch(
        /^250 arrivals dropped .*, and no step held before it to tell whether the target's tail grew: .*start lower \(steps\.startPerSec\)/,
      );
    }
    expect(classifyFailure(step({ verdict: 'fails' }), null, 0.5).inconclusive).toBeUndefined();
  });
});

// A one-thread generator against nginx (12-08): step 5 at 50,000 req/s dropped 85,816 arrivals
// with its thread busy 100% and its p99 - RTT at 326 ms against 2.1 ms, while nginx's worker used
// 60% of a core; read as the target's tail, the generator's ceiling was stated as nginx's capacity.
describe("a saturated generator's client tail is its own queue, not the target's", () => {
  const base = step({ p99: 2.6 });
  const saturated = step({ index: 4, dropped: 85_816, p99: 326.7, generatorBusy: 1, verdict: 'fails' });

  it('fails generator-bound, asks for no VUs, and says why the tail is not read', () => {
    const c = classifyFailure(saturated, base, 0.5);
    expect(c).toMatchObject({ generatorBound: true, needsVUs: false });
    expect(c.detail).toBe(
      "generator-limited, not a server limit: 85816 arrivals dropped (no free VU; 10 allocated) while its busiest thread was busy 100% of the time > 90%; the client's tail (p99 - RTT 326.2 ms vs 2.1 ms at step 1) cannot show the target's: the generator was saturated (its busiest thread was busy 100% of the time > 90%), so its own queue is in every request's time",
    );
    // its process over the bound (k6's, which has no thread figure) reads the same way
    const k6 = { ...saturated, generatorBusy: null, generatorCpu: 0.97 };
    expect(classifyFailure(k6, base, 0.5)).toMatchObject({ generatorBound: true, needsVUs: false });
  });

  it('a busy share within the bound leaves the tail as it was read', () => {
    const c = classifyFailure({ ...saturated, generatorBusy: 0.85 }, base, 0.5);
    expect(c.generatorBound).toBe(false);
    expect(c.detail).toMatch(/the target's tail grew .*: the target is the limit and the VUs ran out waiting for it$/);
  });

  it("timeouts are its own too, but the server's grown mean is the target's", () => {
    const timedOut = { ...saturated, completed: 1000, errors: { timeout: 50 } };
    expect(classifyFailure(timedOut, base, 0.5).generatorBound).toBe(true);
    const server = (meanMs: number) => serverWindowOf(100, meanMs);
    const c = classifyFailure({ ...saturated, server: server(80) }, { ...base, server: server(10) }, 0.5);
    expect(c.generatorBound).toBe(false);
    expect(c.detail).toMatch(/the target's tail grew \(server mean 80\.00 ms vs 10\.00 ms at step 1\)/);
  });

  it('no step held before it: inconclusive, and no rerun for VUs', () => {
    expect(classifyFailure(saturated, null, 0.5)).toMatchObject({ inconclusive: true, needsVUs: false });
  });

  it("a held step's drops stay the generator's: generator-limited, not waited on the target", () => {
    const held = { ...saturated, dropped: 40, verdict: 'holds' as const };
    expect(heldSymptoms(held, base, 0.5)).toMatchObject({ generatorLimited: { code: 'dropped' }, waited: null });
    expect(heldSymptoms({ ...held, generatorBusy: 0.5 }, base, 0.5).waited).toMatch(/^the target's tail grew/);
  });
});
