import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { BucketRecord } from '../../analysis/types.ts';
import { mergeRecords } from '../../analysis/buckets.ts';
import { decodeHistogram } from '../../analysis/histogram.ts';
import { tinyServer } from '../../test/helpers/tiny-server.ts';
import { WorkerEngine } from './workers.ts';
import { PlateauError } from '../errors.ts';
import { rowIndex, seedOf } from '../scenario/data-rows.ts';
import { parseCsv } from '../scenario/csv-rows.ts';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

/** `count` workers (10 VUs preallocated, 40 at most) sending the seq in the path to a server that answers after `holdMs`; the seqs it saw. */
async function seqEngine(count: number, holdMs: number): Promise<{ seen: number[]; engine: WorkerEngine }> {
  const seen: number[] = [];
  const srv = await tinyServer((req, res) => {
    seen.push(Number(req.url!.split('/')[2]));
    setTimeout(() => res.end('ok'), holdMs);
  });
  closers.push(srv.close);
  const engine = await WorkerEngine.create(
    count,
    {
      origin: srv.url,
      targetUrl: `${srv.url}/`,
      http: { timeoutMs: 5000, client: 'socket' },
      preAllocatedVUs: 10,
      maxVUs: 40,
      scenarioPath: path.resolve('test/fixtures/scenarios/seq-path.ts'),
      runId: `shrink-${count}`,
      idKey: `shrink-${count}`,
      maxBodyBytes: 65536,
    },
    process.env,
  );
  closers.push(() => engine.close());
  return { seen, engine };
}

/** Two workers (10 VUs preallocated, 400 at most: room for a stall's backlog) sending `scenario` to `url`. */
function twoWorkers(url: string, scenario: string, runId: string, client: 'undici' | 'socket' = 'socket') {
  return workersOn(2, url, scenario, runId, client);
}

/** `count` workers, as twoWorkers. */
async function workersOn(
  count: number,
  url: string,
  scenario: string,
  runId: string,
  client: 'undici' | 'socket' = 'socket',
) {
  const engine = await WorkerEngine.create(
    count,
    {
      origin: url,
      targetUrl: `${url}/`,
      http: { timeoutMs: 5000, client },
      preAllocatedVUs: 10,
      // with 40 a fresh-clone CI beside the hog dropped 28 of 450 (12-06)
      maxVUs: 400,
      scenarioPath: path.resolve(`test/fixtures/scenarios/${scenario}.ts`),
      runId,
      idKey: runId,
      maxBodyBytes: 65536,
    },
    process.env,
  );
  closers.push(() => engine.close());
  return engine;
}

