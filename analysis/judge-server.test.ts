import { describe, expect, it } from 'vitest';
import { nameResult, serverSampleOf, serverWindowOf } from './testing/builders.ts';
import { withServer } from './judge-server.ts';
import type { NameResult, StepPlan, StepResult } from './types.ts';

const sample = serverSampleOf;
const window = serverWindowOf;

// run b2 of an audit: every request of step 6 timed out at the client's 400 ms while the server's
// pool held 184 waiting, and the cross-check blamed a proxy or the label filter
describe("the client's own timeouts: abandoned requests, not missing traffic", () => {
  it("withServer takes the share from the step's request names, and each mapped name's from its own", () => {
    const timedOut = (completed: number, timeout: number): NameResult => ({
      completedPerSec: completed / 5,
      throughputPerSec: (completed - timeout) / 5,
      completed,
      ok: completed - timeout,
      failed: timeout,
      errorRate: timeout / completed,
      errors: { timeout },
      latency: [],
      meanMs: null,
      maxMs: null,
    });
    const step = {
      index: 0,
      ratePerSec: 200,
      steadyStartS: 10,
      steadyEndS: 15,
      steadyS: 5,
      completed: 1000,
      completedPerSec: 200,
      requestsPerSec: 200,
      meanMs: null,
      errorRate: 1,
      errors: { timeout: 1000 },
      byName: { read: timedOut(1000, 1000) },
    } as unknown as StepResult;
    const plan = { index: 0, ratePerSec: 200, rampStartS: 9, steadyStartS: 10, steadyEndS: 15 } as StepPlan;
    const samples = [
      sample(10, 1000, 10, { routes: { read: { count: 0, sumS: 0 } } }),
      sample(15, 1002, 10.001, { routes: { read: { count: 2, sumS: 0.001 } } }),
    ];
    const r = withServer(step, plan, { samples, rttMs: 0.5, routes: { read: '/r' }, clientTimeoutMs: 400 });
    expect(r.crossCheck).toMatchObject({ verdict: 'client-timeouts' });
    expect(r.crossCheck!.detail).toMatch(/\(http\.timeoutMs, 400 ms\)/);
    expect(r.byName!.read!.crossCheck!.verdict).toBe('client-timeouts');
    // the same readings against a client none of whose requests timed out: missing traffic, as before
    const answered = { ...step, errorRate: 0, errors: {}, byName: { read: timedOut(1000, 0) } } as StepResult;
    expect(withServer(answered, plan, { samples, rttMs: 0.5 }).crossCheck!.verdict).toBe('traffic-missing');
  });
});

describe('withServer: a cross-check per mapped name', () => {
  const name = (completed: number, meanMs: number, extra: Partial<NameResult> = {}): NameResult =>
    nameResult(completed, { meanMs, ...extra });
  const step = {
    index: 0,
    ratePerSec: 60,
    steadyStartS: 10,
    steadyEndS: 15,
    completedPerSec: 60,
    meanMs: 9,
    errorRate: 0,
    byName: { read: name(250, 10.5), write: name(50, 3), checkout: name(10, 40, { transaction: true }) },
  } as unknown as StepResult;
  const plan = { index: 0, ratePerSec: 60, rampStartS: 9, steadyStartS: 10, steadyEndS: 15 } as StepPlan;
  const route = (count: number, sumS: number) => ({ count, sumS });
  const samples = [
    sample(10, 1000, 10, { routes: { read: route(100, 1), write: route(0, 0) } }),
    sample(15, 1300, 13, { routes: { read: route(350, 3.5), write: route(50, 0.15) } }),
  ];

  it("gives each mapped request name its route's window and its figures against it, the route in the words", () => {
    const r = withServer(step, plan, {
      samples,
      rttMs: 0.5,
      routes: { read: '/items/{id}', write: '/items', checkout: '/x' },
    });
    expect(r.byName!.read!.server!.throughputPerSec).toBe(50);
    expect(r.byName!.read!.crossCheck).toMatchObject({ verdict: 'consistent', clientPerSec: 50, serverMeanMs: 10 });
    expect(r.byName!.read!.crossCheck!.detail).toMatch(
      /^route \/items\/\{id\}: server counted 50\.0 req\/s, client 50\.0/,
    );
    expect(r.byName!.write!.crossCheck!.verdict).toBe('consistent');
    // a transaction's figures are arrivals, not the route's requests: never checked against one
    expect(r.byName!.checkout!.crossCheck).toBeUndefined();
    // the step's own cross-check is the target's, as before
    expect(r.crossCheck!.serverPerSec).toBe(60);
  });

  it('leaves the names alone without routes, and gives no-data for a route with no reading', () => {
    expect(withServer(step, plan, { samples, rttMs: 0.5 }).byName).toBe(step.byName);
    const r = withServer(step, plan, { samples, rttMs: 0.5, routes: { search: '/search', read: '/items/{id}' } });
    expect(r.byName!.search).toBeUndefined();
    const none = withServer(step, plan, {
      samples: samples.map((s) => ({ ...s, routes: {} })),
      rttMs: 0.5,
      routes: { read: '/r' },
    });
    expect(none.byName!.read!.crossCheck!.verdict).toBe('no-data');
  });

  it("prefers the direct readings at the window's edges to PromQL's span, for the step and each route; PromQL's where they read no rate", () => {
    const viaPromql = { ...window(40, 10), source: 'promql' as const };
    const promql = [{ index: 0, attempt: 1, window: window(60, 9), routes: { read: viaPromql } }];
    const r = withServer(step, plan, { samples, rttMs: 0.5, routes: { read: '/items/{id}', write: '/items' }, promql });
    // what the live decision judged by (the console's figure) is the report's too
    expect(r.server!.source).toBe('scrape');
    expect(r.byName!.read!.server).toMatchObject({ source: 'scrape', throughputPerSec: 50 });
    expect(r.byName!.write!.server!.source).toBe('scrape');
    const alone = withServer(step, plan, { samples: [], rttMs: 0.5, routes: { read: '/items/{id}' }, promql });
    expect(alone.byName!.read!.server).toBe(viaPromql);
    // 50 client req/s against 40 counted: a fifth of the name's requests missing from the route
    expect(alone.byName!.read!.crossCheck!.verdict).toBe('traffic-missing');
  });

  it('falls back to the direct readings where PromQL read no rate (too few scrapes inside the window), and says why', () => {
    const why =
      'Prometheus holds 1 sample of x inside the 5.0 s steady window (it scraped it every 15.0 s): a rate needs two';
    const empty = { ...window(null, null), source: 'promql' as const, problems: [why] };
    const r = withServer(step, plan, {
      samples,
      rttMs: 0.5,
      routes: { read: '/items/{id}' },
      promql: [{ index: 0, attempt: 1, window: empty, routes: { read: empty } }],
    });
    expect(r.server).toMatchObject({ source: 'scrape', throughputPerSec: 60 });
    expect(r.server!.problems).toEqual([`through PromQL: ${why}; shown: the direct readings`]);
    expect(r.crossCheck!.verdict).not.toBe('no-data');
    expect(r.byName!.read!.server).toMatchObject({ source: 'scrape', throughputPerSec: 50 });
    // without direct readings, PromQL's empty window and its reason stay
    const alone = withServer(step, plan, {
      samples: [],
      rttMs: 0.5,
      promql: [{ index: 0, attempt: 1, window: empty }],
    });
    expect(alone.server).toBe(empty);
  });
});
