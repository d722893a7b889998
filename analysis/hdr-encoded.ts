/**
 * Reading an encoded HDR histogram (HdrHistogram's V2 compressed form, as encodeHistogram writes
 * it) without building one: its non-zero counts only, as (index, count) pairs. A run's buckets hold
 * a dozen encoded histograms per second and source; decoding each into a histogram of its own cost
 * a 290 KB counts array, zeroed, then walked whole by add() (a report of a 15-step run spent about
 * a quarter of its CPU there, most of it allocation and garbage collection). Summing and the
 * per-second p99 read the pairs instead. The result is the one hdr-histogram-js gives: the same
 * counts, total, min and max, and the same percentile (hdr-encoded.test.ts holds both to it).
 */
import { decompress } from 'hdr-histogram-js/dist/encoding.js';
import { deflate } from 'hdr-histogram-js/dist/JsHistogram.encoding.js';
import type { Histogram } from 'hdr-histogram-js';

/** The non-zero counts of an encoded histogram, by ascending counts-array index. */
export interface SparseCounts {
  /** The layout it was encoded with (what its indices mean). */
  lowest: number;
  highest: number;
  digits: number;
  indices: number[];
  counts: number[];
  total: number;
}

/** A unit in the last place of x, as getValueAtPercentile rounds with it. */
const ulp = (x: number): number => Math.pow(2, Math.floor(Math.log2(x)) - 52);

const V2_ENCODING_COOKIE = 0x1c849303 | 0x10;
const V2_COMPRESSED_COOKIE = 0x1c849304 | 0x10;

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64_VALUE = new Int16Array(128).fill(-1);
for (let i = 0; i < B64.length; i++) B64_VALUE[B64.charCodeAt(i)] = i;

/** Standard base64 (padding optional) to bytes; throws on a character outside the alphabet. */
function base64Bytes(s: string): Uint8Array {
  let end = s.length;
  while (end > 0 && s.charCodeAt(end - 1) === 61 /* = */) end--;
  const out = new Uint8Array(Math.floor((end * 3) / 4));
  let acc = 0;
  let bits = 0;
  let o = 0;
  for (let i = 0; i < end; i++) {
    const c = s.charCodeAt(i);
    const v = c < 128 ? B64_VALUE[c] : -1;
    if (v < 0) throw new Error(`not base64: character ${JSON.stringify(s[i])} at ${i}`);
    acc = ((acc << 6) | v) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
    }
  }
  return out.subarray(0, o);
}

/** Bytes to standard base64 with padding (base64-js's fromByteArray, which hdr-histogram-js encodes with). */
function bytesBase64(b: Uint8Array): string {
  let out = '';
  let i = 0;
  for (; i + 2 < b.length; i += 3) {
    const n = (b[i] << 16) | (b[i + 1] << 8) | b[i + 2];
    out += B64[n >> 18] + B64[(n >> 12) & 63] + B64[(n >> 6) & 63] + B64[n & 63];
  }
  if (i + 1 === b.length) {
    const n = b[i] << 16;
    out += B64[n >> 18] + B64[(n >> 12) & 63] + '==';
  } else if (i + 2 === b.length) {
    const n = (b[i] << 16) | (b[i + 1] << 8);
    out += B64[n >> 18] + B64[(n >> 12) & 63] + B64[(n >> 6) & 63] + '=';
  }
  return out;
}

