import { describe, expect, it } from 'vitest';
import { firstDegradingName, NAME_GROWTH_FACTOR, NAME_RISE_FLOOR_MS } from './names-knee.ts';
import { stepResult } from './testing/builders.ts';
import type { NameResult, StepResult } from './types.ts';

/** A name's steady window with only its p99 set (ms, or [ms, reliable]). */
function named(p99: number | [number, boolean], transaction = false): NameResult {
  const [valueMs, reliable] = Array.isArray(p99) ? p99 : [p99, true];
  return {
    ...(transaction ? { transaction: true as const } : {}),
    completedPerSec: 10,
    throughputPerSec: 10,
    completed: 100,
    ok: 100,
    failed: 0,
    errorRate: 0,
    errors: {},
    latency: [{ q: 99, valueMs, n: reliable ? 5000 : 100, reliable }],
    meanMs: valueMs / 2,
    maxMs: valueMs,
  };
}

/** Steps 0.. with p99s by name: { a: [10, 12, 30] } is name a's p99 at steps 0, 1, 2. */
function steps(
  p99s: Record<string, (number | [number, boolean] | null)[]>,
  over: Partial<StepResult>[] = [],
): StepResult[] {
  const count = Math.max(...Object.values(p99s).map((v) => v.length));
  return Array.from({ length: count }, (_, i) =>
    stepResult({
      index: i,
      ratePerSec: 100 * (i + 1),
      byName: Object.fromEntries(
        Object.entries(p99s).flatMap(([name, v]) => (v[i] == null ? [] : [[name, named(v[i]!, name === 'checkout')]])),
      ),
      ...over[i],
    }),
  );
}

