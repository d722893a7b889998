import { describe, expect, it } from 'vitest';
import { aggregate, mergeRecords, MAX_SAMPLES, type Aggregate } from './buckets.ts';
import { decodeHistogram, encodeHistogram, newHistogram, recordUs } from './histogram.ts';
import { buildRecords, type FakeRunSpec } from './testing/builders.ts';
import type { BucketRecord } from './types.ts';

const SPEC: FakeRunSpec = {
  steps: [
    { ratePerSec: 100, latencyMs: 5 },
    { ratePerSec: 200, okPerSec: 170, failedPerSec: 20.5, droppedPerSec: 3.3, latencyMs: 40, errorSample: 'boom' },
  ],
  rampS: 2,
  holdS: 10,
  settleS: 2,
  warmupS: 3,
};

const QS = [0, 50, 90, 99, 99.9, 100];

/** The numbers that must survive any split and merge. */
function fingerprint(a: Aggregate) {
  const { hist, lag, samples, phase, fromS, toS, ...counts } = a;
  return {
    counts,
    duration: {
      n: hist.duration.totalCount,
      qs: QS.map((q) => hist.duration.getValueAtPercentile(q)),
      mean: hist.duration.mean,
    },
    lag: { n: lag.totalCount, max: lag.maxValue },
  };
}

describe('mergeRecords', () => {
  it('sums only the duration and lag histograms of several sources: the other phases are stored, never read by the analysis', () => {
    const split = buildRecords({ ...SPEC, sources: 3 });
    expect(split[0].hist.waiting).toBeTruthy();
    const merged = mergeRecords(split);
    for (const r of merged) expect(Object.keys(r.hist)).toEqual(['duration']);
    expect(merged.every((r) => typeof r.lag === 'string')).toBe(true);
  });

  it('sums the sends refused for their name over the sources of a second, keeping a first message', () => {
    const [a] = buildRecords({ steps: [{ ratePerSec: 10 }], holdS: 1, settleS: 0 } as FakeRunSpec);
    const refused = (count: number, first: string): BucketRecord => ({ ...a, refusedNames: { count, first } });
    const merged = mergeRecords([
      refused(2, 'x'),
      { ...refused(3, 'y'), source: 'native/1' },
      { ...a, source: 'native/2' },
    ]);
    expect(merged.find((r) => r.tS === a.tS)?.refusedNames).toEqual({ count: 5, first: 'x' });
    expect(mergeRecords([a, { ...a, source: 'native/1' }])[0].refusedNames).toBeUndefined();
  });

  it('merge of a split run equals the aggregate of the whole run', () => {
    const whole = buildRecords(SPEC);
    const split = buildRecords({ ...SPEC, sources: 3 });
    expect(split.length).toBe(whole.length * 3);
    const merged = mergeRecords(split);
    expect(merged.length).toBe(whole.length);
    for (const [from, to] of [
      [3, 5],
      [7, 15],
      [0, 100],
    ]) {
      expect(fingerprint(aggregate(merged, 'steps', from, to))).toEqual(
        fingerprint(aggregate(whole, 'steps', from, to)),
      );
      // aggregate is exact on raw multi-source buckets too (VUs summed per second first)
      expect(fingerprint(aggregate(split, 'steps', from, to))).toEqual(
        fingerprint(aggregate(whole, 'steps', from, to)),
      );
    }
    expect(fingerprint(aggregate(merged, 'warmup', 0, 3))).toEqual(fingerprint(aggregate(whole, 'warmup', 0, 3)));
  });

  it('merged buckets carry the same encoded histograms as the unsplit ones', () => {
    const whole = mergeRecords(buildRecords(SPEC));
    const merged = mergeRecords(buildRecords({ ...SPEC, sources: 4 }));
    merged.forEach((m, i) => {
      expect(m.hist.duration).toBe(whole[i].hist.duration);
      expect(m.lag).toBe(whole[i].lag);
      expect(m.source).toBe('fake/0+fake/1+fake/2+fake/3');
      expect(m.vusAllocated).toBe(whole[i].vusAllocated);
    });
  });

  it('is associative and commutative', () => {
    const [a, b, c] = [0, 1, 2].map((j) =>
      buildRecords({ ...SPEC, sources: 3 }).filter((r) => r.source === `fake/${j}`),
    );
    const left = mergeRecords([...mergeRecords([...a, ...b]), ...c]);
    const right = mergeRecords([...a, ...mergeRecords([...b, ...c])]);
    const swapped = mergeRecords([...c, ...a, ...b]);
    expect(left).toEqual(right);
    expect(swapped).toEqual(left);
  });

  it('sorts by phase then tS, adds errors and statuses per key, takes the max loop delay, caps samples', () => {
    const base = buildRecords({ steps: [{ ratePerSec: 10 }], rampS: 0, holdS: 1, settleS: 0 })[0];
    const r = (over: Partial<BucketRecord>): BucketRecord => ({ ...base, ...over });
    const merged = mergeRecords([
      r({ source: 'b', tS: 1, errors: { timeout: 2 }, statuses: { '503': 1 }, loopDelayMaxMs: 7, samples: ['x', 'y'] }),
      r({
        source: 'a',
        tS: 1,
        errors: { timeout: 1, reset: 4 },
        statuses: { '503': 2, '500': 1 },
        loopDelayMaxMs: 3,
        samples: Array.from({ length: 12 }, (_, i) => `m${i}`),
      }),
      r({ source: 'a', tS: 0, phase: 'warmup' }),
      r({ source: 'a', tS: 0 }),
    ]);
    expect(merged.map((m) => `${m.phase}@${m.tS}`)).toEqual(['steps@0', 'steps@1', 'warmup@0']);
    const m = merged[1];
    expect(m.source).toBe('a+b');
    expect(m.errors).toEqual({ timeout: 3, reset: 4 });
    expect(m.statuses).toEqual({ '503': 3, '500': 1 });
    expect(m.loopDelayMaxMs).toBe(7);
    expect(m.samples).toEqual(['x', 'y', 'm0', 'm1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7']);
    expect(m.samples).toHaveLength(MAX_SAMPLES);
  });
});

