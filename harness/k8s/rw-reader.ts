/**
 * The live reader of a k6-operator run: every second, the raw samples of the runners' k6 series
 * (filtered by testid, split by instance_id) from Prometheus, into the one-second BucketRecords
 * the other engines fill (the pure part: analysis/k8s-rw.ts). Counters through PromQL's raw
 * range selector (metrics/promql.ts rawSamples, read-only), the native histogram of
 * http_req_duration through the same query (its "histograms" answer). Also the checks of the
 * Prometheus itself: reachable, remote-write receiver on, native histograms on (its flags API).
 */
import { request } from 'undici';
import { rawSamples, selector } from '../metrics/promql.ts';
import { EXIT, PlateauError } from '../errors.ts';
import {
  RW_METRICS,
  RwBuckets,
  type CounterField,
  type GaugeField,
  type RawHistogramSeries,
  type RawSeries,
  type RwReading,
} from '../../analysis/k8s-rw.ts';
import type { BucketRecord } from '../../analysis/types.ts';

/** How far back each reading reaches before the previous one's time: pushes land in Prometheus late. */
const OVERLAP_MS = 10_000;

async function getJson(url: URL, timeoutMs: number, what: string, fix: string): Promise<{ status: number; body: any }> {
  try {
    const res = await request(url, { headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
    const text = await res.body.text();
    let body: unknown = null;
    try {
      body = JSON.parse(text);
    } catch {
      body = { raw: text.slice(0, 200) };
    }
    return { status: res.statusCode, body };
  } catch (err) {
    throw new PlateauError(
      `${what} at ${url.origin} did not answer: ${(err as Error).message}`,
      fix,
      'k8s-prometheus-unreachable',
      EXIT.preflight,
    );
  }
}

/** Refuses a Prometheus that is unreachable, or runs without the remote-write receiver or native histograms. */
export async function checkPrometheus(prometheusUrl: string, timeoutMs = 5000): Promise<string> {
  const { status, body } = await getJson(
    new URL('/api/v1/status/flags', prometheusUrl),
    timeoutMs,
    'Prometheus',
    'check --prometheus (a URL plateau reaches, e.g. through kubectl port-forward -n monitoring svc/prometheus 9090) and that the server is up',
  );
  const flags = (body?.data ?? null) as Record<string, string> | null;
  if (status !== 200 || !flags)
    throw new PlateauError(
      `${prometheusUrl} answered ${status} to /api/v1/status/flags: not a Prometheus HTTP API`,
      'give --prometheus the base URL of a Prometheus server (the one the runners push to)',
      'k8s-prometheus-api',
      EXIT.preflight,
    );
  const missing = [
    ...(flags['web.enable-remote-write-receiver'] === 'true' ? [] : ['--web.enable-remote-write-receiver']),
    ...((flags['enable-feature'] ?? '').split(',').includes('native-histograms')
      ? []
      : ['--enable-feature=native-histograms']),
  ];
  if (missing.length > 0)
    throw new PlateauError(
      `Prometheus at ${prometheusUrl} runs without ${missing.join(' and ')}: the runners' remote write ${missing.length === 2 || missing[0]!.includes('receiver') ? 'would be refused' : 'would lose its latency histograms'}`,
      `start Prometheus with ${missing.join(' ')} (in the Prometheus operator: enableRemoteWriteReceiver: true, enableFeatures: [native-histograms])`,
      'k8s-prometheus-flags',
      EXIT.preflight,
    );
  return `Prometheus ${flags['web.listen-address'] ?? ''} has the remote-write receiver and native histograms`.replace(
    '  ',
    ' ',
  );
}

interface HistAnswer {
  data?: {
    result?: {
      metric: Record<string, string>;
      histograms?: [number, { count: string; buckets?: [number, string, string, string][] }][];
    }[];
  };
}

/** The native histogram samples of `sel` stamped in [fromMs, toMs]. */
export async function rawHistograms(
  prometheusUrl: string,
  sel: string,
  fromMs: number,
  toMs: number,
): Promise<RawHistogramSeries[]> {
  const url = new URL('/api/v1/query', prometheusUrl);
  url.searchParams.set('query', `${sel}[${Math.max(1, Math.ceil(toMs - fromMs))}ms]`);
  url.searchParams.set('time', (toMs / 1000).toFixed(3));
  const { status, body } = await getJson(url, 5000, 'Prometheus', 'check that Prometheus is up');
  if (status !== 200)
    throw new PlateauError(
      `Prometheus answered ${status} to ${sel}: ${JSON.stringify(body).slice(0, 200)}`,
      'check that the Prometheus runs with --enable-feature=native-histograms',
      'k8s-prometheus-query',
      EXIT.stage,
    );
  return ((body as HistAnswer).data?.result ?? [])
    .filter((r) => r.histograms)
    .map((r) => ({
      labels: r.metric,
      samples: r
        .histograms!.map(([t, h]) => ({
          tMs: Math.round(t * 1000),
          count: Number(h.count),
          buckets: (h.buckets ?? []).map(([, lo, hi, c]) => ({
            lower: Number(lo),
            upper: Number(hi),
            count: Number(c),
          })),
        }))
        .filter((h) => h.tMs >= fromMs && h.tMs <= toMs),
    }));
}

/** Every series of the run with samples stamped in [fromMs, toMs]. */
export async function readRw(prometheusUrl: string, testid: string, fromMs: number, toMs: number): Promise<RwReading> {
  const get = (name: string) => rawSamples(prometheusUrl, selector(name, { testid }), fromMs, toMs);
  const counters = ['iterations', 'dropped', 'reqs', 'checkFailed'] as const satisfies readonly CounterField[];
  const gauges = ['vus', 'vusMax'] as const satisfies readonly GaugeField[];
  const [c, g, durations] = await Promise.all([
    Promise.all(counters.map((f) => get(RW_METRICS[f]))),
    Promise.all(gauges.map((f) => get(RW_METRICS[f]))),
    rawHistograms(prometheusUrl, selector(RW_METRICS.duration, { testid }), fromMs, toMs),
  ]);
  return {
    counters: Object.fromEntries(counters.map((f, i) => [f, c[i] as RawSeries[]])),
    gauges: Object.fromEntries(gauges.map((f, i) => [f, g[i] as RawSeries[]])),
    durations,
  };
}

export interface RwReaderOptions {
  prometheusUrl: string;
  testid: string;
  buckets: RwBuckets;
  t0Ms: number;
  sink(r: BucketRecord): void;
}

/** Polls Prometheus, feeds the pure state, hands each complete second's buckets to the sink. */
export class RwReader {
  private lastMs: number;
  constructor(private readonly o: RwReaderOptions) {
    this.lastMs = o.t0Ms;
  }

  /** One reading up to `nowMs` (epoch ms); returns the buckets it completed. */
  async poll(nowMs: number, untilS = Infinity): Promise<BucketRecord[]> {
    const from = Math.max(this.o.t0Ms - 1000, this.lastMs - OVERLAP_MS);
    const reading = await readRw(this.o.prometheusUrl, this.o.testid, from, nowMs);
    this.lastMs = nowMs;
    this.o.buckets.add(reading);
    const out = this.o.buckets.drain(nowMs, untilS);
    for (const r of out) this.o.sink(r);
    return out;
  }
}
