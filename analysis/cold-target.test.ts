import { describe, expect, it } from 'vitest';
import { COLD_RATIO, coldTarget } from './cold-target.ts';
import { judgeStep } from './judge.ts';
import { buildPlan, buildRecords, DEFAULT_RULES, stepResult, type FakeStep } from './testing/builders.ts';
import type { NameResult, StepResult, WarmupRecord } from './types.ts';

/** A warmup at `ratePerSec` whose windows of 2 s all read `p50Ms`. */
function warm(ratePerSec: number, p50Ms: number | null, windows = 3): WarmupRecord {
  return {
    stable: true,
    tookS: 1 + windows * 2,
    ratePerSec,
    windows: Array.from({ length: windows }, (_, i) => ({ fromS: 1 + i * 2, throughputPerSec: ratePerSec, p50Ms })),
  };
}

/** Steps judged by the real analysis over fake buckets (holds of 30 s: thousands of samples). */
function judged(steps: FakeStep[]): StepResult[] {
  const records = buildRecords({ steps });
  let prev: StepResult | null = null;
  return buildPlan({ steps }).map((p) => (prev = judgeStep(p, prev, records, DEFAULT_RULES)));
}

/** [step, laterStep] of each symptom, the warmup's step as null. */
const flagged = (w: WarmupRecord | null, steps: readonly StepResult[]) =>
  coldTarget(w, steps).map((s) => [s.step, s.figures.laterStep]);

describe('coldTarget: a later step at a higher rate reads a markedly lower median', () => {
  it.each([
    // the finding: 3x slower for its first 30 s, steady while slow
    [
      'the finding: warmup and step 1 at 31 ms, step 2 at 10.6 ms',
      warm(25, 31),
      [
        { ratePerSec: 50, latencyMs: 30.7 },
        { ratePerSec: 100, latencyMs: 10.6 },
      ],
      [
        [null, 1],
        [0, 1],
      ],
    ],
    [
      'a warm target whose median grows with the rate',
      warm(25, 10),
      [
        { ratePerSec: 50, latencyMs: 10 },
        { ratePerSec: 100, latencyMs: 11 },
        { ratePerSec: 150, latencyMs: 14 },
      ],
      [],
    ],
    [
      "a fall of 30% is within a noisy machine's reach",
      warm(25, 10),
      [
        { ratePerSec: 50, latencyMs: 10 },
        { ratePerSec: 100, latencyMs: 7 },
      ],
      [],
    ],
    [
      'two cold steps, the third warm: both flagged against it',
      null,
      [
        { ratePerSec: 50, latencyMs: 30 },
        { ratePerSec: 100, latencyMs: 28 },
        { ratePerSec: 150, latencyMs: 10 },
      ],
      [
        [0, 2],
        [1, 2],
      ],
    ],
    [
      'cold warmup only: the steps were already warm',
      warm(25, 30),
      [
        { ratePerSec: 50, latencyMs: 10 },
        { ratePerSec: 100, latencyMs: 10.5 },
      ],
      [[null, 0]],
    ],
    [
      'the lowest later median is the evidence',
      null,
      [
        { ratePerSec: 50, latencyMs: 30 },
        { ratePerSec: 100, latencyMs: 15 },
        { ratePerSec: 150, latencyMs: 9 },
      ],
      [
        [0, 2],
        [1, 2],
      ],
    ],
    [
      'sub-millisecond medians on loopback: a fall under 0.5 ms is noise',
      warm(25, 0.6),
      [
        { ratePerSec: 50, latencyMs: 0.6 },
        { ratePerSec: 100, latencyMs: 0.2 },
      ],
      [],
    ],
    [
      'a fall of at least 0.5 ms and 40% counts, even small',
      null,
      [
        { ratePerSec: 50, latencyMs: 1.5 },
        { ratePerSec: 100, latencyMs: 0.5 },
      ],
      [[0, 1]],
    ],
  ] as const)('%s', (_name, w, steps, expected) => {
    expect(flagged(w, judged(steps.map((s) => ({ ...s }))))).toEqual(expected);
  });
});

