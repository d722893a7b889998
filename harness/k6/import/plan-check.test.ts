import { describe, expect, it } from 'vitest';
import type { StepPlan } from '../../../analysis/types.ts';
import { flagMismatches, mismatchText } from './plan-check.ts';

/** A step judged over seconds [from, to). */
const step = (index: number, ratePerSec: number, from: number, to: number): StepPlan => ({
  index,
  ratePerSec,
  rampStartS: from - 3,
  holdStartS: from - 2,
  holdEndS: to,
  steadyStartS: from,
  steadyEndS: to,
});

describe('step flags against the offered rate', () => {
  const offered = [0, 0, 0, 0, 49, 51, 50, 50, 0, 0, 0, 0, 98, 101, 100, 104];

  it('passes windows within 5% (at least 1/s) of their rate', () => {
    expect(flagMismatches([step(0, 50, 4, 8), step(1, 100, 12, 16)], offered)).toEqual([]);
    expect(flagMismatches([step(0, 52.5, 4, 8)], offered)).toEqual([]);
  });

  it('names each window offered another rate, with its mean', () => {
    const m = flagMismatches([step(0, 40, 4, 8), step(1, 100, 12, 16), step(2, 150, 10, 14)], offered);
    expect(m).toEqual([
      { index: 0, ratePerSec: 40, offeredPerSec: 50, fromS: 4, toS: 8 },
      { index: 2, ratePerSec: 150, offeredPerSec: 49.75, fromS: 10, toS: 14 },
    ]);
    expect(mismatchText('run.ndjson', m, 'req/s')).toBe(
      'the step flags do not match run.ndjson: step 1 is 40 req/s by the flags, the file offered 50.0 in its judged window (4-8 s); step 3 is 150 req/s by the flags, the file offered 49.8 in its judged window (10-14 s) (offered: k6 iterations started plus dropped, at the second they were due)',
    );
  });

  it('does not judge a window the file does not reach (a plan longer than the run)', () => {
    expect(flagMismatches([step(0, 50, 4, 8), step(1, 500, 14, 20)], offered)).toEqual([]);
  });
});
