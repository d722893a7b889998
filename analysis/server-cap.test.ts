import { describe, expect, it } from 'vitest';
import { capPercentile, capWindow, clientBoundMs, type ClientSpan } from './server-cap.ts';
import { withServer } from './judge-server.ts';
import type { ServerPercentile, ServerSample, ServerWindow, StepPlan, StepResult } from './types.ts';

const p = (q: number, valueMs: number | null, lowerMs = 447, upperMs: number | null = 537, n = 4258) =>
  ({ q, valueMs, lowerMs, upperMs, n }) as ServerPercentile;

const window = (extra: Partial<ServerWindow> = {}): ServerWindow => ({
  source: 'scrape',
  fromS: 199,
  toS: 204,
  throughputPerSec: 851.6,
  meanMs: 386,
  maxMs: null,
  poolActiveMax: null,
  poolPendingMax: null,
  poolMax: null,
  ...extra,
});

const client = (extra: Partial<ClientSpan> = {}): ClientSpan => ({
  maxMs: 469.8,
  perSec: 851.6,
  failedShare: 0,
  fromS: 199,
  toS: 204,
  verdict: 'consistent',
  ...extra,
});

describe("withServer: a server percentile never above the window's slowest request", () => {
  // step 17 of the run a user read: 4,258 requests, 758 of them in the (447, 537] ms bucket, the
  // server's max gauge 487.7 ms and the client's max 488.2 ms, the interpolated p99 531.9 ms
  const buckets = (below358: number, below447: number, all: number) => ({
    boundsMs: [358, 447, 537],
    cumulative: [below358, below447, all, all],
  });
  const sample = (tS: number, count: number, b: ReturnType<typeof buckets>): ServerSample => ({
    kind: 'scrape',
    phase: 'steps',
    tS,
    requestsCount: count,
    requestsSumS: count * 0.386,
    requestsMaxS: 0.4877,
    requestsBuckets: b,
    poolActive: 4,
    poolPending: 300,
    poolMax: 4,
    gauges: {},
    topology: null,
  });
  const samples = [
    sample(199, 10_000, buckets(9_000, 10_000, 10_000)),
    sample(204, 14_258, buckets(10_000, 13_500, 14_258)),
  ];
  const step = {
    index: 16,
    ratePerSec: 850,
    steadyStartS: 199,
    steadyEndS: 204,
    completedPerSec: 851.6,
    meanMs: 386.9,
    maxMs: 488.2,
    errorRate: 0,
    latency: [],
  } as unknown as StepResult;
  const plan = { index: 16, ratePerSec: 850, rampStartS: 197, steadyStartS: 199, steadyEndS: 204 } as StepPlan;

  it("caps p99 at the server's max gauge and leaves p90, below it, as interpolated", () => {
    const ps = withServer(step, plan, { samples, rttMs: 0.43 }).server!.percentiles!;
    expect(ps[2]!.valueMs).toBeCloseTo(487.7, 6);
    expect(ps[2]).toMatchObject({ lowerMs: 447, upperMs: 537, cappedBy: 'server-max' });
    expect(ps[2]!.interpolatedMs).toBeCloseTo(447 + 90 * (715.42 / 758), 6);
    expect(ps[1]!.valueMs).toBeCloseTo(447 + 90 * (332.2 / 758), 6);
    expect(ps[1]!.cappedBy).toBeUndefined();
  });

  it("without a max gauge, caps at the client's max (the server's time is inside it, the RTT not subtracted)", () => {
    const noGauge = samples.map((s) => ({ ...s, requestsMaxS: null }));
    const p99 = withServer({ ...step, maxMs: 470 }, plan, { samples: noGauge, rttMs: 0.43 }).server!.percentiles![2]!;
    expect(p99).toMatchObject({ valueMs: 470, cappedBy: 'client-max' });
    // a failed request's time is not in the client's max: no bound then
    const failed = withServer({ ...step, maxMs: 470, errorRate: 0.01 }, plan, { samples: noGauge, rttMs: 0.43 });
    expect(failed.server!.percentiles![2]!.cappedBy).toBeUndefined();
  });

  it("judges each percentile, capped or not, and a mapped name's, by the client's rule (rules.minTailSamples)", () => {
    const route = window({ source: 'promql', throughputPerSec: 600, percentiles: [p(99, 533, 447, 537, 3000)] });
    const read = { completedPerSec: 600, throughputPerSec: 600, completed: 3000, ok: 3000, failed: 0, errorRate: 0 };
    const input = {
      samples,
      rttMs: 0.43,
      routes: { read: '/orders/{id}' },
      promql: [{ index: 16, attempt: 1, window: window(), routes: { read: route } }],
    };
    const withRead = { ...step, byName: { read: { ...read, errors: {}, latency: [], meanMs: 380, maxMs: 475 } } };
    const by30 = withServer(withRead, plan, input);
    expect(by30.byName!.read!.server!.percentiles![0]).toMatchObject({ n: 3000, reliable: true });
    const by50 = withServer(withRead, plan, input, 50);
    // p99 needs 5,000 at 50: the route's 3,000 fall short, capped at the client's max or not
    expect(by50.byName!.read!.server!.percentiles![0]).toMatchObject({
      n: 3000,
      reliable: false,
      cappedBy: 'client-max',
    });
    const direct = withServer(step, plan, { samples, rttMs: 0.43 }, 50).server!.percentiles!;
    expect(direct.map((x) => [x.q, x.reliable, x.cappedBy])).toEqual([
      [50, true, undefined],
      [90, true, undefined],
      [99, false, 'server-max'],
    ]);
    expect(withServer(step, plan, { samples, rttMs: 0.43 }).server!.percentiles![2]!.reliable).toBe(true);
  });

  it("caps a mapped name's route read through PromQL as the step's (its route has no max gauge: the name's client max)", () => {
    const route = window({ source: 'promql', throughputPerSec: 600, percentiles: [p(99, 533, 447, 537, 3000)] });
    const read = { completedPerSec: 600, throughputPerSec: 600, completed: 3000, ok: 3000, failed: 0, errorRate: 0 };
    const r = withServer(
      { ...step, byName: { read: { ...read, errors: {}, latency: [], meanMs: 380, maxMs: 475 } } },
      plan,
      {
        samples,
        rttMs: 0.43,
        routes: { read: '/orders/{id}' },
        promql: [{ index: 16, attempt: 1, window: window(), routes: { read: route } }],
      },
    );
    expect(r.byName!.read!.server!.percentiles![0]).toMatchObject({
      valueMs: 475,
      cappedBy: 'client-max',
      interpolatedMs: 533,
    });
  });
});

