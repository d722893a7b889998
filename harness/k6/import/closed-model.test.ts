/**
 * Telling a closed-model k6 run (its VUs set the load) from an arrival-rate one by k6's `vus` and
 * `vus_max` gauges: the real outputs (a constant-vus run of 5 VUs, two ramping-arrival-rate runs),
 * and generated gauges: a ramping-vus run, and arrival-rate runs simulated as k6's pool runs them
 * (arrivals at the times the rate sets, a VU busy for its iteration, think time included; with
 * none free a VU is added up to maxVUs, past it the arrival is dropped).
 */
import fs from 'node:fs';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { BucketRecord } from '../../../analysis/types.ts';
import { ingestAll } from '../output/testing/ingest-all.ts';
import { closedModelOf, closedModelText } from './closed-model.ts';

const FIX = 'test/fixtures/k6';

async function ingested(file: string): Promise<{ records: BucketRecord[]; readings: number[] }> {
  const raw = fs.readFileSync(`${FIX}/${file}`);
  const text = (file.endsWith('.gz') ? zlib.gunzipSync(raw) : raw).toString('utf8');
  const r = await ingestAll(text.split('\n'));
  return { records: r.records, readings: r.stats.vusReadings };
}

/** Gauge readings [vus, vusMax, ...] and a bucket a second with its drops. */
function gauges(pairs: readonly (readonly [number, number])[], dropped: (s: number) => number = () => 0) {
  // as the ingest reads k6 with t0 at the first vus point less a second: reading k in second k + 1
  return {
    readings: pairs.flatMap(([vus, max], k) => [k + 1, vus, max]),
    records: [0, ...pairs.map((_, k) => k + 1)].map((tS) => ({ tS, dropped: dropped(tS) }) as BucketRecord),
  };
}
const closed = (g: ReturnType<typeof gauges>) => closedModelOf(g.readings, g.records);

/**
 * An arrival-rate run as k6's pool runs it: `rate(s)` arrivals a second at even spacing, each busy
 * for `busyS(i)`; an arrival that finds no VU free is dropped, and k6 then adds a VU in the
 * background (up to maxVUs), free from the next arrival on. The gauges are read once a second at
 * `phase` past each whole second (k6's 1 s ticker runs at its own phase).
 */
function arrivalRate(o: {
  seconds: number;
  rate: (s: number) => number;
  busyS: (i: number) => number;
  preAllocated: number;
  maxVUs: number;
  phase: number;
}) {
  const freeAt: number[] = new Array<number>(o.preAllocated).fill(0);
  const arrivals: number[] = [];
  for (let s = 0; s < o.seconds; s++) for (let k = 0, n = o.rate(s); k < n; k++) arrivals.push(s + k / n);
  const pairs: [number, number][] = [];
  const drops = new Array<number>(o.seconds).fill(0);
  let next = 0;
  for (let s = 0; s < o.seconds; s++) {
    const at = s + o.phase;
    for (; next < arrivals.length && arrivals[next] <= at; next++) {
      const t = arrivals[next];
      const v = freeAt.findIndex((f) => f <= t);
      if (v !== -1) freeAt[v] = t + o.busyS(next);
      else {
        drops[Math.floor(t)]++;
        if (freeAt.length < o.maxVUs) freeAt.push(t);
      }
    }
    pairs.push([freeAt.filter((f) => f > at).length, freeAt.length]);
  }
  return gauges(pairs, (s) => drops[s] ?? 0);
}
const PHASES = [0.0001, 0.02, 0.26, 0.51, 0.76, 0.99];

