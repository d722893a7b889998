import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoMixCapacity } from '../demo/capacity.ts';
import { startDemo } from '../demo/server.ts';
import { DEMO_KEY_ENV, startDemoProcess, type DemoProcess } from '../harness/demo-process.ts';
import { parseMetrics } from './demo-helpers.ts';

/**
 * Fire `count` concurrent unsigned orders with distinct ids (undici.request: far lighter than
 * fetch, which matters because client and server share this process's event loop).
 * Returns statuses, elapsed ms and each response's completion time.
 */
async function burst(
  demo: { url: string },
  count: number,
  tag: string,
  agent: Agent,
): Promise<{ statuses: number[]; elapsedMs: number; doneAtMs: number[] }> {
  const t0 = performance.now();
  const doneAtMs: number[] = [];
  const statuses = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const body = JSON.stringify({ id: `${tag}-${i}`, accountId: 1 + (i % 1000), amountCents: 100 });
      const res = await request(`${demo.url}/orders`, { method: 'POST', body, dispatcher: agent });
      await res.body.arrayBuffer();
      doneAtMs.push(performance.now());
      return res.statusCode;
    }),
  );
  return { statuses, elapsedMs: performance.now() - t0, doneAtMs };
}

/** Open `count` keep-alive connections up front so connection setup is not measured. */
async function openConnections(demo: { url: string }, count: number, agent: Agent): Promise<void> {
  await Promise.all(
    Array.from({ length: count }, async () =>
      (await request(`${demo.url}/ping`, { dispatcher: agent })).body.arrayBuffer(),
    ),
  );
}

describe('demo target capacity of writes alone (slots 2, holdMs 20 => 100 req/s)', () => {
  // The demo in its own process, as `make loadtest` runs it: a client dispatching 400 requests from
  // the server's own event loop measured that loop, not the demo (164 req/s on a busy machine).
  // Holds of 20 ms, not 10: the demo's own work per request (HTTP, SQLite) adds to each hold, and on
  // a machine short of CPU it took 10 ms holds to 173 req/s of 200 (2026-12-02).
  let demo: DemoProcess;
  let agent: Agent;
  const writes = async () => ((await (await fetch(`${demo.url}/admin/stats`)).json()) as { writes: number }).writes;
  beforeAll(async () => {
    const { [DEMO_KEY_ENV]: _unsigned, ...env } = process.env;
    demo = await startDemoProcess({ slots: 2, holdMs: 20, args: ['--rows', '1000'] }, env);
    agent = new Agent({ connections: 500, keepAliveTimeout: 30_000 });
  });
  afterAll(async () => {
    await agent?.close();
    await demo?.stop();
  });

  it('states 100 req/s and measures within 10% of it under 400 concurrent requests', async () => {
    expect(demo.capacityPerSec).toBe(100);
    await openConnections(demo, 400, agent);
    await burst(demo, 20, 'warm', agent); // JIT, SQLite page cache
    const { statuses, elapsedMs, doneAtMs } = await burst(demo, 400, 'cap', agent);
    expect(statuses.every((s) => s === 201)).toBe(true);
    expect(await writes()).toBe(420);
    // Steady state: completions between the 50th and the 350th response, once saturated.
    const steadyPerSec = (300 / (doneAtMs[349]! - doneAtMs[49]!)) * 1000;
    const overallPerSec = (400 / elapsedMs) * 1000;
    console.log(
      `demo capacity: stated 100 req/s, measured steady ${steadyPerSec.toFixed(1)} req/s, ` +
        `overall ${overallPerSec.toFixed(1)} req/s (400 requests in ${elapsedMs.toFixed(0)} ms)`,
    );
    expect(steadyPerSec).toBeGreaterThan(90);
    expect(steadyPerSec).toBeLessThan(110);
    expect(overallPerSec).toBeGreaterThan(80); // includes dispatching 400 requests from this same loop
  }, 30_000);

  it('shows the queue in the pool gauges while saturated', async () => {
    const pending = burst(demo, 60, 'gauge', agent);
    await new Promise((r) => setTimeout(r, 50));
    const { samples } = parseMetrics(await (await fetch(`${demo.url}/metrics`)).text());
    expect(samples.get('hikaricp_connections_active{pool="demo"}')).toBe(2);
    expect(samples.get('hikaricp_connections_pending{pool="demo"}')).toBeGreaterThan(30);
    await pending;
  }, 10_000);
});