describe('event-loop delay: measured by the native engine, not by k6', () => {
  const base = buildRecords({ steps: [{ ratePerSec: 10 }], rampS: 0, holdS: 1, settleS: 0 })[0];
  const r = (source: string, tS: number, loopDelayMaxMs?: number): BucketRecord => {
    const { loopDelayMaxMs: _, ...rest } = base;
    return { ...rest, source, tS, ...(loopDelayMaxMs === undefined ? {} : { loopDelayMaxMs }) };
  };

  it.each([
    ['native seconds: the largest', [r('a', 0, 3), r('a', 1, 0), r('b', 1, 7)], 7],
    ['native seconds that read 0: a measured 0', [r('a', 0, 0), r('a', 1, 0)], 0],
    ['k6 seconds (none carries one): not measured, never 0', [r('k6', 0), r('k6', 1)], null],
    ['a k6 second beside a native one: the native reading', [r('k6', 0), r('a', 0, 4)], 4],
  ])('%s', (_, records, expected) => {
    expect(aggregate(records, 'steps', 0, 2).loopDelayMaxMs).toBe(expected);
    expect(aggregate(mergeRecords(records), 'steps', 0, 2).loopDelayMaxMs).toBe(expected);
  });

  it('a merged second keeps its highest measuring source; none measured, none kept', () => {
    expect(mergeRecords([r('a', 0, 2), r('b', 0, 9), r('k6', 0)])[0]!.loopDelayMaxMs).toBe(9);
    expect('loopDelayMaxMs' in mergeRecords([r('k6', 0), r('k6b', 0)])[0]!).toBe(false);
  });
});

