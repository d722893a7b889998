/**
 * Prometheus text exposition (format 0.0.4) with Spring Boot / Micrometer names:
 * http_server_requests_seconds{_count,_sum,_max} per (method, uri, status, outcome, exception),
 * where _max is a decaying max over a rolling window of about 60 s (like Micrometer's
 * TimeWindowMax), plus whatever gauges and counters the server adds at render time.
 */

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
  labels: string;
  count: number;
  sumSeconds: number;
  max: WindowMax;
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

function formatLabels(pairs: Array<[string, string]>): string {
  return '{' + pairs.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(',') + '}';
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
    const labels = formatLabels([
      ['method', l.method],
      ['uri', l.uri],
      ['status', String(l.status)],
      ['outcome', outcomeOf(l.status)],
      ['exception', l.exception ?? 'None'],
    ]);
    let s = this.series.get(labels);
    if (!s) {
      s = { labels, count: 0, sumSeconds: 0, max: new WindowMax() };
      this.series.set(labels, s);
    }
    s.count++;
    s.sumSeconds += durationSeconds;
    s.max.record(durationSeconds, nowMs);
  }

  /** Render the request timer series, then the extra samples, in exposition format 0.0.4. */
  render(extra: Sample[], nowMs: number = Date.now()): string {
    const out: string[] = [];
    const all = [...this.series.values()];
    out.push('# HELP http_server_requests_seconds Duration of HTTP server request handling');
    out.push('# TYPE http_server_requests_seconds summary');
    for (const s of all) {
      out.push(`http_server_requests_seconds_count${s.labels} ${num(s.count)}`);
      out.push(`http_server_requests_seconds_sum${s.labels} ${num(s.sumSeconds)}`);
    }
    out.push('# HELP http_server_requests_seconds_max Duration of HTTP server request handling');
    out.push('# TYPE http_server_requests_seconds_max gauge');
    for (const s of all) out.push(`http_server_requests_seconds_max${s.labels} ${num(s.max.value(nowMs))}`);
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
