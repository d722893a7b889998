import { describe, expect, it } from 'vitest';
import { topologySteady, warmupDone, warmupRecord, warmupStable, warmupWindows, type WarmupVerdict } from './warmup.ts';
import { encodeHistogram, newHistogram, recordUs } from './histogram.ts';
import { buildRecords } from './testing/builders.ts';

const reading = (tS: number, topology: number | null, phase = 'warmup') => ({ tS, phase, topology });
const stable: WarmupVerdict = { stable: true, windows: [], detail: 'stable' };
const unstable: WarmupVerdict = { stable: false, windows: [], detail: 'not yet' };

describe('topologySteady: one value over the span', () => {
  it.each([
    ['one value read twice', [reading(2, 1), reading(4, 1)], 1, 5, true, [1]],
    ['a change inside the span', [reading(2, 1), reading(4, 2)], 1, 5, false, [1, 2]],
    ['a change before the span does not count', [reading(1, 1), reading(3, 2), reading(5, 2)], 2, 6, true, [2]],
    ['no reading at all is unknown, not steady', [], 1, 5, false, []],
    ['failed readings (null) are no readings', [reading(2, null), reading(4, null)], 1, 5, false, []],
    ['readings of another phase are another clock', [reading(2, 1, 'steps'), reading(3, 3)], 1, 5, true, [3]],
  ])('%s', (_name, samples, fromS, toS, steady, values) => {
    expect(topologySteady(samples, 'warmup', fromS, toS)).toEqual({ steady, values });
  });
});

describe('warmupDone: stable, topology steady when probed, and minS passed', () => {
  it.each([
    ['stable, no probe, no floor', stable, 3, 0, null, true, null],
    ['not stable', unstable, 3, 0, null, false, 'throughput and median stable'],
    ['stable but before minS', stable, 3, 10, null, false, 'warmup.minS 10 s (at 3 s)'],
    ['stable at minS exactly', stable, 10, 10, null, true, null],
    ['stable, topology steady', stable, 5, 0, { steady: true, values: [2] }, true, null],
    [
      'stable, topology moving',
      stable,
      5,
      0,
      { steady: false, values: [1, 2] },
      false,
      'one topology value (read 1 -> 2)',
    ],
    ['stable, topology never read', stable, 5, 0, { steady: false, values: [] }, false, 'a topology reading'],
    [
      'every condition missing',
      unstable,
      2,
      6,
      { steady: false, values: [3, 4] },
      false,
      'throughput and median stable, one topology value (read 3 -> 4), warmup.minS 6 s (at 2 s)',
    ],
  ] as const)('%s', (_name, verdict, elapsedS, minS, topology, done, waitingFor) => {
    expect(
      warmupDone({
        verdict,
        elapsedS,
        minS,
        topology: topology && { steady: topology.steady, values: [...topology.values] },
      }),
    ).toEqual({ done, waitingFor });
  });
});

describe('warmupRecord', () => {
  it('keeps every window on the phase clock (after the ramp) and the figures as measured', () => {
    const windows = [
      { fromS: 0, throughputPerSec: 40, p50Ms: 31 },
      { fromS: 2, throughputPerSec: 40.5, p50Ms: 30.2 },
    ];
    const verdict = warmupStable(windows, 2, 0.1);
    expect(verdict.stable).toBe(true);
    expect(warmupRecord(verdict, true, 5.1234, 40)).toEqual({
      stable: true,
      tookS: 5.123,
      ratePerSec: 40,
      windows: [
        { fromS: 1, throughputPerSec: 40, p50Ms: 31 },
        { fromS: 3, throughputPerSec: 40.5, p50Ms: 30.2 },
      ],
    });
  });

  it('records not stable when the stage could not stop on it (topology, minS), whatever the latency said', () => {
    expect(warmupRecord(stable, false, 30, 20).stable).toBe(false);
  });
});

describe('warmupStable of a mix: each name by its own median', () => {
  /** A window of a 50/50 mix of reads near 2 ms and writes near 10 ms, whose pooled median flips between them. */
  const mixWindow = (fromS: number, pooledMs: number, readMs: number, writeMs: number, writeN = 25) => ({
    fromS,
    throughputPerSec: 25,
    p50Ms: pooledMs,
    byName: { read: { p50Ms: readMs, n: 25 }, write: { p50Ms: writeMs, n: writeN }, checkout: { p50Ms: 40, n: 2 } },
  });

  it('is stable when every name with enough samples is, however its pooled median flips', () => {
    const v = warmupStable(
      [mixWindow(0, 2.4, 2.0, 10.1), mixWindow(2, 9.8, 2.1, 10.0), mixWindow(4, 2.5, 2.05, 10.2)],
      3,
      0.15,
    );
    expect(v.stable).toBe(true);
    expect(v.detail).toBe(
      'last 3 windows: throughput 25.0 req/s (spread 0.0%), median by name: read 2.05 ms (spread 0.10 ms), write 10.10 ms (spread 0.20 ms); 1 name under 10 a window not judged',
    );
  });

  it('is not stable while one name still moves, and says which', () => {
    const v = warmupStable(
      [mixWindow(0, 2.4, 2.0, 14.0), mixWindow(2, 9.8, 2.1, 12.0), mixWindow(4, 2.5, 2.05, 10.2)],
      3,
      0.15,
    );
    expect(v.stable).toBe(false);
    expect(v.detail).toMatch(/write 12\.07 ms \(spread 3\.80 ms\) not stable/);
  });

  it('falls back to the pooled median when no name has enough samples in every window', () => {
    const thin = [mixWindow(0, 2.4, 2.0, 10.1, 9), mixWindow(2, 9.8, 2.1, 10.0), mixWindow(4, 2.5, 2.05, 10.2)].map(
      (w) => ({ ...w, byName: { ...w.byName, read: { ...w.byName.read, n: 5 } } }),
    );
    const v = warmupStable(thin, 3, 0.15);
    expect(v.stable).toBe(false);
    expect(v.detail).toMatch(/, median 4\.90 ms \(spread 7\.40 ms\)$/);
  });
});

