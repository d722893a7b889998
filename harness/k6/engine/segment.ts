/**
 * The execution-segment arithmetic is pure (analysis/segment.ts); this is its shell edge: a
 * segment k6 would not read the same way is the user's mistake, so its SegmentError becomes the
 * harness's usage error (exit 2, code segment-invalid) with the same message and fix.
 */
import type { Plan } from '../../../analysis/plan.ts';
import * as pure from '../../../analysis/segment.ts';
import type { VuSizing } from '../../../analysis/types.ts';
import { EXIT, PlateauError } from '../../errors.ts';

function usage<A extends unknown[], R>(f: (...args: A) => R): (...args: A) => R {
  return (...args) => {
    try {
      return f(...args);
    } catch (err) {
      if (err instanceof pure.SegmentError)
        throw new PlateauError(err.message, err.hint, 'segment-invalid', EXIT.usage);
      throw err;
    }
  };
}

export const segmentLcd: (segment: string | undefined, sequence?: string) => number = usage(pure.segmentLcd);
export const vusForSegment: (
  vus: VuSizing,
  segment: string | undefined,
  sequence?: string,
  maxBound?: number,
) => VuSizing = usage(pure.vusForSegment);
export const planForSegment: (plan: Plan, config: pure.SegmentConfig) => Plan = usage(pure.planForSegment);
export const k6Vus: (vus: VuSizing, config: pure.SegmentConfig) => VuSizing = usage(pure.k6Vus);
export const segmentVusBound: (b: number, config: pure.SegmentConfig) => number = usage(pure.segmentVusBound);
export const segmentLength: (segment: string | undefined) => number = usage(pure.segmentLength);
export const planShare: (plan: Plan, segment: string | undefined) => Plan = usage(pure.planShare);
