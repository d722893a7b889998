/**
 * The `metrics` section of the config: the target's Prometheus endpoint (or a Prometheus server),
 * read at every steady window's edges.
 */
import { z } from 'zod';
import { about, nonEmpty, nonNegative, positiveInt, text } from './field-kinds.ts';

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
        name: text('the timer: <name>_count, <name>_sum (s) and <name>_max (s)').default(
          'http_server_requests_seconds',
        ),
        labels: labels('labels the timer series must carry'),
      })
      .describe('the request timer, filtered by labels')
      .default({ name: 'http_server_requests_seconds', labels: {} }),
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
