import { describe, expect, it } from 'vitest';
import { nameResult, serverWindowOf } from './testing/builders.ts';
import { crossCheck, routeWindow, serverMeanReliable, serverRequests, serverRttMs, serverWindow } from './server.ts';
import { withServer } from './judge-server.ts';
import type { NameResult, ServerSample, ServerWindow, StepPlan, StepResult } from './types.ts';

const sample = (tS: number, count: number, sumS: number, extra: Partial<ServerSample> = {}): ServerSample => ({
  kind: 'scrape',
  phase: 'steps',
  tS,
  requestsCount: count,
  requestsSumS: sumS,
  requestsMaxS: 0.02,
  poolActive: 2,
  poolPending: 0,
  poolMax: 4,
  gauges: {},
  topology: null,
  ...extra,
});

const window = serverWindowOf;

describe('serverWindow', () => {
  it('takes deltas between the readings nearest the window edges, over their real times', () => {
    const samples = [
      sample(9.98, 1000, 10),
      sample(12.5, 1500, 15, { poolPending: 3 }),
      sample(15.02, 2008, 20.08),
      sample(20, 3000, 30),
    ];
    const w = serverWindow(samples, 'steps', 10, 15)!;
    expect(w.throughputPerSec).toBeCloseTo(1008 / 5.04, 6);
    expect(w.meanMs).toBeCloseTo((10.08 / 1008) * 1000, 6);
    expect(w.poolPendingMax).toBe(3);
    expect(w.maxMs).toBeCloseTo(20, 6);
    // the pool's figures rest on the three readings inside the window, the edges among them
    expect(w.poolReadings).toBe(3);
    expect(
      serverWindow(
        samples.map((s) => ({ ...s, poolActive: null })),
        'steps',
        10,
        15,
      )!.poolReadings,
    ).toBeUndefined();
  });

  it('is null without a reading near both edges, or from another phase', () => {
    expect(serverWindow([sample(10, 1, 1)], 'steps', 10, 15)).toBeNull();
    expect(
      serverWindow([sample(10, 1, 1, { phase: 'warmup' }), sample(15, 2, 2, { phase: 'warmup' })], 'steps', 10, 15),
    ).toBeNull();
    expect(serverWindow([sample(7, 1, 1), sample(15, 2, 2)], 'steps', 10, 15)).toBeNull();
  });
});

describe("a server mean's requests: how many it rests on, and whether that is enough", () => {
  it("counts the window's requests from its readings (b2's step 6: one request over 3.999 s), a mean of fewer than rules.minTailSamples untrusted", () => {
    const one = serverWindow([sample(56.006, 40_000, 800), sample(60.005, 40_001, 800.000449)], 'steps', 56, 60)!;
    expect(one.throughputPerSec).toBeCloseTo(0.25006, 5);
    expect(serverRequests(one)).toBe(1);
    expect(serverMeanReliable(one, 30)).toBe(false);
    const w = serverWindow([sample(9.98, 1000, 10), sample(15.02, 2008, 20.08)], 'steps', 10, 15)!;
    expect(serverRequests(w)).toBe(1008);
    expect(serverMeanReliable(w, 30)).toBe(true);
    expect(serverMeanReliable(w, 1009)).toBe(false);
    expect(serverRequests({ ...w, throughputPerSec: null })).toBeNull();
    expect(serverMeanReliable({ ...w, throughputPerSec: null }, 30)).toBe(false);
  });
});

