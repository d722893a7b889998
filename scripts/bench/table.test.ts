import { describe, expect, it } from 'vitest';
import {
  aggregate,
  formatRatios,
  formatTable,
  held,
  OVERDRIVE_TOOL,
  PAIRED_TOOL,
  pairedRate,
  ratios,
  type Measure,
} from './table.ts';

const run = (targetRate: number, over: Partial<Measure> = {}): Measure => ({
  tool: 'plateau',
  model: 'open',
  settings: '',
  targetRate,
  achievedPerSec: targetRate,
  cpuPer10k: 0.4,
  p50Ms: 0.5,
  p99Ms: 20,
  dropped: 0,
  errors: 0,
  ...over,
});
const closed = (tool: string, achievedPerSec: number): Measure => ({
  tool,
  model: 'closed',
  settings: '',
  targetRate: null,
  achievedPerSec,
  cpuPer10k: 0.2,
  p50Ms: 1,
  p99Ms: 3,
  dropped: null,
  errors: 0,
});

describe('bench table', () => {
  it('a run holds within 1% of the rate, with nothing dropped and a median under 2 ms', () => {
    expect(held(run(30_000, { achievedPerSec: 29_700 }))).toBe(true);
    expect(held(run(30_000, { achievedPerSec: 29_699 }))).toBe(false);
    expect(held(run(30_000, { dropped: 1 }))).toBe(false);
    expect(held(run(30_000, { p50Ms: 2 }))).toBe(false);
  });

  it('counts the runs that held on their own and says so in the row', () => {
    const [row] = aggregate([
      run(30_000, { achievedPerSec: 29_900 }),
      run(30_000, { achievedPerSec: 30_200, dropped: 332 }),
      run(30_000, { note: 'lag' }),
    ]);
    expect(row).toMatchObject({ runs: 3, heldRuns: 2, dropped: 0, achievedPerSec: 30_000 });
    expect(row.note).toBe('held in 2 of 3 runs; lag');
    const [one] = aggregate([
      run(10_000, { tool: 'plateau 1 thread' }),
      run(10_000, { tool: 'plateau 1 thread', p50Ms: 2.5 }),
    ]);
    expect(one).toMatchObject({ runs: 2, heldRuns: 1, note: 'held in 1 of 2 runs' });
  });

  it('takes the highest rate most runs held, not one whose medians pass while most runs failed', () => {
    const rows = aggregate([
      run(20_000),
      run(20_000),
      run(20_000),
      // Each run fails on something else; the medians of the figures would all pass.
      run(30_000, { p50Ms: 3 }),
      run(30_000, { dropped: 10 }),
      run(30_000),
      closed('autocannon', 40_000),
      { ...closed('artillery', 1_000), model: 'open', targetRate: 1_800 },
    ]);
    const rs = ratios(rows);
    const ac = rs.find((r) => r.what === 'plateau held rate / autocannon closed max');
    expect(ac?.value).toBe(0.5);
    expect(ac?.detail).toContain('plateau held 20,000 req/s in 3 of 3 runs');
    expect(rs.find((r) => r.what === 'plateau held rate / artillery best')).toMatchObject({ value: 20, met: true });
  });

  it('judges the paired case run by run: each at 1.25 x the autocannon maximum just before it, met when most runs held', () => {
    expect(pairedRate(33_492)).toBe(42_000);
    expect(pairedRate(36_000)).toBe(45_000);
    const paired = (max: number, over: Partial<Measure> = {}) =>
      run(pairedRate(max), { tool: PAIRED_TOOL, pairedMax: max, ...over });
    const rows = aggregate([
      paired(33_492),
      paired(37_260, { p50Ms: 9.2, dropped: 12 }),
      paired(26_667),
      closed('autocannon', 33_492),
    ]);
    const r = ratios(rows).find((x) => x.what === 'plateau held 1.25 x autocannon closed max, run by run')!;
    expect(r).toMatchObject({ goal: 'most runs', met: true });
    expect(r.value).toBeCloseTo(2 / 3, 6);
    expect(r.detail).toBe(
      'held in 2 of 3 runs; 33,500 req/s (autocannon 26,667): held; 42,000 req/s (autocannon 33,492): held; 47,000 req/s (autocannon 37,260): not held, 12 dropped, p50 9.20 ms',
    );
    // The paired rows are not plateau's fixed rates: the best fixed rate held is judged apart, and
    // without any fixed rate there is no such line.
    expect(ratios(rows).some((x) => x.what === 'plateau held rate / autocannon closed max')).toBe(false);
    expect(
      ratios([...rows, ...aggregate([run(30_000)])]).find((x) => x.what === 'plateau held rate / autocannon closed max')
        ?.value,
    ).toBeCloseTo(30_000 / 33_492, 6);
    const missed = ratios(aggregate([paired(40_000, { achievedPerSec: 48_000 }), paired(40_000)]))[0];
    expect(missed).toMatchObject({
      met: false,
      detail: 'held in 1 of 2 runs; 50,000 req/s (autocannon 40,000): held in 1 of 2',
    });
    expect(held({ ...paired(40_000, { achievedPerSec: 48_000 }) })).toBe(false);
  });

  it('shows one thread against autocannon -R at 10k beside the default shape, as information', () => {
    const rs = ratios(
      aggregate([
        run(10_000, { cpuPer10k: 0.46 }),
        run(10_000, { tool: 'plateau 1 thread', cpuPer10k: 0.33 }),
        { ...closed('autocannon -R', 10_050), targetRate: 10_000, cpuPer10k: 0.2 },
      ]),
    );
    expect(rs.find((r) => r.what === 'plateau CPU-s/10k at 10k req/s / autocannon -R at 10k req/s')).toMatchObject({
      met: false,
    });
    const one = rs.find((r) => r.what === 'plateau on 1 thread CPU-s/10k at 10k req/s / autocannon -R')!;
    expect(one.value).toBeCloseTo(1.65, 6);
    expect(one).toMatchObject({ goal: 'informative', met: null });
  });

  it("says how many cores plateau and nginx would keep busy at 1.25 x autocannon, from their CPU at plateau's highest held rate", () => {
    const ms = [
      run(40_000, { cpuPer10k: 0.15, targetCpuPer10k: 0.1 }),
      run(40_000, { cpuPer10k: 0.17, targetCpuPer10k: 0.1 }),
      run(50_000, { dropped: 9, cpuPer10k: 1, targetCpuPer10k: 1 }),
      { ...closed('autocannon', 60_000), cpuPer10k: 0.17, targetCpuPer10k: 0.09 },
    ];
    const b = ratios(aggregate(ms), 2).find(
      (r) => r.what === 'cores plateau + nginx would keep busy at 1.25 x autocannon max',
    )!;
    // 75,000 req/s x (0.16 + 0.1) CPU-s per 10k = 1.95 cores; the failed 50,000 is not the base.
    expect(b.value).toBeCloseTo(1.95, 6);
    expect(b).toMatchObject({ goal: '< 2 cores', met: null });
    expect(b.detail).toBe(
      "75,000 req/s at plateau 0.160 + nginx 0.100 CPU-s/10k (measured at 40,000 req/s), before any headroom for stalls; autocannon's own maximum kept 1.56 cores busy (itself 0.170 + nginx 0.090 CPU-s/10k)",
    );
    // Without nginx's CPU (not read) there is no budget line.
    expect(
      ratios(aggregate([run(40_000), closed('autocannon', 60_000)]), 2).some((r) => r.what.startsWith('cores')),
    ).toBe(false);
  });

  it('shows the context switches per 10k of both sides beside the CPU at 10k req/s', () => {
    const rs = ratios(
      aggregate([
        run(10_000, { cpuPer10k: 0.25, switchesPer10k: 3_400, targetSwitchesPer10k: 2_100 }),
        {
          ...closed('autocannon -R', 10_000),
          targetRate: 10_000,
          cpuPer10k: 0.2,
          switchesPer10k: 700,
          targetSwitchesPer10k: 400,
        },
      ]),
    );
    expect(rs.find((r) => r.what === 'plateau CPU-s/10k at 10k req/s / autocannon -R at 10k req/s')?.detail).toBe(
      "0.250 vs 0.200 CPU-s/10k; context switches per 10k 3,400 vs 700, nginx's 2,100 vs 400",
    );
    const t = formatTable(aggregate([run(10_000, { switchesPer10k: 3_400.4 }), run(20_000)]));
    const [head, first, second] = t.split('\n');
    expect(head).toMatch(/nginx CPU-s\/10k  switches\/10k  nginx switches\/10k  p50 ms/);
    expect(first).toMatch(/\s3,400\s+–\s/);
    expect(second).toMatch(/–\s+–\s+0\.50\s/);
  });

  it("shows nginx's CPU per 10k beside the tool's in the table", () => {
    const t = formatTable(aggregate([run(10_000, { cpuPer10k: 0.2, targetCpuPer10k: 0.115 }), run(20_000)]));
    const [head, first, second] = t.split('\n');
    expect(head).toMatch(/CPU-s\/10k  nginx CPU-s\/10k/);
    expect(first).toMatch(/0\.200\s+0\.115\s/);
    expect(second).toMatch(/0\.400\s+–\s/);
  });

  describe('the overdriven thread', () => {
    const od = (rate: number, over: Partial<Measure> = {}) => run(rate, { tool: OVERDRIVE_TOOL, ...over });
    const verdict = (ms: Measure[]) =>
      ratios(aggregate(ms)).find((r) => r.what === 'overdriven thread reported generator-bound with 0 dropped');

    it('is met by the lowest rate plateau flagged with nothing dropped', () => {
      const r = verdict([
        od(20_000),
        od(25_000, { generator: 'limited', note: 'holds, generator-limited, lag p99 31.0 ms' }),
      ]);
      expect(r).toMatchObject({
        met: true,
        goal: 'reported',
        detail: 'at 25,000 req/s (tried 20,000, 25,000), 0 dropped: holds, generator-limited, lag p99 31.0 ms',
      });
    });

    it('is not met when plateau flagged it only with drops, or never', () => {
      expect(
        verdict([
          od(20_000, { generator: 'bound', dropped: 5_000, note: 'fails (generator-limited, not a server limit)' }),
        ]),
      ).toMatchObject({ met: false, detail: expect.stringContaining('5,000 dropped') });
      expect(verdict([od(20_000), od(25_000)])).toMatchObject({
        met: false,
        detail: 'not reported at 20,000, 25,000 req/s: one thread kept up; raise --overdrive-rate',
      });
      expect(verdict([run(20_000)])).toBeUndefined();
    });

    it('keeps its rows apart from the one-thread rows and flags a row only when all its runs were', () => {
      const rows = aggregate([
        od(10_000, { generator: 'limited' }),
        run(10_000, { tool: 'plateau 1 thread', generator: 'limited' }),
        run(10_000, { tool: 'plateau 1 thread' }),
      ]);
      expect(rows.map((r) => [r.tool, r.runs, r.generator])).toEqual([
        [OVERDRIVE_TOOL, 1, 'limited'],
        ['plateau 1 thread', 2, undefined],
      ]);
    });
  });

  it('prints a third decimal only where two would round a ratio onto its goal', () => {
    const r = (value: number, met: boolean) => ({ what: 'held rate', value, goal: '>= 1.25', met, detail: 'd' });
    expect(formatRatios([r(1.2476, false)])).toMatch(/ 1\.248 {2}goal >= 1\.25 +NOT met/);
    expect(formatRatios([r(1.3312, true)])).toMatch(/ 1\.33 {2}goal/);
    expect(formatRatios([{ ...r(0.26, false), value: null }])).toMatch(/ – {2}goal/);
  });
});
