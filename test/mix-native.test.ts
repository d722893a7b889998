/**
 * The native engine runs a mix (test/fixtures/scenarios/native-mix): each arrival one entry by
 * its number, reads and writes counted under their names, unique CSV rows never sent twice, a
 * transaction's two requests sent in order on its VU with think time, body checks, and a
 * transaction's failure counted as its arrival's. A real server on 127.0.0.1.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AnalysedRecord, BucketRecord } from '../analysis/types.ts';
import { mergeRecords } from '../analysis/buckets.ts';
import { Schedule } from '../analysis/schedule.ts';
import { startNative } from '../harness/engine/native.ts';
import { VuPool } from '../harness/engine/vu-pool.ts';
import { scenarioRequests } from '../harness/scenario/requests.ts';
import { entryOf, mixOrder } from '../harness/scenario/mix-order.ts';
import { tinyServer } from './helpers/tiny-server.ts';

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

const SCENARIO = path.resolve('test/fixtures/scenarios/native-mix/scenario.ts');

interface Seen {
  accounts: string[];
  confirmed: string[];
  created: string[];
  order: string[];
}

/** Reads, creates (201 with the id) and confirms (200, or 404 when `confirmFails`). */
async function shopServer(confirmFails = false): Promise<{ url: string; seen: Seen }> {
  const seen: Seen = { accounts: [], confirmed: [], created: [], order: [] };
  const srv = await tinyServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const url = req.url!;
      if (req.method === 'GET' && url.startsWith('/orders/')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: url.slice(8) }));
      } else if (req.method === 'POST' && url === '/orders') {
        const o = JSON.parse(body) as { id: string; account: string };
        seen.created.push(o.id);
        if (o.account !== 'checkout') seen.accounts.push(o.account);
        res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ id: o.id }));
      } else if (req.method === 'POST' && url.endsWith('/confirm')) {
        const id = url.split('/')[2];
        seen.confirmed.push(id);
        seen.order.push(`confirm ${id} after ${seen.created.includes(id) ? 'create' : 'nothing'}`);
        res.writeHead(confirmFails ? 404 : 200).end('{}');
      } else res.writeHead(500).end();
    });
  });
  closers.push(srv.close);
  return { url: srv.url, seen };
}

/** Runs a scenario module on one thread at a fixed rate; its buckets merged. */
async function runScenario(
  url: string,
  file: string,
  ratePerSec: number,
  seconds: number,
  vus = { pre: 20, max: 60 },
  transactionTimeoutMs?: number,
) {
  const s = await scenarioRequests(file, `${url}/`, 'mixrun', { transactionTimeoutMs });
  const pool = new VuPool(url, { timeoutMs: 5000, client: 'socket', keepHeaders: false }, vus.pre, vus.max);
  closers.push(() => pool.close());
  const records: BucketRecord[] = [];
  const run = startNative({
    schedule: new Schedule([{ fromPerSec: ratePerSec, toPerSec: ratePerSec, durationS: seconds }]),
    phase: 'steps',
    source: 'native/0',
    pool,
    arrivals: s.arrivals,
    seqOffset: 0,
    gracefulStopMs: 3000,
    sink: (r) => records.push(r),
  });
  const done = await run.done;
  return { s, done, records: mergeRecords(records), pool };
}

const runMix = (url: string, ratePerSec: number, seconds: number) => runScenario(url, SCENARIO, ratePerSec, seconds);

function totals(records: AnalysedRecord[]) {
  const sum = (f: (r: AnalysedRecord) => number) => records.reduce((a, r) => a + f(r), 0);
  const byName = (name: string, k: 'completed' | 'ok') => sum((r) => r.byName?.[name]?.[k] ?? 0);
  return { sum, byName };
}

