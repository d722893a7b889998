/**
 * The demo's order routes over HTTP on 127.0.0.1: GET /orders/{id} and POST /orders/{id}/confirm
 * beside POST /orders, their 404 and 409, the seeded orders and their reset, the shared pool, and
 * metrics labelled by route template, never by id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemo, type DemoHandle } from '../demo/server.ts';
import { parseMetrics, postOrder } from './demo-helpers.ts';

const KEY = 'test-orders-key';

const getOrder = async (demo: DemoHandle, id: string): Promise<{ status: number; json: any }> => {
  const res = await fetch(`${demo.url}/orders/${encodeURIComponent(id)}`);
  return { status: res.status, json: await res.json() };
};
const confirm = async (demo: DemoHandle, id: string): Promise<{ status: number; json: any }> => {
  const res = await fetch(`${demo.url}/orders/${encodeURIComponent(id)}/confirm`, { method: 'POST' });
  return { status: res.status, json: await res.json() };
};
const series = (method: string, uri: string, status: number, outcome: string): string =>
  `http_server_requests_seconds_count{method="${method}",uri="${uri}",status="${status}",outcome="${outcome}",exception="None"}`;
/** Every uri label the demo may show: its route templates, and NOT_FOUND for a path no route matches. */
const ROUTE_LABELS = [
  '/health',
  '/ping',
  '/metrics',
  '/orders',
  '/orders/{id}',
  '/orders/{id}/confirm',
  '/admin/reset',
  '/admin/stats',
  '/admin/replicas',
  'NOT_FOUND',
];
const metricsOf = async (demo: DemoHandle) => parseMetrics(await (await fetch(`${demo.url}/metrics`)).text()).samples;

