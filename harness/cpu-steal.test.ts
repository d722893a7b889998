import { describe, expect, it } from 'vitest';
import { cpuTimesReader, parseCpuTimes, stealShare } from './cpu-steal.ts';

describe('CPU steal from /proc/stat', () => {
  it('reads the aggregate cpu line: steal and the sum of the eight time fields (guest is inside user)', () => {
    const stat =
      'cpu  4359983 167 649218 10228024 7464 0 280855 34526 12 0\ncpu0 2216886 70 325472 5075425 5190 0 139593 17323 0 0\nintr 1 2\n';
    expect(parseCpuTimes(stat)).toEqual({
      steal: 34526,
      total: 4359983 + 167 + 649218 + 10228024 + 7464 + 0 + 280855 + 34526,
    });
    expect(parseCpuTimes('cpu  1 2 3 4\n')).toBeNull(); // a kernel without steal
    expect(parseCpuTimes('')).toBeNull();
  });

  it("gives the stolen share of all CPUs' time between two readings", () => {
    expect(stealShare({ steal: 10, total: 1_000 }, { steal: 40, total: 1_400 })).toBe(0.075);
    expect(stealShare({ steal: 10, total: 1_000 }, { steal: 10, total: 1_000 })).toBeNull();
  });

  it.skipIf(process.platform !== 'linux')("reads this machine's /proc/stat", () => {
    const now = cpuTimesReader()!;
    const a = now()!;
    expect(a.total).toBeGreaterThan(0);
    expect(a.steal).toBeGreaterThanOrEqual(0);
    expect(a.steal).toBeLessThanOrEqual(a.total);
  });
});