describe('coldTarget: only readings that can be compared', () => {
  const p50 = (valueMs: number | null, reliable = true) => [{ q: 50, valueMs, n: reliable ? 500 : 3, reliable }];
  const cold = stepResult({ index: 0, ratePerSec: 50, latency: p50(30) });
  it.each([
    [
      'a rerun at the same rate reads lower: not a higher rate',
      [cold, stepResult({ index: 0, attempt: 2, ratePerSec: 50, latency: p50(10) })],
      [],
    ],
    [
      'the later median from too few samples',
      [cold, stepResult({ index: 1, ratePerSec: 100, latency: p50(10, false) })],
      [],
    ],
    [
      'the earlier median from too few samples',
      [
        stepResult({ index: 0, ratePerSec: 50, latency: p50(30, false) }),
        stepResult({ index: 1, ratePerSec: 100, latency: p50(10) }),
      ],
      [],
    ],
    [
      'the later step contaminated by a topology change',
      [cold, stepResult({ index: 1, ratePerSec: 100, latency: p50(10), contaminated: true })],
      [],
    ],
    [
      'the later step incomplete (interrupted)',
      [cold, stepResult({ index: 1, ratePerSec: 100, latency: p50(10), verdict: 'incomplete' })],
      [],
    ],
    ['the later step without a median', [cold, stepResult({ index: 1, ratePerSec: 100, latency: p50(null) })], []],
    [
      'a later failed step still shows the target got faster',
      [cold, stepResult({ index: 1, ratePerSec: 100, latency: p50(10), verdict: 'fails' })],
      [[0, 1]],
    ],
    [
      'an earlier step at a higher rate is not "more load later"',
      [
        stepResult({ index: 0, ratePerSec: 100, latency: p50(30) }),
        stepResult({ index: 1, ratePerSec: 50, latency: p50(10) }),
      ],
      [],
    ],
  ] as const)('%s', (_name, steps, expected) => {
    expect(flagged(null, steps)).toEqual(expected);
  });

  it.each([
    ['no warmup record', null],
    ['one window only', warm(25, 30, 1)],
    ['a window without a median', warm(25, null)],
    ['too few requests behind its last windows', warm(2, 30)],
  ])('the warmup is left out: %s', (_name, w) => {
    expect(flagged(w, [stepResult({ index: 0, ratePerSec: 50, latency: p50(10) })])).toEqual([]);
  });
});

describe('coldTarget: the figures', () => {
  it('names the early reading, the later step that shows it and the ratio against its bound', () => {
    const steps = [
      stepResult({ index: 0, attempt: 1, ratePerSec: 50, latency: [{ q: 50, valueMs: 30.7, n: 500, reliable: true }] }),
      stepResult({ index: 1, ratePerSec: 100, latency: [{ q: 50, valueMs: 10.6, n: 900, reliable: true }] }),
    ];
    const w: WarmupRecord = {
      stable: true,
      tookS: 7.1,
      ratePerSec: 25,
      windows: [
        { fromS: 1, throughputPerSec: 25, p50Ms: 33 },
        { fromS: 3, throughputPerSec: 25, p50Ms: 31 },
        { fromS: 5, throughputPerSec: 25, p50Ms: 30 },
        { fromS: 7, throughputPerSec: 25, p50Ms: 31.5 },
      ],
    };
    expect(coldTarget(w, steps)).toEqual([
      {
        code: 'cold-target',
        step: null,
        figures: {
          measured: 'warmup',
          ratePerSec: 25,
          p50Ms: 31,
          laterStep: 1,
          laterAttempt: 1,
          laterRatePerSec: 100,
          laterP50Ms: 10.6,
          ratio: 0.342,
          ratioMax: COLD_RATIO,
        },
      },
      {
        code: 'cold-target',
        step: 0,
        attempt: 1,
        figures: {
          measured: 'step',
          ratePerSec: 50,
          p50Ms: 30.7,
          laterStep: 1,
          laterAttempt: 1,
          laterRatePerSec: 100,
          laterP50Ms: 10.6,
          ratio: 0.345,
          ratioMax: COLD_RATIO,
        },
      },
    ]);
  });
});