describe('the order routes', () => {
  let demo: DemoHandle;
  beforeAll(async () => {
    demo = await startDemo({
      slots: 2,
      holdMs: 4,
      readHoldMs: 1,
      confirmHoldMs: 2,
      rows: 1000,
      seedOrders: 50,
      hmacKey: KEY,
    });
  });
  afterAll(async () => {
    await demo?.close();
  });
  const reset = async () => (await fetch(`${demo.url}/admin/reset`, { method: 'POST' })).json() as Promise<any>;

  it('serves the seeded orders seed-0 .. seed-49 and 404 beyond them', async () => {
    await reset();
    expect(demo.seedOrders).toBe(50);
    expect(demo.stats()).toMatchObject({ orders: 50, idempotency: 0 });
    expect(await getOrder(demo, 'seed-0')).toEqual({
      status: 200,
      json: { id: 'seed-0', accountId: 1, amountCents: 100, status: 'created', version: 0 },
    });
    expect((await getOrder(demo, 'seed-49')).json).toMatchObject({ id: 'seed-49', accountId: 50 });
    expect(await getOrder(demo, 'seed-50')).toEqual({ status: 404, json: { error: 'order seed-50 not found' } });
    expect(demo.stats().reads).toBe(2);
  });

  it('answers POST /orders with the order JSON, which GET /orders/{id} then reads', async () => {
    await reset();
    const made = await postOrder(demo.url, { id: 'ord-a', accountId: 7, amountCents: 250 }, KEY);
    expect(made).toEqual({
      status: 201,
      json: { id: 'ord-a', accountId: 7, amountCents: 250, status: 'created', version: 1 },
    });
    expect(await getOrder(demo, 'ord-a')).toEqual({ status: 200, json: made.json });
    // an id with characters a path must encode reads back the same
    expect((await postOrder(demo.url, { id: 'a b/c', accountId: 7, amountCents: 1 }, KEY)).status).toBe(201);
    expect((await getOrder(demo, 'a b/c')).json).toMatchObject({ id: 'a b/c', version: 2 });
    expect(demo.stats()).toMatchObject({ writes: 2, orders: 52, idempotency: 2 });
  });

  it('confirms an order once: 200 with the confirmed order, then 409; 404 for an absent one', async () => {
    await reset();
    await postOrder(demo.url, { id: 'ord-c', accountId: 3, amountCents: 10 }, KEY);
    expect(await confirm(demo, 'ord-c')).toEqual({
      status: 200,
      json: { id: 'ord-c', accountId: 3, amountCents: 10, status: 'confirmed', version: 1 },
    });
    expect(await confirm(demo, 'ord-c')).toEqual({ status: 409, json: { error: 'order ord-c is already confirmed' } });
    expect(await confirm(demo, 'ord-none')).toEqual({ status: 404, json: { error: 'order ord-none not found' } });
    expect((await getOrder(demo, 'ord-c')).json.status).toBe('confirmed');
    // the idempotent replay of the create still answers what the create answered
    const again = await postOrder(demo.url, { id: 'ord-c', accountId: 3, amountCents: 10 }, KEY);
    expect(again).toEqual({
      status: 200,
      json: { id: 'ord-c', accountId: 3, amountCents: 10, status: 'created', version: 1 },
    });
    expect(demo.stats()).toMatchObject({ confirms: 1, writes: 1, idempotentHits: 1 });
  });

  it('two confirms of one order at once: exactly one succeeds', async () => {
    await reset();
    const both = await Promise.all([confirm(demo, 'seed-3'), confirm(demo, 'seed-3')]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
  });

  it('refuses a create whose id is a seeded order (409) and writes nothing', async () => {
    await reset();
    expect(await postOrder(demo.url, { id: 'seed-1', accountId: 9, amountCents: 5 }, KEY)).toEqual({
      status: 409,
      json: { error: 'order seed-1 exists' },
    });
    expect(demo.stats()).toMatchObject({ writes: 0, idempotency: 0, orders: 50 });
    // the account's version did not move: its next write is version 1
    expect((await postOrder(demo.url, { id: 'ord-9', accountId: 9, amountCents: 5 }, KEY)).json.version).toBe(1);
  });

  it('reset drops the orders a run created and unconfirms the seeds', async () => {
    await reset();
    await postOrder(demo.url, { id: 'ord-r', accountId: 1, amountCents: 1 }, KEY);
    await confirm(demo, 'seed-2');
    expect(await reset()).toEqual({
      before: { accounts: 1000, idempotency: 1, orders: 51, changedAccounts: 1 },
      after: { accounts: 1000, idempotency: 0, orders: 50, changedAccounts: 0 },
    });
    expect((await getOrder(demo, 'ord-r')).status).toBe(404);
    expect((await getOrder(demo, 'seed-2')).json.status).toBe('created');
    expect(demo.stats()).toMatchObject({ reads: 1, confirms: 0, writes: 0 });
  });

  it('answers 405 with Allow on a wrong method, 404 NOT_FOUND past the templates', async () => {
    const del = await fetch(`${demo.url}/orders/seed-1`, { method: 'DELETE' });
    expect(del.status).toBe(405);
    expect(del.headers.get('allow')).toBe('GET');
    const getConfirm = await fetch(`${demo.url}/orders/seed-1/confirm`);
    expect(getConfirm.status).toBe(405);
    expect(getConfirm.headers.get('allow')).toBe('POST');
    for (const path of ['/orders/seed-1/cancel', '/orders/', '/orders/seed-1/confirm/x', '/orders/%E0%A4%A'])
      expect((await fetch(`${demo.url}${path}`)).status, path).toBe(404);
  });

  it('labels the metrics by route template, never by id', async () => {
    const before = await metricsOf(demo);
    const at = (k: string) => before.get(k) ?? 0;
    const reads200 = series('GET', '/orders/{id}', 200, 'SUCCESS');
    const reads404 = series('GET', '/orders/{id}', 404, 'CLIENT_ERROR');
    const confirm200 = series('POST', '/orders/{id}/confirm', 200, 'SUCCESS');
    const confirm404 = series('POST', '/orders/{id}/confirm', 404, 'CLIENT_ERROR');
    const confirm409 = series('POST', '/orders/{id}/confirm', 409, 'CLIENT_ERROR');
    const unrouted = series('GET', 'NOT_FOUND', 404, 'CLIENT_ERROR');
    await reset();
    for (let k = 0; k < 5; k++) await getOrder(demo, `seed-${k}`);
    await getOrder(demo, 'ord-missing');
    await confirm(demo, 'seed-10');
    await confirm(demo, 'seed-10');
    await confirm(demo, 'ord-missing');
    await fetch(`${demo.url}/orders/seed-1/cancel`);
    const after = await metricsOf(demo);
    expect(after.get(reads200)).toBe(at(reads200) + 5);
    expect(after.get(reads404)).toBe(at(reads404) + 1);
    expect(after.get(confirm200)).toBe(at(confirm200) + 1);
    expect(after.get(confirm409)).toBe(at(confirm409) + 1);
    expect(after.get(confirm404)).toBe(at(confirm404) + 1);
    expect(after.get(unrouted)).toBe(at(unrouted) + 1);
    const uris = new Set([...after.keys()].map((k) => /uri="([^"]*)"/.exec(k)?.[1]).filter((u) => u !== undefined));
    expect(uris).toContain('/orders/{id}');
    expect(uris).toContain('/orders/{id}/confirm');
    for (const uri of uris) expect(ROUTE_LABELS).toContain(uri);
    expect([...after.keys()].filter((k) => /seed-|ord-/.test(k))).toEqual([]);
    expect(after.get('demo_reads_total')).toBe(5);
    expect(after.get('demo_confirms_total')).toBe(1);
  });
});

describe('reads and writes share the pool', () => {
  it('a read waits for the slot a write holds', async () => {
    // One slot, held 150 ms by a write: the read queues for it (pending 1, active 1) and then succeeds.
    const demo = await startDemo({ slots: 1, holdMs: 150, readHoldMs: 3, rows: 10, seedOrders: 5 });
    try {
      let writeDone = false;
      const write = postOrder(demo.url, { id: 'w-1', accountId: 1, amountCents: 1 }).then((r) => {
        writeDone = true;
        return r.status;
      });
      for (let i = 0; i < 200 && demo.stats().writes < 1; i++) await new Promise((r) => setTimeout(r, 2));
      const read = getOrder(demo, 'seed-1').then((r) => r.status);
      let seen = { active: 0, pending: 0 };
      while (!writeDone && seen.pending < 1) {
        const m = await metricsOf(demo);
        seen = {
          active: m.get('hikaricp_connections_active{pool="demo"}')!,
          pending: m.get('hikaricp_connections_pending{pool="demo"}')!,
        };
      }
      expect(seen).toEqual({ active: 1, pending: 1 });
      expect(await Promise.all([write, read])).toEqual([201, 200]);
      expect(demo.stats()).toMatchObject({ writes: 1, reads: 1 });
    } finally {
      await demo.close();
    }
  });

  it('a read costs its pool less time than a write (server-side means, one request at a time)', async () => {
    const demo = await startDemo({ slots: 2, holdMs: 20, readHoldMs: 2, rows: 100, seedOrders: 10 });
    try {
      for (let i = 0; i < 10; i++) {
        await getOrder(demo, `seed-${i}`);
        await postOrder(demo.url, { id: `w-${i}`, accountId: 1 + i, amountCents: 1 });
      }
      const m = await metricsOf(demo);
      const mean = (method: string, uri: string, status: number) => {
        const l = `{method="${method}",uri="${uri}",status="${status}",outcome="SUCCESS",exception="None"}`;
        return m.get(`http_server_requests_seconds_sum${l}`)! / m.get(`http_server_requests_seconds_count${l}`)!;
      };
      const ratio = mean('GET', '/orders/{id}', 200) / mean('POST', '/orders', 201);
      console.log(`demo: mean read / mean write on the server = ${ratio.toFixed(3)} (holds 2 / 20 ms)`);
      expect(ratio).toBeLessThan(0.6);
      expect(mean('GET', '/orders/{id}', 200)).toBeGreaterThanOrEqual(0.002);
    } finally {
      await demo.close();
    }
  });
});

describe('the demo options of the order routes', () => {
  it('defaults a read to a fifth of a write and a confirm to a write, and refuses bad ones', async () => {
    const demo = await startDemo({ holdMs: 10, rows: 10, seedOrders: 0 });
    try {
      expect(demo.holds).toEqual({ readMs: 2, writeMs: 10, confirmMs: 10 });
      expect(demo.mix.arrivalsPerSec).toBeCloseTo(4000 / 4.9, 9);
      expect((await getOrder(demo, 'seed-0')).status).toBe(404);
    } finally {
      await demo.close();
    }
    await expect(startDemo({ readHoldMs: 0 })).rejects.toThrow(/readHoldMs must be a finite number of ms > 0, got 0/);
    await expect(startDemo({ confirmHoldMs: -1 })).rejects.toThrow(/confirmHoldMs must be/);
    await expect(startDemo({ seedOrders: 1.5 })).rejects.toThrow(/seedOrders must be an integer >= 0, got 1.5/);
  });
});
