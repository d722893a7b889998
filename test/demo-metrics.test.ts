import { describe, expect, it } from 'vitest';
import { HttpMetrics, WindowMax, outcomeOf } from '../demo/metrics.ts';
import { startDemo } from '../demo/server.ts';
import { parseMetrics } from './demo-helpers.ts';

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
