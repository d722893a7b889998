/**
 * The simulated engine over each model shape, in simulated time: what each second's buckets say
 * is what the model's formulas say (capacity, Little's law, 503s, a fall past the peak).
 */
import { describe, expect, it } from 'vitest';
import { decodeHistogram, newHistogram } from '../../analysis/histogram.ts';
import { mergeRecords } from '../../analysis/buckets.ts';
import type { BucketRecord } from '../../analysis/types.ts';
import { SimClock } from '../clock.ts';
import { ModelTarget, type ModelTargetOptions } from './model-target.ts';
import { SimulatedEngine } from './simulated.ts';

async function drive(
  model: ModelTargetOptions,
  ratePerSec: number,
  o: { seconds?: number; maxVUs?: number; instances?: number; stopAtMs?: number } = {},
) {
  const clock = new SimClock();
  const engine = new SimulatedEngine({
    clock,
    target: new ModelTarget(model),
    preAllocatedVUs: 4,
    maxVUs: o.maxVUs ?? 10_000,
    instances: o.instances,
  });
  const records: BucketRecord[] = [];
  const run = engine.start({
    segments: [{ durationS: o.seconds ?? 6, fromPerSec: ratePerSec, toPerSec: ratePerSec }],
    phase: 'steps',
    seqOffset: 100,
    gracefulStopMs: 2000,
    sink: (r) => records.push(r),
  });
  if (o.stopAtMs !== undefined) clock.setTimeout(() => run.stop(0), o.stopAtMs);
  const res = await clock.run(run.done);
  // seconds 1..4: past the first second's transient, before the schedule ends
  const mid = mergeRecords(records).filter((r) => r.tS >= 1 && r.tS <= 4);
  const perSec = (k: 'ok' | 'dropped' | 'completed' | 'started') => mid.reduce((a, r) => a + r[k], 0) / mid.length;
  const hist = mid
    .map((r) => decodeHistogram(r.hist.duration))
    .reduce((a, h) => {
      a.add(h);
      return a;
    }, newHistogram(64));
  return {
    res,
    records,
    perSec,
    p50Ms: hist.getValueAtPercentile(50) / 1000,
    p99Ms: hist.getValueAtPercentile(99) / 1000,
    clock,
    engine,
  };
}

const queue: ModelTargetOptions = { capacityPerSec: 400, serviceMs: 10, overload: 'queue' };