/** The counts of an encoded histogram; throws where it is not V2 compressed (histogram.ts countsOf reads "" as empty). */
export function sparseCounts(b64: string): SparseCounts {
  const bytes = decompress(base64Bytes(b64.trim()));
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getInt32(0) !== V2_ENCODING_COOKIE) throw new Error('not an HDR histogram of the V2 encoding');
  const payload = view.getInt32(4);
  const digits = view.getInt32(12);
  const lowest = view.getInt32(16) * 2 ** 32 + view.getUint32(20);
  const highest = view.getInt32(24) * 2 ** 32 + view.getUint32(28);
  const indices: number[] = [];
  const counts: number[] = [];
  let total = 0;
  let index = 0;
  let at = 40;
  const end = at + payload;
  if (end > bytes.length) throw new Error('an HDR histogram whose payload runs past its end');
  while (at < end) {
    // ZigZag LEB128-64b9B: the ninth byte carries 8 bits
    let v = 0;
    let scale = 1;
    for (let n = 0; ; n++) {
      const b = bytes[at++];
      if (n === 8) {
        v += b * scale;
        break;
      }
      v += (b & 0x7f) * scale;
      scale *= 128;
      if ((b & 0x80) === 0) break;
    }
    const value = v % 2 === 0 ? v / 2 : -(v + 1) / 2;
    if (value < 0) index -= value;
    else {
      if (value > 0) {
        indices.push(index);
        counts.push(value);
        total += value;
      }
      index++;
    }
  }
  return { lowest, highest, digits, indices, counts, total };
}

/** hdr-histogram-js's own members that summing by index uses (JsHistogram; not in its public type). */
interface JsHistogramInside {
  countsArrayLength: number;
  lowestDiscernibleValue: number;
  highestTrackableValue: number;
  numberOfSignificantValueDigits: number;
  unitMagnitudeMask: number;
  lowestDiscernibleValueRounded: number;
  maxValue: number;
  minNonZeroValue: number;
  totalCount: number;
  addToCountAtIndex(index: number, count: number): void;
  setTotalCount(total: number): void;
  updatedMaxValue(value: number): void;
  updateMinNonZeroValue(value: number): void;
  valueFromIndex(index: number): number;
  getCountAtIndex(index: number): number;
  medianEquivalentValue(value: number): number;
  highestEquivalentValue(value: number): number;
  lowestEquivalentValue(value: number): number;
}

/**
 * Adds `c` into `sum` as sum.add(decoded) would, when `sum` has c's layout; false (sum untouched)
 * where it has another, for the caller to decode and add.
 */
export function addSparse(sum: Histogram, c: SparseCounts): boolean {
  const h = sum as unknown as JsHistogramInside;
  if (
    typeof h.addToCountAtIndex !== 'function' ||
    h.lowestDiscernibleValue !== c.lowest ||
    h.highestTrackableValue !== c.highest ||
    h.numberOfSignificantValueDigits !== c.digits ||
    (c.indices.length > 0 && c.indices[c.indices.length - 1] >= h.countsArrayLength)
  )
    return false;
  const n = c.indices.length;
  for (let i = 0; i < n; i++) h.addToCountAtIndex(c.indices[i], c.counts[i]);
  h.setTotalCount(h.totalCount + c.total);
  // the decoded histogram's max and min (establishInternalTackingValues: index 0 is no minimum), then add()'s updates
  const maxOther = n > 0 ? h.highestEquivalentValue(h.valueFromIndex(c.indices[n - 1])) + h.unitMagnitudeMask : 0;
  const minIndex = n > 0 && c.indices[0] !== 0 ? c.indices[0] : n > 1 ? c.indices[1] : -1;
  const minValue = minIndex >= 0 ? h.valueFromIndex(minIndex) : 0;
  const minOther =
    minIndex >= 0 && minValue > h.unitMagnitudeMask
      ? Math.floor(minValue / h.lowestDiscernibleValueRounded) * h.lowestDiscernibleValueRounded
      : Number.MAX_VALUE;
  h.updatedMaxValue(Math.max(h.maxValue, maxOther));
  h.updateMinNonZeroValue(Math.min(h.minNonZeroValue, minOther));
  return true;
}

/**
 * The mean of a histogram's values, each count at its bucket's median: its `mean`, to the last bit
 * (the same terms added in the same order), by a walk of its counts. hdr-histogram-js
 * walks them through an iterator that computes each index's value range again, about 10 x slower:
 * the analysis reads a mean per step and name.
 */
export function histogramMean(sum: Histogram): number {
  const h = sum as unknown as JsHistogramInside;
  if (h.totalCount === 0) return 0;
  // as its iterator: the non-zero counts in order, until they reach the total
  let total = 0;
  let seen = 0;
  for (let i = 0; seen < h.totalCount && i < h.countsArrayLength; i++) {
    const count = h.getCountAtIndex(i);
    if (count > 0) {
      total += h.medianEquivalentValue(h.valueFromIndex(i)) * count;
      seen += count;
    }
  }
  return total / h.totalCount;
}

