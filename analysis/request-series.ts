/**
 * The target's request series by naming convention (metrics.requests.preset), resolved to the
 * names plateau reads. One place, so the direct scrape, PromQL, preflight and the report agree on
 * which series and which unit were used.
 *
 *   preset             base name                               unit  series read
 *   spring             http_server_requests_seconds            s     _count, _sum, _max, _bucket if present
 *   otel               http_server_request_duration_seconds    s     _count, _sum, _bucket
 *   prometheus-client  http_request_duration_seconds           s     _count, _sum, _bucket
 *   envoy              envoy_http_downstream_rq_time           ms    _count, _sum, _bucket
 *   nginx              nginx_http_requests_total               -     the counter itself (throughput only)
 *
 * The route label defaults to the convention's (spring: uri, otel: http_route; the others name
 * none: set metrics.requests.routeLabel to map the mix's names to routes).
 */

export type RequestPreset = 'spring' | 'otel' | 'prometheus-client' | 'envoy' | 'nginx';
export type SeriesUnit = 'seconds' | 'milliseconds';

export interface RequestSeriesConfig {
  preset?: RequestPreset;
  name?: string;
  unit?: SeriesUnit;
  labels?: Record<string, string>;
  routeLabel?: string;
  routes?: Record<string, string>;
}

export interface RequestSeries {
  preset: RequestPreset;
  /** The base name (the preset's unless the config named another). */
  name: string;
  /** Unit of _sum, _max and the bucket bounds; null for a bare counter. */
  unit: SeriesUnit | null;
  /** Multiply a value in `unit` by this to get seconds. */
  toSeconds: number;
  /** The cumulative request count. */
  count: string;
  /** Cumulative time (in `unit`); null for a bare counter. */
  sum: string | null;
  /** A max over a recent window (Micrometer's), when the convention has one. */
  max: string | null;
  /** Histogram buckets (`le` label), when the convention has them. */
  bucket: string | null;
  labels: Record<string, string>;
  /** Multiply a bucket bound (`le`, in `unit`) by this to get milliseconds. */
  toMs: number;
  /** True when the unit came from the config, not from the preset. */
  unitDeclared: boolean;
  /** The label that names a route (the config's, else the convention's: uri, http_route); null when none. */
  routeLabel: string | null;
  /** The mix's names to values of routeLabel (metrics.requests.routes). */
  routes: Record<string, string>;
}

const PRESETS: Record<
  RequestPreset,
  { name: string; unit: SeriesUnit | null; max: boolean; histogram: boolean; routeLabel: string | null }
> = {
  spring: { name: 'http_server_requests_seconds', unit: 'seconds', max: true, histogram: true, routeLabel: 'uri' },
  otel: {
    name: 'http_server_request_duration_seconds',
    unit: 'seconds',
    max: false,
    histogram: true,
    routeLabel: 'http_route',
  },
  'prometheus-client': {
    name: 'http_request_duration_seconds',
    unit: 'seconds',
    max: false,
    histogram: true,
    routeLabel: null,
  },
  envoy: { name: 'envoy_http_downstream_rq_time', unit: 'milliseconds', max: false, histogram: true, routeLabel: null },
  nginx: { name: 'nginx_http_requests_total', unit: null, max: false, histogram: false, routeLabel: null },
};

export const REQUEST_PRESETS = Object.keys(PRESETS) as RequestPreset[];

export function requestSeriesOf(c: RequestSeriesConfig | undefined): RequestSeries {
  const preset = c?.preset ?? 'spring';
  const p = PRESETS[preset];
  const name = c?.name ?? p.name;
  const unit = p.unit === null ? null : (c?.unit ?? p.unit);
  const timed = unit !== null;
  return {
    preset,
    name,
    unit,
    toSeconds: unit === 'milliseconds' ? 0.001 : 1,
    count: timed ? `${name}_count` : name,
    sum: timed ? `${name}_sum` : null,
    max: timed && p.max ? `${name}_max` : null,
    bucket: timed && p.histogram ? `${name}_bucket` : null,
    labels: c?.labels ?? {},
    toMs: unit === 'milliseconds' ? 1 : 1000,
    unitDeclared: p.unit !== null && c?.unit !== undefined,
    routeLabel: c?.routeLabel ?? p.routeLabel,
    routes: c?.routes ?? {},
  };
}

/** The series each preset reads first (its count), for telling the user which preset a target's names fit. */
export function presetCountNames(): { preset: RequestPreset; count: string }[] {
  return REQUEST_PRESETS.map((preset) => ({ preset, count: requestSeriesOf({ preset }).count }));
}

/** "spring (http_server_requests_seconds, seconds)": which series and unit the report used. */
export function requestSeriesText(s: RequestSeries): string {
  return `${s.preset} (${s.name}${s.unit ? `, ${s.unit}` : `, ${COUNTER_ONLY}`})`;
}

const COUNTER_ONLY = 'a request counter: throughput only';

/** True for requestSeriesText of a bare request counter (nginx): the report compares no latency. */
export function isCounterOnly(text: string | undefined): boolean {
  return text !== undefined && text.includes(COUNTER_ONLY);
}
