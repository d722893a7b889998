import { describe, expect, it } from 'vitest';
import { stepResult } from './testing/builders.ts';
import type { NameResult, StepResult } from './types.ts';
import { failuresInHeld } from './failures-in-held.ts';

/** A held step of 1,000 arrivals, `failed` of them failed, and names with their own shares. */
function step(
  index: number,
  failed: number,
  names: Record<string, [number, number]> = {},
  over: Partial<StepResult> = {},
): StepResult {
  const byName = Object.fromEntries(
    Object.entries(names).map(([name, [completed, nameFailed]]) => [
      name,
      { completed, failed: nameFailed, errorRate: nameFailed / completed } as unknown as NameResult,
    ]),
  );
  return stepResult({
    index,
    completed: 1000,
    ok: 1000 - failed,
    failed,
    errorRate: failed / 1000,
    ...(Object.keys(byName).length > 0 ? { byName } : {}),
    ...over,
  });
}

describe('failures in held steps', () => {
  it('warns of held steps whose arrivals failed 1% or more, with the worst step and share', () => {
    const [w, ...more] = failuresInHeld([step(0, 0), step(1, 60), step(2, 101), step(3, 9)]);
    expect(more).toEqual([]);
    expect(w.code).toBe('failures-in-held');
    expect(w.figures).toMatchObject({ steps: [1, 2], worstShare: 0.101, worstStep: 2 });
  });

  it('names an entry failing 5% of its own while the step as a whole stayed under 1%', () => {
    // 8 of step 1's 1,000 arrivals failed (0.8%), all 8 of them "buy"'s 100 (8%); step 2: 9 of 150 (6%)
    const [w] = failuresInHeld([step(0, 8, { buy: [100, 8], browse: [900, 0] }), step(1, 9, { buy: [150, 9] })]);
    expect(w.figures.steps).toEqual([0, 1]);
    expect(JSON.parse(String(w.figures.names))).toEqual(['buy']);
    expect(w.figures.nameShares).toEqual([0.08]);
  });

  it('leaves a name failing half its arrivals to its own warning (names-failing), and the step still warned', () => {
    const [w] = failuresInHeld([step(0, 100, { pay: [100, 100], buy: [900, 0] })]);
    expect(w.figures.steps).toEqual([0]);
    expect(JSON.parse(String(w.figures.names))).toEqual([]);
  });

  it('says nothing of a failed step, of a handful of failures, or of a clean run', () => {
    expect(failuresInHeld([step(0, 0), step(1, 300, {}, { verdict: 'fails' })])).toEqual([]);
    // 4 failures of 100: 4%, but too few to read
    expect(failuresInHeld([step(0, 4, { buy: [10, 4] }, { completed: 100, ok: 96, errorRate: 0.04 })])).toEqual([]);
    expect(failuresInHeld([step(0, 0), step(1, 0)])).toEqual([]);
  });
});
