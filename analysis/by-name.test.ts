/**
 * Results per name (issue 27): buckets' byName and requests merge exactly, a window aggregates
 * them, a step's result reads them, the cross-check compares the server with the client's
 * requests, and the warmup's mean time per arrival reads the mix's entries.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arrivalTime, meanArrivalMs, MIN_SIZING_ARRIVALS, sizingArrivalMs } from './arrival-time.ts';
import { aggregate, mergeRecords, NameAggregate } from './buckets.ts';
import { decodeHistogram, encodeHistogram, newHistogram, recordUs } from './histogram.ts';
import { judgeStep } from './judge.ts';
import { withServer } from './judge-server.ts';
import { buildPlan, buildRecords, DEFAULT_RULES, stepResult, type FakeRunSpec } from './testing/builders.ts';
import type { BucketRecord, ErrorKind, NameBucket, ServerWindow, StepResult } from './types.ts';

/** An encoded histogram (µs) of the given values. */
function histOf(valuesUs: readonly number[]): string {
  const h = newHistogram();
  for (const us of valuesUs) recordUs(h, us);
  return encodeHistogram(h);
}

/** One canonical encoding of a histogram, whatever layout its producer encoded it from. */
function canonical(b64: string): string {
  return encodeHistogram(decodeHistogram(b64, 64));
}

/** `count` durations (µs) spread evenly over [fromMs, toMs]. */
function spread(count: number, fromMs: number, toMs: number): number[] {
  return Array.from({ length: count }, (_, i) => (fromMs + ((toMs - fromMs) * i) / Math.max(1, count - 1)) * 1000);
}

const BASE = buildRecords({ steps: [{ ratePerSec: 10 }], rampS: 0, holdS: 1, settleS: 0 })[0];

function record(over: Partial<BucketRecord>): BucketRecord {
  return { ...BASE, ...over };
}

function nameBucket(ok: number, failed: number, durationsUs: number[], over: Partial<NameBucket> = {}): NameBucket {
  return {
    completed: ok + failed,
    ok,
    errors: failed > 0 ? { http_5xx: failed } : {},
    ...(failed > 0 ? { statuses: { '503': failed } } : {}),
    duration: histOf(durationsUs),
    ...over,
  };
}

// ---------------------------------------------------------------------------------------------
// merge

interface Piece {
  source: number;
  tS: number;
  name: string;
  failed: number;
  kind: ErrorKind;
  status: string;
  durationsUs: number[];
}

const NAMES = ['read order', 'create order', 'checkout', 'checkout: create', '__proto__'];

const pieceArb: fc.Arbitrary<Piece> = fc.record({
  source: fc.integer({ min: 0, max: 2 }),
  tS: fc.integer({ min: 0, max: 1 }),
  name: fc.constantFrom(...NAMES),
  failed: fc.integer({ min: 0, max: 5 }),
  kind: fc.constantFrom<ErrorKind>('http_5xx', 'timeout', 'check'),
  status: fc.constantFrom('503', '500'),
  durationsUs: fc.array(fc.integer({ min: 1, max: 5_000_000 }), { maxLength: 30 }),
});

const kindHasStatus = (p: Piece) => p.kind === 'http_5xx';