describe('the simulated engine over a model target', () => {
  it('below capacity: every arrival served at the service time, N = X x S VUs busy', async () => {
    const r = await drive(queue, 300);
    expect(r.res).toEqual({ dispatched: 1800, lastSeq: 1900 });
    expect(r.perSec('ok')).toBe(300);
    expect(r.perSec('dropped')).toBe(0);
    expect(r.p50Ms).toBeCloseTo(10, 0);
    expect(r.p99Ms).toBeLessThan(15);
    const busy = Math.max(...r.records.filter((b) => b.tS >= 1 && b.tS <= 4).map((b) => b.vusActiveMax));
    expect(busy).toBeGreaterThanOrEqual(3);
    expect(busy).toBeLessThanOrEqual(5);
    // every arrival recorded once: started in the second it was due, completed once
    const sum = (k: 'started' | 'completed') => r.records.reduce((a, b) => a + b[k], 0);
    expect([sum('started'), sum('completed')]).toEqual([1800, 1800]);
  });

  it('queue past capacity: throughput flat at capacity, latency growing with the queue', async () => {
    const r = await drive(queue, 600);
    expect(r.perSec('ok')).toBe(400);
    const p50s = r.records.slice(1, 5).map((b) => decodeHistogram(b.hist.duration).getValueAtPercentile(50));
    for (let i = 1; i < p50s.length; i++) expect(p50s[i]).toBeGreaterThan(p50s[i - 1] + 200_000); // +200 queued each second, at 400/s: +0.5 s
  });

  it('reject past capacity: the excess answered at once with 503s, successes at capacity', async () => {
    const r = await drive({ ...queue, overload: 'reject' }, 600);
    expect(r.perSec('ok')).toBe(400);
    expect(r.perSec('completed')).toBe(600);
    const mid = r.records.filter((b) => b.tS >= 1 && b.tS <= 4);
    expect(mid.every((b) => b.errors.http_5xx === 200 && b.statuses['503'] === 200)).toBe(true);
    expect(r.p99Ms).toBeLessThan(15);
  });

  it('collapse: at its peak it serves the capacity; past it, throughput falls', async () => {
    const collapse: ModelTargetOptions = { ...queue, overload: 'collapse' };
    const t = new ModelTarget(collapse);
    const nStar = 4 + Math.sqrt(12); // k + sqrt(k^2 - k), k = 400 x 0.01
    expect(t.rateAt(nStar, 0)).toBeCloseTo(400, 6);
    expect(t.rateAt(nStar * 2, 0)).toBeLessThan(400 * 0.9);
    expect((await drive(collapse, 300)).perSec('ok')).toBe(300);
    const over = await drive(collapse, 500, { maxVUs: 200 });
    expect(over.perSec('ok')).toBeLessThan(100);
    expect(over.perSec('dropped')).toBeGreaterThan(400);
  });

  it('generator limit: with no free VU an arrival is dropped; N = X x W decides how many are busy', async () => {
    // 4 VUs x (1 / 40 ms) = 100 req/s at most, whatever the target could take
    const r = await drive({ capacityPerSec: 5000, serviceMs: 40, overload: 'queue' }, 150, { maxVUs: 4 });
    expect(r.perSec('ok')).toBe(100);
    expect(r.perSec('dropped')).toBe(50);
    expect(r.p50Ms).toBeCloseTo(40, 0);
  });

  it("a cold period and a topology change follow the target's own time", () => {
    const t = new ModelTarget(
      { ...queue, cold: { forS: 30, slowdown: 3 }, topology: { atS: 10, from: 1, to: 2 } },
      5000,
    );
    expect(t.rateAt(100, 5000 + 1000)).toBeCloseTo(400 / 3, 6);
    expect(t.rateAt(100, 5000 + 31_000)).toBeCloseTo(800, 6);
    expect([t.reading(5000 + 9_999).topology, t.reading(5000 + 10_000).topology]).toEqual([1, 2]);
  });

  it('splits each second over its instances as stripes: the merged buckets are the one-instance buckets', async () => {
    const one = await drive(queue, 333);
    const three = await drive(queue, 333, { instances: 3 });
    expect(new Set(three.records.map((r) => r.source))).toEqual(new Set(['sim/0', 'sim/1', 'sim/2']));
    const counts = (rs: BucketRecord[]) => mergeRecords(rs).map((r) => [r.tS, r.started, r.dropped, r.completed, r.ok]);
    expect(counts(three.records)).toEqual(counts(one.records));
    expect([three.p50Ms, three.p99Ms]).toEqual([one.p50Ms, one.p99Ms]);
  });

  it('stops at once when asked: nothing is dispatched after, the cut second is written', async () => {
    const r = await drive(queue, 100, { stopAtMs: 2500 });
    expect(r.res.dispatched).toBeLessThanOrEqual(251);
    expect(r.res.dispatched).toBeGreaterThanOrEqual(249);
    expect(r.records.map((b) => b.tS)).toEqual([0, 1, 2]);
    expect(r.clock.now()).toBe(2500);
  });

  it('keeps memory and time in O(seconds): 50,000 req/s for 60 s in well under a second of wall time', async () => {
    const wallMs = performance.now();
    const r = await drive({ capacityPerSec: 100_000, serviceMs: 4, overload: 'queue' }, 50_000, { seconds: 60 });
    expect(r.res.dispatched).toBe(3_000_000);
    expect(r.perSec('ok')).toBe(50_000);
    expect(performance.now() - wallMs).toBeLessThan(3000);
  });

  it('refuses a model it cannot run, naming each field and the fix', () => {
    expect(() => new ModelTarget({ capacityPerSec: 0, serviceMs: -1, overload: 'collapse' })).toThrow(
      /capacityPerSec is 0: give a rate above 0; serviceMs is -1: give a service time above 0 ms; collapse needs/,
    );
  });
});