describe('warmupStable says why a name of a mix was not judged', () => {
  /** Three windows of reads (25 a window, judged) beside one other name's figures. */
  const withName = (other: { p50Ms: number | null; n: number; failed?: number; transaction?: true }) =>
    [0, 2, 4].map((fromS) => ({
      fromS,
      throughputPerSec: 25,
      p50Ms: 2,
      byName: { read: { p50Ms: 2, n: 25 }, write: other },
    }));
  const judged = 'median by name: read 2.00 ms (spread 0.00 ms)';
  // the windows' failedPerSec is left out: the share of failures is said apart (next describe)

  it.each([
    ['few requests, all of them successful', { p50Ms: 9, n: 4 }, '; 1 name under 10 a window not judged'],
    ['few requests, some failed', { p50Ms: 9, n: 3, failed: 2 }, '; 1 name under 10 a window not judged'],
    [
      'many requests, all failed: said with its count, not as a thin name',
      { p50Ms: null, n: 0, failed: 40 },
      '; all failed in these windows, so no latency to judge: write (120 requests)',
    ],
    [
      'a transaction all failed: its count is arrivals',
      { p50Ms: null, n: 0, failed: 3, transaction: true as const },
      '; all failed in these windows, so no latency to judge: write (9 arrivals)',
    ],
    [
      'many requests, too few successful',
      { p50Ms: 9, n: 4, failed: 36 },
      '; 1 name under 10 successful a window not judged',
    ],
  ])('%s', (_name, other, rest) => {
    const v = warmupStable(withName(other), 3, 0.15);
    expect(v.stable).toBe(true);
    expect(v.detail).toBe(`last 3 windows: throughput 25.0 req/s (spread 0.0%), ${judged}${rest}`);
  });

  it('says a name that failed throughout under a pooled median too, and no thin name there', () => {
    const windows = withName({ p50Ms: null, n: 0, failed: 40 }).map((w) => ({
      ...w,
      byName: { ...w.byName, read: { p50Ms: 2, n: 5 } },
    }));
    expect(warmupStable(windows, 3, 0.15).detail).toBe(
      'last 3 windows: throughput 25.0 req/s (spread 0.0%), median 2.00 ms (spread 0.00 ms); all failed in these windows, so no latency to judge: write (120 requests)',
    );
  });
});

describe('warmupWindows by name: successful and failed counts', () => {
  const hist = newHistogram();
  for (let i = 0; i < 10; i++) recordUs(hist, 2000);
  /** 4 s of buckets: 10 reads a second, all fine, and 5 payments a second (a transaction), all failed. */
  const records = buildRecords({ steps: [{ ratePerSec: 15 }], rampS: 0, holdS: 4, settleS: 0 }).map((r) => ({
    ...r,
    byName: {
      read: { completed: 10, ok: 10, errors: {}, duration: encodeHistogram(hist) },
      pay: {
        transaction: true as const,
        completed: 5,
        ok: 0,
        errors: { http_5xx: 5 },
        duration: encodeHistogram(newHistogram()),
      },
    },
  }));

  it("counts each name's failures in the window and marks a transaction; the record keeps median and count alone", () => {
    const windows = warmupWindows(records, 'steps', 2, 4);
    expect(windows.map((w) => w.byName)).toEqual([
      { read: { p50Ms: expect.closeTo(2, 1), n: 20 }, pay: { p50Ms: null, n: 0, failed: 10, transaction: true } },
      { read: { p50Ms: expect.closeTo(2, 1), n: 20 }, pay: { p50Ms: null, n: 0, failed: 10, transaction: true } },
    ]);
    const record = warmupRecord(warmupStable(windows, 2, 0.1), true, 4, 15);
    expect(record.windows.map((w) => w.byName?.pay)).toEqual([
      { p50Ms: null, n: 0 },
      { p50Ms: null, n: 0 },
    ]);
  });
});

describe('warmupStable says what share of its arrivals failed, and does not judge it', () => {
  const windows = (failedPerSec: number) => [
    { fromS: 0, throughputPerSec: 42, failedPerSec, p50Ms: 0.72 },
    { fromS: 1, throughputPerSec: 43, failedPerSec, p50Ms: 0.74 },
  ];

  it('a steady share of failures: stable, and said', () => {
    const v = warmupStable(windows(7.5), 2, 0.1, 'arrivals/s');
    expect(v.stable).toBe(true);
    expect(v.detail).toBe(
      'last 2 windows: throughput 42.5 arrivals/s (spread 2.4%), median 0.73 ms (spread 0.02 ms); 15.00% of their arrivals failed',
    );
  });

  it('under 1% failed, or none: nothing said', () => {
    expect(warmupStable(windows(0.4), 2, 0.1).detail).not.toMatch(/failed/);
    expect(warmupStable(windows(0), 2, 0.1).detail).not.toMatch(/failed/);
  });
});