/** One record per (source, tS) holding its pieces' names (the first piece of a key wins), with requests when `requests` says. */
function recordsOf(pieces: readonly Piece[], requests: (source: number) => boolean): BucketRecord[] {
  const seen = new Set<string>();
  const bySecond = new Map<string, BucketRecord>();
  for (const p of pieces) {
    const key = `${p.source}/${p.tS}/${p.name}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const at = `${p.source}/${p.tS}`;
    const r =
      bySecond.get(at) ??
      record({
        source: `s${p.source}`,
        tS: p.tS,
        completed: 7,
        ok: 5,
        ...(requests(p.source) ? { requests: 11 } : {}),
      });
    const b: NameBucket = {
      ...(p.name.startsWith('checkout') && !p.name.includes(':') ? { transaction: true } : {}),
      completed: p.durationsUs.length + p.failed,
      ok: p.durationsUs.length,
      errors: p.failed > 0 ? { [p.kind]: p.failed } : {},
      ...(p.failed > 0 && kindHasStatus(p) ? { statuses: { [p.status]: p.failed } } : {}),
      duration: histOf(p.durationsUs),
    };
    const byName: Record<string, NameBucket> = Object.fromEntries([...Object.entries(r.byName ?? {}), [p.name, b]]);
    bySecond.set(at, { ...r, byName });
  }
  return [...bySecond.values()];
}

/** What a merge must give for (tS, name): the pieces' sums, and the histogram of all their durations. */
function expectedName(pieces: readonly Piece[], tS: number, name: string) {
  const seen = new Set<string>();
  const mine = pieces.filter((p) => {
    const key = `${p.source}/${p.tS}/${p.name}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return p.tS === tS && p.name === name;
  });
  const errors: Record<string, number> = {};
  const statuses: Record<string, number> = {};
  for (const p of mine) {
    if (p.failed > 0) errors[p.kind] = (errors[p.kind] ?? 0) + p.failed;
    if (p.failed > 0 && kindHasStatus(p)) statuses[p.status] = (statuses[p.status] ?? 0) + p.failed;
  }
  const ok = mine.reduce((a, p) => a + p.durationsUs.length, 0);
  return {
    present: mine.length > 0,
    completed: ok + mine.reduce((a, p) => a + p.failed, 0),
    ok,
    errors,
    statuses,
    duration: canonical(histOf(mine.flatMap((p) => p.durationsUs))),
  };
}

/** Deterministic shuffle by a list of keys. */
function shuffled<T>(xs: readonly T[], keys: readonly number[]): T[] {
  return xs
    .map((x, i) => ({ x, k: keys[i % Math.max(1, keys.length)] ?? 0, i }))
    .sort((a, b) => a.k - b.k || a.i - b.i)
    .map((e) => e.x);
}

describe('mergeRecords: names', () => {
  it('sums each name exactly: counts, errors, statuses and the duration histogram of every source', () => {
    fc.assert(
      fc.property(fc.array(pieceArb, { minLength: 1, maxLength: 24 }), (pieces) => {
        const merged = mergeRecords(recordsOf(pieces, () => false));
        for (const m of merged) {
          for (const name of NAMES) {
            const want = expectedName(pieces, m.tS, name);
            const got = Object.prototype.hasOwnProperty.call(m.byName ?? {}, name) ? m.byName![name] : undefined;
            expect(got !== undefined).toBe(want.present);
            if (!got) continue;
            expect(got.completed).toBe(want.completed);
            expect(got.ok).toBe(want.ok);
            expect(got.errors).toEqual(want.errors);
            expect(got.statuses ?? {}).toEqual(want.statuses);
            expect(canonical(got.duration)).toBe(want.duration);
            expect(got.transaction === true).toBe(name === 'checkout');
          }
          // a merged second lists its names sorted (a lone record is kept as it is)
          if (m.source.includes('+')) expect(Object.keys(m.byName ?? {})).toEqual(Object.keys(m.byName ?? {}).sort());
        }
      }),
      { numRuns: 25 },
    );
  });

  it('is order-independent and associative', () => {
    fc.assert(
      fc.property(
        fc.array(pieceArb, { minLength: 1, maxLength: 24 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 30 }),
        (pieces, keys) => {
          const records = recordsOf(pieces, (s) => s !== 1);
          const once = mergeRecords(records);
          expect(mergeRecords(shuffled(records, keys))).toEqual(once);
          const [a, b] = [records.filter((r) => r.source !== 's2'), records.filter((r) => r.source === 's2')];
          expect(mergeRecords([...mergeRecords(a), ...b])).toEqual(once);
          expect(mergeRecords([...b, ...mergeRecords(a)])).toEqual(once);
        },
      ),
      { numRuns: 25 },
    );
  });

  it('sums requests as each record counts them (completed where a record lacks them); none counted, none kept', () => {
    const [m] = mergeRecords([
      record({ source: 'a', completed: 7, requests: 12 }),
      record({ source: 'b', completed: 4 }), // one request per arrival there: 4 requests
    ]);
    expect(m.requests).toBe(16);
    expect('requests' in mergeRecords([record({ source: 'a' }), record({ source: 'b' })])[0]).toBe(false);
    expect('byName' in mergeRecords([record({ source: 'a' }), record({ source: 'b' })])[0]).toBe(false);
  });

  it('keeps a transaction a transaction, whichever record of the second carries the flag', () => {
    const a = record({ source: 'a', byName: { checkout: nameBucket(1, 0, [9000], { transaction: true }) } });
    const b = record({
      source: 'b',
      byName: { checkout: nameBucket(2, 0, [8000, 7000]), read: nameBucket(1, 0, [1]) },
    });
    for (const order of [
      [a, b],
      [b, a],
    ]) {
      const [m] = mergeRecords(order);
      expect(m.byName!.checkout).toMatchObject({ transaction: true, completed: 3, ok: 3 });
      expect('transaction' in m.byName!.read).toBe(false);
    }
  });

  it('keeps a lone record as it is (the fast path)', () => {
    const r = record({ requests: 3, byName: { x: nameBucket(2, 1, [1000, 2000]) } });
    expect(mergeRecords([r])[0]).toBe(r);
  });
});

