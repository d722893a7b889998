import { describe, expect, it } from 'vitest';
import { legSeqsUsed, segmentLcd, vusForSegment } from './segment.ts';

const vus = (maxVUs: number) => ({ preAllocatedVUs: 5, maxVUs, reason: 'sized' });

describe("k6's execution segment sequence", () => {
  it.each<[string | undefined, string | undefined, number]>([
    [undefined, undefined, 1],
    ['0:1', undefined, 1],
    ['0:1/2', undefined, 2],
    ['1/3:2/3', undefined, 3],
    ['1/3:2/3', '0,1/3,2/3,1', 3],
    // lengths 1/4, 1/4, 1/2: the LCD of the lengths, not of the bounds alone
    ['1/4:1/2', undefined, 4],
    ['0:1/2', '0,1/2,3/4,1', 4],
    ['25%:50%', undefined, 4],
    ['0.125:0.5', undefined, 8],
    ['0.5', undefined, 2],
    ['0:0.3', undefined, 10],
  ])('segment %s in sequence %s has LCD %i', (segment, sequence, lcd) =>
    expect(segmentLcd(segment, sequence)).toBe(lcd),
  );

  it('refuses bounds that split the arrivals into more than 1000 parts, with the fix', () => {
    const thrown = (() => {
      try {
        segmentLcd('0:0.3333');
      } catch (err) {
        return err;
      }
      return null;
    })();
    expect(thrown).toMatchObject({
      message: expect.stringMatching(/splits the arrivals into 10000 parts/),
      hint: expect.stringMatching(/1\/3 rather than 0\.333/),
      name: 'SegmentError',
    });
  });

  // k6's stringToRat: a percentage is a whole number (big.Int), anything else Go's big.Rat
  it.each(['0.5/1', '1/3.0', '12.5%', '1/0', '1/-3', 'abc', '.', ' 1/2', '1/2 '])(
    'refuses the bound "%s", which k6 would not read either, naming the fix',
    (b) => {
      expect(() => segmentLcd(`0:${b}`)).toThrow(
        expect.objectContaining({
          message: expect.stringMatching(/is not a fraction plateau reads/),
          name: 'SegmentError',
        }),
      );
    },
  );

  // Go reads a leading 0 in a fraction as octal: k6 takes 010/100 for 0.08 and refuses 09/10
  it.each(['010/100', '1/010', '0x1/4', '1_0/100'])(
    'refuses the bound %s, which k6 reads otherwise than as decimal, naming the spelling to use',
    (b) => {
      expect(() => segmentLcd(`0:${b}`)).toThrow(
        expect.objectContaining({
          message: expect.stringMatching(/is not a fraction plateau reads/),
          hint: expect.stringMatching(/no leading zeros in a fraction/),
        }),
      );
    },
  );

  it('refuses a segment with a second colon, and keeps a huge split short in the message', () => {
    expect(() => segmentLcd('0:1/3:1/2')).toThrow(
      expect.objectContaining({
        message: 'execution segment "0:1/3:1/2" has more than two bounds',
        name: 'SegmentError',
      }),
    );
    expect(() => segmentLcd('0:1e-9999')).toThrow(/splits the arrivals into more than 10\^12 parts/);
  });

  it.each<[string, number]>([
    ['1e-1', 10],
    ['2.5E-1', 4],
    ['+25%', 4],
    ['.5', 2],
    ['1.', 1],
  ])('reads the bound %s as k6 does (LCD %i)', (b, lcd) => {
    expect(segmentLcd(`0:${b}`)).toBe(lcd);
  });

  it('refuses a bound above 1 however it is written', () => {
    for (const b of ['101%', '4/3', '1.5e0'])
      expect(() => segmentLcd(`0:${b}`)).toThrow(/is not a fraction in \[0, 1\]/);
  });

  it('rounds maxVUs down instead when rounding up would pass the bound given, and refuses a bound below the LCD', () => {
    expect(vusForSegment(vus(5000), '0:1/3', '0,1/3,2/3,1', 5000)).toMatchObject({
      maxVUs: 4998,
      preAllocatedVUs: 5,
      reason: expect.stringMatching(/rounded down to 4998, a multiple of 3 within the bound 5000/),
    });
    expect(() => vusForSegment({ preAllocatedVUs: 2, maxVUs: 2, reason: 'r' }, '0:1/3', undefined, 2)).toThrow(
      expect.objectContaining({
        message: expect.stringMatching(/needs maxVUs a multiple of 3, more than the 2 allowed/),
        name: 'SegmentError',
      }),
    );
  });

  it('rounds maxVUs up to a multiple of the LCD and says why, and leaves a multiple alone', () => {
    expect(vusForSegment(vus(10), '0:1/3', '0,1/3,2/3,1')).toEqual({
      preAllocatedVUs: 5,
      maxVUs: 12,
      reason:
        'sized; maxVUs 10 rounded up to 12, a multiple of 3, so that k6 gives this execution segment exactly its share',
    });
    const nine = vus(9);
    expect(vusForSegment(nine, '0:1/3', '0,1/3,2/3,1')).toBe(nine);
    expect(vusForSegment(vus(7), undefined)).toEqual(vus(7));
  });
});

describe('the arrival numbers a k6 leg took', () => {
  it('without a segment, the iterations that ended and one more per VU that may have been in flight, within the schedule', () => {
    // stopped at the knee: 5,000 ended, up to 200 were cut off holding numbers
    expect(legSeqsUsed({ segmented: false, scheduled: 9_000.4, ended: 5_000, maxVUs: 200 })).toBe(5_200);
    // ran to its end: never past the schedule's arrivals
    expect(legSeqsUsed({ segmented: false, scheduled: 9_000.4, ended: 8_950, maxVUs: 200 })).toBe(9_001);
  });
  it("under a segment, the whole striped schedule, whatever this instance's share ended", () => {
    expect(legSeqsUsed({ segmented: true, scheduled: 9_000, ended: 2_000, maxVUs: 200 })).toBe(9_000);
  });
});
