import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { describe, expect, it } from 'vitest';
import { heldMs, peakOf, throughputPerSecAt } from '../demo/coherency.ts';
import { Pool } from '../demo/pool.ts';
import { startDemo, type DemoHandle } from '../demo/server.ts';
import { parseMetrics } from './demo-helpers.ts';
import { DEMO_KEY_ENV, startDemoProcess } from '../harness/demo-process.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * Closed loop: `workers` clients each send unsigned orders back to back for warmupMs + measureMs;
 * returns the completions per second inside the measured part only (after the warm-up), as the
 * sum of each client's own rate: its requests that started and ended inside the window over the
 * time from the first one's start to the last one's end. Counting completions in a fixed window
 * would not do: clients in lockstep with holds of 400 ms finish in bursts, and a 1.5 s window
 * holds 3 or 4 of them (64 or 85 req/s against a true 76.8). `busy`: the demo's mean number of busy
 * slots over the window, from its demo_pool_busy_seconds_total read at the window's edges (a client
 * short of CPU keeps fewer than `workers` requests in the demo).
 */
async function closedLoopPerSec(
  demo: { url: string },
  workers: number,
  warmupMs: number,
  measureMs: number,
  tag: string,
): Promise<{ perSec: number; busy: number }> {
  const agent = new Agent({ connections: workers, keepAliveTimeout: 10_000 });
  const t0 = performance.now();
  const fromMs = t0 + warmupMs;
  const toMs = fromMs + measureMs;
  const rates: number[] = [];
  const busyAt = (atMs: number) =>
    new Promise<[number, number]>((resolve, reject) =>
      setTimeout(async () => {
        try {
          const text = await (await fetch(`${demo.url}/metrics`)).text();
          resolve([performance.now(), Number(/^demo_pool_busy_seconds_total (\S+)$/m.exec(text)![1])]);
        } catch (err) {
          reject(err);
        }
      }, atMs - performance.now()),
    );
  const edges = Promise.all([busyAt(fromMs), busyAt(toMs)]);
  try {
    await Promise.all(
      Array.from({ length: workers }, async (_, w) => {
        let n = 0;
        let firstStartMs = 0;
        let lastDoneMs = 0;
        for (let i = 0; performance.now() < toMs; i++) {
          const body = JSON.stringify({
            id: `${tag}-${w}-${i}`,
            accountId: 1 + ((w * 7919 + i) % 1000),
            amountCents: 1,
          });
          const startMs = performance.now();
          const res = await request(`${demo.url}/orders`, { method: 'POST', body, dispatcher: agent });
          await res.body.arrayBuffer();
          const doneMs = performance.now();
          if (res.statusCode === 201 && startMs >= fromMs && doneMs < toMs) {
            if (n++ === 0) firstStartMs = startMs;
            lastDoneMs = doneMs;
          }
        }
        if (n > 0) rates.push((n / (lastDoneMs - firstStartMs)) * 1000);
      }),
    );
  } finally {
    await agent.close();
  }
  const [[fromAtMs, fromS], [toAtMs, toS]] = await edges;
  return { perSec: rates.reduce((a, b) => a + b, 0), busy: (toS - fromS) / ((toAtMs - fromAtMs) / 1000) };
}

async function gauges(demo: DemoHandle): Promise<Map<string, number>> {
  return parseMetrics(await (await fetch(`${demo.url}/metrics`)).text()).samples;
}

