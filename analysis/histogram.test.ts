import * as hdr from 'hdr-histogram-js';
import { describe, expect, it } from 'vitest';
import {
  BufferedHistogram,
  decodeHistogram,
  encodeHistogram,
  HIST_MAX_US,
  newHistogram,
  recordUs,
} from './histogram.ts';

/** Values across the buffered range, its edge and far beyond it, fractional and out of range too. */
function values(n: number): number[] {
  let x = 7;
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    x = (x * 48271) % 2147483647;
    const r = x / 2147483647;
    out.push(i % 10 === 0 ? r * 5_000_000 : i % 7 === 0 ? 2047 + (i % 3) : r * 2500);
  }
  return [...out, 0, -3, 0.4, 1.5, 2047.5, 200_000_000];
}

describe('BufferedHistogram', () => {
  it('flushes into exactly the histogram that recording each value builds', () => {
    const direct = newHistogram(64);
    const buffered = new BufferedHistogram();
    for (const v of values(20_000)) {
      recordUs(direct, v);
      buffered.recordUs(v);
    }
    expect(buffered.totalCount).toBe(direct.totalCount);
    const flushed = buffered.flush();
    expect(encodeHistogram(flushed)).toBe(encodeHistogram(direct));
    expect([flushed.minNonZeroValue, flushed.maxValue, flushed.getValueAtPercentile(99)]).toEqual([
      direct.minNonZeroValue,
      direct.maxValue,
      direct.getValueAtPercentile(99),
    ]);
  });

  it('starts empty after reset, buffered values included, and a second flush adds nothing', () => {
    const b = new BufferedHistogram();
    for (const v of [5, 50, 5_000]) b.recordUs(v);
    expect(b.flush().totalCount).toBe(3);
    expect(b.flush().totalCount).toBe(3);
    b.recordUs(10);
    b.reset();
    expect(b.totalCount).toBe(0);
    b.recordUs(12);
    const h = b.flush();
    expect([h.totalCount, h.minNonZeroValue, h.maxValue]).toEqual([1, 12, 12]);
  });
});

describe('decodeHistogram', () => {
  it('gives back the histogram encoded, in our range, for both layouts', () => {
    const h = newHistogram(64);
    for (const v of values(5_000)) recordUs(h, v);
    for (const layout of ['packed', 64] as const) {
      const d = decodeHistogram(encodeHistogram(h), layout);
      expect(encodeHistogram(d)).toBe(encodeHistogram(h));
      expect([d.highestTrackableValue, d.autoResize, d.getValueAtPercentile(99)]).toEqual([
        HIST_MAX_US,
        true,
        h.getValueAtPercentile(99),
      ]);
      // it takes our values, the largest included, and sums with a histogram of ours
      d.recordValue(HIST_MAX_US);
      d.add(h);
      expect(d.totalCount).toBe(2 * h.totalCount + 1);
    }
  });

  it('copies a histogram of another range into ours, and an empty string is an empty one', () => {
    const other = hdr.build({
      lowestDiscernibleValue: 1,
      highestTrackableValue: 1_000_000,
      numberOfSignificantValueDigits: 3,
      useWebAssembly: false,
    });
    other.recordValue(1234);
    other.recordValue(999_000);
    const d = decodeHistogram(hdr.encodeIntoCompressedBase64(other), 64);
    expect([d.highestTrackableValue, d.totalCount, d.getValueAtPercentile(100)]).toEqual([
      HIST_MAX_US,
      2,
      other.getValueAtPercentile(100),
    ]);
    d.recordValue(HIST_MAX_US);
    expect(d.totalCount).toBe(3);
    const empty = decodeHistogram('');
    expect([empty.highestTrackableValue, empty.totalCount]).toEqual([HIST_MAX_US, 0]);
  });
});
