import { describe, expect, it } from 'vitest';
import {
  afterFailure,
  classifyFailure,
  confirmedOverloadShape,
  DEFAULT_GENERATOR_BOUNDS,
  generatorLimitedText,
  generatorSymptomOf,
  overloadShape,
  symptomText,
  topologyChanged,
  type GeneratorBounds,
} from './verdicts.ts';
import type { StepResult } from './types.ts';

/** The generator's symptom in words (null when it kept its bounds). */
function generatorSymptom(s: StepResult, b: GeneratorBounds): string | null {
  const sym = generatorSymptomOf(s, b);
  return sym && symptomText(sym, s);
}

/** Why a held step is generator-limited, as decision.ts words it into its reasons (null when it failed or the generator kept up). */
function heldButGeneratorLimited(s: StepResult, b: GeneratorBounds = DEFAULT_GENERATOR_BOUNDS): string | null {
  const sym = s.verdict === 'holds' ? generatorSymptomOf(s, b) : null;
  return sym && generatorLimitedText(sym, s);
}
import { stepResult } from './testing/builders.ts';

function step(over: Partial<StepResult> & { p99?: number }): StepResult {
  const { p99 = 12, ...rest } = over;
  return stepResult({
    latency: [
      { q: 50, valueMs: 10, n: 500, reliable: true },
      { q: 99, valueMs: p99, n: 500, reliable: false },
    ],
    ...rest,
  });
}

const baseline = step({ p99: 12 });

