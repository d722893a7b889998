import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemo, type DemoHandle } from '../demo/server.ts';
import { ordersSeries, parseMetrics, postOrder, sign } from './demo-helpers.ts';

const KEY = 'test-hmac-key';

describe('demo target over HTTP', () => {
  let demo: DemoHandle;
  const order = (id: string, accountId = 7, amountCents = 250) => ({ id, accountId, amountCents });

  beforeAll(async () => {
    demo = await startDemo({ port: 0, slots: 4, holdMs: 2, rows: 1000, hmacKey: KEY });
  });
  afterAll(async () => {
    await demo?.close();
  });

  const reset = async () => (await fetch(`${demo.url}/admin/reset`, { method: 'POST' })).json() as Promise<any>;

  it('states its capacity and answers health and ping', async () => {
    expect(demo.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(demo.capacityPerSec).toBe(2000);
    const health = await fetch(`${demo.url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'UP' });
    const ping = await fetch(`${demo.url}/ping`);
    expect(ping.status).toBe(200);
    expect((await ping.text()).length).toBeLessThan(16);
  });

  it('writes a signed order once, then answers the same id from the idempotency table', async () => {
    await reset();
    const first = await postOrder(demo.url, order('order-1'), KEY);
    expect(first.status).toBe(201);
    expect(first.json).toEqual({ id: 'order-1', accountId: 7, amountCents: 250, status: 'created', version: 1 });
    expect(demo.stats()).toMatchObject({ writes: 1, idempotentHits: 0, idempotency: 1, accounts: 1000 });

    const again = await postOrder(demo.url, order('order-1', 9, 999), KEY);
    expect(again.status).toBe(200);
    expect(again.json).toEqual(first.json);
    expect(demo.stats()).toMatchObject({ writes: 1, idempotentHits: 1, idempotency: 1 });

    const next = await postOrder(demo.url, order('order-2'), KEY);
    expect(next.json.version).toBe(2); // optimistic version bumped again on the same account
  });

  it('rejects a missing or wrong signature with 401 and writes nothing', async () => {
    await reset();
    const wrong = await postOrder(demo.url, order('order-x'), undefined, sign('something else', KEY));
    expect(wrong.status).toBe(401);
    expect(wrong.json).toEqual({ error: 'bad signature' });
    const missing = await postOrder(demo.url, order('order-x'));
    expect(missing.status).toBe(401);
    const otherKey = await postOrder(demo.url, order('order-x'), 'not-the-key');
    expect(otherKey.status).toBe(401);
    expect(demo.stats()).toMatchObject({ writes: 0, idempotency: 0 });
  });

  it('fails an id longer than 50 chars with 500 like a VARCHAR(50) overflow, writing nothing', async () => {
    await reset();
    const res = await postOrder(demo.url, order('x'.repeat(51)), KEY);
    expect(res.status).toBe(500);
    expect(res.json).toEqual({ error: 'value too long for type character varying(50)' });
    expect(demo.stats()).toMatchObject({ writes: 0, idempotency: 0 });
    expect((await postOrder(demo.url, order('y'.repeat(50)), KEY)).status).toBe(201);
  });

  it('answers 400 on malformed bodies, 404 on unknown accounts and routes, 405 on wrong methods', async () => {
    const raw = async (body: string) => {
      const res = await fetch(`${demo.url}/orders`, {
        method: 'POST',
        headers: { 'x-signature': sign(body, KEY) },
        body,
      });
      return res.status;
    };
    expect(await raw('{not json')).toBe(400);
    expect(await raw('[]')).toBe(400);
    expect(await raw('{"id":"a","accountId":"7","amountCents":1}')).toBe(400);
    expect(await raw('{"id":"","accountId":7,"amountCents":1}')).toBe(400);
    expect(await raw('')).toBe(400);
    expect((await postOrder(demo.url, order('acct-0', 0), KEY)).status).toBe(404);
    expect((await postOrder(demo.url, order('acct-big', 1001), KEY)).status).toBe(404);
    expect((await fetch(`${demo.url}/nope`)).status).toBe(404);
    const wrongMethod = await fetch(`${demo.url}/orders`);
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST');
    expect((await fetch(`${demo.url}/health`, { method: 'DELETE' })).status).toBe(405);
    const huge = await fetch(`${demo.url}/orders`, { method: 'POST', body: 'x'.repeat(200_000) }).catch(
      () => undefined,
    );
    if (huge) expect([401, 413]).toContain(huge.status);
    expect((await fetch(`${demo.url}/health`)).status).toBe(200); // still alive
  });

  it('reset restores the standard state and reports row counts before and after', async () => {
    await reset();
    for (let i = 0; i < 5; i++) expect((await postOrder(demo.url, order(`r-${i}`, 1 + (i % 3)), KEY)).status).toBe(201);
    await postOrder(demo.url, order('r-0'), KEY);
    expect(demo.stats()).toMatchObject({ writes: 5, idempotentHits: 1, idempotency: 5 });

    const result = await reset();
    const seeds = demo.seedOrders;
    expect(result).toEqual({
      before: { accounts: 1000, idempotency: 5, orders: seeds + 5, changedAccounts: 3 },
      after: { accounts: 1000, idempotency: 0, orders: seeds, changedAccounts: 0 },
    });
    const stats = (await (await fetch(`${demo.url}/admin/stats`)).json()) as any;
    expect(stats).toEqual({
      writes: 0,
      idempotentHits: 0,
      reads: 0,
      confirms: 0,
      accounts: 1000,
      idempotency: 0,
      orders: seeds,
      capacityPerSec: 2000,
      // 4 slots, holds 0.4 / 2 / 2 ms: 4 / (0.7 x 0.4 + 0.25 x 2 + 0.05 x 4) x 1000
      mixArrivalsPerSec: expect.closeTo(4000 / 0.98, 6),
    });
    // versions are back: the first write on account 1 gets version 1 again
    expect((await postOrder(demo.url, order('r-0', 1), KEY)).json).toMatchObject({
      id: 'r-0',
      accountId: 1,
      version: 1,
    });
  });

  it('exposes Spring/Micrometer-named metrics with the right counts', async () => {
    const before = parseMetrics(await (await fetch(`${demo.url}/metrics`)).text()).samples;
    const count201 = before.get(ordersSeries('count', 201, 'SUCCESS')) ?? 0;
    const count401 = before.get(ordersSeries('count', 401, 'CLIENT_ERROR')) ?? 0;
    const n = 6;
    for (let i = 0; i < n; i++) await postOrder(demo.url, order(`m-${i}-${Date.now()}`), KEY);
    await postOrder(demo.url, order('m-bad'), 'wrong-key');

    const res = await fetch(`${demo.url}/metrics`);
    expect(res.headers.get('content-type')).toContain('text/plain; version=0.0.4');
    const text = await res.text();
    const { samples, types } = parseMetrics(text);
    expect(samples.get(ordersSeries('count', 201, 'SUCCESS'))).toBe(count201 + n);
    expect(samples.get(ordersSeries('count', 401, 'CLIENT_ERROR'))).toBe(count401 + 1);
    const sum = samples.get(ordersSeries('sum', 201, 'SUCCESS'))!;
    const max = samples.get(ordersSeries('max', 201, 'SUCCESS'))!;
    expect(sum).toBeGreaterThanOrEqual(((count201 + n) * 2) / 1000); // each holds >= 2 ms
    expect(max).toBeGreaterThanOrEqual(0.002);
    expect(max).toBeLessThanOrEqual(sum);
    expect(samples.get('hikaricp_connections_active{pool="demo"}')).toBe(0);
    expect(samples.get('hikaricp_connections_pending{pool="demo"}')).toBe(0);
    expect(samples.get('hikaricp_connections_max{pool="demo"}')).toBe(4);
    expect(samples.get('demo_writes_total')).toBe(demo.stats().writes);
    expect(samples.get('demo_idempotent_hits_total')).toBe(demo.stats().idempotentHits);
    expect(samples.get('demo_capacity_per_sec')).toBe(2000);
    expect(samples.get('demo_mix_capacity_arrivals_per_sec')).toBeCloseTo(4000 / 0.98, 6);
    expect(types.get('http_server_requests_seconds')).toBe('histogram');
    expect(types.get('http_server_requests_seconds_max')).toBe('gauge');
    expect(types.get('demo_writes_total')).toBe('counter');
    expect(types.get('hikaricp_connections_active')).toBe('gauge');
    expect(text).toContain('# HELP demo_capacity_per_sec ');
    expect(
      samples.has(
        'http_server_requests_seconds_count{method="GET",uri="/health",status="200",outcome="SUCCESS",exception="None"}',
      ),
    ).toBe(true);
    expect(
      samples.has(
        'http_server_requests_seconds_count{method="GET",uri="NOT_FOUND",status="404",outcome="CLIENT_ERROR",exception="None"}',
      ),
    ).toBe(true);
  });
});

describe('demo target lifecycle', () => {
  it('removes its temp database on close and validates options', async () => {
    const demo = await startDemo({ rows: 10 });
    expect(demo.stats().accounts).toBe(10);
    expect(existsSync(demo.dbPath)).toBe(true);
    await demo.close();
    await demo.close(); // idempotent
    expect(existsSync(dirname(demo.dbPath))).toBe(false);
    await expect(fetch(`${demo.url}/health`)).rejects.toThrow();
    await expect(startDemo({ slots: 0 })).rejects.toThrow(/slots/);
    await expect(startDemo({ holdMs: -1 })).rejects.toThrow(/holdMs/);
  });

  it('seeds the default 100,000 accounts quickly and accepts unsigned orders without a key', async () => {
    const t0 = Date.now();
    const demo = await startDemo({});
    try {
      expect(Date.now() - t0).toBeLessThan(3000);
      expect(demo.stats().accounts).toBe(100_000);
      expect((await postOrder(demo.url, { id: 'u1', accountId: 100_000, amountCents: 1 })).status).toBe(201);
    } finally {
      await demo.close();
    }
  });
});
