import { describe, expect, it } from 'vitest';
import { trends } from './offered-noise.ts';

describe('a hold that trends', () => {
  it('millisecond stamps: an arrival either side of its two ends is no trend (a 60/s hold was refused as a rise from 59 to 61/s); a rise of 2/s a second is', () => {
    expect(trends([59, 60, 60, 60, 60, 61], false)).toBe(false);
    expect(trends([11, 10, 9], false)).toBe(false);
    expect(trends([55, 57, 59, 61, 63, 65], false)).toBe(true);
    expect(trends([60, 61, 62, 63, 64, 65, 66, 67], false)).toBe(true);
  });
});
