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