type MixKind = 'read' | 'create' | 'confirm';

/**
 * One of each request in proportion, interleaved by smooth weighted round robin (as plateau orders
 * a mix): per 20 arrivals of the demo's 70/25/5 mix, 14 reads, 5 creates and one checkout, its
 * create and its confirm (of an order made beforehand: the burst has no think time to wait on).
 */
function mixKinds(blocks: number): MixKind[] {
  const weights: Array<[MixKind, number]> = [
    ['read', 14],
    ['create', 6],
    ['confirm', 1],
  ];
  const current = weights.map(() => 0);
  const total = weights.reduce((a, [, w]) => a + w, 0);
  const out: MixKind[] = [];
  for (let i = 0; i < blocks * total; i++) {
    let best = 0;
    weights.forEach(([, w], k) => {
      current[k]! += w;
      if (current[k]! > current[best]!) best = k;
    });
    current[best]! -= total;
    out.push(weights[best]![0]);
  }
  return out;
}

describe('demo target capacity for the mix (slots 2, holds read 8 / write 20 / confirm 12 ms)', () => {
  // Holds as long as the write-only test's, so the per-request overhead weighs alike on a busy machine.
  const holds = { readMs: 8, writeMs: 20, confirmMs: 12 };
  let demo: DemoProcess;
  let agent: Agent;
  beforeAll(async () => {
    const { [DEMO_KEY_ENV]: _unsigned, ...env } = process.env;
    const args = ['--rows', '1000', '--read-hold-ms', '8', '--confirm-hold-ms', '12', '--seed-orders', '100'];
    demo = await startDemoProcess({ slots: 2, holdMs: 20, args }, env);
    agent = new Agent({ connections: 500, keepAliveTimeout: 30_000 });
  });
  afterAll(async () => {
    await agent?.close();
    await demo?.stop();
  });

  it('states 163.9 arrivals/s and serves the mix at the pool time its holds say, within 10%', async () => {
    // 0.7 x 8 + 0.25 x 20 + 0.05 x (20 + 12) = 12.2 ms per arrival; 2 slots: 163.9 arrivals/s
    const stated = demoMixCapacity(2, holds);
    expect(stated.arrivalsPerSec).toBeCloseTo(2000 / 12.2, 9);
    const stats = (await (await request(`${demo.url}/admin/stats`, { dispatcher: agent })).body.json()) as {
      mixArrivalsPerSec: number;
    };
    expect(stats.mixArrivalsPerSec).toBeCloseTo(stated.arrivalsPerSec, 9);

    const kinds = mixKinds(20); // 420 requests: 280 reads, 120 creates, 20 confirms
    const confirms = kinds.filter((k) => k === 'confirm').length;
    await openConnections(demo, kinds.length, agent);
    await burst(demo, 20, 'mix-warm', agent);
    expect((await burst(demo, confirms, 'mix-conf', agent)).statuses.every((s) => s === 201)).toBe(true);
    const holdOf: Record<MixKind, number> = { read: holds.readMs, create: holds.writeMs, confirm: holds.confirmMs };
    const expectedStatus: Record<MixKind, number> = { read: 200, create: 201, confirm: 200 };
    const done: Array<{ kind: MixKind; atMs: number; status: number }> = [];
    let confirmed = 0;
    await Promise.all(
      kinds.map(async (kind, i) => {
        const res =
          kind === 'read'
            ? await request(`${demo.url}/orders/seed-${i % 100}`, { dispatcher: agent })
            : kind === 'create'
              ? await request(`${demo.url}/orders`, {
                  method: 'POST',
                  body: JSON.stringify({ id: `mix-${i}`, accountId: 1 + (i % 1000), amountCents: 1 }),
                  dispatcher: agent,
                })
              : await request(`${demo.url}/orders/mix-conf-${confirmed++}/confirm`, {
                  method: 'POST',
                  dispatcher: agent,
                });
        await res.body.arrayBuffer();
        done.push({ kind, atMs: performance.now(), status: res.statusCode });
      }),
    );
    expect(done.filter((d) => d.status !== expectedStatus[d.kind])).toEqual([]);
    // Steady state: between the 50th and the 370th response, the pool was busy for the holds of
    // the responses in between, on 2 slots.
    const from = 49;
    const to = 369;
    const measuredMs = done[to]!.atMs - done[from]!.atMs;
    const window = done.slice(from + 1, to + 1);
    const heldMs = window.reduce((a, d) => a + holdOf[d.kind], 0) / 2;
    const arrivalsPerSec = (window.length / stated.requestsPerArrival / measuredMs) * 1000;
    console.log(
      `demo mix capacity: stated ${stated.arrivalsPerSec.toFixed(1)} arrivals/s, measured steady ` +
        `${arrivalsPerSec.toFixed(1)} arrivals/s; ${window.length} responses in ${measuredMs.toFixed(0)} ms ` +
        `against ${heldMs.toFixed(0)} ms of their holds on 2 slots (ratio ${(measuredMs / heldMs).toFixed(3)})`,
    );
    // Holds shorter than stated make the ratio fall below 0.9 (reads at the default fifth of a
    // write, 4 ms: 0.77); longer ones raise it (reads at the write hold: 1.69). A starved machine only lengthens
    // the measured time (lag the slot's clock cannot credit), so the upper bound leaves it room.
    expect(measuredMs / heldMs).toBeGreaterThan(0.9);
    expect(measuredMs / heldMs).toBeLessThan(1.25);
    expect(arrivalsPerSec / stated.arrivalsPerSec).toBeGreaterThan(0.8);
    expect(arrivalsPerSec / stated.arrivalsPerSec).toBeLessThan(1.1);
  }, 20_000);
});