describe('coherency penalty formula (demo/coherency.ts)', () => {
  const beta = { contentionAlpha: 0, coherencyBeta: 0.02 };
  it.each([
    // holdMs, model, slots, peak n, peak req/s, X(slots) req/s
    [10, { contentionAlpha: 0, coherencyBeta: 0 }, 4, 4, 400, 400],
    [10, { contentionAlpha: 0.1, coherencyBeta: 0 }, 8, 8, (8 / 1.7) * 100, (8 / 1.7) * 100],
    [10, beta, 32, 7, (7 / 18.4) * 1000, (32 / 208.4) * 1000],
    [10, beta, 4, 4, (4 / 12.4) * 1000, (4 / 12.4) * 1000],
  ])(
    'holdMs %d, %o, %d slots: peak at n=%d, %f req/s; saturated %f req/s',
    (holdMs, m, slots, n, peakPerSec, satPerSec) => {
      const peak = peakOf(holdMs, m, slots);
      expect(peak.concurrency).toBe(n);
      expect(peak.perSec).toBeCloseTo(peakPerSec, 6);
      expect(throughputPerSecAt(holdMs, m, slots)).toBeCloseTo(satPerSec, 6);
    },
  );

  it('grows the hold as the USL denominator: holdMs (1 + alpha (n-1) + beta n (n-1))', () => {
    expect(heldMs(10, { contentionAlpha: 0.05, coherencyBeta: 0.01 }, 1)).toBe(10);
    expect(heldMs(10, { contentionAlpha: 0.05, coherencyBeta: 0.01 }, 5)).toBeCloseTo(10 * (1 + 0.2 + 0.2), 10);
  });
});

describe('demo coherency mode (collapse)', () => {
  it('serves measurably less at 32 concurrent requests than at its optimum of 7', async () => {
    // The demo in its own process. On a machine short of CPU, 32 clients in this thread kept fewer
    // requests in it (136.6 and 112.7 req/s, what about 17 and 20 busy slots serve, against 76.8 at
    // 32): the demo is held to what its model gives at the busy count it had.
    const model = { contentionAlpha: 0, coherencyBeta: 0.02 };
    const peak = peakOf(20, model, 32);
    const saturatedPerSec = throughputPerSecAt(20, model, 32);
    const { [DEMO_KEY_ENV]: _unsigned, ...env } = process.env;
    const demo = await startDemoProcess(
      { slots: 32, holdMs: 20, args: ['--coherency-beta', '0.02', '--rows', '1000'] },
      env,
    );
    try {
      expect(peak.concurrency).toBe(7);
      expect(demo.capacityPerSec).toBeCloseTo(peak.perSec, 6);
      const { perSec: atPeak } = await closedLoopPerSec(demo, 7, 600, 1500, 'peak');
      // the penalty follows a 250 ms average of the busy count: let it catch up
      const { perSec: atSlots, busy } = await closedLoopPerSec(demo, 32, 1000, 1500, 'over');
      const truthAtBusy = throughputPerSecAt(20, model, busy);
      console.log(
        `coherency mode: truth peak ${peak.perSec.toFixed(1)} req/s at 7, saturated ${saturatedPerSec.toFixed(1)} req/s at 32; ` +
          `measured ${atPeak.toFixed(1)} at 7, ${atSlots.toFixed(1)} at 32 clients (${busy.toFixed(1)} busy slots: truth ${truthAtBusy.toFixed(1)})`,
      );
      // driven well past its optimum of 7, it serves measurably less than there
      expect(busy).toBeGreaterThan(16);
      expect(atSlots).toBeLessThan(atPeak * 0.8);
      // At 7 the holds are 36.8 ms: on a busy machine (make test runs beside a CPU hog) each
      // request's own time outside the hold adds to it, and the measured peak falls short of the
      // truth (159 against 190 once in CI, with the demo in this thread); it may stand a little
      // above (197), the busy count averaged over 250 ms dipping under 7 between a client's requests.
      // Above it by 15% is a penalty not applied; without one, 7 slots would serve 350/s.
      expect(atPeak).toBeLessThan(peak.perSec * 1.15);
      expect(atPeak).toBeGreaterThan(peak.perSec * 0.7);
      expect(Math.abs(atSlots - truthAtBusy) / truthAtBusy).toBeLessThan(0.15);
    } finally {
      await demo.stop();
    }
  }, 20_000);
});

