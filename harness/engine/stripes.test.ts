import { describe, expect, it } from 'vitest';
import { entryOf, mixOrder } from '../scenario/mix-order.ts';
import { firstOfStripe, turnBlock } from './stripes.ts';

/** The rule stripes.ts states, written out: the instance that sends global arrival `seq` of a leg from seqOffset + 1. */
function instanceOf(seq: number, seqOffset: number, count: number, block: number): number {
  const x = block === 0 ? seq - seqOffset - 1 : seq - 1 + Math.floor((seq - 1) / block);
  return ((x % count) + count) % count;
}

/** Every local arrival 1..n of a leg that each instance sends, walked as the engine walks its stripe. */
function walk(n: number, seqOffset: number, count: number, period: number): number[][] {
  const block = turnBlock(period, count);
  return Array.from({ length: count }, (_, index) => {
    const sent: number[] = [];
    for (let m = firstOfStripe(1, seqOffset, { index, count }, block); m <= n;) {
      sent.push(m);
      m = firstOfStripe(m + 1, seqOffset, { index, count }, block);
    }
    return sent;
  });
}

describe('stripes of a leg over its instances', () => {
  it('turns only where the period and the count share a factor', () => {
    expect(turnBlock(1, 2)).toBe(0);
    expect(turnBlock(21, 2)).toBe(0);
    expect(turnBlock(20, 1)).toBe(0);
    expect(turnBlock(20, 2)).toBe(20);
    expect(turnBlock(2, 6)).toBe(6);
    expect(turnBlock(20, 8)).toBe(40);
  });

  it('keeps plain striping where it spreads the period: instance (n - 1) mod count of the leg', () => {
    expect(walk(9, 1000, 2, 1)).toEqual([
      [1, 3, 5, 7, 9],
      [2, 4, 6, 8],
    ]);
  });

  it.each([
    [20, 2, 0],
    [20, 2, 37],
    [2, 6, 5],
    [12, 8, 3],
    [7, 3, 0],
    [1, 4, 10],
  ])(
    'period %i over %i instances from seq %i: every arrival once, by the instance instanceOf names, a count-th each',
    (period, count, seqOffset) => {
      const n = 3 * period * count + 5;
      const stripes = walk(n, seqOffset, count, period);
      const all = stripes.flat().sort((a, b) => a - b);
      expect(all).toEqual(Array.from({ length: n }, (_, i) => i + 1));
      const block = turnBlock(period, count);
      stripes.forEach((sent, index) => {
        expect(sent.every((m) => instanceOf(seqOffset + m, seqOffset, count, block) === index)).toBe(true);
        // within one block's turn of the even share (the block ends mid-leg)
        expect(Math.abs(sent.length - n / count)).toBeLessThanOrEqual(2);
      });
    },
  );

  it('every instance sends every entry of a mix at its share (70/25/5 on two threads: the checkouts no longer all on one)', () => {
    const order = mixOrder([70, 25, 5]);
    expect(order.table.length).toBe(20);
    const n = 4000;
    const perInstance = walk(n, 0, 2, order.table.length).map((sent) => {
      const counts = [0, 0, 0];
      for (const m of sent) counts[entryOf(order, m)]++;
      return counts;
    });
    for (const counts of perInstance) expect(counts).toEqual([1400, 500, 100]);
    // plain striping, as before: one instance had every checkout
    const plain = [0, 1].map((i) => {
      let checkouts = 0;
      for (let m = i + 1; m <= n; m += 2) if (entryOf(order, m) === 2) checkouts++;
      return checkouts;
    });
    expect(plain.sort()).toEqual([0, 200]);
  });
});