// ---------------------------------------------------------------------------------------------
// aggregate

describe('aggregate: names and requests', () => {
  it('adds each name over the window, and decodes a name’s histogram only when read', () => {
    const records = [
      record({ source: 'a', tS: 0, requests: 9, byName: { r: nameBucket(2, 1, [1000, 3000]) } }),
      record({
        source: 'b',
        tS: 0,
        byName: { r: nameBucket(1, 0, [5000]), t: nameBucket(0, 2, [], { transaction: true }) },
      }),
      record({ source: 'a', tS: 1, requests: 4, byName: { r: nameBucket(1, 2, [7000]) } }),
      record({ source: 'a', tS: 2, requests: 100, byName: { r: nameBucket(50, 0, spread(50, 1, 2)) } }), // outside
    ];
    const agg = aggregate(records, 'steps', 0, 2);
    expect(agg.requests).toBe(9 + BASE.completed + 4);
    expect(agg.requestsCounted).toBe(true);
    expect([...agg.byName.keys()].sort()).toEqual(['r', 't']);
    const r = agg.byName.get('r')!;
    expect(r).toMatchObject({ transaction: false, completed: 7, ok: 4, failed: 3, errors: { http_5xx: 3 } });
    expect(r.statuses).toEqual({ '503': 3 });
    expect(r.duration.totalCount).toBe(4);
    expect(r.duration.mean / 1000).toBeCloseTo(4, 2);
    expect(agg.byName.get('t')).toMatchObject({ transaction: true, completed: 2, ok: 0, failed: 2 });
    expect(agg.byName.get('t')!.duration.totalCount).toBe(0);
    // the same figures from the merged buckets
    const merged = aggregate(mergeRecords(records), 'steps', 0, 2);
    expect(merged.requests).toBe(agg.requests);
    expect(merged.byName.get('r')!.duration.mean).toBe(r.duration.mean);
  });

  it('without names or requests: an empty map, and requests are the completions', () => {
    const agg = aggregate([record({ tS: 0, completed: 7 }), record({ tS: 1, completed: 3 })], 'steps', 0, 2);
    expect(agg.byName.size).toBe(0);
    expect(agg.requests).toBe(10);
    expect(agg.requestsCounted).toBe(false);
  });

  it('a name read, then added to, reads every addition', () => {
    const n = new NameAggregate();
    n.add(nameBucket(1, 0, [1000]));
    expect(n.duration.totalCount).toBe(1);
    n.add(nameBucket(2, 1, [2000, 3000]));
    expect(n.duration.totalCount).toBe(3);
    expect(n.duration.maxValue).toBeGreaterThanOrEqual(2999);
    expect(n.failed).toBe(1);
  });
});

