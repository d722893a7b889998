import { describe, expect, it } from 'vitest';
import { fakeRun } from '../testing/builders.ts';
import type { RunResult } from '../types.ts';
import {
  compareByName as compareWith,
  errorRateChange,
  NAME_REGRESSION_THRESHOLDS as T,
  tailChange,
  type NameThresholds,
} from './by-name.ts';
import {
  cleanBillText,
  COMPARE_LABELS,
  nameWarnings,
  skipText,
  thresholdsText,
  unconfirmedText,
} from './name-warnings.ts';
import { nameResult, withNames, type FakeName } from './testing.ts';

/**
 * Most tests here judge the other rules at every rate both runs held, their knees the top rates
 * compared; the bound near the knee (nearKneeShare) has its own tests, with the defaults.
 */
const EVERY_RATE: NameThresholds = { ...T, nearKneeShare: Infinity };
const compareByName = (a: RunResult, b: RunResult, rows?: Parameters<typeof compareWith>[2], t = EVERY_RATE) =>
  compareWith(a, b, rows, t);

/** Steps 100..600 holding up to `kneePerSec`, then flat just above it. */
function kneeRun(kneePerSec: number): RunResult {
  const steps = [100, 200, 300, 400, 500, 600].map((r) => ({
    ratePerSec: r,
    okPerSec: r <= kneePerSec ? r : kneePerSec + 10,
  }));
  return fakeRun({ steps, holdS: 12, rampS: 1, settleS: 2 });
}

/** Two request names and a transaction of two more, at 70/25/5 of each rate. */
function shop(
  p99: (name: string, ratePerSec: number) => FakeName = () => ({}),
): (s: { ratePerSec: number }) => Record<string, FakeName> {
  return (s) => ({
    'read order': { perSec: 0.7 * s.ratePerSec, p99Ms: 10, ...p99('read order', s.ratePerSec) },
    'create order': { perSec: 0.25 * s.ratePerSec, p99Ms: 30, ...p99('create order', s.ratePerSec) },
    checkout: { perSec: 0.05 * s.ratePerSec, p99Ms: 80, transaction: true, ...p99('checkout', s.ratePerSec) },
    'checkout: create': { perSec: 0.05 * s.ratePerSec, p99Ms: 30, ...p99('checkout: create', s.ratePerSec) },
  });
}

describe('tailChange', () => {
  it.each<[string, FakeName, FakeName, { compared: boolean; regressed: boolean }]>([
    ['doubled', { p99Ms: 10 }, { p99Ms: 20 }, { compared: true, regressed: true }],
    ['+24%, under the share', { p99Ms: 100 }, { p99Ms: 124 }, { compared: true, regressed: false }],
    ['+26% and 26 ms', { p99Ms: 100 }, { p99Ms: 126 }, { compared: true, regressed: true }],
    ['+50% but 3 ms, under the floor', { p99Ms: 6 }, { p99Ms: 9 }, { compared: true, regressed: false }],
    ['+50% and exactly 5 ms', { p99Ms: 10 }, { p99Ms: 15 }, { compared: true, regressed: true }],
    ['faster', { p99Ms: 20 }, { p99Ms: 10 }, { compared: true, regressed: false }],
    ['doubled, A unreliable', { p99Ms: 10, reliable: false }, { p99Ms: 20 }, { compared: false, regressed: false }],
    ['doubled, B unreliable', { p99Ms: 10 }, { p99Ms: 20, reliable: false }, { compared: false, regressed: false }],
    ['none succeeded in B', { p99Ms: 10 }, { p99Ms: null }, { compared: false, regressed: false }],
  ])('%s', (_what, a, b, want) => {
    const c = tailChange(nameResult(a), nameResult(b), T);
    expect(c).toMatchObject(want);
    if (!want.compared) expect(c.change).toBeNull();
  });

  it('the change is relative to A', () =>
    expect(tailChange(nameResult(), nameResult({ p99Ms: 15 }), T).change).toBe(0.5));

  it('judges the p90s where a p99 rests on too few samples and both p90s do not, and says so (q 90)', () => {
    const few = (p90Ms: number, p99Ms: number): FakeName => ({ p90Ms, p99Ms, reliable: false, completed: 500 });
    expect(tailChange(nameResult(few(4, 9)), nameResult(few(10, 30)), T)).toMatchObject({
      q: 90,
      aMs: 4,
      bMs: 10,
      compared: true,
      regressed: true,
    });
    // a reliable p99 pair keeps the rule on p99s, whatever the p90s
    expect(tailChange(nameResult({ p90Ms: 4, p99Ms: 9 }), nameResult({ p90Ms: 10, p99Ms: 9 }), T)).toMatchObject({
      q: 99,
      regressed: false,
    });
  });
});

