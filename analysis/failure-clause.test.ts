/** What a stop line says of a failed step (failure-clause.ts): here, a collapse below the knee. */
import { describe, expect, it } from 'vitest';
import { summarizeStop } from './stop.ts';
import { DEFAULT_RULES, stepResult } from './testing/builders.ts';

describe('a collapse in the stop line, where the successes are a lower bound', () => {
  const knee = stepResult({ index: 0, ratePerSec: 120, throughputPerSec: 120, completedPerSec: 120, delivery: 1 });
  const at = (throughputPerSec: number, completedPerSec: number) =>
    stepResult({
      index: 1,
      ratePerSec: 160,
      throughputPerSec,
      completedPerSec,
      delivery: throughputPerSec / 160,
      verdict: 'fails',
    });
  const bounded = { ...DEFAULT_RULES, okLowerBound: true as const };

  it('is read only where even every completion is under the knee, and says so', () => {
    // 113 ok of 150 completed: its failed requests, not a fall of what was served
    expect(summarizeStop([knee, at(113, 150)], 2, false, bounded).stopDetail).not.toMatch(/collapse/);
    expect(summarizeStop([knee, at(113, 150)], 2, false, DEFAULT_RULES).stopDetail).toMatch(
      /throughput fell from 120\.0 to 113\.0 req\/s \(collapse\)/,
    );
    expect(summarizeStop([knee, at(60, 70)], 2, false, bounded).stopDetail).toMatch(
      /throughput fell from at least 120\.0 to at most 70\.0 req\/s \(collapse\)/,
    );
  });
});