// ---------------------------------------------------------------------------------------------
// judgeStep

/**
 * One step at 100 arrivals/s for 10 steady seconds, as a mix: per second 70 "read order" (68 ok
 * at 4..6 ms, 2 503s), 30 "checkout" transactions (ok, 40..60 ms) of two requests each
 * ("checkout: create" 10 ms, "checkout: confirm" 5 ms): 130 requests a second.
 */
const SPEC: FakeRunSpec = {
  steps: [{ ratePerSec: 100, okPerSec: 98, failedPerSec: 2 }],
  rampS: 0,
  holdS: 10,
  settleS: 0,
};
const PLAN = buildPlan(SPEC);
const PLAIN = buildRecords(SPEC);
const MIX: BucketRecord[] = PLAIN.map((r) => ({
  ...r,
  requests: 130,
  byName: {
    'read order': nameBucket(68, 2, spread(68, 4, 6)),
    checkout: nameBucket(30, 0, spread(30, 40, 60), { transaction: true }),
    'checkout: create': nameBucket(30, 0, spread(30, 10, 10)),
    'checkout: confirm': nameBucket(30, 0, spread(30, 5, 5)),
  },
}));

describe('judgeStep: by name', () => {
  const r = judgeStep(PLAN[0], null, MIX, DEFAULT_RULES);

  it("gives each name's rates over the step's steady seconds, its errors and its latency", () => {
    expect(r.steadyS).toBe(10);
    expect(Object.keys(r.byName!)).toEqual(['checkout', 'checkout: confirm', 'checkout: create', 'read order']);
    const read = r.byName!['read order'];
    expect(read).toMatchObject({
      completedPerSec: 70,
      throughputPerSec: 68,
      completed: 700,
      ok: 680,
      failed: 20,
      errors: { http_5xx: 20 },
      statuses: { '503': 20 },
    });
    expect(read.transaction).toBeUndefined();
    expect(read.errorRate).toBeCloseTo(20 / 700, 12);
    expect(read.latency.map((p) => [p.q, p.n])).toEqual([
      [50, 680],
      [90, 680],
      [99, 680],
      [99.9, 680],
    ]);
    expect(read.latency[0].valueMs).toBeCloseTo(5, 1);
    expect(read.meanMs).toBeCloseTo(5, 1);
    expect(read.maxMs).toBeCloseTo(6, 1);
    const checkout = r.byName!.checkout;
    expect(checkout).toMatchObject({ transaction: true, completedPerSec: 30, throughputPerSec: 30, errorRate: 0 });
    expect(checkout.statuses).toBeUndefined();
    expect(checkout.meanMs).toBeCloseTo(50, 0);
    expect(r.byName!['checkout: create'].latency[0].valueMs).toBeCloseTo(10, 1);
  });

  it("marks a name's percentiles by the step's rule (rules.minTailSamples)", () => {
    // 30 tail samples: p50 needs 60, p90 300, p99 3,000
    expect(r.byName!.checkout.latency.map((p) => p.reliable)).toEqual([true, true, false, false]);
    expect(r.byName!['read order'].latency.map((p) => p.reliable)).toEqual([true, true, false, false]);
    const strict = judgeStep(PLAN[0], null, MIX, { ...DEFAULT_RULES, minTailSamples: 200 });
    // 200 tail samples: p50 needs 400, p90 2,000
    expect(strict.byName!.checkout.latency.map((p) => p.reliable)).toEqual([false, false, false, false]);
    expect(strict.byName!['read order'].latency.map((p) => p.reliable)).toEqual([true, false, false, false]);
  });

  it('gives the requests per second, every request of every arrival', () => {
    expect(r.requestsPerSec).toBe(130);
    expect(r.completedPerSec).toBe(100);
  });

  it("leaves the step's own figures and verdict as the arrivals make them", () => {
    const plain = judgeStep(PLAN[0], null, PLAIN, DEFAULT_RULES);
    const { byName, requestsPerSec, ...rest } = r;
    expect(byName).toBeDefined();
    expect(requestsPerSec).toBeDefined();
    expect(rest).toEqual(plain);
    expect(plain.byName).toBeUndefined();
    expect('requestsPerSec' in plain).toBe(false);
    expect(r.throughputPerSec).toBe(98);
    expect(r.verdict).toBe('holds');
  });

  it('a window without data gives zero rates and empty percentiles per name', () => {
    const late = { ...PLAN[0], steadyStartS: 100, steadyEndS: 110 };
    const none = judgeStep(late, null, MIX, DEFAULT_RULES);
    expect(none.byName).toBeUndefined();
    expect(none.requestsPerSec).toBeUndefined();
  });
});