describe('errorRateChange', () => {
  it.each<[string, FakeName, FakeName, { compared: boolean; regressed: boolean }]>([
    ['0 to 0.5%: under a point', { errorRate: 0 }, { errorRate: 0.005 }, { compared: true, regressed: false }],
    ['0 to 2%', { errorRate: 0 }, { errorRate: 0.02 }, { compared: true, regressed: true }],
    [
      '5% to 7%: two points, not doubled',
      { errorRate: 0.05 },
      { errorRate: 0.07 },
      { compared: true, regressed: false },
    ],
    [
      '5% to 11%: doubled and six points',
      { errorRate: 0.05 },
      { errorRate: 0.11 },
      { compared: true, regressed: true },
    ],
    [
      '0.5% to 1.4%: doubled, under a point',
      { errorRate: 0.005 },
      { errorRate: 0.014 },
      { compared: true, regressed: false },
    ],
    [
      '30% to 55%: not doubled, but 25 points (over the 10-point cap)',
      { errorRate: 0.3 },
      { errorRate: 0.55 },
      { compared: true, regressed: true },
    ],
    [
      '60% to 100%: "twice A\'s" could never flag it',
      { errorRate: 0.6 },
      { errorRate: 1 },
      { compared: true, regressed: true },
    ],
    ['30% to 38%: under ten points', { errorRate: 0.3 }, { errorRate: 0.38 }, { compared: true, regressed: false }],
    ['B completed nothing', { errorRate: 0 }, { completed: 0 }, { compared: false, regressed: false }],
    [
      '0 to 1 failure of 30 (3.3%): noise, under 3 failures',
      { errorRate: 0, completed: 30 },
      { errorRate: 1 / 30, completed: 30 },
      { compared: true, regressed: false },
    ],
    [
      '0 to 3 failures of 30 (10%)',
      { errorRate: 0, completed: 30 },
      { errorRate: 3 / 30, completed: 30 },
      { compared: true, regressed: true },
    ],
  ])('%s', (_what, a, b, want) => {
    expect(errorRateChange(nameResult(a), nameResult(b), T)).toMatchObject(want);
  });
});

