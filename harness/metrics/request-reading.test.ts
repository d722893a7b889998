import { describe, expect, it } from 'vitest';
import { requestSeriesOf } from '../../analysis/request-series.ts';
import { parsePromText } from './prom-text.ts';
import { requestReading } from './request-reading.ts';

/** OpenTelemetry's names as its Prometheus exporter writes them, two routes. */
const OTEL = `# TYPE http_server_request_duration_seconds histogram
http_server_request_duration_seconds_bucket{http_route="/items/{id}",le="0.005"} 60
http_server_request_duration_seconds_bucket{http_route="/items/{id}",le="0.01"} 90
http_server_request_duration_seconds_bucket{http_route="/items/{id}",le="+Inf"} 100
http_server_request_duration_seconds_count{http_route="/items/{id}"} 100
http_server_request_duration_seconds_sum{http_route="/items/{id}"} 0.5
http_server_request_duration_seconds_bucket{http_route="/search",le="0.005"} 0
http_server_request_duration_seconds_bucket{http_route="/search",le="0.01"} 5
http_server_request_duration_seconds_bucket{http_route="/search",le="+Inf"} 10
http_server_request_duration_seconds_count{http_route="/search"} 10
http_server_request_duration_seconds_sum{http_route="/search"} 0.2
`;

describe('requestReading', () => {
  it('otel: count, sum (s), buckets (ms) summed over the series, and each mapped route', () => {
    const r = requestReading(
      requestSeriesOf({ preset: 'otel', routes: { read: '/items/{id}', search: '/search' } }),
      parsePromText(OTEL),
    );
    expect(r).toEqual({
      requestsCount: 110,
      requestsSumS: 0.7,
      requestsMaxS: null,
      requestsBuckets: { boundsMs: [5, 10], cumulative: [60, 95, 110] },
      routes: {
        read: { count: 100, sumS: 0.5, buckets: { boundsMs: [5, 10], cumulative: [60, 90, 100] } },
        search: { count: 10, sumS: 0.2, buckets: { boundsMs: [5, 10], cumulative: [0, 5, 10] } },
      },
    });
  });

  it('envoy: its _sum and bounds are milliseconds (sum to seconds, bounds kept as ms)', () => {
    const text = `envoy_http_downstream_rq_time_bucket{le="5"} 3
envoy_http_downstream_rq_time_bucket{le="25"} 9
envoy_http_downstream_rq_time_bucket{le="+Inf"} 10
envoy_http_downstream_rq_time_count 10
envoy_http_downstream_rq_time_sum 120
`;
    const r = requestReading(requestSeriesOf({ preset: 'envoy' }), parsePromText(text));
    expect(r.requestsSumS).toBeCloseTo(0.12, 12);
    expect(r.requestsBuckets).toEqual({ boundsMs: [5, 25], cumulative: [3, 9, 10] });
  });

  it('nginx: the bare counter only; spring without buckets: no histogram and no problem', () => {
    expect(requestReading(requestSeriesOf({ preset: 'nginx' }), parsePromText('nginx_http_requests_total 42'))).toEqual(
      {
        requestsCount: 42,
        requestsSumS: null,
        requestsMaxS: null,
      },
    );
    const spring =
      'http_server_requests_seconds_count{uri="/a"} 3\nhttp_server_requests_seconds_sum{uri="/a"} 0.3\nhttp_server_requests_seconds_max{uri="/a"} 0.2';
    expect(requestReading(requestSeriesOf(undefined), parsePromText(spring))).toEqual({
      requestsCount: 3,
      requestsSumS: 0.3,
      requestsMaxS: 0.2,
    });
  });

  it('a histogram preset without buckets, a route that matches nothing, labels that match nothing: a line each, the figures go on', () => {
    const noBuckets = OTEL.split('\n')
      .filter((l) => !l.includes('_bucket'))
      .join('\n');
    const r = requestReading(
      requestSeriesOf({ preset: 'otel', routes: { read: '/items/:id' } }),
      parsePromText(noBuckets),
    );
    expect(r.requestsCount).toBe(110);
    expect(r.requestsBuckets).toBeNull();
    expect(r.problems).toEqual([
      "no series http_server_request_duration_seconds_bucket beside http_server_request_duration_seconds_count: server percentiles not computed; expose the request time as a histogram (a summary's quantiles cannot be combined over a window)",
      'metrics.requests.routes["read"] {http_route="/items/:id"} matches no series of http_server_request_duration_seconds_count (http_route values there: "/items/{id}", "/search"): no cross-check for "read"; set it to the route as the target labels it',
    ]);
    const labels = requestReading(
      requestSeriesOf({ preset: 'otel', labels: { http_route: '/x' } }),
      parsePromText(OTEL),
    );
    expect(labels.requestsCount).toBeNull();
    expect(labels.problems).toEqual([
      expect.stringMatching(/^metrics.requests.labels \{http_route="\/x"\} match none of the 2 series/),
    ]);
    // a filter that matches nothing blames itself, not every mapped route (right ones among them)
    const filtered = requestReading(
      requestSeriesOf({ preset: 'otel', labels: { job: 'shopp' }, routes: { read: '/items/{id}', bad: '/nope' } }),
      parsePromText(OTEL),
    );
    expect(filtered.problems).toEqual([expect.stringMatching(/^metrics.requests.labels \{job="shopp"\} match none/)]);
  });

  it('a non-numeric sample is left out with a line naming it; a missing series and routes without a route label are said', () => {
    const r = requestReading(
      requestSeriesOf({ preset: 'otel' }),
      parsePromText(OTEL.replace('_count{http_route="/search"} 10', '_count{http_route="/search"} ten')),
    );
    expect(r.requestsCount).toBe(100);
    expect(r.problems).toEqual([
      'http_server_request_duration_seconds_count{http_route="/search"} has the value "ten", not a number: left out of the server\'s figures; fix the target\'s exporter',
    ]);
    const missing = requestReading(
      requestSeriesOf({ preset: 'prometheus-client', routes: { a: '/a' } }),
      parsePromText(OTEL),
    );
    expect(missing.problems).toEqual([
      expect.stringMatching(
        /^no series http_request_duration_seconds_count in this reading: .*set metrics.requests.preset/,
      ),
      expect.stringMatching(
        /routes is set but the prometheus-client preset names no route label: set metrics.requests.routeLabel/,
      ),
    ]);
  });
});