// ---------------------------------------------------------------------------------------------
// the cross-check against the server

function serverAt(throughputPerSec: number, meanMs: number): ServerWindow {
  return {
    source: 'promql',
    fromS: 0,
    toS: 10,
    throughputPerSec,
    meanMs,
    maxMs: null,
    poolActiveMax: null,
    poolPendingMax: null,
    poolMax: null,
  };
}

function checked(r: StepResult, w: ServerWindow) {
  return withServer(
    r,
    { ...PLAN[0], attempt: 1 },
    { samples: [], rttMs: 0.5, promql: [{ index: 0, attempt: 1, window: w }] },
  ).crossCheck!;
}

describe('withServer: the server counts requests', () => {
  it("compares the server's requests/s with the client's requests, and says requests", () => {
    const r = judgeStep(PLAN[0], null, MIX, DEFAULT_RULES);
    const c = checked(r, serverAt(130, r.meanMs! - 0.2));
    expect(c.clientPerSec).toBe(130);
    expect(c.verdict).toBe('consistent');
    expect(c.detail).toMatch(/^server counted 130\.0 requests\/s, client 130\.0 requests\/s/);
    // against the arrivals the same server would have looked like extra traffic
    expect(checked({ ...r, requestsPerSec: undefined }, serverAt(130, r.meanMs! - 0.2)).verdict).toBe('traffic-extra');
  });

  it('without requests counted apart (one request per arrival): the completions, in the words as before', () => {
    const c = checked(stepResult({ completedPerSec: 100, meanMs: 10 }), serverAt(100, 9.8));
    expect(c.clientPerSec).toBe(100);
    expect(c.detail).toMatch(/^server counted 100\.0 req\/s, client 100\.0; /);
  });

  it("skips the latency comparison by the requests' failed share, not the arrivals'", () => {
    // arrivals: 50% failed (a transaction failing at its second request); requests: 1 of 300 failed
    const byName: StepResult['byName'] = {
      t: { ...nameResultOf(100, 50), transaction: true },
      't: a': nameResultOf(100, 0),
      't: b': nameResultOf(50, 1),
      other: nameResultOf(150, 0),
    };
    const r = stepResult({ errorRate: 0.5, requestsPerSec: 300, meanMs: 40, byName });
    expect(checked(r, serverAt(300, 10)).verdict).toBe('client-queueing');
    expect(checked({ ...r, byName: undefined }, serverAt(300, 10)).detail).toMatch(/latency not compared: 50\.0%/);
  });
});

function nameResultOf(completed: number, failed: number) {
  return {
    completedPerSec: completed / 10,
    throughputPerSec: (completed - failed) / 10,
    completed,
    ok: completed - failed,
    failed,
    errorRate: completed > 0 ? failed / completed : 0,
    errors: {},
    latency: [],
    meanMs: 10,
    maxMs: 20,
  };
}

// ---------------------------------------------------------------------------------------------
// meanArrivalMs