describe('compareByName', () => {
  const A = withNames(kneeRun(400), shop());

  it('runs without per-name results compare as whole steps only', () => {
    expect(compareByName(kneeRun(400), kneeRun(400))).toBeNull();
  });

  it("one name's p99 doubles while capacity holds: that name regresses at every rate both held, no other", () => {
    const B = withNames(
      kneeRun(400),
      shop((n) => (n === 'read order' ? { p99Ms: 20 } : {})),
    );
    const r = compareByName(A, B)!;
    expect(r.rates.map((x) => x.ratePerSec)).toEqual([100, 200, 300, 400]);
    expect(r.rates[0].names.map((n) => [n.name, n.transaction])).toEqual([
      ['read order', false],
      ['create order', false],
      ['checkout', true],
      ['checkout: create', false],
    ]);
    expect(r.regressions).toEqual(
      [100, 200, 300, 400].map((ratePerSec) => ({
        name: 'read order',
        transaction: false,
        ratePerSec,
        metric: 'p99',
        a: 10,
        b: 20,
        aN: 3000,
        bN: 3000,
      })),
    );
    // the rates past the knee failed in both: not compared, and said so
    expect(r.skipped).toEqual([
      { ratePerSec: 500, a: 'fails', b: 'fails' },
      { ratePerSec: 600, a: 'fails', b: 'fails' },
    ]);
    expect(skipText(r.skipped[0], COMPARE_LABELS)).toBe('Not compared at 500 req/s: A fails, B fails');
    expect(r).toMatchObject({ added: [], removed: [], withoutNames: null });
    expect(nameWarnings(r, COMPARE_LABELS)).toEqual([
      'read order: p99 regressed at 100, 200, 300, 400 req/s, rates both held; worst at 100 req/s: 10.0 ms (n=3,000) in A, 20.0 ms (n=3,000) in B (+100.00%)',
    ]);
  });

  it('a p99 that doubled on too few samples is not compared', () => {
    const B = withNames(
      kneeRun(400),
      shop((n) => (n === 'checkout' ? { p99Ms: 160, reliable: false } : {})),
    );
    const r = compareByName(A, B)!;
    expect(r.regressions).toEqual([]);
    const checkout = r.rates[0].names.find((n) => n.name === 'checkout')!;
    expect(checkout.tail).toMatchObject({ q: 99, aMs: 80, bMs: 160, compared: false, change: null, regressed: false });
  });

  it('a transaction whose error rate rose regresses by its error rate, its worst rate named', () => {
    const B = withNames(
      kneeRun(400),
      shop((n, rate) => (n === 'checkout' && rate >= 300 ? { errorRate: rate === 300 ? 0.02 : 0.04 } : {})),
    );
    const r = compareByName(A, B)!;
    expect(r.regressions.map((x) => [x.name, x.metric, x.ratePerSec])).toEqual([
      ['checkout', 'error-rate', 300],
      ['checkout', 'error-rate', 400],
    ]);
    expect(nameWarnings(r, { a: 'the baseline', b: 'this run' })).toEqual([
      // pooled over its rates (the worst of several small samples overstates it), the worst beside it
      'checkout (transaction): error rate regressed at 300, 400 req/s, rates both held: 0.00% (0 of 6,000) in the baseline, 3.00% (180 of 6,000) in this run over those rates; worst at 400 req/s: 0.00% (0 of 3,000) in the baseline, 4.00% (120 of 3,000) in this run',
    ]);
  });

  it('only rates both held are compared: a step that failed, or held contaminated or generator-limited, is not', () => {
    const B = withNames(
      kneeRun(300),
      shop(() => ({ p99Ms: 100 })),
    );
    const limited = {
      ...A,
      steps: A.steps.map((s) =>
        s.ratePerSec === 200
          ? { ...s, generatorLimited: { code: 'late-arrivals', step: s.index, figures: {} } }
          : s.ratePerSec === 100
            ? { ...s, contaminated: true }
            : s,
      ),
    };
    const r = compareByName(limited, B)!;
    expect(r.rates.map((x) => x.ratePerSec)).toEqual([300]);
    // no rate held cleanly in both: nothing compared, and the bill says why
    const everyLimited = {
      ...A,
      steps: A.steps.map((s) => ({ ...s, generatorLimited: { code: 'late-arrivals', step: s.index, figures: {} } })),
    };
    expect(cleanBillText(compareByName(everyLimited, B)!)).toBe(
      'No rate was compared per name: each rate both runs offered is listed with why.',
    );
    expect(r.skipped.slice(0, 3)).toEqual([
      { ratePerSec: 100, a: 'holds but contaminated', b: null },
      { ratePerSec: 200, a: 'holds but generator-limited', b: null },
      { ratePerSec: 400, a: null, b: 'fails' },
    ]);
  });

  it('with the defaults, tails are compared up to 80% of the lower knee; each rate past it is left out of the latency comparison, saying why', () => {
    // an unchanged build's tails near its knee: two p90s 2x at 83% and 98% of capacity warned (a user's A/A, 12-07)
    const nearKnee = withNames(
      kneeRun(400),
      shop((n, rate) => (rate === 400 ? { p99Ms: 100 } : {})),
    );
    const r = compareWith(A, nearKnee)!;
    expect(r.rates.map((x) => [x.ratePerSec, x.tailsLeftOut ?? false])).toEqual([
      [100, false],
      [200, false],
      [300, false],
      [400, true],
    ]);
    expect(r.rates[3].names.every((c) => !c.tail.compared && c.errorRate.compared)).toBe(true);
    expect([r.regressions, r.unconfirmed]).toEqual([[], []]);
    const skip = r.skipped.find((x) => x.ratePerSec === 400)!;
    expect(skip).toEqual({
      ratePerSec: 400,
      a: null,
      b: null,
      near: { share: 1, kneePerSec: 400, upTo: 0.8 },
      latencyOnly: true,
    });
    expect(skipText(skip, COMPARE_LABELS)).toBe(
      'Left out of the latency comparison only at 400 req/s (error rates compared): 100% of the lower knee (400 req/s), past the 80% up to which tails are compared: nearer the knee a tail follows the utilisation, which capacities within the tolerance move',
    );
    // the knee by its offered rate: a capacity of 497 at a knee of 500 keeps 400 (80%) compared
    const under = fakeRun({
      steps: [100, 200, 300, 400, 500, 600].map((r) => ({
        ratePerSec: r,
        okPerSec: r === 500 ? 497 : r < 500 ? r : 505,
      })),
      holdS: 12,
      rampS: 1,
      settleS: 2,
    });
    expect(under.capacityPerSec).toBe(497);
    const knee500 = compareWith(withNames(under, shop()), withNames(under, shop()))!;
    const tailsAt = (x: NonNullable<ReturnType<typeof compareWith>>) =>
      x.rates.filter((rate) => !rate.tailsLeftOut).map((rate) => rate.ratePerSec);
    expect(tailsAt(knee500)).toEqual([100, 200, 300, 400]);
    // a share that rounds to the bound is given a decimal: never "80% ... past the 80%"
    expect(
      skipText(
        { ratePerSec: 450, a: null, b: null, near: { share: 450 / 560, kneePerSec: 560, upTo: 0.8 } },
        COMPARE_LABELS,
      ),
    ).toMatch(/^Not compared at 450 req\/s: 80\.4% of the lower knee \(560 req\/s\), past the 80% /);
    // the lower of the two knees bounds it: 300 x 0.8 = 240
    const lower = compareWith(A, withNames(kneeRun(300), shop()))!;
    expect(tailsAt(lower)).toEqual([100, 200]);
    expect(lower.rates.map((x) => x.ratePerSec)).toEqual([100, 200, 300]);
    // a regression below the bound is still found there
    const slower = compareWith(
      A,
      withNames(
        kneeRun(400),
        shop((n) => (n === 'read order' ? { p99Ms: 40 } : {})),
      ),
    )!;
    expect(slower.regressions.map((x) => [x.name, x.ratePerSec])).toEqual([
      ['read order', 100],
      ['read order', 200],
      ['read order', 300],
    ]);
  });

  it("a step whose event loop stalled past 50 ms has no tail compared: the generator's own delays are in its latencies", () => {
    const stalled = {
      ...A,
      steps: A.steps.map((s) => (s.ratePerSec === 200 ? { ...s, loopDelayMaxMs: 91.1 } : s)),
    };
    const r = compareByName(stalled, withNames(kneeRun(400), shop()))!;
    expect(r.rates.map((x) => [x.ratePerSec, x.tailsLeftOut ?? false])).toEqual([
      [100, false],
      [200, true],
      [300, false],
      [400, false],
    ]);
    expect(r.skipped[0]).toEqual({
      ratePerSec: 200,
      a: "holds, but its event loop stalled up to 91.1 ms (over 50 ms: the generator's own delays are in its latencies)",
      b: null,
      latencyOnly: true,
    });
    expect(skipText(r.skipped[0], COMPARE_LABELS)).toMatch(
      /^Left out of the latency comparison only at 200 req\/s \(error rates compared\): A holds, but its event loop stalled/,
    );
    // a stall beside the other run's failure: the rate is not compared at all, both said
    const failedAt200 = {
      ...A,
      steps: A.steps.map((s) => (s.ratePerSec === 200 ? { ...s, verdict: 'fails' as const } : s)),
    };
    expect(compareByName(stalled, failedAt200)!.skipped[0]).toEqual({
      ratePerSec: 200,
      a: expect.stringMatching(/^holds, but its event loop stalled/),
      b: 'fails',
    });
  });

  it('an error rate that rose is compared where the tails are left out: a stall, or past 80% of the knee (a review: 0% to 33% unsaid)', () => {
    // a coarse grid, every rate both held past 80% of the knee of 500: no tail is compared anywhere
    const coarse = (failing: boolean) =>
      withNames(
        fakeRun({ steps: [450, 500, 600].map((r) => ({ ratePerSec: r, okPerSec: r <= 500 ? r : 510 })) }),
        shop((n) => (failing && n === 'create order' ? { errorRate: 1 / 3 } : {})),
      );
    const r = compareWith(coarse(false), coarse(true))!;
    expect(r.regressions.map((x) => [x.name, x.metric, x.ratePerSec])).toEqual([
      ['create order', 'error-rate', 450],
      ['create order', 'error-rate', 500],
    ]);
    expect(nameWarnings(r, COMPARE_LABELS)).toEqual([
      expect.stringMatching(
        /^create order: error rate regressed at 450, 500 req\/s, rates both held: 0\.00% \(0 of 6,000\) in A, 33\.33% /,
      ),
    ]);
    expect(r.skipped.map((x) => [x.ratePerSec, x.latencyOnly ?? false])).toEqual([
      [450, true],
      [500, true],
      [600, false],
    ]);
    // a stall at 200 and 300 in B: its failures there are compared, its tails not
    const stalledB = withNames(
      kneeRun(400),
      shop((n, rate) => (n === 'create order' && rate >= 200 && rate <= 300 ? { errorRate: 0.2 } : {})),
    );
    const withStalls = {
      ...stalledB,
      steps: stalledB.steps.map((s) =>
        s.ratePerSec === 200 || s.ratePerSec === 300 ? { ...s, loopDelayMaxMs: 120 } : s,
      ),
    };
    expect(compareByName(A, withStalls)!.regressions.map((x) => [x.name, x.metric, x.ratePerSec])).toEqual([
      ['create order', 'error-rate', 200],
      ['create order', 'error-rate', 300],
    ]);
  });

  it('a name only one run recorded is listed as added or removed, not compared', () => {
    const B = withNames(kneeRun(400), (s) => {
      const { 'create order': _gone, ...rest } = shop()(s);
      return { ...rest, search: { p99Ms: 500 } };
    });
    const r = compareByName(A, B)!;
    expect(r).toMatchObject({ added: ['search'], removed: ['create order'], regressions: [] });
    expect(r.rates[0].names.map((n) => n.name)).toEqual(['read order', 'checkout', 'checkout: create']);
  });

  it('against a run without names, every name is added or removed and none compared', () => {
    const r = compareByName(kneeRun(400), A)!;
    expect(r).toMatchObject({ withoutNames: 'a', rates: [], regressions: [], removed: [], skipped: [] });
    expect(r.added).toEqual(['read order', 'create order', 'checkout', 'checkout: create']);
    expect(compareByName(A, kneeRun(400))!.withoutNames).toBe('b');
  });

  it('on short holds (p99s on too few samples) a p90 that rose regresses, said as p90', () => {
    const short = (p90Ms: number) => (n: string) =>
      n === 'read order' ? { p90Ms, p99Ms: 3 * p90Ms, reliable: false } : { reliable: false };
    const A2 = withNames(kneeRun(400), shop(short(4)));
    const B2 = withNames(kneeRun(400), shop(short(10)));
    const r = compareByName(A2, B2)!;
    expect(r.regressions.map((x) => [x.name, x.metric, x.a, x.b])).toEqual(
      [100, 200, 300, 400].map(() => ['read order', 'p90', 4, 10]),
    );
    expect(nameWarnings(r, COMPARE_LABELS)).toEqual([
      'read order: p90 regressed at 100, 200, 300, 400 req/s, rates both held; worst at 100 req/s: 4.00 ms (n=3,000) in A, 10.0 ms (n=3,000) in B (+150.00%)',
    ]);
  });

  it('a tail judged by p99 at some rates and p90 at others is one figure: one sentence, the worst percentile named', () => {
    // p99s reliable at 300 and 400 only: p90 judged below
    const few = (rate: number) => (rate < 300 ? { reliable: false } : {});
    const A2 = withNames(
      kneeRun(400),
      shop((n, rate) => (n === 'read order' ? { p90Ms: 4, p99Ms: 10, ...few(rate) } : few(rate))),
    );
    const B2 = withNames(
      kneeRun(400),
      shop((n, rate) => (n === 'read order' ? { p90Ms: 12, p99Ms: 30, ...few(rate) } : few(rate))),
    );
    const r = compareByName(A2, B2)!;
    expect(new Set(r.regressions.map((x) => x.metric))).toEqual(new Set(['p90', 'p99']));
    const said = nameWarnings(r, COMPARE_LABELS);
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(
      /^read order: tail \(p99, else p90\) regressed at 100, 200, 300, 400 req\/s, rates both held; worst at \d+ req\/s \(p\d\d\): /,
    );
  });

  it('the thresholds are the ones passed', () => {
    const B = withNames(
      kneeRun(400),
      shop((n) => (n === 'read order' ? { p99Ms: 20 } : {})),
    );
    expect(compareByName(A, B, undefined, { ...EVERY_RATE, p99Relative: 1.5 })!.regressions).toEqual([]);
    expect(thresholdsText(T, COMPARE_LABELS)).toBe(
      "A name regressed at a rate both runs held when its p99 rose by more than 25% and at least 5 ms (both p99s on enough samples, else both p90s), or its error rate rose above both A's + 1 percentage point and 2 × A's (or by more than 10 points whatever A's), on 3 failures or more; and it did so at two rates or more, half or more of those where that figure was judged from the lowest it rose at; error rates are compared at every rate both held (neither contaminated nor generator-limited), tails at those up to 80% of the lower knee (where either run has a capacity) and where neither generator's event loop stalled past 50 ms.",
    );
  });

  it('a rise at one rate alone, or at under half of those judged, is unconfirmed: said, not a regression', () => {
    // an unchanged build near its knee: create order's p99 2.5x at 300 only (a user's three runs of 12-06)
    const once = withNames(
      kneeRun(400),
      shop((n, rate) => (n === 'create order' && rate === 300 ? { p99Ms: 75 } : {})),
    );
    const r = compareByName(A, once)!;
    expect(r.regressions).toEqual([]);
    expect(r.unconfirmed.map((x) => [x.name, x.metric, x.ratePerSec])).toEqual([['create order', 'p99', 300]]);
    expect(nameWarnings(r, COMPARE_LABELS)).toEqual([]);
    expect(unconfirmedText(r, COMPARE_LABELS)).toBe(
      'Not counted as regressions, each seen at too few of the rates where it was judged (a regression needs two, and half of those from the lowest it rose at; a tail near the knee swings from run to run): create order p99 at 300 req/s (30.0 ms (n=3,000) in A, 75.0 ms (n=3,000) in B).',
    );
    // a tail judged at one rate alone (too few samples at the others) can never be confirmed: said why
    const thin = (n: string, rate: number): FakeName =>
      n === 'create order' && rate !== 300 ? { reliable: false } : {};
    const onlyAt300 = compareByName(
      withNames(kneeRun(400), shop(thin)),
      withNames(
        kneeRun(400),
        shop((n, rate) => ({ ...thin(n, rate), ...(n === 'create order' && rate === 300 ? { p99Ms: 75 } : {}) })),
      ),
    )!;
    expect(onlyAt300.regressions).toEqual([]);
    expect(unconfirmedText(onlyAt300, COMPARE_LABELS)).toMatch(
      /: create order p99 at 300 req\/s \(30\.0 ms \(n=3,000\) in A, 75\.0 ms \(n=3,000\) in B; the only rate where it was judged\)\.$/,
    );
    // at two of the four rates judged: half, confirmed
    const twice = withNames(
      kneeRun(400),
      shop((n, rate) => (n === 'create order' && rate >= 300 ? { p99Ms: 75 } : {})),
    );
    expect(compareByName(A, twice)!.regressions.map((x) => x.ratePerSec)).toEqual([300, 400]);
    expect(unconfirmedText(compareByName(A, twice)!, COMPARE_LABELS)).toBeNull();
    // six rates held: a rise at the two lowest and not again is under half of those from it; at
    // the two highest (a regression that grows with the load) it is all of them
    const A6 = withNames(kneeRun(600), shop());
    const at = (rates: number[]) =>
      withNames(
        kneeRun(600),
        shop((n, rate) => (n === 'create order' && rates.includes(rate) ? { p99Ms: 75 } : {})),
      );
    expect(compareByName(A6, at([100, 200]))!.regressions).toEqual([]);
    expect(compareByName(A6, at([100, 200]))!.unconfirmed.map((x) => x.ratePerSec)).toEqual([100, 200]);
    expect(compareByName(A6, at([500, 600]))!.regressions.map((x) => x.ratePerSec)).toEqual([500, 600]);
    // a blip at 100 and a rise at 600 alone: neither from 100 (2 of 6) nor from 600 (one rate)
    expect(compareByName(A6, at([100, 600]))!.regressions).toEqual([]);
  });
});