describe('demo replicas (topology)', () => {
  it('changes demo_replicas and the pool size mid-run, on schedule and through the admin endpoint', async () => {
    const demo = await startDemo({
      slots: 2,
      holdMs: 10,
      rows: 100,
      replicas: 1,
      replicasChangeAtS: 0.3,
      replicasChangeTo: 3,
    });
    try {
      let g = await gauges(demo);
      expect(g.get('demo_replicas')).toBe(1);
      expect(g.get('hikaricp_connections_max{pool="demo"}')).toBe(2);
      expect(g.get('demo_capacity_per_sec')).toBe(200);
      const deadline = performance.now() + 3_000;
      while (g.get('demo_replicas') === 1 && performance.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
        g = await gauges(demo);
      }
      expect(g.get('demo_replicas')).toBe(3);
      expect(g.get('hikaricp_connections_max{pool="demo"}')).toBe(6);
      expect(demo.capacityPerSec).toBe(600);

      const res = await fetch(`${demo.url}/admin/replicas?n=2`, { method: 'POST' });
      expect(res.status).toBe(200);
      // the mix's capacity follows the slots too: 4 / 4.9 ms (holds 2 / 10 / 10 ms)
      expect(await res.json()).toEqual({
        replicas: 2,
        slots: 4,
        capacityPerSec: 400,
        mixArrivalsPerSec: expect.closeTo(4000 / 4.9, 6),
      });
      expect((await gauges(demo)).get('demo_mix_capacity_arrivals_per_sec')).toBeCloseTo(4000 / 4.9, 6);
      expect((await gauges(demo)).get('demo_replicas')).toBe(2);
      expect((await fetch(`${demo.url}/admin/replicas?n=zero`, { method: 'POST' })).status).toBe(400);
    } finally {
      await demo.close();
    }
  }, 10_000);

  it('pool resize grants new slots to waiters at once and retires slots as holders leave', async () => {
    const pool = new Pool({ slots: 1 });
    const a = await pool.acquire();
    const waiters = [pool.acquire(), pool.acquire()];
    expect([pool.active, pool.pending]).toEqual([1, 2]);
    pool.resize(3);
    const [b, c] = await Promise.all(waiters);
    expect([pool.active, pool.pending, pool.max]).toEqual([3, 0, 3]);
    pool.resize(1);
    const d = pool.acquire();
    a.release(); // retired: active 2 > slots 1, the waiter keeps waiting
    b!.release();
    expect([pool.active, pool.pending]).toEqual([1, 1]);
    c!.release(); // now at the size: handed to the waiter
    (await d).release();
    expect([pool.active, pool.pending]).toEqual([0, 0]);
  });
});

describe('demo CLI modes', () => {
  it('takes the mode flags and states the truths in its listening line', async () => {
    const child = spawn(
      process.execPath,
      [
        // demo/main.ts as plateau starts it (harness/demo-process.ts): from its cached bundle
        'bin/demo.mjs',
        '--slots',
        '32',
        '--hold-ms',
        '10',
        '--rows',
        '10',
        '--coherency-beta',
        '0.02',
        '--replicas',
        '1',
        '--replicas-change-at-s',
        '60',
        '--replicas-change-to',
        '2',
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    try {
      const [first] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
      const msg = JSON.parse(first);
      expect(msg).toMatchObject({
        slots: 32,
        holdMs: 10,
        coherencyBeta: 0.02,
        contentionAlpha: 0,
        peakConcurrency: 7,
        replicas: 1,
      });
      expect(msg.capacityPerSec).toBeCloseTo((7 / 18.4) * 1000, 6);
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      expect((await exited)[0]).toBe(0);
      expect(stderr).toContain('peak 380.4 req/s at 7 busy slots, 153.6 req/s with all busy; replicas 1 -> 2 at 60 s');
    } finally {
      clearTimeout(killer);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  }, 20_000);
});
