import { describe, expect, it } from 'vitest';
import { maxOf, parsePromText, sumOf } from './prom-text.ts';

const TEXT = `# HELP http_server_requests_seconds Duration of HTTP server request handling
# TYPE http_server_requests_seconds summary
http_server_requests_seconds_count{exception="None",method="POST",outcome="SUCCESS",status="201",uri="/orders",} 1200.0
http_server_requests_seconds_sum{exception="None",method="POST",outcome="SUCCESS",status="201",uri="/orders",} 13.5
http_server_requests_seconds_count{exception="None",method="POST",outcome="SERVER_ERROR",status="503",uri="/orders",} 30
http_server_requests_seconds_count{method="GET",uri="/health"} 7 1700000000000
http_server_requests_seconds_max{method="POST",uri="/orders",status="201"} 0.042
http_server_requests_seconds_max{method="POST",uri="/orders",status="503"} 0.051
weird{path="a \\"quoted\\" \\\\ back\\nslash",x="}{"} NaN
up +Inf
hikaricp_connections_pending{pool="HikariPool-1"} 3
`;

describe('parsePromText', () => {
  const samples = parsePromText(TEXT);
  it('reads names, labels and values; skips comments and timestamps', () => {
    expect(samples).toHaveLength(9);
    expect(samples[3]).toEqual({
      name: 'http_server_requests_seconds_count',
      labels: { method: 'GET', uri: '/health' },
      value: 7,
    });
  });
  it('unescapes label values and keeps special values', () => {
    const w = samples.find((s) => s.name === 'weird')!;
    expect(w.labels).toEqual({ path: 'a "quoted" \\ back\nslash', x: '}{' });
    expect(w.value).toBeNaN();
    expect(samples.find((s) => s.name === 'up')!.value).toBe(Infinity);
  });
  it('sums and maxes over label filters', () => {
    expect(sumOf(samples, 'http_server_requests_seconds_count', { uri: '/orders' })).toBe(1230);
    expect(sumOf(samples, 'http_server_requests_seconds_count', { uri: '/orders', status: '201' })).toBe(1200);
    expect(maxOf(samples, 'http_server_requests_seconds_max', { uri: '/orders' })).toBe(0.051);
    expect(sumOf(samples, 'absent')).toBeNull();
  });
  it('ignores malformed lines instead of failing', () => {
    expect(parsePromText('bad{unterminated="x 1\n{} 2\nok 3')).toEqual([{ name: 'ok', labels: {}, value: 3 }]);
  });
});
