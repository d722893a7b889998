import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  HISTOGRAM_BOUNDS_S,
  HttpMetrics,
  WindowMax,
  bucketIndex,
  micrometerBoundsS,
  outcomeOf,
} from '../demo/metrics.ts';
import { startDemo, type DemoHandle } from '../demo/server.ts';
import {
  DEMO_MIX_STATEMENTS,
  STATEMENTS_PER_REQUEST,
  STATEMENT_KINDS,
  statementKind,
  type StatementKind,
} from '../demo/statements.ts';
import { parseMetrics, postOrder } from './demo-helpers.ts';

describe('demo metrics', () => {
  it('decays the max after about 60 s, like Micrometer', () => {
    const m = new WindowMax();
    const t0 = 1_000_000;
    m.record(0.5, t0);
    m.record(0.1, t0 + 15_000);
    expect(m.value(t0 + 15_000)).toBe(0.5);
    expect(m.value(t0 + 59_000)).toBe(0.5);
    expect(m.value(t0 + 61_000)).toBe(0.1); // the 0.5 sample has left the window
    expect(m.value(t0 + 200_000)).toBe(0);
  });

  it('maps status to outcome and renders count/sum/max per series', () => {
    expect([outcomeOf(201), outcomeOf(404), outcomeOf(503), outcomeOf(302)]).toEqual([
      'SUCCESS',
      'CLIENT_ERROR',
      'SERVER_ERROR',
      'REDIRECTION',
    ]);
    const h = new HttpMetrics();
    h.record({ method: 'POST', uri: '/orders', status: 201 }, 0.01, 0);
    h.record({ method: 'POST', uri: '/orders', status: 201 }, 0.03, 1);
    const { samples } = parseMetrics(h.render([{ name: 'g', help: 'a gauge', type: 'gauge', value: 3 }], 2));
    const l = '{method="POST",uri="/orders",status="201",outcome="SUCCESS",exception="None"}';
    expect(samples.get(`http_server_requests_seconds_count${l}`)).toBe(2);
    expect(samples.get(`http_server_requests_seconds_sum${l}`)).toBeCloseTo(0.04, 10);
    expect(samples.get(`http_server_requests_seconds_max${l}`)).toBe(0.03);
    expect(samples.get('g')).toBe(3);
  });

  it("uses Micrometer's percentile-histogram bounds, 1 ms to 2 s", () => {
    // Spring Boot's /actuator/prometheus prints these (publishPercentileHistogram, default minimum 1 ms)
    expect(HISTOGRAM_BOUNDS_S.slice(0, 6)).toEqual([
      0.001, 0.001048576, 0.001398101, 0.001747626, 0.002097151, 0.002446676,
    ]);
    expect(HISTOGRAM_BOUNDS_S).toContain(0.004194304);
    expect(HISTOGRAM_BOUNDS_S).toContain(0.050331646);
    expect(HISTOGRAM_BOUNDS_S).toContain(1.073741824);
    expect(HISTOGRAM_BOUNDS_S.at(-1)).toBe(2);
    expect(HISTOGRAM_BOUNDS_S).toHaveLength(50);
    for (let i = 1; i < HISTOGRAM_BOUNDS_S.length; i++) {
      const ratio = HISTOGRAM_BOUNDS_S[i]! / HISTOGRAM_BOUNDS_S[i - 1]!;
      expect(ratio, `bound ${i}`).toBeGreaterThan(1);
      expect(ratio, `bound ${i}`).toBeLessThanOrEqual(1.34); // a third of a power of 4 at most
    }
    // Spring's own default range, 1 ms to 30 s, ends as its /actuator/prometheus does
    expect(micrometerBoundsS(0.001, 30).slice(-4)).toEqual([17.179869184, 22.906492245, 28.633115306, 30]);
    // a value on a bound counts in that bound's bucket (le is <=)
    expect(bucketIndex(0.001)).toBe(0);
    expect(bucketIndex(0.0010001)).toBe(1);
    expect(bucketIndex(0.0005)).toBe(0);
    expect(bucketIndex(5)).toBe(HISTOGRAM_BOUNDS_S.length);
  });

  it('renders cumulative buckets per series, +Inf last and equal to _count', () => {
    const h = new HttpMetrics();
    const durations = [0.0005, 0.001, 0.003, 0.003, 0.012, 0.4, 2, 7];
    for (const d of durations) h.record({ method: 'GET', uri: '/orders/{id}', status: 200 }, d, 0);
    h.record({ method: 'POST', uri: '/orders', status: 201 }, 0.01, 0);
    const text = h.render([], 1);
    const l = 'method="GET",uri="/orders/{id}",status="200",outcome="SUCCESS",exception="None"';
    const { samples, types } = parseMetrics(text);
    expect(types.get('http_server_requests_seconds')).toBe('histogram');
    const buckets = [...samples].filter(([k]) => k.startsWith(`http_server_requests_seconds_bucket{${l},le=`));
    expect(buckets.map(([k]) => /le="([^"]+)"/.exec(k)![1])).toEqual([...HISTOGRAM_BOUNDS_S.map(String), '+Inf']);
    const at = (le: string) => samples.get(`http_server_requests_seconds_bucket{${l},le="${le}"}`);
    expect(at('0.001')).toBe(2); // 0.5 ms and exactly 1 ms
    expect(at('0.003145726')).toBe(4);
    expect(at('0.01258291')).toBe(5);
    expect(at('0.447392426')).toBe(6);
    expect(at('2')).toBe(7);
    expect(at('+Inf')).toBe(durations.length);
    expect(samples.get(`http_server_requests_seconds_count{${l}}`)).toBe(durations.length);
    const values = buckets.map(([, v]) => v);
    for (let i = 1; i < values.length; i++) expect(values[i]).toBeGreaterThanOrEqual(values[i - 1]!);
    // the other series has its own buckets
    expect(
      samples.get(
        'http_server_requests_seconds_bucket{method="POST",uri="/orders",status="201",outcome="SUCCESS",exception="None",le="0.009786708"}',
      ),
    ).toBe(0);
    expect(
      samples.get(
        'http_server_requests_seconds_bucket{method="POST",uri="/orders",status="201",outcome="SUCCESS",exception="None",le="0.011184809"}',
      ),
    ).toBe(1);
  });

  it('names the kind of every statement the database runs', () => {
    expect(statementKind('SELECT response FROM idempotency WHERE id = ?')).toBe('select');
    expect(statementKind('  update accounts SET version = 1')).toBe('update');
    expect(statementKind('INSERT INTO orders VALUES (1)')).toBe('insert');
    expect(statementKind('DELETE FROM orders')).toBe('delete');
    expect(statementKind('WITH RECURSIVE seq(x) AS (SELECT 1) INSERT INTO accounts SELECT x FROM seq')).toBe('insert');
    expect(statementKind('WITH t AS (SELECT 1) SELECT * FROM t')).toBe('select');
    expect(() => statementKind('CREATE TABLE t (x)')).toThrow(/counts SELECT, INSERT, UPDATE and DELETE; run DDL/);
    // the demo's mix: 0.7 x 1 + 0.25 x 5 + 0.05 x (5 + 2) per arrival, over 1.05 requests per arrival
    expect(DEMO_MIX_STATEMENTS.perArrival).toBeCloseTo(2.3, 10);
    expect(DEMO_MIX_STATEMENTS.perRequest).toBeCloseTo(2.3 / 1.05, 10);
  });
});