describe('generator busy share', () => {
  const base = buildRecords({ steps: [{ ratePerSec: 10 }], rampS: 0, holdS: 1, settleS: 0 })[0];
  const r = (source: string, tS: number, busy?: number): BucketRecord => ({
    ...base,
    source,
    tS,
    ...(busy === undefined ? {} : { busy }),
  });
  const records = [r('a', 0, 0.2), r('b', 0, 0.6), r('a', 1, 0.9), r('b', 1, 0.1), r('a', 2, 0.4), r('b', 2)];

  it('a merged second keeps its busiest source; none measured, none kept', () => {
    expect(mergeRecords(records).map((m) => m.busy)).toEqual([0.6, 0.9, 0.4]);
    expect('busy' in mergeRecords([r('a', 0), r('b', 0)])[0]).toBe(false);
  });

  it('sums the drops refused on a saturated thread; none, none kept (absent means 0)', () => {
    const c = (source: string, tS: number, droppedBusy?: number): BucketRecord => ({
      ...base,
      source,
      tS,
      dropped: 9,
      ...(droppedBusy === undefined ? {} : { droppedBusy }),
    });
    expect(mergeRecords([c('a', 0, 2), c('b', 0)])[0].droppedBusy).toBe(2);
    expect('droppedBusy' in mergeRecords([c('a', 0), c('b', 0)])[0]).toBe(false);
    expect(aggregate([c('a', 0, 2), c('b', 0, 3), c('a', 1), c('a', 2, 7)], 'steps', 0, 2)).toMatchObject({
      dropped: 27,
      droppedBusy: 5,
    });
    expect(aggregate([c('a', 0), c('a', 1)], 'steps', 0, 2).droppedBusy).toBe(0);
  });

  it('sums the throttled time of the one source that reads it; none read, null', () => {
    const c = (source: string, tS: number, throttledMs?: number): BucketRecord => ({
      ...base,
      source,
      tS,
      ...(throttledMs === undefined ? {} : { throttledMs }),
    });
    expect(mergeRecords([c('a', 0, 12.5), c('b', 0)])[0].throttledMs).toBe(12.5);
    expect('throttledMs' in mergeRecords([c('a', 0), c('b', 0)])[0]).toBe(false);
    expect(aggregate([c('a', 0, 12.5), c('b', 0), c('a', 1, 0), c('a', 2, 90)], 'steps', 0, 2).throttledMs).toBe(12.5);
    expect(aggregate([c('a', 0), c('a', 1)], 'steps', 0, 2).throttledMs).toBeNull();
  });

  it("CPU steal: the one source's share each second, averaged over the window's seconds that have it", () => {
    const c = (source: string, tS: number, cpuSteal?: number): BucketRecord => ({
      ...base,
      source,
      tS,
      ...(cpuSteal === undefined ? {} : { cpuSteal }),
    });
    expect(mergeRecords([c('a', 0, 0.05), c('b', 0)])[0].cpuSteal).toBe(0.05);
    expect('cpuSteal' in mergeRecords([c('a', 0), c('b', 0)])[0]).toBe(false);
    expect(
      aggregate([c('a', 0, 0.05), c('b', 0), c('a', 1, 0.01), c('a', 2, 0.9)], 'steps', 0, 2).cpuSteal,
    ).toBeCloseTo(0.03, 9);
    expect(aggregate([c('a', 0), c('a', 1)], 'steps', 0, 2).cpuSteal).toBeNull();
  });

  it('sums the reconnects; buckets that did not count them (k6, older runs) have none', () => {
    const c = (source: string, tS: number, reconnects?: number): BucketRecord => ({
      ...base,
      source,
      tS,
      ...(reconnects === undefined ? {} : { reconnects }),
    });
    expect(mergeRecords([c('a', 0, 2), c('b', 0, 3)])[0].reconnects).toBe(5);
    expect('reconnects' in mergeRecords([c('a', 0), c('b', 0)])[0]).toBe(false);
    expect(aggregate([c('a', 0, 2), c('b', 0, 3), c('a', 1, 1), c('a', 2, 7)], 'steps', 0, 2).reconnects).toBe(6);
    expect(aggregate([c('a', 0), c('a', 1)], 'steps', 0, 2).reconnects).toBeNull();
  });

  it('a window averages the busiest source of each second, the same on raw and merged buckets', () => {
    expect(aggregate(records, 'steps', 0, 3).busy).toBeCloseTo((0.6 + 0.9 + 0.4) / 3, 10);
    expect(aggregate(mergeRecords(records), 'steps', 0, 3).busy).toBeCloseTo((0.6 + 0.9 + 0.4) / 3, 10);
    expect(aggregate([r('k6', 0), r('k6', 1)], 'steps', 0, 2).busy).toBeNull();
  });
});

describe('aggregate', () => {
  it('reads one phase and the window [fromS, toS) only, counting seconds with data', () => {
    const records = buildRecords(SPEC); // warmup 0..2, step0 3..14, step1 15..26
    const agg = aggregate(records, 'steps', 5, 15);
    expect(agg.seconds).toBe(10);
    expect(agg.ok).toBe(1000);
    expect(agg.hist.duration.totalCount).toBe(1000);
    const warm = aggregate(records, 'warmup', 0, 100);
    expect(warm.seconds).toBe(3);
    expect(warm.ok).toBe(0);
    expect(aggregate(records, 'steps', 100, 200).seconds).toBe(0);
  });

  it('derives failed from completed - ok and keeps counts by kind and status', () => {
    const agg = aggregate(buildRecords(SPEC), 'steps', 17, 27);
    expect(agg.ok).toBe(1700);
    expect(agg.failed).toBe(agg.completed - agg.ok);
    expect(agg.failed).toBe(205);
    expect(agg.errors).toEqual({ http_5xx: 205 });
    expect(agg.statuses).toEqual({ '503': 205 });
    expect(agg.dropped).toBe(33);
    expect(agg.samples).toEqual(['boom']);
  });

  it('adds histograms exactly', () => {
    const h1 = newHistogram(),
      h2 = newHistogram(),
      both = newHistogram();
    for (let i = 1; i <= 500; i++) {
      recordUs(h1, i * 37);
      recordUs(both, i * 37);
    }
    for (let i = 1; i <= 300; i++) {
      recordUs(h2, i * 1013);
      recordUs(both, i * 1013);
    }
    const sum = decodeHistogram(encodeHistogram(h1));
    sum.add(decodeHistogram(encodeHistogram(h2)));
    expect(encodeHistogram(sum)).toBe(encodeHistogram(both));
  });
});