/**
 * The value at percentile q (0..100) of `c`, as getValueAtPercentile of the decoded histogram
 * gives it; `layout` is any histogram of c's layout (it maps an index to its value). 0 when empty.
 */
export function sparsePercentile(c: SparseCounts, q: number, layout: Histogram): number {
  const h = layout as unknown as JsHistogramInside;
  const fp = (Math.min(q, 100) / 100) * c.total;
  const wanted = Math.max(Math.ceil(fp - ulp(fp)), 1);
  let seen = 0;
  for (let i = 0; i < c.indices.length; i++) {
    seen += c.counts[i];
    if (seen >= wanted) {
      const v = h.valueFromIndex(c.indices[i]);
      return q === 0 ? h.lowestEquivalentValue(v) : h.highestEquivalentValue(v);
    }
  }
  return 0;
}

/** The sum of counts of one layout (the caller checks it; at least one part), as adding the histograms would count. */
export function mergeSparse(parts: readonly SparseCounts[]): SparseCounts {
  let sum = parts[0];
  for (let p = 1; p < parts.length; p++) {
    const a = sum;
    const b = parts[p];
    const indices: number[] = [];
    const counts: number[] = [];
    let i = 0;
    let j = 0;
    while (i < a.indices.length || j < b.indices.length) {
      const ai = i < a.indices.length ? a.indices[i] : Infinity;
      const bj = j < b.indices.length ? b.indices[j] : Infinity;
      indices.push(Math.min(ai, bj));
      counts.push((ai <= bj ? a.counts[i++] : 0) + (bj <= ai ? b.counts[j++] : 0));
    }
    sum = { lowest: a.lowest, highest: a.highest, digits: a.digits, indices, counts, total: a.total + b.total };
  }
  return sum;
}

/** Appends value in ZigZag LEB128-64b9B (the ninth byte carries 8 bits). */
function putZigZag(out: number[], value: number): void {
  let v = value >= 0 ? value * 2 : -value * 2 - 1;
  for (let n = 0; n < 8; n++) {
    if (v < 128) {
      out.push(v);
      return;
    }
    out.push((v % 128) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
}

/**
 * The encoding of `c`, byte for byte what encodeIntoCompressedBase64 writes for a histogram of
 * c's layout holding c's counts: the V2 header, then the counts up to the highest non-zero index,
 * each run of zeros longer than one as its negated length, deflated with zlib's defaults.
 */
export function encodeSparse(c: SparseCounts): string {
  const payload: number[] = [];
  let next = 0;
  for (let i = 0; i < c.indices.length; i++) {
    const zeros = c.indices[i] - next;
    if (zeros > 1) putZigZag(payload, -zeros);
    else if (zeros === 1) putZigZag(payload, 0);
    putZigZag(payload, c.counts[i]);
    next = c.indices[i] + 1;
  }
  if (c.indices.length === 0) putZigZag(payload, 0); // an empty histogram encodes its index 0
  const raw = new Uint8Array(40 + payload.length);
  const view = new DataView(raw.buffer);
  const int64 = (at: number, v: number) => {
    view.setInt32(at, Math.floor(v / 2 ** 32));
    view.setUint32(at + 4, v % 2 ** 32);
  };
  view.setInt32(0, V2_ENCODING_COOKIE);
  view.setInt32(4, payload.length);
  view.setInt32(8, 1); // normalizingIndexOffset, as hdr-histogram-js writes it
  view.setInt32(12, c.digits);
  int64(16, c.lowest);
  int64(24, c.highest);
  int64(32, 1); // integerToDoubleValueConversionRatio, as hdr-histogram-js writes it
  raw.set(payload, 40);
  const packed: Uint8Array = deflate(raw);
  const out = new Uint8Array(8 + packed.length);
  const head = new DataView(out.buffer);
  head.setInt32(0, V2_COMPRESSED_COOKIE);
  head.setInt32(4, packed.length);
  out.set(packed, 8);
  return bytesBase64(out);
}