describe('meanArrivalMs: the time an arrival holds its VU', () => {
  const ENTRIES = ['read order', 'checkout'];

  it("with names: the entries' means weighted by their successes, never the inner requests'", () => {
    const agg = aggregate(MIX, 'steps', 0, 10);
    // 680 reads at 5 ms and 300 checkouts at 50 ms
    expect(meanArrivalMs(agg, ENTRIES)).toBeCloseTo((680 * 5 + 300 * 50) / 980, 1);
    expect(meanArrivalMs(agg, ['checkout'])).toBeCloseTo(50, 0);
    // a name of no arrival in the window (a rare entry) is no error
    expect(meanArrivalMs(agg, [...ENTRIES, 'refund'])).toBe(meanArrivalMs(agg, ENTRIES));
  });

  it('a transaction whose sends went together adds the VU time it borrowed, merged across workers', () => {
    // each second: 30 checkouts that held borrowed VUs 600 ms in all (20 ms each), on two workers
    const borrowing = MIX.flatMap((r) =>
      [0, 1].map((w) => ({
        ...r,
        source: `native/${w}`,
        byName: { checkout: nameBucket(15, 0, spread(15, 40, 60), { transaction: true, borrowedMs: 300 }) },
      })),
    );
    const agg = aggregate(mergeRecords(borrowing), 'steps', 0, 10);
    expect(agg.byName.get('checkout')!.borrowedMs).toBe(6000);
    expect(meanArrivalMs(agg, ENTRIES)).toBeCloseTo(50 + 20, 0);
  });

  it('without names: the mean of the request histogram (each arrival one request)', () => {
    const agg = aggregate(PLAIN, 'steps', 0, 10);
    expect(meanArrivalMs(agg, ['shop'])).toBe(agg.hist.duration.mean / 1000);
    expect(meanArrivalMs(agg, ['shop'])).toBeGreaterThan(10); // the builders' median is 10 ms, the tail longer
  });

  it('is null without a successful arrival', () => {
    expect(meanArrivalMs(aggregate(MIX, 'steps', 50, 60), ENTRIES)).toBeNull();
    const failing = MIX.map((r) => ({
      ...r,
      byName: { 'read order': nameBucket(0, 5, []), checkout: nameBucket(0, 1, [], { transaction: true }) },
    }));
    expect(meanArrivalMs(aggregate(failing, 'steps', 0, 10), ENTRIES)).toBeNull();
    const none = PLAIN.map((r) => ({ ...r, ok: 0, hist: { ...r.hist, duration: histOf([]) } }));
    expect(meanArrivalMs(aggregate(none, 'steps', 0, 10), ['shop'])).toBeNull();
  });

  it('is null where no entry ended in the window (only inner requests of a long transaction did)', () => {
    expect(meanArrivalMs(aggregate(MIX, 'steps', 0, 10), ['GET /orders'])).toBeNull();
  });
});

describe("sizingArrivalMs: the measured time that sizes the steps' VUs, or why the plan's is kept", () => {
  it('sizes from a measure above the plan, on enough successes; counts them', () => {
    const t = arrivalTime(aggregate(MIX, 'steps', 0, 10), ['read order', 'checkout']);
    expect(t).toMatchObject({ arrivals: 980 });
    expect(sizingArrivalMs(t, 10)).toEqual({ ms: (t as { ms: number }).ms });
  });

  it.each<[string, Parameters<typeof sizingArrivalMs>[0], string]>([
    ['no window', null, 'the warmup recorded no window'],
    ['no success', { why: 'none-ok' }, 'no arrival of the warmup succeeded'],
    ['no entry ended', { why: 'none-ended' }, "no arrival ended within the warmup's last windows"],
    [
      'one slow success among failures',
      { ms: 4000, arrivals: 1 },
      `only 1 arrivals of the warmup succeeded, fewer than the ${MIN_SIZING_ARRIVALS} a time per arrival needs`,
    ],
    ['faster than planned', { ms: 8, arrivals: 500 }, 'the warmup measured 8.0 ms per arrival, less'],
  ])('keeps the plan: %s', (_name, t, why) => {
    expect(sizingArrivalMs(t, 10)).toEqual({ kept: expect.stringContaining(why) });
  });

  it('sizes from exactly the fewest successes allowed', () => {
    expect(sizingArrivalMs({ ms: 40, arrivals: MIN_SIZING_ARRIVALS }, 10)).toEqual({ ms: 40 });
  });
});
