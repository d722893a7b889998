/**
 * The `metrics` section of the config: the target's Prometheus endpoint (or a Prometheus server),
 * read at every steady window's edges.
 */
import { z } from 'zod';
import { about, nonEmpty, nonNegative, positive, positiveInt, text } from './field-kinds.ts';

const labels = (what: string) => z.record(z.string(), z.string()).meta(about(what)).default({});
const names = (what: string) => z.array(z.string().min(1)).meta(about(what)).default([]);

export const metricsSection = z
  .strictObject({
    url: nonEmpty(
      "the target's own endpoint, read directly; optional when `prometheus` is given",
      'http://127.0.0.1:8080/actuator/prometheus',
    ).optional(),
    prometheus: z
      .strictObject({
        url: z
          .url({ error: 'must be the Prometheus server, e.g. http://127.0.0.1:9090' })
          .meta(about('the Prometheus server', 'http://127.0.0.1:9090')),
        settleS: nonNegative('seconds to wait after the last step so that Prometheus has scraped its end').default(3),
      })
      .describe('a Prometheus server that scrapes the target: each steady window is also read through PromQL')
      .optional(),
    series: names('metric family names that must be present, e.g. http_server_requests_seconds_count'),
    scrapeEveryS: positiveInt(
      "seconds between readings for the run's time series; the window edges are read in any case",
    ).default(5),
    requests: z
      .strictObject({
        preset: z
          .enum(['spring', 'otel', 'prometheus-client', 'envoy', 'nginx'])
          .meta(
            about(
              "the request series' naming convention: spring (Micrometer's http_server_requests_seconds), otel (http_server_request_duration_seconds), prometheus-client (http_request_duration_seconds), envoy (envoy_http_downstream_rq_time, ms), nginx (a bare request counter: throughput only)",
            ),
          )
          .default('spring'),
        name: text(
          "the series' base name when it is not the preset's: <name>_count, <name>_sum, and <name>_bucket or <name>_max when present",
          'http_server_requests_seconds',
        ).optional(),
        unit: z
          .enum(['seconds', 'milliseconds'])
          .meta(about("the unit of the series' _sum and bucket bounds when it is not the preset's"))
          .optional(),
        labels: labels('labels the request series must carry'),
        routeLabel: text(
          "the label that names a route (Spring: uri, OpenTelemetry: http_route): with `routes`, each of the mix's names gets its own cross-check",
          'uri',
        ).optional(),
        routes: z
          .record(z.string(), z.string())
          .meta(about("the mix's names to values of routeLabel", { 'read order': '/orders/{id}' }))
          .optional(),
      })
      .describe('the request series, filtered by labels')
      .default({ preset: 'spring', labels: {} }),
    downstreams: z
      .array(
        z.strictObject({
          name: nonEmpty('what the downstream is called in the report', 'redis'),
          ops: nonEmpty("a counter of the downstream's operations", 'redis_commands_processed_total'),
          labels: labels('labels the ops (and saturation) series must carry'),
          splitBy: text(
            'a label whose values share the ops (instance, shard, addr): per-value shares and a hot-shard warning',
            'instance',
          ).optional(),
          saturation: text(
            'a gauge that grows when the downstream is saturated (a queue, blocked clients)',
            'redis_blocked_clients',
          ).optional(),
          latency: text(
            'the base name of a histogram or summary of per-operation time, in seconds (<name>_sum, <name>_count)',
            'app_redis_call_seconds',
          ).optional(),
          maxOpsPerSec: positive("the downstream's known ceiling in operations per second", 100_000).optional(),
        }),
      )
      .meta(
        about(
          'downstreams the target calls: ops/s and ops per successful request per step, and which one is the limit at the knee on its own evidence',
        ),
      )
      .default([]),
    pool: z
      .strictObject({
        active: text('gauge of connections in use').default('hikaricp_connections_active'),
        pending: text('gauge of callers waiting for a connection').default('hikaricp_connections_pending'),
        max: text('gauge of the pool size').default('hikaricp_connections_max'),
        labels: labels('labels the pool series must carry'),
      })
      .describe('connection-pool gauges (HikariCP names by default; R2DBC: r2dbc_pool_acquired_connections, ...)')
      .default({
        active: 'hikaricp_connections_active',
        pending: 'hikaricp_connections_pending',
        max: 'hikaricp_connections_max',
        labels: {},
      }),
    gauges: names('any other gauges to record and chart'),
  })
  .describe("the target's Prometheus endpoint (e.g. /actuator/prometheus), read at every steady window's edges");
