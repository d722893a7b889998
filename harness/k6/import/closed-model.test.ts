/**
 * Telling a closed-model k6 run (its VUs set the load) from an open one: the real outputs (a
 * constant-vus run of 5 VUs, two ramping-arrival-rate runs) and generated VU series (a ramping-vus
 * run with holds, an arrival-rate run whose busy VUs are a Poisson count with no drops).
 */
import fs from 'node:fs';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { BucketRecord } from '../../../analysis/types.ts';
import { ingestLines } from '../output/ingest.ts';
import { closedModelOf, closedModelText } from './closed-model.ts';

const FIX = 'test/fixtures/k6';

async function bucketsOf(file: string): Promise<BucketRecord[]> {
  const raw = fs.readFileSync(`${FIX}/${file}`);
  const text = (file.endsWith('.gz') ? zlib.gunzipSync(raw) : raw).toString('utf8');
  const records: BucketRecord[] = [];
  async function* batches() {
    yield text.split('\n');
  }
  await ingestLines(batches(), {
    source: 'k6',
    phase: 'steps',
    lateS: 2,
    arrivals: 'iterations',
    sink: (r) => records.push(r),
  });
  return records;
}

/** Buckets with only what the test reads: a second, its busy VUs, its drops. */
const series = (vus: readonly number[], dropped: (s: number) => number = () => 0): BucketRecord[] =>
  vus.map((v, tS) => ({ tS, vusActiveMax: v, dropped: dropped(tS) }) as BucketRecord);

/** A seeded Poisson draw (Knuth's), for the busy VUs of an arrival-rate run. */
function poisson(mean: number, seed: number): () => number {
  let s = seed >>> 0;
  const u = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
  return () => {
    const l = Math.exp(-mean);
    let k = 0;
    for (let p = u(); p > l; p *= u()) k++;
    return k;
  };
}

describe('closed model or open, from the busy VUs k6 wrote', () => {
  it('the real constant-vus run (5 VUs): closed, every pair of seconds at 5', async () => {
    const c = closedModelOf(await bucketsOf('public-votacao-constant-vus.ndjson'));
    expect(c).not.toBeNull();
    expect(c!.levels).toEqual([5]);
    expect(c!.same).toBe(c!.pairs);
    expect(c!.pairs).toBeGreaterThan(30);
    expect(closedModelText('votacao.ndjson', c!)).toMatch(
      /^votacao\.ndjson looks like a closed-model run \(constant-vus, ramping-vus or a per-VU iteration count\): 5 VUs stayed busy through \d+ of \d+ pairs/,
    );
  });

  it.each(['stepped-queue.ndjson.gz', 'stepped-reject.ndjson'])(
    'the real ramping-arrival-rate run %s: open (its busy VUs move; it dropped arrivals)',
    async (file) => {
      expect(closedModelOf(await bucketsOf(file))).toBeNull();
    },
  );

  it('a ramping-vus run, 10 s ramps and 30 s holds at 10, 20 and 30 VUs: closed, its three levels', () => {
    const vus: number[] = [];
    for (const [from, to] of [
      [0, 10],
      [10, 20],
      [20, 30],
    ]) {
      for (let s = 1; s <= 10; s++) vus.push(Math.round(from + ((to - from) * s) / 10));
      for (let s = 0; s < 30; s++) vus.push(to);
    }
    expect(closedModelOf(series(vus))?.levels).toEqual([10, 20, 30]);
  });

  it.each([3, 8, 30, 100])(
    'an arrival-rate run with a mean of %i busy VUs and no drops: open (two equal seconds in a row are rare)',
    (mean) => {
      for (const seed of [1, 2, 3, 4, 5]) {
        const draw = poisson(mean, seed);
        expect(closedModelOf(series(Array.from({ length: 120 }, draw)))).toBeNull();
      }
    },
  );

  it('a run pinned at its VUs that dropped arrivals (an arrival-rate run at maxVUs): open', () => {
    expect(closedModelOf(series(new Array<number>(60).fill(30), (s) => (s === 40 ? 1 : 0)))).toBeNull();
    expect(closedModelOf(series(new Array<number>(60).fill(30)))).not.toBeNull();
  });

  it('too little to tell: under 10 pairs of seconds, or under 3 busy VUs', () => {
    expect(closedModelOf(series(new Array<number>(10).fill(5)))).toBeNull();
    expect(closedModelOf(series(new Array<number>(11).fill(5)))).not.toBeNull();
    expect(closedModelOf(series(new Array<number>(60).fill(2)))).toBeNull();
  });
});
