import { describe, expect, it } from 'vitest';
import { pastSettle } from './past-settle.ts';
import { nameResult, stepResult } from './testing/builders.ts';
import type { NameResult, StepResult } from './types.ts';

/** 30 arrivals of a median p50 (a transaction's, unless told). */
const name = (p50: number, transaction = true): NameResult =>
  nameResult(30, {
    ...(transaction ? { transaction: true as const } : {}),
    latency: [{ q: 50, valueMs: p50, n: 30, reliable: true }],
    meanMs: p50,
    maxMs: p50,
  });
const step = (index: number, byName: Record<string, NameResult>): StepResult => stepResult({ index, byName });
const plans = [0, 1, 2].map((index) => ({ index, holdStartS: 10 * index + 2, steadyStartS: 10 * index + 5 }));

describe('transactions that outlasted their step settle under load (a review: 6 s sessions failed the first step at 28% of capacity)', () => {
  it('are warned of once a name, with the steps, the longest median and the settle to set', () => {
    const steps = [
      step(0, { browse: name(20, false), session: name(3100) }),
      step(1, { browse: name(4000, false), session: name(2900) }),
      step(2, { session: name(6100) }),
    ];
    const w = pastSettle(steps, plans);
    expect(w).toEqual([
      {
        code: 'transaction-past-settle',
        step: null,
        figures: { name: 'session', steps: [0, 2], p50Ms: 6100, settleS: 3, settleToSet: 10 },
      },
    ]);
  });
  it('nor a transaction that fitted its first step and grew past the settle near the limit (the overload, not its length)', () => {
    const steps = [step(0, { session: name(900) }), step(1, { session: name(1200) }), step(2, { session: name(4000) })];
    expect(pastSettle(steps, plans)).toEqual([]);
  });
  it('a request (however slow) and a step not run are not: their time is no arrival made before the window', () => {
    expect(pastSettle([step(0, { browse: name(9000, false) })], plans)).toEqual([]);
    expect(pastSettle([stepResult({ index: 0, verdict: 'not-run', byName: { s: name(9000) } })], plans)).toEqual([]);
  });
});