describe('native engine on worker threads', () => {
  it.each(['undici', 'socket'] as const)(
    'stripes the global arrival sequence: every seq once, sent or counted as dropped; buckets merge to the whole (%s client)',
    async (client) => {
      const seen: number[] = [];
      const srv = await tinyServer((req, res) => {
        seen.push(Number(req.url!.split('/')[2]));
        res.end('ok');
      });
      closers.push(srv.close);
      const engine = await twoWorkers(srv.url, 'seq-path', 'workers-test', client);
      // what the pipeline asks of it, and how run.json names it
      expect(engine.capabilities).toEqual({
        warmup: true,
        preconnect: true,
        threadSizing: true,
        schedulerLag: true,
        liveStop: true,
      });
      expect(engine.label).toBe(`native (2 worker threads), ${client} HTTP client`);
      const records: BucketRecord[] = [];
      // 150 arrivals on the ramp, 300 at its rate
      const run = engine.start({
        segments: [
          { durationS: 1, fromPerSec: 0, toPerSec: 300 },
          { durationS: 1, fromPerSec: 300, toPerSec: 300 },
        ],
        phase: 'steps',
        seqOffset: 1000,
        gracefulStopMs: 2000,
        sink: (r) => records.push(r),
      });
      const done = await run.done;
      expect(done.dispatched).toBe(450);
      expect(new Set(records.map((r) => r.source))).toEqual(new Set(['native/0', 'native/1']));
      // every seq of the leg sent at most once and each one not sent counted as dropped: a stall of
      // a busy machine can hold a worker's VUs (CI beside the hog once dropped 1073 and 1075)
      const sorted = [...seen].sort((a, b) => a - b);
      expect(new Set(sorted).size).toBe(sorted.length);
      expect([sorted[0]! >= 1001, sorted.at(-1)! <= 1450]).toEqual([true, true]);
      const merged = mergeRecords(records);
      const dropped = merged.reduce((a, r) => a + r.dropped, 0);
      expect(sorted.length + dropped).toBe(450);
      expect(sorted.length).toBeGreaterThanOrEqual(440);
      expect(merged.reduce((a, r) => a + r.ok, 0)).toBe(sorted.length);
      const total = merged
        .map((r) => decodeHistogram(r.hist.duration, 64))
        .reduce((a, h) => {
          a.add(h);
          return a;
        });
      expect(total.totalCount).toBe(sorted.length);
      expect(done.lastSeq).toBeGreaterThanOrEqual(1450);
    },
  );

  it("sends a mix's rare entry from every worker (70/25/5: a period of 20 over 2 stripes)", async () => {
    const srv = await tinyServer((_q, res) => res.end('ok'));
    closers.push(srv.close);
    const engine = await twoWorkers(srv.url, 'mix-rare', 'workers-rare');
    const records: BucketRecord[] = [];
    // 400 arrivals: 20 of them 'rare'
    const run = engine.start({
      segments: [{ durationS: 1, fromPerSec: 400, toPerSec: 400 }],
      phase: 'steps',
      seqOffset: 1000,
      gracefulStopMs: 2000,
      sink: (r) => records.push(r),
    });
    await run.done;
    const sent = (source: string, name: string) =>
      records.filter((r) => r.source === source).reduce((a, r) => a + (r.byName?.[name]?.completed ?? 0), 0);
    const dropped = records.reduce((a, r) => a + r.dropped, 0);
    // arrivals started and not ended by the graceful stop's end (a stall of 2 s or more on a busy machine)
    const unfinished = records.reduce((a, r) => a + r.started, 0) - records.reduce((a, r) => a + r.completed, 0);
    const rare = ['native/0', 'native/1'].map((s) => sent(s, 'rare'));
    // each worker sends its half of the 20, less what a stall of a busy machine dropped or left
    // unfinished; never more than its half (plain striping: 0 and 20)
    expect(
      rare.map((n) => n >= 10 - dropped - unfinished && n <= 10),
      JSON.stringify({ rare, dropped, unfinished }),
    ).toEqual([true, true]);
  });

  it('every worker gets a VU and reports the last second, however low the rate per worker', async () => {
    const srv = await tinyServer((_q, res) => res.end('ok'));
    closers.push(srv.close);
    // 4 workers, 3 VUs in all, 2 req/s for 2 s: a stripe of one arrival every 2 s each, so each
    // worker sends one, and one whose arrival came in second 0 must still report second 1
    const engine = await WorkerEngine.create(
      4,
      {
        origin: srv.url,
        targetUrl: `${srv.url}/`,
        http: { timeoutMs: 5000, client: 'socket' },
        preAllocatedVUs: 3,
        maxVUs: 3,
        scenarioPath: null,
        runId: 'low-rate',
        idKey: 'low-rate',
        maxBodyBytes: 65536,
      },
      process.env,
    );
    closers.push(() => engine.close());
    const records: BucketRecord[] = [];
    await engine.start({
      segments: [{ durationS: 2, fromPerSec: 2, toPerSec: 2 }],
      phase: 'steps',
      seqOffset: 0,
      gracefulStopMs: 1000,
      sink: (r) => records.push(r),
    }).done;
    expect(records.reduce((a, r) => a + r.dropped, 0)).toBe(0);
    expect(records.reduce((a, r) => a + r.started, 0)).toBe(4);
    for (const w of [0, 1, 2, 3]) {
      const own = records.filter((r) => r.source === `native/${w}`);
      expect(
        own.reduce((a, r) => a + r.started, 0),
        `native/${w}`,
      ).toBeGreaterThan(0); // it had a VU to send with
      expect(Math.max(...own.map((r) => r.tS)), `native/${w}`).toBeGreaterThanOrEqual(1);
    }
  });

  it('shrinks to fewer workers between legs: the one left runs the whole sequence with the VUs of all', async () => {
    // 800 ms a request at 30/s: about 24 VUs busy at once, more than one worker's share of 40, and
    // 16 to spare: a response (or the worker's thread) 530 ms late still finds a VU. Beside the CPU
    // hog and other work, 100 ms at 300/s (10 to spare, 33 ms) dropped 17 and 47 arrivals, and
    // 500 ms at 60/s (167 ms) 8.
    const { seen, engine } = await seqEngine(2, 800);
    await engine.shrink(1);
    expect(engine.instances).toBe(1);
    expect(engine.name).toBe('native (1 of 2 worker threads)');
    // the worker left took the whole preallocation, not its half of it
    expect(await engine.preconnect()).toEqual({ ready: 10, failed: 0 });
    const records: BucketRecord[] = [];
    const done = await engine.start({
      segments: [{ durationS: 2, fromPerSec: 30, toPerSec: 30 }],
      phase: 'steps',
      seqOffset: 500,
      gracefulStopMs: 2000,
      sink: (r) => records.push(r),
    }).done;
    expect(done.dispatched).toBe(60);
    expect(new Set(records.map((r) => r.source))).toEqual(new Set(['native/0']));
    expect(records.reduce((a, r) => a + r.dropped, 0)).toBe(0);
    expect(Math.max(...records.map((r) => r.vusActiveMax))).toBeGreaterThan(20);
    expect([...seen].sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, i) => 501 + i));
  });

  it("after a leg on three workers and a shrink to two, the next leg sends exactly the seqs after the first leg's last", async () => {
    const { seen, engine } = await seqEngine(3, 0);
    const leg = (rate: number, seqOffset: number, records: BucketRecord[]) =>
      engine.start({
        segments: [{ durationS: 1, fromPerSec: rate, toPerSec: rate }],
        phase: 'steps',
        seqOffset,
        gracefulStopMs: 2000,
        sink: (r) => records.push(r),
      }).done;
    // slow enough that no worker allocates past its preallocated VUs (preconnect counts every VU allocated)
    const first = await leg(31, 0, []);
    expect(first.dispatched).toBe(31);
    await engine.shrink(2);
    expect(engine.name).toBe('native (2 of 3 worker threads)');
    // 10 preallocated over two: 5 and 5 (over three they were 4, 3 and 3)
    expect(await engine.preconnect()).toEqual({ ready: 10, failed: 0 });
    seen.length = 0;
    const records: BucketRecord[] = [];
    const second = await leg(301, first.lastSeq, records);
    expect(second.dispatched).toBe(301);
    expect(new Set(records.map((r) => r.source))).toEqual(new Set(['native/0', 'native/1']));
    // an odd count splits unevenly (151 and 150): every seq at most once and within the leg's range,
    // and each one not sent counted as dropped (a stall of a busy machine can hold a worker's 5 VUs)
    const sorted = [...seen].sort((a, b) => a - b);
    expect(new Set(sorted).size).toBe(sorted.length);
    expect([sorted[0] >= first.lastSeq + 1, sorted.at(-1)! <= first.lastSeq + 301]).toEqual([true, true]);
    expect(sorted.length + records.reduce((a, r) => a + r.dropped, 0)).toBe(301);
    // half sent is evidence enough for where the seqs start (264 were sent once, beside other work)
    expect(sorted.length).toBeGreaterThanOrEqual(150);
  });

  it("draws a random source's rows by its seed, the same on one worker and on three whatever the run id (a review: only the run id seeded them)", async () => {
    const rows = parseCsv(fs.readFileSync(path.resolve('test/fixtures/scenarios/reader-rows.csv'), 'utf8'));
    /** Each seq sent and the row it carried (/r/<seq>/<row id>), on `count` workers of run `runId`. */
    const sent = async (count: number, runId: string) => {
      const pairs = new Map<number, string>();
      const srv = await tinyServer((req, res) => {
        const [, , seq, id] = req.url!.split('/');
        pairs.set(Number(seq), id);
        res.end('ok');
      });
      closers.push(srv.close);
      const engine = await workersOn(count, srv.url, 'random-seed', runId);
      await engine.start({
        segments: [{ durationS: 1, fromPerSec: 200, toPerSec: 200 }],
        phase: 'steps',
        seqOffset: 0,
        gracefulStopMs: 2000,
        sink: () => undefined,
      }).done;
      return pairs;
    };
    const seeded = (seq: number) => rows[rowIndex('random', seq, rows.length, seedOf('checkout-ab'))!].id;
    for (const pairs of [await sent(1, 'seed-one'), await sent(3, 'seed-three')]) {
      // a stall of a busy machine may drop a few arrivals: every one sent carried the seed's row
      expect(pairs.size).toBeGreaterThanOrEqual(150);
      expect([...pairs].filter(([seq, id]) => id !== seeded(seq))).toEqual([]);
    }
    // the run id's draws are others
    const byRunId = Array.from({ length: 200 }, (_, i) => rowIndex('random', i + 1, rows.length, seedOf('seed-one')));
    const bySeed = Array.from({ length: 200 }, (_, i) => rowIndex('random', i + 1, rows.length, seedOf('checkout-ab')));
    expect(byRunId).not.toEqual(bySeed);
  });

  it('reserve() allocates VUs on every worker (the warmup re-sizing), and a shrink after it keeps them', async () => {
    const { engine } = await seqEngine(2, 0);
    engine.reserve(26); // 13 a worker, within 20 each
    expect(await engine.preconnect()).toEqual({ ready: 26, failed: 0 });
    engine.reserve(100); // within maxVUs: 40
    expect(await engine.preconnect()).toEqual({ ready: 40, failed: 0 });
    await engine.shrink(1);
    // the one left holds the whole reservation within the whole maximum, not the 10 it started with
    expect(await engine.preconnect()).toEqual({ ready: 40, failed: 0 });
  });

  it('a raised maxVUs reaches every worker', async () => {
    const srv = await tinyServer((_q, res) => setTimeout(() => res.end('ok'), 50));
    closers.push(srv.close);
    const engine = await WorkerEngine.create(
      2,
      {
        origin: srv.url,
        targetUrl: `${srv.url}/`,
        http: { timeoutMs: 5000, client: 'socket' },
        preAllocatedVUs: 2,
        maxVUs: 2,
        scenarioPath: null,
        runId: 'w2',
        idKey: 'w2',
        maxBodyBytes: 65536,
      },
      process.env,
    );
    closers.push(() => engine.close());
    const count = async () => {
      const records: BucketRecord[] = [];
      await engine.start({
        segments: [{ durationS: 1, fromPerSec: 100, toPerSec: 100 }],
        phase: 'steps',
        seqOffset: 0,
        gracefulStopMs: 1000,
        sink: (r) => records.push(r),
      }).done;
      return records.reduce((a, r) => a + r.dropped, 0);
    };
    const droppedSmall = await count();
    engine.maxVUs = 40;
    const droppedLarge = await count();
    expect(droppedSmall).toBeGreaterThan(50);
    expect(droppedLarge).toBe(0);
  });
});

