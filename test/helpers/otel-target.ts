/**
 * A target with OpenTelemetry's HTTP server metric as its Prometheus exporter writes it: a real
 * HTTP server on 127.0.0.1 that times its own handling of each request (from the request's arrival
 * to the end of its answer) into `http_server_request_duration_seconds` (_bucket, _count, _sum),
 * a histogram with the semantic conventions' default bounds (5 ms to 10 s), labelled by
 * http_route (the route template), http_request_method and http_response_status_code.
 *
 *   GET /items/{id}   9 of 10 requests take ~12 ms, 1 of 10 ~30 ms (a tail in another bucket)
 *   GET /search       ~55 ms
 *
 * (timers only run late: each time sits low in its bucket, (10, 25], (25, 50] and (50, 75] ms, so
 * that a busy machine's delay of a few ms leaves it there)
 *   GET /health, /ping   at once
 *   GET /metrics      the exposition; not itself timed (OTel's exporter answers on its own port)
 *
 * `omitInf` leaves out the +Inf bucket (a broken hand-written exporter).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** OpenTelemetry's advisory bounds for http.server.request.duration (seconds). */
export const OTEL_BOUNDS_S = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

export interface OtelTarget {
  url: string;
  /** Requests timed so far, by route. */
  counted(): Record<string, number>;
  close(): Promise<void>;
}

interface Series {
  labels: string;
  buckets: number[];
  count: number;
  sumS: number;
}

export async function startOtelTarget(o: { omitInf?: boolean } = {}): Promise<OtelTarget> {
  const series = new Map<string, Series>();
  const perRoute: Record<string, number> = {};
  let items = 0;
  const record = (route: string, method: string, status: number, seconds: number) => {
    const labels = `http_request_method="${method}",http_response_status_code="${status}",http_route="${route}"`;
    let s = series.get(labels);
    if (!s) series.set(labels, (s = { labels, buckets: OTEL_BOUNDS_S.map(() => 0), count: 0, sumS: 0 }));
    OTEL_BOUNDS_S.forEach((b, i) => {
      if (seconds <= b) s!.buckets[i]!++;
    });
    s.count++;
    s.sumS += seconds;
    perRoute[route] = (perRoute[route] ?? 0) + 1;
  };
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path === '/metrics') {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
      res.end(exposition(series, o.omitInf === true));
      return;
    }
    const started = performance.now();
    const route = /^\/items\/[^/]+$/.test(path) ? '/items/{id}' : path;
    res.on('finish', () => record(route, req.method ?? 'GET', res.statusCode, (performance.now() - started) / 1000));
    const answer = (status: number, body: string) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(body);
    };
    req.resume();
    if (route === '/items/{id}') setTimeout(() => answer(200, '{"ok":true}'), items++ % 10 === 9 ? 30 : 12);
    else if (route === '/search') setTimeout(() => answer(200, '{"hits":[]}'), 55);
    else if (route === '/health' || route === '/ping') answer(200, '{"status":"UP"}');
    else answer(404, '{"error":"no route"}');
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    counted: () => ({ ...perRoute }),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

function exposition(series: Map<string, Series>, omitInf: boolean): string {
  const name = 'http_server_request_duration_seconds';
  const lines = [`# HELP ${name} Duration of HTTP server requests.`, `# TYPE ${name} histogram`];
  for (const s of series.values()) {
    OTEL_BOUNDS_S.forEach((b, i) => lines.push(`${name}_bucket{${s.labels},le="${b}"} ${s.buckets[i]}`));
    if (!omitInf) lines.push(`${name}_bucket{${s.labels},le="+Inf"} ${s.count}`);
    lines.push(`${name}_sum{${s.labels}} ${s.sumS}`, `${name}_count{${s.labels}} ${s.count}`);
  }
  return `${lines.join('\n')}\n`;
}