describe('a mix on the native engine', () => {
  it('sends each entry by its arrival number, counts names, keeps unique rows unique and runs transactions in order', async () => {
    const { url, seen } = await shopServer();
    const { s, done, records } = await runMix(url, 150, 2);
    const t = totals(records);
    const arrivals = t.sum((r) => r.completed);
    expect(t.sum((r) => r.dropped)).toBe(0);
    expect(arrivals).toBe(done.dispatched);
    expect(arrivals).toBe(300);
    // every arrival ran the entry its number names (SWRR over 70/25/5)
    const expected = { 'read order': 0, 'create order': 0, checkout: 0 };
    const names = s.traffic.entries.map((e) => e.name) as (keyof typeof expected)[];
    const order = mixOrder(s.traffic.entries.map((e) => e.weight));
    for (let seq = 1; seq <= arrivals; seq++) expected[names[entryOf(order, seq)]]++;
    expect(t.byName('read order', 'completed')).toBe(expected['read order']);
    expect(t.byName('create order', 'completed')).toBe(expected['create order']);
    expect(t.byName('checkout', 'completed')).toBe(expected.checkout);
    expect(expected).toEqual({ 'read order': 210, 'create order': 75, checkout: 15 });
    // the transaction's requests under their own names, the transaction under its own, marked
    expect(t.byName('checkout: create', 'ok')).toBe(15);
    expect(t.byName('checkout: confirm', 'ok')).toBe(15);
    expect(records.find((r) => r.byName?.checkout)?.byName?.checkout.transaction).toBe(true);
    expect(t.sum((r) => r.ok)).toBe(300);
    expect(t.sum((r) => r.requests ?? 0)).toBe(315);
    // unique rows: no account sent twice, and (readBy) the first 75 rows, one per create order:
    // by the global arrival number they would have spread over rows 1 to 300
    expect(new Set(seen.accounts).size).toBe(seen.accounts.length);
    expect(seen.accounts.length).toBe(75);
    expect([...seen.accounts].sort((a, b) => Number(a.slice(4)) - Number(b.slice(4)))).toEqual(
      Array.from({ length: 75 }, (_, i) => `acc-${i + 1}`),
    );
    // confirm always after its create, on the same arrival
    expect(seen.order.every((l) => l.endsWith('after create'))).toBe(true);
    // the transaction's duration holds its think time (20 ms): its p50 is at least that
    const { decodeHistogram } = await import('../analysis/histogram.ts');
    const txn = records.filter((r) => r.byName?.checkout).map((r) => decodeHistogram(r.byName!.checkout.duration));
    expect(Math.min(...txn.map((h) => h.minNonZeroValue))).toBeGreaterThanOrEqual(19_000);
  });

  it('a failed request fails its transaction (kind and status of that request); the run goes on', async () => {
    const { url } = await shopServer(true);
    const { records } = await runMix(url, 200, 1);
    const t = totals(records);
    const failedTxns = t.byName('checkout', 'completed') - t.byName('checkout', 'ok');
    expect(t.byName('checkout', 'completed')).toBe(10);
    expect(failedTxns).toBe(10);
    expect(t.sum((r) => r.errors.http_4xx ?? 0)).toBe(10);
    expect(t.sum((r) => r.statuses['404'] ?? 0)).toBe(10);
    expect(t.sum((r) => r.byName?.checkout?.statuses?.['404'] ?? 0)).toBe(10);
    expect(t.sum((r) => r.ok)).toBe(190);
    expect(records.flatMap((r) => r.samples ?? []).some((m) => m.includes('checkout: confirm'))).toBe(true);
  });

  it('a write to a row of ctx.row fails its arrival (kind other) saying the rows are shared and read-only and the copy to make (a review: the bare TypeError)', async () => {
    const srv = await tinyServer((_q, res) => res.end('ok'));
    closers.push(srv.close);
    const { records } = await runScenario(srv.url, path.resolve('test/fixtures/scenarios/row-write.ts'), 40, 1);
    const t = totals(records);
    expect(t.sum((r) => r.errors.other ?? 0)).toBe(40);
    const said = new Set(records.flatMap((r) => r.samples ?? []));
    expect([...said].sort()).toEqual([
      // each cart's items, the first's 1 long, the second's empty
      "other: basket threw: Cannot add property 0, object is not extensible: ctx.row('carts') is shared and read-only: every VU of a thread reads the same rows; copy it first: const r = JSON.parse(JSON.stringify(ctx.row('carts')))",
      "other: basket threw: Cannot add property 1, object is not extensible: ctx.row('carts') is shared and read-only: every VU of a thread reads the same rows; copy it first: const r = JSON.parse(JSON.stringify(ctx.row('carts')))",
      "other: rename: scenario threw: Cannot assign to read only property 'id' of object '#<Object>': ctx.row('accounts') is shared and read-only: every VU of a thread reads the same rows; copy it first: const r = { ...ctx.row('accounts') }",
    ]);
  });

  it("a transaction's sends made at once go together on VUs borrowed from the pool, or with none free one after the other on its VU, each answer its own", async () => {
    let inFlight = 0;
    let most = 0;
    const srv = await tinyServer((req, res) => {
      most = Math.max(most, ++inFlight);
      setTimeout(() => {
        inFlight--;
        res.writeHead(200, { 'x-path': req.url! }).end(req.url);
      }, 5);
    });
    closers.push(srv.close);
    const file = path.resolve('test/fixtures/scenarios/native-mix/concurrent.ts');
    // VUs to spare: a pair's two requests are in flight together, the second on a borrowed VU given back after
    const spare = await runScenario(srv.url, file, 20, 1, { pre: 8, max: 8 });
    expect(most).toBeGreaterThanOrEqual(2);
    expect(spare.pool.active).toBe(0);
    const s = totals(spare.records);
    expect(s.byName('pair', 'ok')).toBeGreaterThan(0);
    expect([s.byName('pair', 'completed'), s.byName('pair: b', 'ok')]).toEqual([
      s.byName('pair', 'ok'),
      s.byName('pair', 'ok'),
    ]);
    // one VU: any two requests in flight at once would be two on its one connection
    most = 0;
    const { records } = await runScenario(srv.url, file, 20, 1, { pre: 1, max: 1 });
    const t = totals(records);
    expect(most).toBe(1);
    expect(t.byName('pair', 'completed')).toBeGreaterThan(0);
    expect(t.byName('pair', 'ok')).toBe(t.byName('pair', 'completed'));
    expect(t.byName('pair: c', 'ok')).toBe(t.byName('pair', 'ok'));
    // chain returns before its sends end (not awaited): each of its arrivals fails, and waited for both
    expect(t.byName('chain', 'completed')).toBeGreaterThan(0);
    expect(t.byName('chain', 'ok')).toBe(0);
    expect(t.sum((r) => r.byName?.chain?.errors.other ?? 0)).toBe(t.byName('chain', 'completed'));
    expect(t.byName('chain: b', 'ok')).toBe(t.byName('chain', 'completed'));
  });

  it('a transaction past http.transactionTimeoutMs fails its arrival (kind timeout) and its VU goes back to the pool', async () => {
    const paths: string[] = [];
    const srv = await tinyServer((req, res) => {
      paths.push(req.url!);
      setTimeout(() => res.writeHead(200).end('ok'), req.url === '/slow' ? 1500 : 0);
    });
    closers.push(srv.close);
    // 40 arrivals in 1 s: 20 plain, 10 stuck (5 of them never end), 10 slow (each past the deadline)
    // as many VUs as arrivals: no drop, whatever a busy machine's stalls
    const { records, pool } = await runScenario(
      srv.url,
      path.resolve('test/fixtures/scenarios/native-mix/hang.ts'),
      40,
      1,
      { pre: 20, max: 40 },
      300,
    );
    const t = totals(records);
    const samples = records.flatMap((r) => r.samples ?? []);
    // every arrival counted, none left running, and every VU back in the pool (the hung ones' too)
    expect([t.sum((r) => r.completed), t.sum((r) => r.dropped), pool.active]).toEqual([40, 0, 0]);
    expect(t.byName('plain', 'ok')).toBe(20);
    expect([t.byName('stuck', 'completed'), t.byName('stuck', 'ok')]).toEqual([10, 5]);
    expect([t.byName('slow', 'completed'), t.byName('slow', 'ok')]).toEqual([10, 0]);
    expect(t.sum((r) => r.errors.timeout ?? 0)).toBe(15);
    expect(samples.some((m) => /stuck did not end within 300 ms \(http\.transactionTimeoutMs\)/.test(m))).toBe(true);
    // a slow one's request ended on its own (1.5 s, under http.timeoutMs), and its late send was refused
    expect(t.byName('slow: first', 'ok')).toBe(10);
    expect(paths.filter((p) => p === '/slow')).toHaveLength(10);
    expect(t.byName('slow: late', 'completed')).toBe(0);
  });
});