// a fresh-clone CI beside its CPU hog read 84.3 req/s on the server against the client's 80.3 over
// a 4 s window: "traffic-extra" from the window's own edges, each a reading that took its time
describe("the throughput tolerance allows for the edge readings' own time", () => {
  it('a window carries the spread its edge readings leave in its length, none where they carry no time', () => {
    const timed = [sample(10, 1000, 10, { readMs: 200 }), sample(14, 1320, 13.2, { readMs: 160 })];
    expect(serverWindow(timed, 'steps', 10, 14)!.edgeSpreadS).toBeCloseTo(0.18, 9);
    expect(serverWindow([sample(10, 1000, 10), sample(14, 1320, 13.2)], 'steps', 10, 14)).not.toHaveProperty(
      'edgeSpreadS',
    );
  });

  it.each([
    ['edges of no known time: the 5% alone', undefined, 'traffic-extra', /more traffic than this test sent \(another/],
    [
      'edges that took 200 ms each in a 4 s window: 10%',
      0.2,
      'consistent',
      /^server counted 85\.0 req\/s, client 80\.3;/,
    ],
    [
      'edges of 20 ms: 5.5%, and said',
      0.02,
      'traffic-extra',
      /5\.9% more traffic than this test sent \(beyond its 5\.5% tolerance, 5% widened by the time its edge readings took\)/,
    ],
  ])('%s', (_, edgeSpreadS, verdict, detail) => {
    const w = { ...window(85, 20), fromS: 0, toS: 4, ...(edgeSpreadS === undefined ? {} : { edgeSpreadS }) };
    const c = crossCheck(80.3, 20.5, 0.5, w);
    expect(c.verdict, c.detail).toBe(verdict);
    expect(c.detail).toMatch(detail);
  });
});

describe('crossCheck', () => {
  it.each([
    ['consistent', 200, 10.6, 0.5, window(199, 10.0), 'consistent'],
    ['within the 0.5 ms floor', 200, 1.9, 0.5, window(200, 1.0), 'consistent'],
    ['client queueing', 200, 40, 0.5, window(200, 10), 'client-queueing'],
    ['traffic missing', 200, 10, 0.5, window(150, 10), 'traffic-missing'],
    ['traffic extra', 200, 10, 0.5, window(260, 10), 'traffic-extra'],
    ['server between client - RTT and client', 200, 10.4, 0.9, window(200, 10.0), 'consistent'],
    ['server slower than the client saw', 200, 10, 0.5, window(200, 12), 'traffic-extra'],
    ['no data', 200, 10, 0.5, null, 'no-data'],
  ] as const)('%s', (_n, clientX, clientMean, rtt, w, verdict) => {
    const c = crossCheck(clientX, clientMean, rtt, w);
    expect(c.verdict).toBe(verdict);
    expect(c.detail.length).toBeGreaterThan(10);
  });

  it('a consistent one gives the gap and the tolerance it is within, not the tolerance alone', () => {
    // client 10.6 - RTT 0.5 = 10.1 against the server's 10.0: 0.10 ms apart, within max(0.5 ms, 5%?) of it
    expect(crossCheck(200, 10.6, 0.5, window(199, 10.0)).detail).toMatch(
      /\(0\.10 ms apart, within the [\d.]+ ms tolerance\)$/,
    );
  });

  it('names a misread unit when the means differ by about 1,000 x, either way, and not otherwise', () => {
    // a series in milliseconds read as seconds: 5 ms per request reads as 5,000 ms
    const slow = crossCheck(200, 5.5, 0.5, window(200, 5000));
    expect(slow.verdict).toBe('traffic-extra');
    expect(slow.detail).toMatch(
      /about 909 x the client's: a series in milliseconds read as seconds\? set metrics\.requests\.unit: 'milliseconds'\)$/,
    );
    // a series in seconds read as milliseconds: 20 ms reads as 0.02 ms
    const fast = crossCheck(200, 20.5, 0.5, window(200, 0.02));
    expect(fast.verdict).toBe('client-queueing');
    expect(fast.detail).toMatch(
      /about 1\/1,025 of the client's: a series in seconds read as milliseconds\? set metrics\.requests\.unit: 'seconds'\)$/,
    );
    // a real difference of 10 x says nothing of units
    expect(crossCheck(200, 10, 0.5, window(200, 100)).detail).not.toMatch(/unit/);
    expect(crossCheck(200, 40, 0.5, window(200, 10)).detail).not.toMatch(/unit/);
  });

  it("does not compare means when requests failed: the client's mean is of its successes, the server's of every request", () => {
    // half fast 503s at the server: its mean 50.5 ms against the client's 100 ms of successes
    const c = crossCheck(200, 100.5, 0.5, window(200, 50.5), 0.5);
    expect(c.verdict).toBe('consistent');
    expect(c.detail).toMatch(/latency not compared: 50\.0% of requests failed/);
    expect(crossCheck(200, 100.5, 0.5, window(200, 50.5), 0.005).verdict).toBe('client-queueing');
  });

  it('says how much time the generator added', () => {
    expect(crossCheck(200, 40, 0.5, window(200, 10)).detail).toMatch(/29\.50 ms per request is spent in the generator/);
  });
});

// run b2 of an audit: every request of step 6 timed out at the client's 400 ms while the server's
// pool held 184 waiting, and the cross-check blamed a proxy or the label filter
describe("the client's own timeouts: abandoned requests, not missing traffic", () => {
  it('a server that counted none of the requests the client timed out reads client-timeouts, naming the deadline', () => {
    const c = crossCheck(240.3, null, 0.4, window(0.3, 0.449), 1, 'requests', { share: 1, timeoutMs: 400 });
    expect(c.verdict).toBe('client-timeouts');
    expect(c.detail).toBe(
      "server counted 0.3 requests/s, client 240.3 requests/s (every request of every arrival): the client itself gave up on 100% of its requests at its deadline (http.timeoutMs, 400 ms), and the server counts a request when it finishes it, after the window or never (a target may not count one whose client has gone): the 99.9% it did not count lie within those the client abandoned, not traffic that missed the series; the timeouts are the step's failures: if real clients wait longer, raise http.timeoutMs",
    );
    expect(c.detail).not.toMatch(/proxy|label filter/);
  });

  it.each([
    // the server short by no more than the timeouts (10% of 200): 185 counted, 180 answered
    [
      'short by less than the timeouts',
      185,
      0.1,
      'client-timeouts',
      /gave up on 10% of its requests at its deadline \(http\.timeoutMs\)/,
    ],
    // within 5% of the 180 the client did not abandon
    [
      'short of the answered within the tolerance',
      172,
      0.1,
      'client-timeouts',
      /the 14\.0% it did not count lie within/,
    ],
    // short of the answered beyond it: missing traffic, measured against them alone
    [
      'short of the answered too',
      150,
      0.1,
      'traffic-missing',
      /gave up on 10% .*, and of the others 16\.7% never reached the measured series .*label filter/,
    ],
    // no timeouts: as before
    [
      'no timeouts',
      150,
      0,
      'traffic-missing',
      /^server counted 150\.0 req\/s, client 200\.0: 25\.0% of the client's requests never reached/,
    ],
    // within the plain tolerance: consistent, whatever timed out
    ['within 5% of the client', 195, 0.1, 'consistent', /latency not compared/],
    // a server that counted some is never said to have missed all: 0.02 of 200 is 99.99%, not 100.0%
    ['all timed out, a few counted', 0.02, 1, 'client-timeouts', /: the 99\.99% it did not count lie within/],
    [
      'a few answered, fewer counted',
      0.0004,
      0.99,
      'traffic-missing',
      /gave up on 99% .*, and of the others 99\.98% never reached/,
    ],
    ['none timed out, a few counted', 0.02, 0, 'traffic-missing', /: 99\.99% of the client's requests never reached/],
    // a share above none is never said to be none: 1 in 100,000 is 0.001%, not 0.0%
    ['one in 100,000 timed out', 150, 0.00001, 'traffic-missing', /gave up on 0\.001% of its requests/],
  ] as const)('%s', (_n, serverX, share, verdict, detail) => {
    const c = crossCheck(200, 10.5, 0.5, window(serverX, 10), share, 'arrivals', { share });
    expect(c.verdict).toBe(verdict);
    expect(c.detail).toMatch(detail);
  });

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

describe('serverWindow: percentiles from the histogram, counters that go backwards', () => {
  const buckets = (c5: number, c25: number, c50: number, all: number) => ({
    boundsMs: [5, 25, 50],
    cumulative: [c5, c25, c50, all],
  });

  it("takes p50, p90 and p99 from the bucket deltas between the edges, each with its bucket's bounds", () => {
    const w = serverWindow(
      [
        sample(10, 1000, 10, { requestsBuckets: buckets(500, 900, 1000, 1000) }),
        sample(12, 1100, 11, { requestsBuckets: buckets(520, 960, 1100, 1100) }),
        sample(15, 1200, 12, { requestsBuckets: buckets(540, 1020, 1190, 1200) }),
      ],
      'steps',
      10,
      15,
    )!;
    // the window's 200 requests: 40 <= 5 ms, 80 in (5, 25], 70 in (25, 50], 10 above 50 ms
    expect(w.percentiles!.map((p) => [p.q, p.lowerMs, p.upperMs, p.n])).toEqual(
      [
        [50, 5, 25],
        [90, 25, 50],
        [99, 50, null],
      ].map(([q, lo, hi]) => [q, lo, hi, 200]),
    );
    expect(w.percentiles![0].valueMs).toBeCloseTo(5 + 20 * (60 / 80), 9);
    expect(w.percentiles![1].valueMs).toBeCloseTo(25 + 25 * (60 / 70), 9);
    expect(w.percentiles![2].valueMs).toBe(50);
    expect(w.counterReset).toBeUndefined();
  });

  it('a histogram born inside the window counts from zero; without buckets there are no percentiles', () => {
    const w = serverWindow(
      [sample(10, 0, 0), sample(15, 100, 1, { requestsBuckets: buckets(10, 100, 100, 100) })],
      'steps',
      10,
      15,
    )!;
    expect(w.percentiles![0]).toMatchObject({ lowerMs: 5, upperMs: 25, n: 100 });
    expect(serverWindow([sample(10, 0, 0), sample(15, 100, 1)], 'steps', 10, 15)!.percentiles).toBeUndefined();
  });

  it('a restart inside the window marks it and gives no figure, never a negative one; the cross-check says why', () => {
    const samples = [
      sample(10, 1000, 10, { requestsBuckets: buckets(500, 900, 1000, 1000) }),
      sample(12, 30, 0.3, { requestsBuckets: buckets(10, 25, 30, 30) }),
      sample(15, 1500, 15, { requestsBuckets: buckets(700, 1300, 1500, 1500) }),
    ];
    const w = serverWindow(samples, 'steps', 10, 15)!;
    expect(w).toMatchObject({ counterReset: true, throughputPerSec: null, meanMs: null, percentiles: null });
    const c = crossCheck(100, 10, 0.5, w);
    expect(c.verdict).toBe('no-data');
    expect(c.detail).toMatch(/counters went backwards inside the window.*keep the target up/);
    // a count that drops with the buckets unread is a reset too
    expect(
      serverWindow([sample(10, 50, 1), sample(12, 5, 0.1), sample(15, 60, 1.2)], 'steps', 10, 15)!.counterReset,
    ).toBe(true);
  });

  it("keeps the readings' problem lines once each, and leaves the downstreams' lines to them", () => {
    const bad = 'x_bucket has no le="+Inf" bucket: ...';
    const w = serverWindow(
      [sample(10, 0, 0, { problems: [bad, 'downstream redis: no series'] }), sample(15, 10, 0.1, { problems: [bad] })],
      'steps',
      10,
      15,
    )!;
    expect(w.problems).toEqual([bad]);
  });
});

describe('routeWindow', () => {
  const route = (count: number, sumS: number) => ({
    count,
    sumS,
    buckets: { boundsMs: [10], cumulative: [count, count] },
  });
  it("reads one mapped name's route from the readings, with its own problem lines only", () => {
    const samples = [
      sample(10, 1000, 10, { routes: { read: route(100, 1) } }),
      sample(15, 2000, 20, {
        routes: { read: route(350, 3.5) },
        problems: ['metrics.requests.routes["write"] ...', 'other'],
      }),
    ];
    const w = routeWindow(samples, 'steps', 10, 15, 'read')!;
    expect(w.throughputPerSec).toBe(50);
    expect(w.meanMs).toBeCloseTo(10, 9);
    expect(w.percentiles![0]).toMatchObject({ lowerMs: 0, upperMs: 10, n: 250 });
    expect(w.poolMax).toBeNull();
    expect(w.problems).toBeUndefined();
    expect(routeWindow(samples, 'steps', 10, 15, 'write')).toBeNull();
  });
});

describe('serverRttMs', () => {
  it('is the fastest round trip, the median in older runs, 0 unmeasured', () => {
    expect(serverRttMs({ httpMinMs: 0.3, httpMedianMs: 0.5 })).toBe(0.3);
    expect(serverRttMs({ httpMedianMs: 0.5 })).toBe(0.5);
    expect(serverRttMs(undefined)).toBe(0);
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