describe('heldButGeneratorLimited', () => {
  it('marks a held step whose generator lagged, looped late or dropped, even with no drop at all', () => {
    expect(heldButGeneratorLimited(step({ lagP99Ms: 54.2 }))).toMatch(
      /^generator-limited while holding: scheduler lag p99 54\.2 ms > 20 ms;/,
    );
    expect(heldButGeneratorLimited(step({ loopDelayMaxMs: 170 }))).toMatch(/event-loop delay 170 ms > 100 ms/);
    expect(heldButGeneratorLimited(step({ dropped: 473 }))).toMatch(/473 arrivals dropped/);
    expect(heldButGeneratorLimited(step({ dropped: 1 }))).toMatch(/: 1 arrival dropped \(no free VU/);
    expect(
      heldButGeneratorLimited(step({ lagP99Ms: 30 }), { lagP99MaxMs: 50, loopDelayMaxMs: 100, tailFactor: 3 }),
    ).toBeNull();
  });

  it("marks a held step whose generator's busiest thread was saturated, at the configured bound", () => {
    expect(heldButGeneratorLimited(step({ generatorBusy: 0.93 }))).toMatch(
      /generator's busiest thread busy 93% of the time > 90%/,
    );
    expect(heldButGeneratorLimited(step({ generatorBusy: 0.903 }))).toMatch(/busy 90\.3% of the time > 90%/);
    expect(heldButGeneratorLimited(step({ generatorBusy: 0.85 }))).toBeNull();
    expect(
      heldButGeneratorLimited(step({ generatorBusy: 0.85 }), {
        lagP99MaxMs: 20,
        loopDelayMaxMs: 100,
        generatorBusyMax: 0.8,
        tailFactor: 3,
      }),
    ).toMatch(/busy 85% of the time > 80%/);
    expect(heldButGeneratorLimited(step({ generatorBusy: null }))).toBeNull();
  });

  it("marks a held step whose generator's process used nearly all its CPUs (k6's, where no thread is measured)", () => {
    expect(heldButGeneratorLimited(step({ generatorBusy: null, generatorCpu: 0.96 }))).toMatch(
      /generator's process used 96% of the CPUs it may use > 90%/,
    );
    expect(heldButGeneratorLimited(step({ generatorBusy: null, generatorCpu: 0.9 }))).toBeNull();
    expect(
      heldButGeneratorLimited(step({ generatorCpu: 0.85 }), {
        lagP99MaxMs: 20,
        loopDelayMaxMs: 100,
        generatorBusyMax: 0.8,
        tailFactor: 3,
      }),
    ).toMatch(/used 85% of the CPUs it may use > 80%/);
  });

  it('says when late arrivals came from stalls rather than a thread short of CPU', () => {
    expect(heldButGeneratorLimited(step({ lagP99Ms: 25, generatorBusy: 0.55 }))).toMatch(
      /scheduler lag p99 25\.0 ms > 20 ms while its busiest thread was busy only 55% of the time: the delays are stalls \(the target or other processes on this machine, CPU steal, GC pauses\), not a generator short of CPU/,
    );
    // Measured suspects come first with their figures; steal measured low is no suspect.
    expect(
      heldButGeneratorLimited(step({ lagP99Ms: 25, generatorBusy: 0.55, cpuSteal: 0.081, throttledMs: 1_234.5 })),
    ).toMatch(
      /the delays are stalls \(the container's CPU quota, which throttled it 1,235 ms, CPU steal, 8% of the machine's time, the target or other processes on this machine, GC pauses\)/,
    );
    expect(
      heldButGeneratorLimited(step({ lagP99Ms: 25, generatorBusy: 0.55, cpuSteal: 0.004, throttledMs: 0 })),
    ).toMatch(/the delays are stalls \(the target or other processes on this machine, GC pauses\)/);
    expect(heldButGeneratorLimited(step({ lagP99Ms: 25, generatorBusy: 0.55, cpuSteal: 0.012 }))).toMatch(
      /the delays are stalls \(CPU steal, 1% of the machine's time, the target or other processes on this machine, GC pauses\)/,
    );
    expect(heldButGeneratorLimited(step({ lagP99Ms: 25, generatorBusy: 0.8 }))).not.toMatch(/stalls/);
    expect(heldButGeneratorLimited(step({ lagP99Ms: 25 }))).not.toMatch(/stalls/); // not measured (k6): no claim
  });

  it('leaves alone a step that kept its schedule, and a failed step (classifyFailure speaks for it)', () => {
    expect(heldButGeneratorLimited(step({}))).toBeNull();
    expect(heldButGeneratorLimited(step({ lagP99Ms: 54, verdict: 'fails' }))).toBeNull();
  });
});

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

describe('scheduler lag judged like any tail', () => {
  it('takes the p99 from 3,000 arrivals, the p90 from 300, and neither below', () => {
    expect(generatorSymptom(step({ lagP99Ms: 34, lagP90Ms: 5, lagSamples: 3_000 }), DEFAULT_GENERATOR_BOUNDS)).toMatch(
      /^scheduler lag p99 34\.0 ms > 20 ms/,
    );
    expect(
      generatorSymptom(step({ lagP99Ms: 34, lagP90Ms: 5, lagSamples: 2_999 }), DEFAULT_GENERATOR_BOUNDS),
    ).toBeNull();
    expect(generatorSymptom(step({ lagP99Ms: 34, lagP90Ms: 25, lagSamples: 750 }), DEFAULT_GENERATOR_BOUNDS)).toMatch(
      /^scheduler lag p90 25\.0 ms > 20 ms \(its p99 rests on 750 arrivals, too few\)/,
    );
    expect(
      generatorSymptom(step({ lagP99Ms: 34, lagP90Ms: 25, lagSamples: 299 }), DEFAULT_GENERATOR_BOUNDS),
    ).toBeNull();
    // a run recorded before the sample count was kept: its p99 as it is
    expect(generatorSymptom(step({ lagP99Ms: 34 }), DEFAULT_GENERATOR_BOUNDS)).toMatch(/^scheduler lag p99 34\.0 ms/);
    // a held step at a low rate with one stall is not generator-limited for it (its loop delay may still say so)
    expect(heldButGeneratorLimited(step({ lagP99Ms: 80.6, lagP90Ms: 12, lagSamples: 1_000 }))).toBeNull();
    expect(
      heldButGeneratorLimited(step({ lagP99Ms: 80.6, lagP90Ms: 12, lagSamples: 1_000, loopDelayMaxMs: 115 })),
    ).toMatch(/event-loop delay 115 ms > 100 ms/);
  });
});

describe('afterFailure', () => {
  const policy = { confirmFailedStep: true, rerunContaminated: true, maxVUs: 50, maxVUsBound: 150 };
  const target = { generatorBound: false, symptom: null, symptomCode: null, needsVUs: false, detail: 'target' };
  const vus = {
    generatorBound: true,
    symptom: 'drops',
    symptomCode: null,
    needsVUs: true,
    detail: 'generator-limited',
  };
  const cpu = { generatorBound: true, symptom: 'lag', symptomCode: null, needsVUs: false, detail: 'generator-limited' };
  const inconclusive = {
    generatorBound: false,
    symptom: 'drops',
    symptomCode: null,
    needsVUs: true,
    inconclusive: true,
    detail: 'no baseline',
  };
  it.each([
    ['target, first attempt: confirm', target, false, 1, policy, 'rerun', 50],
    ['target, second attempt: stop', target, false, 2, policy, 'stop', undefined],
    ['no confirmation configured', target, false, 1, { ...policy, confirmFailedStep: false }, 'stop', undefined],
    ['short of VUs: double within the bound', vus, false, 1, policy, 'rerun', 100],
    ['short of VUs at the bound: stop', vus, false, 1, { ...policy, maxVUs: 150 }, 'stop', undefined],
    ['generator CPU: stop', cpu, false, 1, policy, 'stop', undefined],
    ['topology changed: rerun', target, true, 1, { ...policy, confirmFailedStep: false }, 'rerun', 50],
    ['topology changed while short of VUs: rerun with more', vus, true, 1, policy, 'rerun', 100],
    ['topology changed while short of CPU: rerun, not stop', cpu, true, 1, policy, 'rerun', 50],
    [
      'no baseline, drops: rerun with more VUs',
      inconclusive,
      false,
      1,
      { ...policy, confirmFailedStep: false },
      'rerun',
      100,
    ],
    ['no baseline, drops, at the bound: confirm', inconclusive, false, 1, { ...policy, maxVUs: 150 }, 'rerun', 150],
    ['no baseline, second attempt: stop', inconclusive, false, 2, policy, 'stop', undefined],
  ] as const)('%s', (_n, cls, contaminated, attempt, p, action, maxVUs) => {
    const d = afterFailure(cls, contaminated, attempt, p);
    expect(d.action).toBe(action);
    if (d.action === 'rerun') expect(d.maxVUs).toBe(maxVUs);
  });

  it('a step rerun for a topology change is not marked generator-bound: it does not decide', () => {
    expect(afterFailure(cpu, true, 1, policy)).toMatchObject({
      action: 'rerun',
      generatorBound: false,
      contaminated: true,
    });
    expect(afterFailure(inconclusive, false, 1, policy)).toMatchObject({ generatorBound: false });
  });

  it("short of VUs at the bound: plateau's setting to raise, or for an imported k6 run its script's", () => {
    const at = { ...policy, maxVUs: 150 };
    expect(afterFailure(vus, false, 1, at).why).toBe(
      'generator-limited; maxVUs is at its bound 150: raise verdicts.maxVUsBound',
    );
    expect(afterFailure(vus, false, 1, { ...at, imported: true }).why).toBe(
      "generator-limited; raise the k6 scenario's maxVUs and run it again",
    );
  });
});

describe('overloadShape', () => {
  const knee = step({ index: 3, ratePerSec: 400, throughputPerSec: 398 });
  it.each([
    ['plateau', step({ index: 4, ratePerSec: 450, throughputPerSec: 401, verdict: 'fails' })],
    ['collapse', step({ index: 4, ratePerSec: 450, throughputPerSec: 300, verdict: 'fails' })],
    [
      'errors',
      step({
        index: 4,
        ratePerSec: 450,
        throughputPerSec: 300,
        errorRate: 0.3,
        errors: { http_5xx: 600 },
        verdict: 'fails',
      }),
    ],
    ['generator-bound', step({ index: 4, ratePerSec: 450, generatorBound: true, verdict: 'fails' })],
  ] as const)('%s', (shape, bad) => {
    const o = overloadShape(knee, bad);
    expect(o.shape).toBe(shape);
    expect(o.meaning.length).toBeGreaterThan(20);
  });
  it('none when nothing failed', () => expect(overloadShape(knee, null).shape).toBe('none'));
  it('successes counted as a lower bound: a collapse only where even every completion is under the best before', () => {
    // 112 ok of 125 completed: the failed requests, not a fall of what was served (pre60-reject: 130 exact)
    const bounded = step({ index: 4, ratePerSec: 150, throughputPerSec: 112, completedPerSec: 125, verdict: 'fails' });
    const best = step({ index: 3, ratePerSec: 120, throughputPerSec: 120 });
    expect(overloadShape(best, bounded, best).shape).toBe('collapse');
    expect(overloadShape(best, bounded, best, 'arrivals/s', true).shape).toBe('plateau');
    const fell = { ...bounded, throughputPerSec: 60, completedPerSec: 70 };
    expect(overloadShape(best, fell, best, 'arrivals/s', true)).toMatchObject({
      shape: 'collapse',
      evidence:
        'throughput fell from at least 120.0 arrivals/s (at 120 offered) to at most 70.0 arrivals/s at 150 offered (its completions)',
    });
  });
  it("a confirmed failure's shape is its confirmation's, and a first attempt that read otherwise is said", () => {
    const knee89 = step({ index: 2, ratePerSec: 90, throughputPerSec: 89.3 });
    const stalled = step({ index: 3, ratePerSec: 120, throughputPerSec: 0.1, verdict: 'fails' });
    const confirmation = step({ index: 3, attempt: 2, ratePerSec: 120, throughputPerSec: 85.1, verdict: 'fails' });
    const o = confirmedOverloadShape(knee89, [stalled, confirmation], knee89);
    expect(o.shape).toBe('plateau');
    expect(o.evidence).toBe(
      'throughput 85.1 req/s at 120 offered vs 89.3 at the knee (attempt 2, which the run stopped on; attempt 1 read collapse: throughput fell from 89.3 req/s (at 90 offered) to 0.1 req/s at 120 offered)',
    );
    // attempts that agree: the confirmation's evidence alone
    const again = { ...stalled, attempt: 2, throughputPerSec: 0.2 };
    expect(confirmedOverloadShape(knee89, [stalled, again], knee89)).toEqual(overloadShape(knee89, again, knee89));
    expect(confirmedOverloadShape(knee89, [], knee89).shape).toBe('none');
  });
});

describe('topologyChanged', () => {
  const s = (tS: number, topology: number | null) => ({ tS, phase: 'steps', topology });
  it('sees a change inside the interval only', () => {
    expect(topologyChanged([s(1, 2), s(3, 2), s(6, 3)], 'steps', 0, 5)).toEqual({ changed: false, values: [2] });
    expect(topologyChanged([s(1, 2), s(3, 3)], 'steps', 0, 5)).toEqual({ changed: true, values: [2, 3] });
  });
});