describe('closed model or open, from the gauges k6 wrote', () => {
  it('the real constant-vus run (5 VUs): closed, all 5 active second after second', async () => {
    const { records, readings } = await ingested('public-votacao-constant-vus.ndjson');
    const c = closedModelOf(readings, records);
    expect(c).toMatchObject({ vus: 5 });
    expect(c!.heldS).toBeGreaterThan(30);
    expect(closedModelText('votacao.ndjson', c!)).toMatch(
      /^votacao\.ndjson looks like a closed-model run \(constant-vus, ramping-vus, per-vu-iterations or shared-iterations\): all 5 of its VUs were active through \d+ seconds in a row/,
    );
  });

  it.each(['stepped-queue.ndjson.gz', 'stepped-reject.ndjson'])(
    'the real ramping-arrival-rate run %s: open, and open by its gauges alone before it saturated',
    async (file) => {
      const { records, readings } = await ingested(file);
      expect(closedModelOf(readings, records)).toBeNull();
      // its first 25 s (before the 30 maxVUs of stepped-queue were all busy), drops or not
      const early = records.filter((r) => r.tS < 25).map((r) => ({ ...r, dropped: 0 }));
      expect(readings.length).toBeGreaterThan(60);
      expect(closedModelOf(readings.slice(0, 75), early)).toBeNull();
    },
  );

  it('a ramping-vus run, 10 s ramps and 30 s holds at 10, 20 and 30 VUs: closed by its top stage', () => {
    const pairs: [number, number][] = [];
    for (const [from, to] of [
      [0, 10],
      [10, 20],
      [20, 30],
    ]) {
      for (let s = 1; s <= 10; s++) pairs.push([Math.round(from + ((to - from) * s) / 10), 30]);
      for (let s = 0; s < 30; s++) pairs.push([to, 30]);
    }
    // the last ramp second is at 30 already
    expect(closed(gauges(pairs))).toEqual({ heldS: 31, vus: 30, readings: 120 });
  });

  it('a ramping-vus run of ramps only (0 to 100 VUs and back over 2 min): not told, its steps left to the derivation', () => {
    const pairs = Array.from(
      { length: 120 },
      (_, s) => [Math.round(100 - Math.abs(60 - s) * (100 / 60)), 100] as const,
    );
    expect(closed(gauges(pairs))).toBeNull();
  });

  it.each([
    [
      '10/s, each a 30 ms request and a 1 s sleep, 12 VUs preallocated',
      { rate: () => 10, busyS: () => 1.03, preAllocated: 12, maxVUs: 50 },
    ],
    [
      '100/s at 50 +- 5 ms, 8 VUs preallocated',
      { rate: () => 100, busyS: (i: number) => 0.05 + (((i * 7) % 11) - 5) / 1000, preAllocated: 8, maxVUs: 100 },
    ],
    [
      'steps of 5 to 20/s, each iteration with a 1 s sleep, 25 VUs',
      {
        rate: (s: number) => 5 * (1 + Math.min(3, Math.floor(s / 30))),
        busyS: () => 1.02,
        preAllocated: 25,
        maxVUs: 60,
      },
    ],
    [
      '10/s with a 1 s sleep and only 10 VUs (k6 drops, then adds one)',
      { rate: () => 10, busyS: () => 1.03, preAllocated: 10, maxVUs: 50 },
    ],
  ])("an arrival-rate run, %s: open, whatever the gauges' phase", (_n, o) => {
    for (const phase of PHASES) expect(closed(arrivalRate({ seconds: 120, phase, ...o }))).toBeNull();
  });

  it('the known limit: VUs sized to the rate exactly (10/s, 0.95 s each, 10 VUs, none dropped) read closed when the gauges fall within 50 ms after an arrival', () => {
    const read = PHASES.map((phase) => {
      const g = arrivalRate({ seconds: 120, phase, rate: () => 10, busyS: () => 0.95, preAllocated: 10, maxVUs: 10 });
      expect(g.records.every((r) => r.dropped === 0)).toBe(true);
      return closed(g) !== null;
    });
    // the refusal names --open-model for such a run (import.test.ts)
    // all 10 busy at a reading within 50 ms after an arrival (0.95 s of each 1 s): half the phases
    expect(read).toEqual([true, true, false, true, false, false]);
  });

  it('all VUs active with arrivals dropped (an arrival-rate run at its maxVUs): open; drops only more than 2 s after the last second with all busy (an iteration count cut by maxDuration): closed', () => {
    const pinned = new Array<[number, number]>(60).fill([30, 30]);
    expect(closed(gauges(pinned, (s) => (s === 40 ? 1 : 0)))).toBeNull();
    // per-vu-iterations: 50 s with all 30 VUs busy, then they finish one by one; the iterations
    // maxDuration cut are counted dropped as each VU's last one ends
    const finishing = [
      ...pinned.slice(0, 50),
      ...Array.from({ length: 10 }, (_, k) => [27 - 3 * k, 30] as [number, number]),
    ];
    // all 30 busy through second 50 (the readings fall in seconds 1 to 60)
    expect(closed(gauges(finishing, (s) => (s >= 53 ? 3 : 0)))).toMatchObject({ vus: 30, heldS: 50 });
    expect(closed(gauges(finishing, (s) => (s === 52 ? 3 : 0)))).toBeNull();
  });

  it('too little to tell: fewer than 10 seconds in a row, fewer than 3 VUs, or vus_max moving', () => {
    expect(closed(gauges(new Array<[number, number]>(9).fill([5, 5])))).toBeNull();
    expect(closed(gauges(new Array<[number, number]>(10).fill([5, 5])))).toMatchObject({ heldS: 10 });
    expect(closed(gauges(new Array<[number, number]>(60).fill([2, 2])))).toBeNull();
    expect(closed(gauges(Array.from({ length: 60 }, (_, s) => [5 + (s % 2), 5 + (s % 2)] as const)))).toBeNull();
  });
});
