/**
 * Prometheus text exposition (format 0.0.4) with Spring Boot / Micrometer names:
 * http_server_requests_seconds{_bucket,_count,_sum,_max} per (method, uri, status, outcome,
 * exception), where _bucket is the histogram Micrometer publishes with publishPercentileHistogram
 * (its bucket bounds, here between 1 ms and 2 s: HISTOGRAM_BOUNDS_S) and _max is a decaying max
 * over a rolling window of about 60 s (like Micrometer's TimeWindowMax), plus whatever gauges and
 * counters the server adds at render time.
 */

/**
 * Micrometer's percentile-histogram bounds (PercentileHistogramBuckets: from 4 ns up, each power
 * of 4 split into 3 linear steps, in ns), those within [min, max] plus min and max themselves, as
 * DistributionStatisticConfig adds them. Spring's default range is 1 ms to 30 s; the demo's
 * latencies are 1-50 ms below its knee and some hundred ms past it, so it sets the maximum
 * expected value to 2 s: 50 bounds, about 15% apart (+Inf is rendered after them).
 */
export function micrometerBoundsS(minS: number, maxS: number): number[] {
  const minNs = Math.round(minS * 1e9);
  const maxNs = Math.round(maxS * 1e9);
  const ns = new Set<number>([minNs, maxNs]);
  for (let exp = 2; 2 ** exp <= maxNs; exp += 2) {
    const delta = Math.floor(2 ** exp / 3);
    for (let v = 2 ** exp; v < 2 ** (exp + 2) - delta; v += delta) if (v >= minNs && v <= maxNs) ns.add(v);
  }
  return [...ns].sort((a, b) => a - b).map((v) => v / 1e9);
}

export const HISTOGRAM_BOUNDS_S: readonly number[] = micrometerBoundsS(0.001, 2);

const MAX_WINDOW_MS = 60_000;
const MAX_BUCKET_MS = 10_000;
const MAX_BUCKETS = MAX_WINDOW_MS / MAX_BUCKET_MS;

/** Max over the last ~60 s: six 10 s buckets, each keyed by its start time. */
export class WindowMax {
  private readonly starts = new Array<number>(MAX_BUCKETS).fill(-Infinity);
  private readonly maxes = new Array<number>(MAX_BUCKETS).fill(0);

  record(value: number, nowMs: number): void {
    const start = Math.floor(nowMs / MAX_BUCKET_MS) * MAX_BUCKET_MS;
    const i = (start / MAX_BUCKET_MS) % MAX_BUCKETS;
    if (this.starts[i] !== start) {
      this.starts[i] = start;
      this.maxes[i] = value;
    } else if (value > this.maxes[i]!) {
      this.maxes[i] = value;
    }
  }

  value(nowMs: number): number {
    let max = 0;
    for (let i = 0; i < MAX_BUCKETS; i++) {
      if (nowMs - this.starts[i]! < MAX_WINDOW_MS && this.maxes[i]! > max) max = this.maxes[i]!;
    }
    return max;
  }
}

export interface RequestLabels {
  method: string;
  uri: string;
  status: number;
  exception?: string;
}

interface TimerSeries {
  /** The labels without the braces, so `le` can follow them. */
  labels: string;
  count: number;
  sumSeconds: number;
  max: WindowMax;
  /** Requests per bucket (not cumulative): [i] those <= HISTOGRAM_BOUNDS_S[i] and above the bound before; last: above every bound. */
  buckets: number[];
}

/** The index of the first bound >= seconds (HISTOGRAM_BOUNDS_S.length when above all). */
export function bucketIndex(seconds: number, bounds: readonly number[] = HISTOGRAM_BOUNDS_S): number {
  let lo = 0;
  let hi = bounds.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (bounds[mid]! >= seconds) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

export function outcomeOf(status: number): string {
  if (status < 200) return 'INFORMATIONAL';
  if (status < 300) return 'SUCCESS';
  if (status < 400) return 'REDIRECTION';
  if (status < 500) return 'CLIENT_ERROR';
  if (status < 600) return 'SERVER_ERROR';
  return 'UNKNOWN';
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function labelList(pairs: Array<[string, string]>): string {
  return pairs.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(',');
}

function formatLabels(pairs: Array<[string, string]>): string {
  return '{' + labelList(pairs) + '}';
}

function num(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

export interface Sample {
  name: string;
  help: string;
  type: 'counter' | 'gauge';
  value: number;
  labels?: Array<[string, string]>;
}

export class HttpMetrics {
  private readonly series = new Map<string, TimerSeries>();

  record(l: RequestLabels, durationSeconds: number, nowMs: number = Date.now()): void {
    const labels = labelList([
      ['method', l.method],
      ['uri', l.uri],
      ['status', String(l.status)],
      ['outcome', outcomeOf(l.status)],
      ['exception', l.exception ?? 'None'],
    ]);
    let s = this.series.get(labels);
    if (!s) {
      s = {
        labels,
        count: 0,
        sumSeconds: 0,
        max: new WindowMax(),
        buckets: new Array<number>(HISTOGRAM_BOUNDS_S.length + 1).fill(0),
      };
      this.series.set(labels, s);
    }
    s.count++;
    s.sumSeconds += durationSeconds;
    s.max.record(durationSeconds, nowMs);
    s.buckets[bucketIndex(durationSeconds)]!++;
  }

  /** Render the request timer series, then the extra samples, in exposition format 0.0.4. */
  render(extra: Sample[], nowMs: number = Date.now()): string {
    const out: string[] = [];
    const all = [...this.series.values()];
    out.push('# HELP http_server_requests_seconds Duration of HTTP server request handling');
    out.push('# TYPE http_server_requests_seconds histogram');
    for (const s of all) {
      let cumulative = 0;
      for (let i = 0; i <= HISTOGRAM_BOUNDS_S.length; i++) {
        cumulative += s.buckets[i]!;
        const le = i < HISTOGRAM_BOUNDS_S.length ? String(HISTOGRAM_BOUNDS_S[i]) : '+Inf';
        out.push(`http_server_requests_seconds_bucket{${s.labels},le="${le}"} ${num(cumulative)}`);
      }
      out.push(`http_server_requests_seconds_count{${s.labels}} ${num(s.count)}`);
      out.push(`http_server_requests_seconds_sum{${s.labels}} ${num(s.sumSeconds)}`);
    }
    out.push('# HELP http_server_requests_seconds_max Duration of HTTP server request handling');
    out.push('# TYPE http_server_requests_seconds_max gauge');
    for (const s of all) out.push(`http_server_requests_seconds_max{${s.labels}} ${num(s.max.value(nowMs))}`);
    const seen = new Set<string>();
    for (const e of extra) {
      if (!seen.has(e.name)) {
        seen.add(e.name);
        out.push(`# HELP ${e.name} ${e.help}`);
        out.push(`# TYPE ${e.name} ${e.type}`);
      }
      out.push(`${e.name}${e.labels ? formatLabels(e.labels) : ''} ${num(e.value)}`);
    }
    return out.join('\n') + '\n';
  }
}
