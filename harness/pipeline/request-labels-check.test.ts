import { describe, expect, it } from 'vitest';
import { requestSeriesOf } from '../../analysis/request-series.ts';
import { PlateauError } from '../errors.ts';
import { parsePromText } from '../metrics/prom-text.ts';
import { checkRequestLabels, scrapedSince, unseenRoutesNote } from './request-labels-check.ts';

// review F's target: prom-client's histogram, by route, as Prometheus holds it (job added by the scrape)
const TEXT = ['/items/:id', '/items', '/carts', '/carts/:id/pay', '/health']
  .map((route) => `http_request_duration_seconds_count{job="shop",method="GET",route="${route}"} 10`)
  .join('\n');
const samples = parsePromText(TEXT);
const series = (over: Parameters<typeof requestSeriesOf>[0] = {}) =>
  requestSeriesOf({
    preset: 'prometheus-client',
    routeLabel: 'route',
    routes: { 'get item': '/items/:id', 'create item': '/items' },
    ...over,
  });

describe('preflight: metrics.requests.labels and routes against the series the run reads', () => {
  it("refuses a label filter that matches none of the series, naming the label's values there, and blames no route", () => {
    let err: unknown;
    try {
      checkRequestLabels(series({ labels: { job: 'shopp' } }), samples, 'Prometheus at http://127.0.0.1:9090');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(PlateauError);
    const e = err as PlateauError;
    expect(e.message).toBe(
      'Prometheus at http://127.0.0.1:9090: metrics.requests.labels {job="shopp"} match none of the 5 series of http_request_duration_seconds_count (job: "shop"): every step\'s cross-check would be empty',
    );
    expect(e.hint).toMatch(/^set metrics.requests.labels to values Prometheus holds/);
    expect(e.exitCode).toBe(3);
    expect(unseenRoutesNote(series({ labels: { job: 'shopp' } }), samples, 'Prometheus')).toBeNull();
  });

  it('passes a filter that matches, and names a mapped route absent from the series with the route values there', () => {
    expect(() => checkRequestLabels(series({ labels: { job: 'shop' } }), samples, 'x')).not.toThrow();
    expect(unseenRoutesNote(series({ labels: { job: 'shop' } }), samples, 'x')).toBeNull();
    const note = unseenRoutesNote(
      series({ routes: { 'get item': '/items/{id}', 'create item': '/items' } }),
      samples,
      'metrics endpoint http://127.0.0.1:58080/metrics',
    );
    expect(note).toBe(
      'metrics.requests.routes["get item"] {route="/items/{id}"} matches no series of http_request_duration_seconds_count in metrics endpoint http://127.0.0.1:58080/metrics yet (route values there: "/carts", "/carts/:id/pay", "/health", "/items", "/items/:id"): set it to the route as the target labels it, unless its sample request is not counted yet (the run warns where a route never appears)',
    );
  });

  it('says nothing where the series has no series at all (the series check, or a Prometheus yet to scrape)', () => {
    expect(() => checkRequestLabels(series({ labels: { job: 'x' } }), [], 'x')).not.toThrow();
    expect(unseenRoutesNote(series(), [], 'x')).toBeNull();
  });
});

describe('Prometheus has scraped since the sample arrivals (review G9)', () => {
  const at = (job: string, instance: string, lastMs: number) => ({
    labels: { job, instance },
    samples: [[lastMs - 15_000, 1] as const, [lastMs, 2] as const],
  });
  it('only once every scrape target holding the series has been scraped since them, not any one', () => {
    // another job's series of the same name was scraped; the target that counts the samples was not yet
    expect(scrapedSince([at('other', 'b:9100', 1_010), at('shop', 'a:8080', 990)], 1_000)).toBe(false);
    expect(scrapedSince([at('other', 'b:9100', 1_010), at('shop', 'a:8080', 1_005)], 1_000)).toBe(true);
    // one target's series scraped at one instant: its latest counts
    expect(
      scrapedSince(
        [at('shop', 'a:8080', 1_005), { ...at('shop', 'a:8080', 1_005), samples: [[400, 1] as const] }],
        1_000,
      ),
    ).toBe(true);
  });
});

describe('a label filter naming a route the target counts later (review G17)', () => {
  // a freshly started Spring target whose registry a periodic reader fills: the health check is
  // counted, preflight's sample request to /orders not yet
  const FRESH = parsePromText(
    [
      'http_server_requests_seconds_count{application="shop",method="GET",status="200",uri="/health"} 1',
      'http_server_requests_seconds_count{application="shop",method="GET",status="200",uri="/actuator/prometheus"} 2',
    ].join('\n'),
  );
  const spring = (labels: Record<string, string>) => requestSeriesOf({ labels });
  const refusal = (r: ReturnType<typeof requestSeriesOf>, s = FRESH): PlateauError | null => {
    try {
      checkRequestLabels(r, s, 'metrics endpoint http://127.0.0.1:8080/metrics');
      return null;
    } catch (e) {
      expect(e).toBeInstanceOf(PlateauError);
      return e as PlateauError;
    }
  };

  it('is said, not refused, where the route label alone matches nothing: its sample request may not be counted yet', () => {
    const filters: [Record<string, string>, string][] = [
      [{ uri: '/orders' }, '{uri="/orders"}'],
      [{ application: 'shop', uri: '/orders' }, '{application="shop",uri="/orders"}'],
    ];
    for (const [labels, id] of filters) {
      expect(refusal(spring(labels))).toBeNull();
      expect(checkRequestLabels(spring(labels), FRESH, 'metrics endpoint http://127.0.0.1:8080/metrics')).toBe(
        `metrics.requests.labels ${id} match no series of http_server_requests_seconds_count in metrics endpoint http://127.0.0.1:8080/metrics yet (uri values there: "/actuator/prometheus", "/health"): set its uri to the route as the target labels it, unless its sample request is not counted yet (the run warns where the filter never matches)`,
      );
      // the filter said, no route blamed
      expect(unseenRoutesNote(requestSeriesOf({ labels, routes: { read: '/orders/{id}' } }), FRESH, 'x')).toBeNull();
    }
    // OpenTelemetry's route label, its service's filter matching
    const otel = parsePromText(
      'http_server_request_duration_seconds_count{service_name="shop",http_route="/health",http_request_method="GET"} 1',
    );
    const r = requestSeriesOf({ preset: 'otel', labels: { service_name: 'shop', http_route: '/orders' } });
    expect(checkRequestLabels(r, otel, 'x')).toMatch(
      /^metrics\.requests\.labels .* yet \(http_route values there: "\/health"\)/,
    );
    // a route label of the config's own (prometheus-client names none)
    const client = requestSeriesOf({ preset: 'prometheus-client', routeLabel: 'route', labels: { route: '/orders' } });
    expect(checkRequestLabels(client, samples, 'x')).toMatch(/yet \(route values there: "\/carts", /);
  });

  it('is refused where a label of the filter is on no series, or where its other labels match nothing', () => {
    // a misspelt name: no series of the target has it, whatever it counts later
    expect(refusal(spring({ urii: '/orders' }))?.message).toBe(
      'metrics endpoint http://127.0.0.1:8080/metrics: metrics.requests.labels {urii="/orders"} match none of the 2 series of http_server_requests_seconds_count (urii: no such label): every step\'s cross-check would be empty',
    );
    // the original finding: a wrong target label beside a route not counted yet
    const wrongApp = refusal(spring({ application: 'shopp', uri: '/orders' }));
    expect(wrongApp?.message).toMatch(
      /\{application="shopp",uri="\/orders"\} match none .*\(application: "shop"; uri: /,
    );
    expect(wrongApp?.exitCode).toBe(3);
    // `job` on the endpoint (Prometheus adds it): no such label there
    expect(refusal(spring({ job: 'shop', uri: '/orders' }))?.message).toMatch(/\(job: no such label; uri: /);
    // no route label (prometheus-client names none, the config none): a value is refused as before
    expect(
      refusal(requestSeriesOf({ preset: 'prometheus-client', labels: { route: '/orders' } }), samples),
    ).not.toBeNull();
    // the route label's name absent from every series: refused too
    const noUri = parsePromText('http_server_requests_seconds_count{application="shop"} 1');
    expect(refusal(spring({ uri: '/orders' }), noUri)?.message).toMatch(/\(uri: no such label\)/);
  });
});
