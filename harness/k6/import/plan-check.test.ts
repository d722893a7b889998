import { describe, expect, it } from 'vitest';
import type { StepPlan } from '../../../analysis/types.ts';
import { flagMismatches, laterStartS, mismatchFix, mismatchText } from './plan-check.ts';

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

describe('step flags against the offered rate, from t0 (where the report judges them)', () => {
  // 50/s at 4-8 s, 100/s from 12 s on (its last second a part one)
  const offered = [0, 0, 0, 0, 49, 51, 50, 50, 0, 0, 0, 0, 98, 101, 100, 102, 100, 99, 101, 100, 40];

  it('passes windows within 5% (at least 1/s) of their rate, each second within 3% (at least 2/s)', () => {
    expect(flagMismatches([step(0, 50, 4, 8), step(1, 100, 12, 16)], offered)).toEqual([]);
    expect(flagMismatches([step(0, 51, 4, 8)], offered)).toEqual([]);
  });

  it('names each window offered another rate, with its mean', () => {
    const m = flagMismatches([step(0, 40, 4, 8), step(1, 100, 12, 16), step(2, 150, 10, 14)], offered);
    expect(m).toEqual([
      { index: 0, ratePerSec: 40, offeredPerSec: 50, fromS: 4, toS: 8 },
      { index: 2, ratePerSec: 150, offeredPerSec: 49.75, fromS: 10, toS: 14 },
    ]);
    expect(mismatchText('run.ndjson', m, 'req/s')).toBe(
      'the step flags do not match run.ndjson: step 1 is 40 req/s by the flags, the file offered 50.0 in its judged window (4-8 s); step 3 is 150 req/s by the flags, the file offered 49.8 in its judged window (10-14 s) (offered: k6 iterations started plus dropped, at the second they were due; windows placed from t0, as the report judges them)',
    );
  });

  it("names a window whose mean fits but a second does not: a ramp's second its average hid", () => {
    // k6's 2 s ramp from 200 to 250 at 40-42 s: second 41 offered 237; a 9 s period judged 41-45 s
    const ramp = [...Array<number>(40).fill(200), 212, 237, 250, 250, 251, 249, 250, 250, 1];
    const m = flagMismatches([step(4, 250, 41, 45)], ramp);
    expect(m).toEqual([
      { index: 4, ratePerSec: 250, offeredPerSec: 247, fromS: 41, toS: 45, worst: { tS: 41, offered: 237 } },
    ]);
    expect(mismatchText('run.ndjson', m, 'req/s')).toMatch(
      /: step 5 is 250 req\/s by the flags, the file offered 237\.0 at 41-42 s of its judged window \(41-45 s\), 247\.0 over it: a ramp's second, or a period other than the run's/,
    );
    expect(flagMismatches([step(4, 250, 42, 46)], ramp)).toEqual([]);
    // whole-second timestamps blur a second by about sqrt(rate / 12): 3 of it is allowed (13.7 at 250)
    expect(flagMismatches([step(4, 250, 41, 45)], ramp, true)).toEqual([]);
  });

  it("does not judge a window past the file's last whole second of arrivals (a plan longer than the run, a cut)", () => {
    expect(flagMismatches([step(0, 50, 4, 8), step(1, 500, 16, 21)], offered)).toEqual([]);
    expect(flagMismatches([step(0, 50, 4, 8), step(1, 500, 16, 20)], offered)).toHaveLength(1);
  });
});

describe('flags of a load that started late', () => {
  // 60/s from second 3.5 on (its ramp before): a plan placed at t0 with a 1 s settle judges [2, 6)
  const offered = [0, 0, 10, 40, 60, 60, 60, 60, 60, 60, 60, 30];

  it('are refused from t0 (the report would judge the ramp), with the later start at which they fit', () => {
    expect(flagMismatches([step(0, 60, 2, 6)], offered)).toHaveLength(1);
    expect(laterStartS([step(0, 60, 2, 6)], offered)).toBe(1.5);
    // a rate the file never offered at any start
    expect(laterStartS([step(0, 80, 2, 6)], offered)).toBeNull();
  });

  it('the fix names the --t0 that places them there, and not to drop the flags: the file held one rate, so no plan is derived from it (that refusal names the flags)', () => {
    const flags = { startPerSec: 60, stepPerSec: 60, maxPerSec: 60, rampS: 1, holdS: 4 };
    expect(mismatchFix(flags, [step(0, 60, 2, 6)], offered, false, Date.parse('2026-11-29T16:52:40.000Z'))).toBe(
      'the flags fit the file with the load starting 1.5 s after t0: pass --t0 2026-11-29T16:52:41.500Z to judge them there',
    );
    expect(mismatchFix(flags, [step(0, 80, 2, 6)], offered, false, 0)).toMatch(
      /^give the rates and times k6 ran \(its ramping-arrival-rate stages: [^)]*\) \(no plan is derived from the file either: the run held one rate only, about 60\/s from \d+ to \d+ s: there are no steps to judge\)$/,
    );
  });
});

describe('a start that fits only by leaving a window unjudged is none', () => {
  // 60/s, then 120/s from 8 s on, the last second of its window off (100 at 11 s); 12 s is a part second
  const offered = [0, 30, 60, 60, 60, 60, 60, 60, 120, 120, 120, 100, 40];
  const steps = [step(0, 60, 2, 6), step(1, 120, 8, 12)];

  it('the second window is off from t0, and from 1 s later ends past the last whole second: no --t0 is offered for that', () => {
    expect(flagMismatches(steps, offered)).toMatchObject([{ index: 1, worst: { tS: 11, offered: 100 } }]);
    expect(flagMismatches(steps, offered, false, 0.5)).toHaveLength(1);
    expect(flagMismatches(steps, offered, false, 1)).toEqual([]);
    expect(laterStartS(steps, offered)).toBeNull();
  });
});

describe("a window's seconds at whole-second timestamps, against the noise its hold measures", () => {
  it("a second of a collapsed hold off by more than 3 x sqrt(rate / 12) but within its own seconds' noise fits", () => {
    // 160/s, its seconds straying as a collapsed step's do; the last two seconds a part and its neighbour
    const hold = [150, 172, 147, 168, 151, 170, 145, 169, 160];
    const offered = [...Array<number>(10).fill(0), ...hold, 160, 30];
    expect(Math.abs(offered[12] - 160)).toBeGreaterThan(3 * Math.sqrt(160 / 12));
    expect(flagMismatches([step(0, 160, 12, 19)], offered, true)).toEqual([]);
    expect(flagMismatches([step(0, 160, 12, 19)], offered, false)).toHaveLength(1);
  });
});
