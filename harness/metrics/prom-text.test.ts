import { describe, expect, it } from 'vitest';
import { histogramOf, maxOf, parsePromText, sumOf, unmatchedLabels } from './prom-text.ts';

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

describe('histogramOf', () => {
  const OTEL = `http_server_request_duration_seconds_bucket{http_route="/a",le="0.005"} 2
http_server_request_duration_seconds_bucket{http_route="/a",le="0.01"} 5
http_server_request_duration_seconds_bucket{http_route="/a",le="+Inf"} 6
http_server_request_duration_seconds_bucket{http_route="/b",le="0.005"} 1
http_server_request_duration_seconds_bucket{http_route="/b",le="0.01"} 1
http_server_request_duration_seconds_bucket{http_route="/b",le="+Inf"} 4
`;
  it('sums the buckets per le over the matching series, bounds converted to ms by the unit', () => {
    const p = parsePromText(OTEL);
    expect(histogramOf(p, 'http_server_request_duration_seconds_bucket', {}, 1000)).toEqual({
      reading: { boundsMs: [5, 10], cumulative: [3, 6, 10] },
      problems: [],
    });
    expect(histogramOf(p, 'http_server_request_duration_seconds_bucket', { http_route: '/b' }, 1).reading).toEqual({
      boundsMs: [0.005, 0.01],
      cumulative: [1, 1, 4],
    });
    expect(histogramOf(p, 'absent_bucket', {}, 1000)).toEqual({ reading: null, problems: [] });
    // Micrometer's bound 0.004194304 s is 4.194304 ms, not the product's 4.194304000000001
    const micrometer = parsePromText('t_bucket{le="0.004194304"} 1\nt_bucket{le="+Inf"} 1');
    expect(histogramOf(micrometer, 't_bucket', {}, 1000).reading!.boundsMs).toEqual([4.194304]);
  });

  it('a series without +Inf, or a bucket that is not a number, is no reading and a line naming the series and the fix', () => {
    const noInf = parsePromText(
      OTEL.split('\n')
        .filter((l) => !l.includes('/b",le="+Inf'))
        .join('\n'),
    );
    const h = histogramOf(noInf, 'http_server_request_duration_seconds_bucket', {}, 1000);
    expect(h.reading).toBeNull();
    expect(h.problems).toEqual([
      expect.stringMatching(
        /\{http_route="\/b"\} has no le="\+Inf" bucket: .*expose the histogram with its \+Inf bucket/,
      ),
    ]);
    const nan = parsePromText(OTEL.replace('le="0.01"} 5', 'le="0.01"} five'));
    expect(histogramOf(nan, 'http_server_request_duration_seconds_bucket', {}, 1000).problems[0]).toMatch(
      /\{http_route="\/a"\} le="0.01" has the value "five", not a number: .*fix the target's exporter/,
    );
  });

  it('says when the series have different bounds (their sum per le can misplace a percentile)', () => {
    const mixed = parsePromText(OTEL.replace('route="/b",le="0.01"', 'route="/b",le="0.02"'));
    const h = histogramOf(mixed, 'http_server_request_duration_seconds_bucket', {}, 1000);
    expect(h.reading!.boundsMs).toEqual([5, 10, 20]);
    expect(h.problems[0]).toMatch(/2 series of .* have 2 different sets of bucket bounds/);
  });
});

describe('non-numeric samples and labels that match nothing', () => {
  it('keeps a sample whose value is not a number with its text, and leaves it out of sums and maxes', () => {
    const p = parsePromText('x_count{a="1"} 12abc\nx_count{a="2"} 3\nx_max 0.5\nx_max oops');
    expect(p[0]).toEqual({ name: 'x_count', labels: { a: '1' }, value: NaN, raw: '12abc' });
    expect(sumOf(p, 'x_count')).toBe(3);
    expect(maxOf(p, 'x_max')).toBe(0.5);
  });

  it('names the filter, the values the target has, and the fix', () => {
    const p = parsePromText(TEXT);
    expect(unmatchedLabels(p, 'http_server_requests_seconds_count', { uri: '/order' }, 'metrics.requests.labels')).toBe(
      'metrics.requests.labels {uri="/order"} match none of the 3 series of http_server_requests_seconds_count (uri: "/health", "/orders"); set metrics.requests.labels to values the target exposes',
    );
    expect(unmatchedLabels(p, 'http_server_requests_seconds_count', { uri: '/orders' }, 'f')).toBeNull();
    expect(unmatchedLabels(p, 'absent', { uri: '/orders' }, 'f')).toBeNull();
  });
});