describe('demo target fail-fast pool (acquireTimeoutMs)', () => {
  it('answers 503 to requests that wait longer than the acquire timeout', async () => {
    // holds of 200 ms and a 500 ms wait: arrivals spread over A ms let at most 1 + (A + 500) / 200
    // through, 3 together; 5 leaves A 400 ms (with holds of 20 ms and a 50 ms wait, a burst spread
    // over 100 ms beside the CPU hog let 7 through)
    const demo = await startDemo({ slots: 1, holdMs: 200, acquireTimeoutMs: 500, rows: 100 });
    const agent = new Agent({ connections: 50 });
    try {
      await openConnections(demo, 20, agent);
      const { statuses } = await burst(demo, 20, 'ff', agent);
      const ok = statuses.filter((s) => s === 201).length;
      const rejected = statuses.filter((s) => s === 503).length;
      expect(ok + rejected).toBe(20);
      // the first holder plus the waiters whose turn came within their 500 ms get through
      expect(ok).toBeGreaterThanOrEqual(2);
      expect(ok).toBeLessThanOrEqual(5);
      expect(demo.stats().writes).toBe(ok);
      const { samples } = parseMetrics(await (await fetch(`${demo.url}/metrics`)).text());
      const key =
        'http_server_requests_seconds_count{method="POST",uri="/orders",status="503",outcome="SERVER_ERROR",exception="SQLTransientConnectionException"}';
      expect(samples.get(key)).toBe(rejected);
      expect(samples.get('hikaricp_connections_timeout_total{pool="demo"}')).toBe(rejected);
    } finally {
      await agent.close();
      await demo.close();
    }
  }, 10_000);
});
