import { describe, expect, it } from 'vitest';
import { BufferedHistogram, encodeHistogram, newHistogram, recordUs } from './histogram.ts';

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
