import { describe, expect, it } from 'vitest';
import { cpuRateOver, per10kOf, processSwitches, treeSwitches } from './proc.ts';

describe.runIf(process.platform === 'linux')('bench /proc readers', () => {
  it('counts the context switches of every thread, and each sleep adds some', async () => {
    const a = processSwitches(process.pid)!;
    expect(a).toBeGreaterThan(0);
    for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 2));
    expect(processSwitches(process.pid)!).toBeGreaterThanOrEqual(a + 20);
    // the process's count first: it grows between two reads (beside the CPU hog, by 8 once), and
    // the tree's, read after it, holds at least that
    const own = processSwitches(process.pid)!;
    expect(treeSwitches(process.pid)!).toBeGreaterThanOrEqual(own);
    expect(processSwitches(2 ** 22 + 7)).toBeNull();
  });
});

describe('bench rates', () => {
  it('turns two samples into per-second rates and those into figures per 10k answers', () => {
    const r = cpuRateOver(
      { tS: 1, cpuS: 2, switches: 1_000, targetCpuS: 1 },
      { tS: 3, cpuS: 2.5, switches: 7_000, targetCpuS: 1.2 },
    );
    expect(r).toEqual({ tool: 0.25, target: expect.closeTo(0.1, 9), toolSwitches: 3_000, targetSwitches: null });
    expect(per10kOf(r, 10_000)).toEqual({
      cpuPer10k: 0.25,
      targetCpuPer10k: expect.closeTo(0.1, 9),
      switchesPer10k: 3_000,
      targetSwitchesPer10k: null,
    });
  });
});
