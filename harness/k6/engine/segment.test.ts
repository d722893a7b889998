import { describe, expect, it } from 'vitest';
import { PlateauError } from '../../errors.ts';
import { k6Vus, planShare, segmentLcd, segmentLength, segmentVusBound } from './segment.ts';

describe('execution segments at the shell edge', () => {
  it('turns a segment k6 would not read into a usage error (exit 2) with the same message and fix', () => {
    const thrown = (() => {
      try {
        segmentLength('1/2:1/4');
      } catch (err) {
        return err;
      }
      return null;
    })();
    expect(thrown).toBeInstanceOf(PlateauError);
    expect(thrown).toMatchObject({
      message: 'execution segment "1/2:1/4" is empty',
      hint: 'the end must be after the start, e.g. 0:1/2',
      code: 'segment-invalid',
      exitCode: 2,
    });
    expect(() =>
      k6Vus(
        { preAllocatedVUs: 1, maxVUs: 1, reason: 'r' },
        { k6: { executionSegment: '0:1/3' }, limits: { maxInFlight: 2 } },
      ),
    ).toThrow(expect.objectContaining({ code: 'segment-invalid', exitCode: 2 }));
  });

  it("passes the pure arithmetic's answers through", () => {
    expect(segmentLcd('1/4:1/2')).toBe(4);
    expect(segmentVusBound(5000, { k6: { executionSegment: '0:1/3' }, limits: { maxInFlight: 10_000 } })).toBe(4998);
    const plan = { steps: [{ ratePerSec: 90 }], expectedSteadySamples: [900] } as unknown as Parameters<
      typeof planShare
    >[0];
    expect(planShare(plan, '0:1/3')).toMatchObject({ steps: [{ ratePerSec: 30 }], expectedSteadySamples: [300] });
  });
});
