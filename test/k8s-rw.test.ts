/** The pure part of the k6-operator reader (analysis/k8s-rw.ts): own differences, resets, silence, stripes. */
import { describe, expect, it } from 'vitest';
import { RwBuckets, resolutionOf } from '../analysis/k8s-rw.ts';
import { stripeCount } from '../analysis/k8s-arrivals.ts';

const T0 = 1_000_000;
const it1 = (v: number, tMs: number) => ({
  labels: { instance_id: '1', testid: 'x' },
  samples: [[tMs, v]] as [number, number][],
});

function buckets(runners = ['1']) {
  return new RwBuckets({ t0Ms: T0, runners, expected: () => 10, silentAfterMs: 3000, phase: 'steps' });
}

describe('k6-operator reader, pure', () => {
  it("a counter's first sample counts from zero, later ones by difference, a repeated reading not twice", () => {
    const b = buckets();
    b.add({ counters: { iterations: [it1(7, T0 + 1100)] }, gauges: {}, durations: [] });
    b.add({ counters: { iterations: [it1(7, T0 + 1100), it1(12, T0 + 2100)] }, gauges: {}, durations: [] });
    b.add({ counters: { iterations: [it1(20, T0 + 3100)] }, gauges: {}, durations: [] });
    const out = b.drain(T0 + 3200);
    expect(out.map((r) => [r.tS, r.started])).toEqual([
      [0, 7],
      [1, 5],
    ]);
    expect(b.notes).toEqual([]);
  });

  it('a counter that goes down is a reset: the new value counts from zero, and is said', () => {
    const b = buckets();
    b.add({ counters: { iterations: [it1(50, T0 + 1100)] }, gauges: {}, durations: [] });
    b.add({ counters: { iterations: [it1(4, T0 + 2100)] }, gauges: {}, durations: [] });
    b.add({ counters: { iterations: [it1(9, T0 + 3100)] }, gauges: {}, durations: [] });
    expect(b.drain(T0 + 3200).map((r) => r.started)).toEqual([50, 4]);
    expect(b.notes.join()).toMatch(/runner 1: k6_iterations_total went from 50 down to 4 \(a reset\)/);
  });

  it('a second waits for every runner, then for a silent one only silentAfterMs, counting its share as dropped', () => {
    const b = buckets(['1', '2']);
    const two = (v: number, tMs: number) => ({
      labels: { instance_id: '2' },
      samples: [[tMs, v]] as [number, number][],
    });
    b.add({ counters: { iterations: [it1(10, T0 + 1100), it1(20, T0 + 2100)] }, gauges: {}, durations: [] });
    expect(b.drain(T0 + 2200)).toEqual([]);
    b.add({ counters: { iterations: [two(10, T0 + 1150)] }, gauges: {}, durations: [] });
    // runner 2 pushed second 0 only (its push at 1.15 s covers 0.15 to 1.15): second 0 waits for a push past it
    expect(b.drain(T0 + 2200)).toEqual([]);
    const late = b.drain(T0 + 4100);
    expect(late.map((r) => [r.source, r.tS, r.started, r.dropped])).toEqual([
      ['k8s/1', 0, 10, 0],
      ['k8s/2', 0, 10, 0],
    ]);
    expect(b.drain(T0 + 5100).map((r) => [r.source, r.tS, r.started, r.dropped])).toEqual([
      ['k8s/1', 1, 10, 0],
      ['k8s/2', 1, 0, 10],
    ]);
    expect(b.notes.join()).toMatch(/runner 2 pushed nothing after 1\.1 s/);
    // k6 runners measure no event-loop delay of plateau's: none claimed (it read 0)
    expect(late.filter((r) => 'loopDelayMaxMs' in r)).toEqual([]);
  });

  it('stripes: N runners share any range of arrivals exactly', () => {
    for (const [from, to] of [
      [0, 10],
      [3, 17],
      [5, 5],
    ])
      expect([0, 1, 2, 3].map((r) => stripeCount(r, 4, from!, to!)).reduce((a, b) => a + b, 0)).toBe(to! - from!);
    expect([0, 1, 2].map((r) => stripeCount(r, 3, 0, 7))).toEqual([3, 2, 2]);
  });

  it('the resolution of a native histogram is stated', () => {
    expect(resolutionOf(3)).toBe('native histogram schema 3: buckets 9.1% wide, a latency read to within ±4.5%');
  });
});
