import fc from 'fast-check';
import * as hdr from 'hdr-histogram-js';
import { describe, expect, it } from 'vitest';
import { addSparse, encodeSparse, sparseCounts } from './hdr-encoded.ts';
import {
  addEncodedInto,
  decodeHistogram,
  encodedPercentileMs,
  encodeHistogram,
  HIST_MAX_US,
  meanUs,
  newHistogram,
  percentileMs,
  sumEncoded,
  sumPercentileMs,
  type Histogram,
} from './histogram.ts';

/** Values (µs) with counts: 0 (index 0, no minimum), small, the buffered edge, far out, and counts past 2^32 (a long soak's). */
const recorded = fc.array(
  fc.record({
    us: fc.oneof(
      fc.integer({ min: 1, max: 3000 }),
      fc.integer({ min: 1, max: HIST_MAX_US }),
      fc.constantFrom(0, 1, 2047, 2048, HIST_MAX_US),
    ),
    count: fc.oneof(fc.integer({ min: 1, max: 5 }), fc.constantFrom(127, 128, 16_384, 2 ** 33 + 7)),
  }),
  { maxLength: 60 },
);

function histogramOf(values: { us: number; count: number }[]): Histogram {
  const h = newHistogram(64);
  for (const { us, count } of values) h.recordValueWithCount(us, count);
  return h;
}

/** What a sum shows: its counts (through its encoding), total, max, min and percentiles. */
function shown(h: Histogram) {
  const inside = h as unknown as { maxValue: number; minNonZeroValue: number };
  return {
    encoded: encodeHistogram(h),
    total: h.totalCount,
    max: inside.maxValue,
    min: inside.minNonZeroValue,
    p: [0, 1, 50, 90, 99, 99.9, 100].map((q) => h.getValueAtPercentile(q)),
  };
}

describe('encoded histograms read by their counts', () => {
  it('sum into exactly what adding the decoded histogram gives, over several adds', () => {
    fc.assert(
      fc.property(fc.array(recorded, { minLength: 1, maxLength: 4 }), (parts) => {
        const byDecode = newHistogram(64);
        const byCounts = newHistogram(64);
        for (const part of parts) {
          const b64 = encodeHistogram(histogramOf(part));
          byDecode.add(decodeHistogram(b64, 64));
          addEncodedInto(byCounts, b64);
        }
        expect(shown(byCounts)).toEqual(shown(byDecode));
      }),
      { numRuns: 200 },
    );
  });

  it('sum and encode byte for byte as hdr-histogram-js encodes the summed histogram', () => {
    fc.assert(
      fc.property(fc.array(recorded, { maxLength: 4 }), (parts) => {
        const encoded = parts.map((p) => encodeHistogram(histogramOf(p)));
        const sum = newHistogram(64);
        for (const b64 of encoded) sum.add(decodeHistogram(b64, 64));
        expect(sumEncoded(encoded)).toBe(encodeHistogram(sum));
        for (const q of [50, 99]) expect(sumPercentileMs(encoded, q)).toBe(percentileMs(sum, q));
      }),
      { numRuns: 200 },
    );
    const empty = encodeHistogram(newHistogram(64));
    expect(encodeSparse(sparseCounts(empty))).toBe(empty);
    expect(sumEncoded(['', ''])).toBe(empty);
  });

  it('give the percentile of the decoded histogram, and null where it is empty', () => {
    fc.assert(
      fc.property(recorded, fc.constantFrom(0, 0.1, 50, 99, 99.9, 100, 120), (values, q) => {
        const b64 = encodeHistogram(histogramOf(values));
        expect(encodedPercentileMs(b64, q)).toBe(percentileMs(decodeHistogram(b64, 64), q));
      }),
      { numRuns: 300 },
    );
    expect(encodedPercentileMs('', 99)).toBeNull();
  });

  it('leave a sum of another layout untouched, and addEncodedInto then adds the decoded one', () => {
    const build = () =>
      hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 1_000_000, numberOfSignificantValueDigits: 2 });
    const other = build();
    const b64 = encodeHistogram(histogramOf([{ us: 1500, count: 3 }]));
    expect(addSparse(other, sparseCounts(b64))).toBe(false);
    expect(other.totalCount).toBe(0);
    addEncodedInto(other, b64);
    const byDecode = build();
    byDecode.add(decodeHistogram(b64, 64));
    expect(shown(other)).toEqual(shown(byDecode));
    expect(other.totalCount).toBe(3);
  });

  it('read a histogram of another layout (a k6 import of another range) by its own', () => {
    const foreign = hdr.build({
      lowestDiscernibleValue: 1,
      highestTrackableValue: 3_600_000_000,
      numberOfSignificantValueDigits: 2,
    });
    foreign.recordValueWithCount(12_345, 10);
    foreign.recordValueWithCount(987, 90);
    const b64 = hdr.encodeIntoCompressedBase64(foreign);
    const c = sparseCounts(b64);
    expect(c).toMatchObject({ lowest: 1, highest: 3_600_000_000, digits: 2, total: 100 });
    expect(encodedPercentileMs(b64, 99)).toBe(percentileMs(decodeHistogram(b64, 64), 99));
    const sum = newHistogram(64);
    addEncodedInto(sum, b64);
    expect(shown(sum)).toEqual(shown(decodeHistogram(b64, 64)));
    // summed into our layout, as before: the sum of its counts would keep the other's
    const both = newHistogram(64);
    both.add(decodeHistogram(b64, 64));
    both.add(decodeHistogram(b64, 64));
    expect(sumEncoded([b64, b64])).toBe(encodeHistogram(both));
  });

  it("give a histogram's mean to the last bit, summed or recorded, of either layout", () => {
    fc.assert(
      fc.property(
        fc.array(recorded, { maxLength: 3 }),
        fc.constantFrom<64 | 'packed'>(64, 'packed'),
        (parts, layout) => {
          const sum = newHistogram(layout);
          for (const p of parts) addEncodedInto(sum, encodeHistogram(histogramOf(p)));
          expect(meanUs(sum)).toBe(sum.mean);
          const one = histogramOf(parts.flat());
          expect(meanUs(one)).toBe(one.mean);
        },
      ),
      { numRuns: 200 },
    );
    expect(meanUs(newHistogram(64))).toBe(0);
  });

  it('refuse text that is not an encoded histogram, naming what it is not', () => {
    expect(() => sparseCounts('not base64!')).toThrow(/not base64: character " "/);
    expect(() => sparseCounts(Buffer.from('HISTFAAAAA').toString('base64'))).toThrow();
  });
});