describe('firstDegradingName: the name whose p99 (else p90) first exceeded 2x its baseline at or before the knee', () => {
  it.each<[string, StepResult[], number | null, object]>([
    [
      'the earliest step wins over a larger growth later',
      steps({ read: [10, 25, 100], write: [10, 12, 90] }),
      2,
      { kind: 'grew', first: expect.objectContaining({ name: 'read', index: 1, growth: 2.5, alsoGrew: [] }) },
    ],
    [
      // step 1's p99 holds a 133 ms stall of the generator (held generator-limited): read's p99 grew at step 2
      'a step held generator-limited is passed over',
      steps({ read: [10, 25, 11, 30], write: [10, 11, 12, 13] }, [
        {},
        { generatorLimited: { code: 'loop-delay', step: 1, figures: { loopDelayMaxMs: 133, boundMs: 100 } } },
      ]),
      3,
      { kind: 'grew', first: expect.objectContaining({ name: 'read', index: 3, growth: 3, alsoGrew: [] }) },
    ],
    [
      'at one step, the largest growth; the others listed',
      steps({ read: [10, 21], write: [10, 40], checkout: [50, 120] }),
      1,
      {
        kind: 'grew',
        first: expect.objectContaining({ name: 'write', growth: 4, alsoGrew: ['checkout', 'read'] }),
      },
    ],
    [
      'equal growth: by name',
      steps({ b: [10, 30], a: [20, 60] }),
      1,
      { kind: 'grew', first: expect.objectContaining({ name: 'a', alsoGrew: ['b'] }) },
    ],
    [
      'a transaction is a name like any other, and says so',
      steps({ read: [10, 12], checkout: [50, 150] }),
      1,
      {
        kind: 'grew',
        first: expect.objectContaining({ name: 'checkout', transaction: true, baseMs: 50, ms: 150 }),
      },
    ],
    [
      'growth past the knee does not count',
      steps({ read: [10, 12, 500] }),
      1,
      { kind: 'none', why: 'steady', kneeIndex: 1, judged: ['read'] },
    ],
    ['exactly 2x is not more than 2x', steps({ read: [10, 20] }), 1, { kind: 'none', why: 'steady' }],
    [
      'an unreliable p99 is never growth',
      steps({
        read: [10, [90, false], 12],
        write: [
          [10, false],
          [90, false],
          [99, false],
        ],
      }),
      2,
      { kind: 'none', why: 'steady', judged: ['read'] },
    ],
    [
      'nor a baseline: the first reliable one is',
      steps({ read: [[1, false], 10, 25] }),
      2,
      { kind: 'grew', first: expect.objectContaining({ name: 'read', baseIndex: 1, baseMs: 10, index: 2 }) },
    ],
    [
      'no name has two reliable p99s up to the knee',
      steps({ read: [10, [40, false]], write: [[5, false], 30] }),
      1,
      { kind: 'none', why: 'too-few-samples', judged: [] },
    ],
    [
      'the knee is step 1: nothing before it to grow from, however many samples (not too few)',
      steps({ read: [10, 40], write: [10, 80] }),
      0,
      { kind: 'none', why: 'one-step', q: 99, kneeIndex: 0, judged: [] },
    ],
    ['no step held', steps({ read: [10, 40] }), null, { kind: 'none', why: 'no-knee' }],
    ['no step has names', [stepResult(), stepResult({ index: 1 })], 1, { kind: 'none', why: 'no-names' }],
    [
      "a transient attempt (its rerun held) is not the target's: its p99 does not count",
      steps({ read: [10, 80, 12] }, [{}, { transient: true, verdict: 'fails' }, { index: 1, attempt: 2 }]),
      1,
      { kind: 'none', why: 'steady' },
    ],
  ])('%s', (_name, s, knee, expected) => {
    expect(firstDegradingName(s, knee)).toMatchObject({ factor: NAME_GROWTH_FACTOR, ...expected });
  });

  it('judges p90 when no name has a reliable p99 at two steps, and says which it judged', () => {
    // reads: p99 never reliable (a short hold), p90 from 300 samples: 4 ms, then 12 ms at the knee
    const withP90 = (p90: number, p99: number): NameResult => ({
      ...named([p99, false]),
      latency: [
        { q: 90, valueMs: p90, n: 400, reliable: true },
        { q: 99, valueMs: p99, n: 400, reliable: false },
      ],
    });
    const s = steps({ read: [1, 1] }).map((st, i) => ({ ...st, byName: { read: withP90([4, 12][i], [8, 30][i]) } }));
    expect(firstDegradingName(s, 1)).toMatchObject({
      kind: 'grew',
      q: 90,
      first: { name: 'read', baseMs: 4, ms: 12, growth: 3 },
    });
    // a reliable p99 at two steps keeps the rule on p99, even where p90 would have found growth
    const both = s.map((st, i) => ({
      ...st,
      byName: {
        read: {
          ...withP90([4, 12][i], 10),
          latency: [
            { q: 90, valueMs: [4, 12][i], n: 5000, reliable: true },
            { q: 99, valueMs: 10, n: 5000, reliable: true },
          ],
        },
      },
    }));
    expect(firstDegradingName(both, 1)).toMatchObject({ kind: 'none', why: 'steady', q: 99, judged: ['read'] });
    // neither reliable at two steps
    expect(
      firstDegradingName(
        steps({
          read: [
            [10, false],
            [40, false],
          ],
        }),
        1,
      ),
    ).toMatchObject({
      kind: 'none',
      why: 'too-few-samples',
      q: 90,
    });
  });

  it('says which names it could judge: one whose baseline rests on too few samples may have grown unseen', () => {
    const s = steps({
      read: [10, 25],
      write: [
        [5, false],
        [50, false],
      ],
    });
    expect(firstDegradingName(s, 1)).toMatchObject({ kind: 'grew', first: { name: 'read' }, judged: ['read'] });
  });

  it("passes over a step whose event loop stalled past the warning's bound (its latencies hold the stalls), and says which", () => {
    // a user's run: read order's p90 6x at step 2, which stalled 72.9 ms and held plainly; the target's own growth came at step 4
    const s = steps({ read: [4, 24, 3.5, 18.9], write: [11, 12, 11, 26] }, [{}, { loopDelayMaxMs: 72.9 }, {}, {}]);
    expect(firstDegradingName(s, 3)).toMatchObject({
      kind: 'grew',
      first: { name: 'read', index: 3, growth: 18.9 / 4 },
      stalled: [1],
    });
    // the same stall at 50 ms (the bound) is no stall: step 2 is judged, and its 6x fell back at step 3
    s[1] = { ...s[1], loopDelayMaxMs: 50 };
    expect(firstDegradingName(s, 3)).toMatchObject({ kind: 'grew', first: { index: 3 }, stalled: [] });
  });

  it('a rise the name fell back from is no degradation: it grew where it stayed past 2x to the knee', () => {
    // a user's review (12-07): read's p90 2.3x at half the knee's rate, 1.7x two steps later, while
    // write rose from step 3 on and stayed
    const s = steps({ read: [6.4, 9, 14.8, 11, 11.1, 12], write: [10, 11, 12, 25, 30, 40] });
    expect(firstDegradingName(s, 5)).toMatchObject({
      kind: 'grew',
      first: { name: 'write', index: 3, growth: 2.5, alsoGrew: [] },
      judged: ['read', 'write'],
    });
    // read back past 2x at the knee and staying there: its rise counts from there, after write's
    s[5] = { ...s[5], byName: { ...s[5].byName, read: named(13) } };
    expect(firstDegradingName(s, 5)).toMatchObject({ first: { name: 'write', index: 3, alsoGrew: [] } });
    // every name's rise fell back: none degraded, and the furthest past 2x is named with where it fell back
    const blips = steps({ read: [10, 25, 12], write: [10, 11, 12] });
    expect(firstDegradingName(blips, 2)).toMatchObject({
      kind: 'none',
      why: 'steady',
      judged: ['read', 'write'],
      touched: { name: 'read', baseMs: 10, withinFloor: false, peak: { index: 1, growth: 2.5 }, back: { index: 2 } },
    });
  });

  it('a rise of 5 ms or less is no growth, however many times its baseline', () => {
    // a user's review (12-07): read order's p90 2.42 -> 5.33 ms at step 2 (2.2x, +2.9 ms) was
    // named first to degrade, where it rose 70x at the knee
    const mix = steps({ read: [2.42, 5.33, 171] });
    expect(firstDegradingName(mix, 2)).toMatchObject({
      kind: 'grew',
      first: { name: 'read', index: 2, ms: 171 },
      floorMs: NAME_RISE_FLOOR_MS,
    });
    expect(firstDegradingName(mix, 1)).toMatchObject({
      kind: 'none',
      why: 'steady',
      touched: { name: 'read', withinFloor: true, peak: { index: 1, ms: 5.33 } },
    });
    // exactly 5 ms above is not more than 5 ms
    expect(firstDegradingName(steps({ read: [4, 9] }), 1)).toMatchObject({ kind: 'none', why: 'steady' });
    expect(firstDegradingName(steps({ read: [4, 9.1] }), 1)).toMatchObject({ kind: 'grew', first: { index: 1 } });
    // the floor is the same at a step whose loop was held under the 50 ms from which stalls count
    // (the pool's wait behind a 10 ms write is the target's, however busy the loop was)
    const held = steps({ read: [3, 11.4, 23] }, [{}, { loopDelayMaxMs: 11.3 }, {}]);
    expect(firstDegradingName(held, 2)).toMatchObject({ kind: 'grew', first: { index: 1 } });
    expect(firstDegradingName(steps({ read: [4, 12] }), 1, 2, 10)).toMatchObject({ kind: 'none', floorMs: 10 });
  });

  it('names where a rise past 2x within the floor fell back, and no name where none went past 2x', () => {
    // a reviewer's run: read order's p90 2.88 ms at step 2 (step 1's unreliable), 7.74 ms at step 4
    // (2.69x, +4.86 ms), 4.42 ms at step 5, the highest step held
    const s = steps({ read: [[1, false], 2.88, 3.1, 7.74, 4.42], write: [10, 10, 11, 12, 13] });
    expect(firstDegradingName(s, 4)).toMatchObject({
      kind: 'none',
      why: 'steady',
      touched: {
        name: 'read',
        baseMs: 2.88,
        withinFloor: true,
        peak: { index: 3, ms: 7.74 },
        back: { index: 4, ms: 4.42 },
      },
    });
    expect(firstDegradingName(steps({ read: [10, 15, 19] }), 2)).not.toHaveProperty('touched');
  });

  it('says which step it compared last: the knee, or the one before it where the knee was left out', () => {
    expect(firstDegradingName(steps({ read: [4, 5, 30] }), 2)).toMatchObject({ lastIndex: 2, stalled: [] });
    // a reviewer's run: the knee's loop stalled 83.6 ms
    const s = steps({ read: [4, 5, 30], write: [10, 11, 40] }, [{}, {}, { loopDelayMaxMs: 83.6 }]);
    expect(firstDegradingName(s, 2)).toMatchObject({ kind: 'none', why: 'steady', lastIndex: 1, stalled: [2] });
    expect(firstDegradingName(s, null)).toMatchObject({ why: 'no-knee', lastIndex: null });
  });

  it('takes another factor', () => {
    expect(firstDegradingName(steps({ read: [20, 30] }), 1, 1.4)).toMatchObject({
      kind: 'grew',
      factor: 1.4,
      first: { name: 'read', growth: 1.5 },
    });
  });

  it('names the attempt a rerun grew at', () => {
    const s = steps({ read: [10, 12, 30] }, [{}, { transient: true, verdict: 'fails' }, { index: 1, attempt: 2 }]);
    expect(firstDegradingName(s, 1)).toMatchObject({ kind: 'grew', first: { index: 1, attempt: 2, growth: 3 } });
  });

  it('names the names failing 5% of their arrivals or more, on 5 failures at least, at every step compared from one on', () => {
    /** r failing `failed` of its `completed`. */
    const failing = (r: NameResult, failed: number, completed = r.completed): NameResult => ({
      ...r,
      completed,
      failed,
      ok: completed - failed,
      errorRate: failed / completed,
    });
    const failures: Record<string, number[]> = { buy: [0, 2, 33, 40], read: [0, 6, 0, 0] };
    const s: StepResult[] = steps({ read: [10, 11, 12, 13], buy: [10, 11, 12, 13], refund: [10, 11, 12, 13] }).map(
      (st, i) => ({
        ...st,
        byName: {
          ...Object.fromEntries(Object.entries(failures).map(([name, f]) => [name, failing(st.byName![name], f[i])])),
          // 10% of 40, but 4 failures: too few to read a share from
          refund: failing(st.byName!.refund, 4, 40),
        },
      }),
    );
    // buy: 2% at step 2, then 33% and 40%; read's 6% at step 2 fell back
    expect(firstDegradingName(s, 3)).toMatchObject({
      kind: 'none',
      why: 'steady',
      failing: [
        {
          name: 'buy',
          transaction: false,
          from: { index: 2, attempt: 1, errorRate: 0.33, failed: 33 },
          last: { index: 3, attempt: 1, errorRate: 0.4, failed: 40 },
        },
      ],
    });
    expect(firstDegradingName(s, 3).failing).toHaveLength(1);
    // up to the knee only; at the knee alone, no last
    expect(firstDegradingName(s, 2).failing).toEqual([
      { name: 'buy', transaction: false, from: { index: 2, attempt: 1, errorRate: 0.33, failed: 33 } },
    ]);
    // read's 6% at step 2 fell back only after it: with the knee there, it stands
    expect(firstDegradingName(s, 1).failing.map((f) => f.name)).toEqual(['read']);
    // read from step 2 on, had it stayed: both named, the earlier first
    const stayed = s.map((st, i) => ({
      ...st,
      byName: { ...st.byName!, read: failing(st.byName!.read, [0, 6, 7, 8][i]) },
    }));
    expect(firstDegradingName(stayed, 3).failing.map((f) => [f.name, f.from.index])).toEqual([
      ['read', 1],
      ['buy', 2],
    ]);
    // a step left out for the generator's stalls is left out here too (a stall can make timeouts)
    const stalled = s.map((st, i) => (i === 2 ? { ...st, loopDelayMaxMs: 83.6 } : st));
    expect(firstDegradingName(stalled, 3).failing).toEqual([
      { name: 'buy', transaction: false, from: { index: 3, attempt: 1, errorRate: 0.4, failed: 40 } },
    ]);
    // the knee at step 1: nothing to grow from, but its failures are said
    expect(
      firstDegradingName(
        s.map((st) => ({ ...st, byName: s[2].byName })),
        0,
      ),
    ).toMatchObject({
      why: 'one-step',
      failing: [{ name: 'buy' }],
    });
  });
});
