import { describe, expect, it } from 'vitest';
import type { BucketRecord } from '../../analysis/types.ts';
import { BucketRecorder } from './recorder.ts';

describe('BucketRecorder and the cgroup\'s throttled time', () => {
  it('gives each second the throttled ms since the last one; after a stall, all to the first second it spanned', () => {
    let counter = 1_000; // cumulative ms, as cpu.stat has it
    const out: BucketRecord[] = [];
    const rec = new BucketRecorder('steps', 'native/0', 0, (r) => out.push(r), 0, () => counter);
    counter += 30;
    rec.tick(1_200); // second 0 ends
    counter += 250;
    rec.tick(4_100); // a stall: seconds 1 to 3 end at once
    counter += 5;
    rec.close(4_500);
    expect(out.map((r) => [r.tS, r.throttledMs])).toEqual([[0, 30], [1, 250], [2, 0], [3, 0], [4, 5]]);
  });

  it('writes none when it does not read the counter (no quota, or another instance reads it)', () => {
    const out: BucketRecord[] = [];
    const rec = new BucketRecorder('steps', 'native/1', 0, (r) => out.push(r));
    rec.tick(1_200);
    rec.close(1_500);
    expect(out.every((r) => !('throttledMs' in r))).toBe(true);
  });
});