describe('a worker thread that ends during the run', () => {
  it("fails the leg with why (process.exit() in the scenario's code), and every later wait on it at once: no hang", async () => {
    const srv = await tinyServer((_req, res) => res.end('ok'));
    closers.push(srv.close);
    const engine = await twoWorkers(srv.url, 'exits-at-seq-40', 'exits');
    const leg = () =>
      engine.start({
        segments: [{ durationS: 2, fromPerSec: 50, toPerSec: 50 }],
        phase: 'steps',
        seqOffset: 0,
        gracefulStopMs: 1000,
        sink: () => undefined,
      });
    const first = leg();
    const err = await first.done.then(
      () => null,
      (e: unknown) => e,
    );
    first.stop(0);
    expect(err).toBeInstanceOf(PlateauError);
    expect((err as PlateauError).message).toMatch(
      /^engine worker [01] exited \(code 3\) during the run, with no error: the scenario's code \(or a package it uses\) called process\.exit\(\)$/,
    );
    expect([(err as PlateauError).code, (err as PlateauError).exitCode]).toEqual(['worker-exited', 4]);
    await expect(engine.preconnect()).rejects.toThrow(/exited \(code 3\)/);
    await expect(leg().done).rejects.toThrow(/exited \(code 3\)/);
  });

  it("one that cannot load its data file says plateau's own words for it, with the fix", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plateau-gone-'));
    const csv = path.join(dir, 'rows.csv');
    fs.writeFileSync(csv, 'id\n1\n2\n');
    const scenario = path.join(dir, 'rows.ts');
    fs.writeFileSync(
      scenario,
      `import { defineScenario } from 'plateau';\nexport default defineScenario({ name: 'rows', data: { rows: { csv: './rows.csv' } }, request: (ctx) => ({ url: '/' + ctx.row('rows').id }) });\n`,
    );
    fs.rmSync(csv);
    const err = await WorkerEngine.create(
      1,
      {
        origin: 'http://127.0.0.1:9',
        targetUrl: 'http://127.0.0.1:9/',
        http: { timeoutMs: 5000, client: 'socket' },
        preAllocatedVUs: 1,
        maxVUs: 1,
        scenarioPath: scenario,
        runId: 'gone',
        idKey: 'gone',
        maxBodyBytes: 65536,
      },
      process.env,
    ).then(
      () => null,
      (e: unknown) => e,
    );
    fs.rmSync(dir, { recursive: true, force: true });
    expect(err).toBeInstanceOf(PlateauError);
    expect((err as PlateauError).message).toMatch(/rows\.csv/);
    expect((err as PlateauError).message).not.toMatch(/^engine worker 0 failed to start/);
    expect((err as PlateauError).hint).not.toMatch(/npx tsx/);
  });
});