describe("the demo's SQL statements and histogram, measured", () => {
  const KEY = 'statements-key';
  let demo: DemoHandle;
  beforeAll(async () => {
    demo = await startDemo({ slots: 2, holdMs: 2, rows: 10, seedOrders: 3, hmacKey: KEY });
  });
  afterAll(() => demo.close());

  const scrape = async () => parseMetrics(await (await fetch(`${demo.url}/metrics`)).text());
  const statements = async (): Promise<Record<StatementKind, number>> => {
    const { samples } = await scrape();
    const out = {} as Record<StatementKind, number>;
    for (const k of STATEMENT_KINDS) {
      const v = samples.get(`demo_sql_statements_total{kind="${k}"}`);
      expect(v, `demo_sql_statements_total{kind="${k}"}`).toBeTypeOf('number');
      out[k] = v!;
    }
    return out;
  };
  /** The statements each request ran: the counter's growth over it, every kind listed (0 when none). */
  const fanout = async (send: () => Promise<unknown>): Promise<Record<StatementKind, number>> => {
    const before = await statements();
    await send();
    const after = await statements();
    return Object.fromEntries(STATEMENT_KINDS.map((k) => [k, after[k] - before[k]])) as Record<StatementKind, number>;
  };
  const expected = (f: Partial<Record<StatementKind, number>>) =>
    Object.fromEntries(STATEMENT_KINDS.map((k) => [k, f[k] ?? 0]));
  const order = (id: string, accountId = 1) => ({ id, accountId, amountCents: 5 });

  it('counts the statements of each route as statements.ts lists them, and none for a scrape', async () => {
    const created = await fanout(async () => expect((await postOrder(demo.url, order('st-1'), KEY)).status).toBe(201));
    expect(created).toEqual(expected(STATEMENTS_PER_REQUEST['POST /orders created']));
    const replay = await fanout(async () => expect((await postOrder(demo.url, order('st-1'), KEY)).status).toBe(200));
    expect(replay).toEqual(expected(STATEMENTS_PER_REQUEST['POST /orders replay']));
    const noAccount = await fanout(async () =>
      expect((await postOrder(demo.url, order('st-2', 999), KEY)).status).toBe(404),
    );
    expect(noAccount).toEqual(expected(STATEMENTS_PER_REQUEST['POST /orders no account']));
    const seeded = await fanout(async () => expect((await postOrder(demo.url, order('seed-0'), KEY)).status).toBe(409));
    expect(seeded).toEqual(expected(STATEMENTS_PER_REQUEST['POST /orders seeded id']));
    const tooLong = await fanout(async () =>
      expect((await postOrder(demo.url, order('x'.repeat(51)), KEY)).status).toBe(500),
    );
    expect(tooLong).toEqual(expected(STATEMENTS_PER_REQUEST['POST /orders id too long']));
    const read = await fanout(async () => expect((await fetch(`${demo.url}/orders/seed-1`)).status).toBe(200));
    expect(read).toEqual(expected(STATEMENTS_PER_REQUEST['GET /orders/{id}']));
    const missing = await fanout(async () => expect((await fetch(`${demo.url}/orders/none`)).status).toBe(404));
    expect(missing).toEqual(expected(STATEMENTS_PER_REQUEST['GET /orders/{id}']));
    const confirm = await fanout(async () =>
      expect((await fetch(`${demo.url}/orders/st-1/confirm`, { method: 'POST' })).status).toBe(200),
    );
    expect(confirm).toEqual(expected(STATEMENTS_PER_REQUEST['POST /orders/{id}/confirm']));
    const again = await fanout(async () =>
      expect((await fetch(`${demo.url}/orders/st-1/confirm`, { method: 'POST' })).status).toBe(409),
    );
    expect(again).toEqual(expected(STATEMENTS_PER_REQUEST['POST /orders/{id}/confirm']));
    const unsigned = await fanout(async () =>
      expect((await postOrder(demo.url, order('st-3'), 'wrong-key')).status).toBe(401),
    );
    expect(unsigned).toEqual(expected(STATEMENTS_PER_REQUEST.refused));
    // the scrape between two readings ran nothing: a fan-out measured over a window is the requests'
    expect(await fanout(() => fetch(`${demo.url}/ping`))).toEqual(expected({}));
  });

  it('counts a run of the mix: reads, writes and confirms add up to their listed statements', async () => {
    const before = await statements();
    const n = 5;
    for (let i = 0; i < n; i++) {
      expect((await fetch(`${demo.url}/orders/seed-${i % 3}`)).status).toBe(200);
      expect((await postOrder(demo.url, order(`mix-${i}`, 1 + (i % 10)), KEY)).status).toBe(201);
      expect((await fetch(`${demo.url}/orders/mix-${i}/confirm`, { method: 'POST' })).status).toBe(200);
    }
    const after = await statements();
    // per round: a read (1 select), a write (2 select, 1 update, 2 insert), a confirm (1 select, 1 update)
    expect(STATEMENT_KINDS.map((k) => after[k] - before[k])).toEqual([4 * n, 2 * n, 2 * n, 0]);
  });

  it('exposes the request histogram with cumulative buckets that end at _count', async () => {
    for (let i = 0; i < 4; i++) await postOrder(demo.url, order(`h-${i}`), KEY);
    const { samples, types } = await scrape();
    expect(types.get('http_server_requests_seconds')).toBe('histogram');
    const series = [...samples.keys()]
      .filter((k) => k.startsWith('http_server_requests_seconds_count{'))
      .map((k) => k.slice('http_server_requests_seconds_count{'.length, -1));
    expect(series.length).toBeGreaterThanOrEqual(4); // /orders 201, 200, 404, 409, 500, /orders/{id}, ...
    for (const l of series) {
      const cumulative = [...HISTOGRAM_BOUNDS_S.map(String), '+Inf'].map((le) =>
        samples.get(`http_server_requests_seconds_bucket{${l},le="${le}"}`),
      );
      expect(
        cumulative.every((v) => typeof v === 'number'),
        l,
      ).toBe(true);
      for (let i = 1; i < cumulative.length; i++) expect(cumulative[i]!, l).toBeGreaterThanOrEqual(cumulative[i - 1]!);
      expect(cumulative.at(-1), l).toBe(samples.get(`http_server_requests_seconds_count{${l}}`));
    }
    // the writes hold 2 ms: none of them lies at or below 1 ms, and their mean sits within the buckets
    const w = 'method="POST",uri="/orders",status="201",outcome="SUCCESS",exception="None"';
    expect(samples.get(`http_server_requests_seconds_bucket{${w},le="0.001"}`)).toBe(0);
    const count = samples.get(`http_server_requests_seconds_count{${w}}`)!;
    const meanS = samples.get(`http_server_requests_seconds_sum{${w}}`)! / count;
    const firstFull = HISTOGRAM_BOUNDS_S.find(
      (b) => samples.get(`http_server_requests_seconds_bucket{${w},le="${b}"}`) === count,
    )!;
    expect(meanS).toBeLessThanOrEqual(firstFull);
  });
});

describe('demo shutdown under load', () => {
  it('closes promptly while requests hold and wait for slots', async () => {
    const demo = await startDemo({ slots: 1, holdMs: 50, rows: 10 });
    const inflight = Array.from({ length: 20 }, (_, i) =>
      fetch(`${demo.url}/orders`, {
        method: 'POST',
        body: JSON.stringify({ id: `s${i}`, accountId: 1, amountCents: 1 }),
      })
        .then((r) => r.status)
        .catch(() => 'error'),
    );
    // wait until one request holds the slot (its write is done at acquire) and others queue
    for (let i = 0; i < 200 && demo.stats().writes < 1; i++) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 20));
    const t0 = Date.now();
    await demo.close();
    expect(Date.now() - t0).toBeLessThan(1000);
    const outcomes = await Promise.all(inflight);
    expect(outcomes.filter((s) => s === 201).length).toBeGreaterThanOrEqual(1);
    expect(outcomes.every((s) => s === 201 || s === 503 || s === 'error')).toBe(true);
  }, 10_000);
});
