import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemo, type DemoHandle } from '../demo/server.ts';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { EXIT, PlateauError } from '../harness/errors.ts';
import type { PlateauConfig } from '../harness/config/schema.ts';
import { checkDownstreamsInPrometheus } from '../harness/pipeline/downstream-check.ts';
import { checkScrapeInterval } from '../harness/pipeline/scrape-check.ts';
import {
  mostInWindow,
  queryWindow,
  rawSamples,
  selector,
  windowFromSamples,
  type RawSeries,
} from '../harness/metrics/promql.ts';
import {
  findPrometheus,
  startMetricsTap,
  countersIn,
  startPrometheus,
  tappedAt,
  type MetricsTap,
  type PrometheusHandle,
} from './helpers/prometheus.ts';

const PROMETHEUS = findPrometheus();
const hasPrometheus = PROMETHEUS !== null;
const ORDERS = { name: 'http_server_requests_seconds', labels: { uri: '/orders' } };
const POOL = {
  active: 'hikaricp_connections_active',
  pending: 'hikaricp_connections_pending',
  max: 'hikaricp_connections_max',
  labels: { pool: 'demo' },
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('PromQL window arithmetic (pure)', () => {
  const series = (labels: Record<string, string>, samples: Array<[number, number]>): RawSeries => ({ labels, samples });
  const none = { max: [], active: null, pending: null, poolMax: null };

  it("takes each series' exact rate over its own raw samples, and adds them", () => {
    const count = [
      series({ status: '201' }, [
        [0, 5],
        [1000, 10],
        [2000, 110],
        [3000, 210],
      ]),
      series({ status: '503' }, [
        [0, 1],
        [3000, 4],
      ]),
    ];
    const sum = [
      series({ status: '201' }, [
        [0, 0],
        [1000, 0.1],
        [2000, 1.1],
        [3000, 2.1],
      ]),
      series({ status: '503' }, [
        [0, 0],
        [3000, 0.3],
      ]),
    ];
    const w = windowFromSamples({ ...none, count, sum }, 1000, 3000, 0);
    // the 503s' one sample inside reads its rate from its sample before the window: 3 over 3 s
    expect(w).toMatchObject({ source: 'promql', fromS: 0, toS: 3, throughputPerSec: 200 / 2 + 3 / 3 });
    expect(w.meanMs).toBeCloseTo(((2.0 / 2 + 0.3 / 3) / (200 / 2 + 3 / 3)) * 1000, 10);
  });

  it('reads no rate from replicas scraped once each inside the window at staggered offsets (a review read 0 req/s there)', () => {
    const count = [
      series({ instance: 'a' }, [
        [88_000, 1000],
        [103_000, 2500],
      ]),
      series({ instance: 'b' }, [
        [86_000, 900],
        [101_000, 2400],
      ]),
    ];
    const w = windowFromSamples({ ...none, count, sum: [] }, 100_000, 105_000, 0);
    expect(w.throughputPerSec).toBeNull();
    expect(mostInWindow(count, 100_000, 105_000)).toBe(1);
  });

  it('counts a counter reset as Prometheus does, and a series born inside the window from 0', () => {
    const count = [
      series({ a: '1' }, [
        [1000, 100],
        [2000, 150],
        [3000, 20],
      ]),
      series({ a: '2' }, [
        [2000, 7],
        [3000, 9],
      ]),
    ];
    const sum = [
      series({ a: '1' }, [
        [1000, 1],
        [2000, 1.5],
        [3000, 0.2],
      ]),
      series({ a: '2' }, [
        [2000, 0.07],
        [3000, 0.09],
      ]),
    ];
    const w = windowFromSamples({ ...none, count, sum }, 1000, 3000, 1000);
    expect(w.throughputPerSec).toBe((50 + 20 + 9) / 2);
    expect(w.fromS).toBe(0);
  });

  it('reads the pool as the max over time of the sum over series; max only after the first sample', () => {
    const count = [
      series({}, [
        [0, 0],
        [1000, 10],
      ]),
    ];
    const pool = (a: number, b: number) => [
      series({ r: '1' }, [
        [0, a],
        [1000, b],
      ]),
      series({ r: '2' }, [
        [0, b],
        [1000, a],
      ]),
    ];
    const w = windowFromSamples(
      {
        count,
        sum: count,
        max: [
          series({}, [
            [0, 9],
            [1000, 0.02],
          ]),
        ],
        active: pool(1, 3),
        pending: pool(0, 0),
        poolMax: pool(4, 4),
      },
      0,
      1000,
      0,
    );
    expect(w).toMatchObject({ maxMs: 20, poolActiveMax: 4, poolPendingMax: 0, poolMax: 8, poolReadings: 2 });
  });

  it("reads the histogram's percentiles from the reset-aware bucket deltas per le, bounds and _sum by the unit", () => {
    const b = (le: string, samples: Array<[number, number]>) => series({ __name__: 'rq_bucket', le }, samples);
    // envoy-style milliseconds: 100 requests in the window, 60 <= 5 ms, 30 in (5, 25], 10 above
    const bucket = [
      b('5', [
        [0, 10],
        [1000, 40],
        [2000, 70],
      ]),
      b('25', [
        [0, 20],
        [1000, 65],
        [2000, 110],
      ]),
      b('+Inf', [
        [0, 25],
        [1000, 75],
        [2000, 125],
      ]),
    ];
    const count = [series({}, bucket[2]!.samples)];
    const sum = [
      series({}, [
        [0, 100],
        [1000, 600],
        [2000, 1100],
      ]),
    ];
    const w = windowFromSamples({ ...none, count, sum, bucket, toSeconds: 0.001, toMs: 1 }, 0, 2000, 0);
    expect(w.meanMs).toBeCloseTo(10, 9); // 1000 ms of _sum over 100 requests, not 10 s
    expect(w.percentiles!.map((p) => [p.q, p.lowerMs, p.upperMs, p.n])).toEqual([
      [50, 0, 5, 100],
      [90, 5, 25, 100],
      [99, 25, null, 100],
    ]);
    expect(w.percentiles![0]!.valueMs).toBeCloseTo(5 * (50 / 60), 9);
    expect(w.counterReset).toBeUndefined();
    // a restart between the samples: Prometheus's reset-aware deltas (never negative), the window marked
    const restarted = bucket.map((x) => ({
      ...x,
      samples: x.samples.map(([t, v]): [number, number] => [t, t === 2000 ? v - 60 : v]),
    }));
    const r = windowFromSamples(
      { ...none, count: [series({}, restarted[2]!.samples)], sum, bucket: restarted },
      0,
      2000,
      0,
    );
    expect(r.counterReset).toBe(true);
    expect(r.percentiles!.every((p) => p.n > 0 && p.valueMs! >= 0)).toBe(true);
    // no +Inf bucket: a line naming the fix instead of percentiles
    const noInf = windowFromSamples({ ...none, count, sum, bucket: bucket.slice(0, 2) }, 0, 2000, 0);
    expect(noInf.percentiles).toBeUndefined();
    expect(noInf.problems).toEqual([
      expect.stringMatching(/rq_bucket have no le="\+Inf" bucket.*expose the histogram with its \+Inf bucket/),
    ]);
  });

  it('escapes label values and refuses names PromQL cannot take', () => {
    expect(selector('x_count', { uri: '/a"b\\c' })).toBe('x_count{uri="/a\\"b\\\\c"}');
    expect(() => selector('bad-name')).toThrow(PlateauError);
  });

  it('says an address that answers, but not as Prometheus (an exporter, the target), is no Prometheus HTTP API', async () => {
    const page = http.createServer((_q, r) =>
      r.end('<html>\n <head><title>Redis Exporter v1.45</title></head>\n</html>'),
    );
    await new Promise<void>((ok) => page.listen(0, '127.0.0.1', ok));
    const url = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;
    try {
      const err = (await rawSamples(url, 'redis_commands_processed_total', 0, 1000).catch(
        (e: unknown) => e,
      )) as PlateauError;
      expect(err.message).toBe(
        `${url} answered a PromQL query with HTTP 200 and no JSON (it begins "<html> <head><title>Redis Exporter v1.45</title></head> </ht..."): it is not a Prometheus HTTP API`,
      );
      expect(err.hint).toMatch(/^set metrics\.prometheus\.url to the Prometheus server itself/);
      // before the load (preflight's check of the downstream series), a preflight refusal: exit 3
      const config = {
        metrics: { prometheus: { url }, downstreams: [{ name: 'redis', ops: 'redis_commands_processed_total' }] },
      };
      const pre = (await checkDownstreamsInPrometheus(config as unknown as PlateauConfig).catch(
        (e: unknown) => e,
      )) as PlateauError;
      expect([pre.code, pre.exitCode]).toEqual(['promql-query', EXIT.preflight]);
    } finally {
      page.close();
    }
  });

  it('says which Prometheus did not answer', async () => {
    const err = await queryWindow({
      prometheusUrl: 'http://127.0.0.1:1',
      requests: ORDERS,
      fromMs: 0,
      toMs: 1000,
      timeoutMs: 500,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PlateauError);
    expect((err as PlateauError).code).toBe('promql-unreachable');
  });
});

/** Offer orders at ratePerSec from `startMs` (Date.now() clock) until stop(): arrivals due by the clock, never waited for. */
function steadyOrders(demo: DemoHandle, ratePerSec: number, agent: Agent): { stop(): Promise<number> } {
  const startMs = Date.now();
  let sent = 0;
  const inflight = new Set<Promise<void>>();
  const timer = setInterval(() => {
    const due = Math.floor(((Date.now() - startMs) / 1000) * ratePerSec);
    for (; sent < due; sent++) {
      const body = JSON.stringify({ id: `pq-${sent}`, accountId: 1 + (sent % 1000), amountCents: 1 });
      const p: Promise<void> = request(`${demo.url}/orders`, { method: 'POST', body, dispatcher: agent })
        .then((res) => res.body.dump())
        .finally(() => inflight.delete(p));
      inflight.add(p);
    }
  }, 5);
  return {
    async stop() {
      clearInterval(timer);
      await Promise.allSettled([...inflight]);
      return sent;
    },
  };
}

describe('PromQL path against a real Prometheus server', () => {
  let demo: DemoHandle | undefined;
  let prom: PrometheusHandle | undefined;
  let tap: MetricsTap | undefined;
  let agent: Agent | undefined;

  beforeAll(async () => {
    if (!hasPrometheus) return;
    demo = await startDemo({ slots: 4, holdMs: 5, rows: 1000 });
    tap = await startMetricsTap(demo.url);
    prom = await startPrometheus({ binary: PROMETHEUS!, targetUrl: tap.url });
    await prom.waitForScrapes(2);
    agent = new Agent({ connections: 64, keepAliveTimeout: 30_000 });
  }, 60_000);

  afterAll(async () => {
    await agent?.close();
    await prom?.stop();
    await tap?.close();
    await demo?.close();
  }, 30_000);

  it.skipIf(!hasPrometheus)(
    `preflight notes a scrape interval too long for the steady window, and none where two scrapes fit it${hasPrometheus ? '' : ' (skipped: prometheus not installed)'}`,
    async () => {
      // the request series, scraped a few times (a series is born at its first request)
      const load = steadyOrders(demo!, 50, agent!);
      await sleep(3_000);
      await load.stop();
      await prom!.waitForScrapeAfter(Date.now());
      const config = (holdS: number) =>
        ({
          metrics: { prometheus: { url: prom!.url }, requests: ORDERS },
          steps: { holdS },
        }) as unknown as PlateauConfig;
      // a 10 s hold settles 5 s: a 5 s window holds five 1 s scrapes
      expect(await checkScrapeInterval(config(10))).toBeNull();
      // a 2 s hold settles 1 s: a 1 s window holds one
      expect(await checkScrapeInterval(config(2))).toMatch(
        /^note: Prometheus scrapes http_server_requests_seconds_count\{.*\} every 1\.0 s, and a steady window is 1 s: fewer than two scrapes fall in it/,
      );
    },
  );

  it.skipIf(!hasPrometheus)(
    `gives the throughput and mean of the very scrapes it stored, over a steady window${hasPrometheus ? '' : ' (skipped: prometheus not installed; make test installs it)'}`,
    async () => {
      const ratePerSec = 150;
      const load = steadyOrders(demo!, ratePerSec, agent!);
      await sleep(1_000); // past connection setup and JIT
      const fromMs = Date.now();
      await sleep(6_000);
      const toMs = Date.now();
      // Load goes on until Prometheus has taken a scrape after the window (waited for, not slept).
      await prom!.waitForScrapeAfter(toMs);
      const sent = await load.stop();

      const w = await queryWindow({
        prometheusUrl: prom!.url,
        requests: ORDERS,
        pool: POOL,
        fromMs,
        toMs,
        t0EpochMs: fromMs,
      });
      // The texts Prometheus stored at its window's edges, as the tap passed them on: PromQL's figures
      // are theirs exactly, whatever a stall of this process did to the load or to the scrapes' timing.
      const from = countersIn(tappedAt(tap!.scrapes, fromMs + w.fromS * 1000).text, ORDERS);
      const to = countersIn(tappedAt(tap!.scrapes, fromMs + w.toS * 1000).text, ORDERS);
      const directPerSec = (to.count - from.count) / (w.toS - w.fromS);
      const directMeanMs = ((to.sumS - from.sumS) / (to.count - from.count)) * 1000;
      const rawIncrease = await request(
        `${prom!.url}/api/v1/query?query=${encodeURIComponent(`sum(increase(${selector(`${ORDERS.name}_count`, ORDERS.labels)}[${Math.round(toMs - fromMs)}ms]))`)}&time=${(toMs / 1000).toFixed(3)}`,
      );
      const extrapolated = Number(
        ((await rawIncrease.body.json()) as { data: { result: Array<{ value: [number, string] }> } }).data.result[0]
          ?.value[1],
      );
      console.log(
        `PromQL vs the stored scrapes (${sent} orders offered at ${ratePerSec}/s): throughput ${w.throughputPerSec?.toFixed(2)} vs ${directPerSec.toFixed(2)} req/s ` +
          `(${pct(w.throughputPerSec!, directPerSec)}), mean ${w.meanMs?.toFixed(3)} vs ${directMeanMs.toFixed(3)} ms (${pct(w.meanMs!, directMeanMs)}); ` +
          `PromQL window ${w.fromS.toFixed(3)}..${w.toS.toFixed(3)} s of 0..${((toMs - fromMs) / 1000).toFixed(2)} s; ` +
          `increase() over the window ${extrapolated.toFixed(2)} vs exact delta ${to.count - from.count}; pool max ${w.poolMax}, active max ${w.poolActiveMax}`,
      );
      expect(w.source).toBe('promql');
      // the same readings: equal but for floating point (the mean's sum is a float counter)
      expect(w.throughputPerSec!).toBeCloseTo(directPerSec, 6);
      expect(Math.abs(w.meanMs! - directMeanMs) / directMeanMs).toBeLessThan(1e-6);
      // over at least 4 s of a 6 s window (a scrape interval at most lost at each end), with the load
      // on: at least half the offered rate served, and no more than was sent. Not within 20% of the
      // rate: a stall of this process delays arrivals, then sends them at once, and a fresh-clone CI
      // beside other work read 191.4/s in the window for 150 offered (12-05)
      expect(w.fromS).toBeGreaterThanOrEqual(0);
      expect(w.toS).toBeLessThanOrEqual((toMs - fromMs) / 1000);
      expect(w.toS - w.fromS).toBeGreaterThanOrEqual(4);
      expect(directPerSec).toBeGreaterThan(0.5 * ratePerSec);
      expect(to.count - from.count).toBeLessThanOrEqual(sent);
      expect(w.poolMax).toBe(4);
      expect(w.poolActiveMax).toBeGreaterThanOrEqual(0);
      expect(w.maxMs).toBeGreaterThanOrEqual(5);
    },
    40_000,
  );
});

function pct(x: number, ref: number): string {
  return `${(((x - ref) / ref) * 100).toFixed(2)}%`;
}
