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
  // 50/s at 4-8 s, 100/s from 12 s on (the file holds each window at every start offset up to 4 s)
  const offered = [0, 0, 0, 0, 49, 51, 50, 50, 0, 0, 0, 0, 98, 101, 100, 104, 100, 99, 101, 100];

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

  it('does not judge a window the file does not reach at the latest start (a plan longer than the run)', () => {
    expect(flagMismatches([step(0, 50, 4, 8), step(1, 500, 14, 20)], offered)).toEqual([]);
    expect(flagMismatches([step(0, 50, 4, 8), step(1, 500, 12, 16)], offered)).toHaveLength(1);
  });
});

describe('flags of a load that started late', () => {
  it('fit at the start offset k6 left (up to 4 s), where the settle is shorter than it', () => {
    // 60/s from second 3.5 on (its ramp before): a plan placed at t0 with a 1 s settle judges [2, 6)
    const offered = [0, 0, 10, 40, 60, 60, 60, 60, 60, 60];
    expect(flagMismatches([step(0, 60, 2, 6)], offered)).toEqual([]);
    // a rate the file never offered at any offset
    expect(flagMismatches([step(0, 80, 2, 6)], offered)).toHaveLength(1);
  });
});