describe('capPercentile', () => {
  it('takes the lower of the bounds, the server on a tie, and leaves a value at or below it alone', () => {
    const server = { ms: 487.7, by: 'server-max' as const };
    expect(capPercentile(p(99, 533), [server, { ms: 469.8, by: 'client-max' }])).toEqual({
      ...p(99, 469.8),
      cappedBy: 'client-max',
      interpolatedMs: 533,
    });
    expect(capPercentile(p(99, 533), [server, { ms: 487.7, by: 'client-max' }]).cappedBy).toBe('server-max');
    const below = p(90, 480);
    expect(capPercentile(below, [server])).toBe(below);
  });

  it('leaves out a bound below the bucket (the bucket holds a slower request), and the +Inf bucket and an empty window', () => {
    // a gauge that decayed to 300 ms: no bound of a bucket from 447 ms; the client's 470 caps it
    const capped = capPercentile(p(99, 533), [
      { ms: 300, by: 'server-max' },
      { ms: 470, by: 'client-max' },
    ]);
    expect(capped).toMatchObject({ valueMs: 470, cappedBy: 'client-max' });
    expect(capPercentile(p(99, 533), [{ ms: 300, by: 'server-max' }]).cappedBy).toBeUndefined();
    const inf = p(99, 537, 537, null);
    expect(capPercentile(inf, [{ ms: 537, by: 'server-max' }])).toBe(inf);
    const empty = p(99, null);
    expect(capPercentile(empty, [{ ms: 1, by: 'server-max' }])).toBe(empty);
  });
});

describe("clientBoundMs: the client's max bounds the server's q-th percentile", () => {
  const p99 = p(99, 533); // 42.58 requests may lie outside what the client timed

  it('not where a request failed, nor where the cross-check found other traffic in the series or none read', () => {
    expect(clientBoundMs(client(), window(), p99)).toBe(469.8);
    expect(clientBoundMs(client({ failedShare: 0.001 }), window(), p99)).toBeNull();
    expect(clientBoundMs(client({ verdict: 'traffic-extra' }), window(), p99)).toBeNull();
    expect(clientBoundMs(client({ verdict: 'no-data' }), window(), p99)).toBeNull();
    expect(clientBoundMs(client({ maxMs: null }), window(), p99)).toBeNull();
  });

  it('only while the requests it did not time (beyond its rate, outside its seconds) are fewer than the 1 - q share', () => {
    // 8.5 req/s more than the client for 5 s: 42.5 < 42.58
    expect(clientBoundMs(client({ perSec: 843.1 }), window(), p99)).toBe(469.8);
    // 8.6 req/s more: 43 >= 42.58
    expect(clientBoundMs(client({ perSec: 843 }), window(), p99)).toBeNull();
    // the server's end reading 0.05 s after the client's last second: 42.58 requests outside it
    expect(clientBoundMs(client(), window({ toS: 204.049 }), p99)).toBe(469.8);
    expect(clientBoundMs(client(), window({ toS: 204.05 }), p99)).toBeNull();
    // p90 allows ten times as many
    expect(clientBoundMs(client(), window({ toS: 204.05 }), p(90, 500))).toBe(469.8);
  });
});

describe('capWindow', () => {
  it('returns the window itself where nothing is capped, a copy with the capped percentiles otherwise', () => {
    const w = window({ maxMs: 600, percentiles: [p(50, 400, 358, 447), p(99, 533)] });
    expect(capWindow(w, client({ maxMs: 700 }))).toBe(w);
    expect(capWindow(null, client())).toBeNull();
    const capped = capWindow(w, client())!;
    expect(capped.percentiles![0]).toBe(w.percentiles![0]);
    expect(capped.percentiles![1]).toMatchObject({ valueMs: 469.8, cappedBy: 'client-max', interpolatedMs: 533 });
    expect(w.percentiles![1]!.valueMs).toBe(533);
  });
});