describe('coldTarget of a mix: name by name', () => {
  /** A name's result whose median is `p50Ms` on `n` successful ones. */
  const name = (p50Ms: number, n = 3000): NameResult => ({
    completedPerSec: n / 5,
    throughputPerSec: n / 5,
    completed: n,
    ok: n,
    failed: 0,
    errorRate: 0,
    errors: {},
    latency: [{ q: 50, valueMs: p50Ms, n, reliable: true }],
    meanMs: p50Ms,
    maxMs: p50Ms * 2,
  });
  /** Step i at 100 (i + 1)/s, its pooled median `pooledMs`, reads and writes at their own medians. */
  const mixStep = (i: number, pooledMs: number, readMs: number, writeMs: number) =>
    stepResult({
      index: i,
      ratePerSec: 100 * (i + 1),
      latency: [{ q: 50, valueMs: pooledMs, n: 6000, reliable: true }],
      byName: { read: name(readMs), write: name(writeMs) },
    });

  it('a 50/50 mix whose pooled median falls from one mode to the other is no cold target', () => {
    expect(coldTarget(null, [mixStep(0, 9.8, 2.0, 10.0), mixStep(1, 2.6, 2.1, 10.2)])).toEqual([]);
  });

  it('an attempt set aside as transient, or held generator-limited, is no early reading: its medians hold a stall', () => {
    // step 1 failed in a stall (read's median 23.9 ms), its rerun held at 4.4 ms, step 2 read 4.87
    const stalled = { ...mixStep(0, 20, 23.9, 25), transient: true as const };
    const rerun = { ...mixStep(0, 4.5, 4.4, 5), attempt: 2 };
    expect(coldTarget(null, [stalled, rerun, mixStep(1, 5, 4.87, 5.2)])).toEqual([]);
    const limited = {
      ...mixStep(0, 20, 23.9, 25),
      generatorLimited: { code: 'loop-delay', step: 0, figures: { loopDelayMaxMs: 133, boundMs: 100 } },
    };
    expect(coldTarget(null, [limited, mixStep(1, 5, 4.87, 5.2)])).toEqual([]);
    // the same medians on a step that counts: a cold target
    expect(coldTarget(null, [mixStep(0, 20, 23.9, 25), mixStep(1, 5, 4.87, 5.2)])).not.toEqual([]);
  });

  it('one name whose median fell at a higher rate is, with its name in the figures', () => {
    const out = coldTarget(null, [mixStep(0, 9.8, 6.0, 10.0), mixStep(1, 9.9, 2.0, 10.2)]);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ step: 0, figures: { name: 'read', p50Ms: 6, laterStep: 1, laterP50Ms: 2 } });
  });

  it("a transaction is read by its requests' names, not by its duration, which sums their noise", () => {
    /** Step i: the transaction's median and its two requests' (0.7 ms each, then 0.3: under the floor each). */
    const txStep = (i: number, txMs: number, reqMs: number, firstMs = reqMs) =>
      stepResult({
        index: i,
        ratePerSec: 100 * (i + 1),
        latency: [{ q: 50, valueMs: reqMs, n: 6000, reliable: true }],
        byName: {
          checkout: { ...name(txMs), transaction: true },
          'co: create': name(firstMs),
          'co: confirm': name(reqMs),
        },
      });
    expect(coldTarget(null, [txStep(0, 1.5, 0.7), txStep(1, 0.6, 0.3)])).toEqual([]);
    // a request that fell markedly is flagged under its own name
    const out = coldTarget(null, [txStep(0, 7.0, 0.8, 6.0), txStep(1, 2.8, 0.8, 2.0)]);
    expect(out.map((s) => s.figures.name)).toEqual(['co: create']);
  });

  it("the warmup's record is read by name too", () => {
    const w: WarmupRecord = {
      ...warm(25, 9.8),
      windows: warm(25, 9.8).windows.map((x) => ({
        ...x,
        byName: { read: { p50Ms: 6, n: 25 }, write: { p50Ms: 10, n: 25 } },
      })),
    };
    const out = coldTarget(w, [mixStep(0, 2.5, 2.0, 10.1)]);
    expect(out.map((s) => [s.figures.measured, s.figures.name])).toEqual([['warmup', 'read']]);
  });
});
