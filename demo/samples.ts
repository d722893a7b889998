/**
 * The demo's own gauges and counters beside the request timers: its pool under HikariCP's names
 * (so a pool reading works as against a Spring service), its work counters, the SQL statements
 * it ran by kind (its downstream: statements.ts), and its truths
 * (capacities, replicas, the cold multiplier) for tests and reports to check against.
 */
import type { Sample } from './metrics.ts';
import type { Pool } from './pool.ts';
import { STATEMENT_KINDS, type StatementCountsByKind } from './statements.ts';

export interface DemoReadings {
  pool: Pool;
  counters: { writes: number; idempotentHits: number; reads: number; confirms: number; acquireTimeouts: number };
  /** SQL statements executed against the database so far, by kind. */
  sqlStatements: StatementCountsByKind;
  capacityPerSec: number;
  mixArrivalsPerSec: number;
  replicas: number;
  coldFactor: number;
}

export function demoSamples(r: DemoReadings): Sample[] {
  const pl: Array<[string, string]> = [['pool', 'demo']];
  const { pool, counters } = r;
  const gauge = (name: string, help: string, value: number, labels?: Array<[string, string]>): Sample => ({
    name,
    help,
    type: 'gauge',
    value,
    ...(labels ? { labels } : {}),
  });
  const counter = (name: string, help: string, value: number, labels?: Array<[string, string]>): Sample => ({
    ...gauge(name, help, value, labels),
    type: 'counter',
  });
  return [
    gauge('hikaricp_connections_active', 'Active connections', pool.active, pl),
    gauge('hikaricp_connections_pending', 'Pending threads', pool.pending, pl),
    gauge('hikaricp_connections_idle', 'Idle connections', pool.max - pool.active, pl),
    gauge('hikaricp_connections_max', 'Max connections', pool.max, pl),
    counter('hikaricp_connections_timeout_total', 'Connection timeout total count', counters.acquireTimeouts, pl),
    counter(
      'demo_pool_busy_seconds_total',
      "Slot-seconds the pool's leases held, counted as each ends: its rate is the mean number of busy slots",
      pool.busySeconds,
    ),
    counter('demo_writes_total', 'Orders written', counters.writes),
    counter('demo_idempotent_hits_total', 'Orders answered from the idempotency table', counters.idempotentHits),
    counter('demo_reads_total', 'Orders read', counters.reads),
    counter('demo_confirms_total', 'Orders confirmed', counters.confirms),
    ...STATEMENT_KINDS.map((kind) =>
      counter(
        'demo_sql_statements_total',
        'SQL statements executed against the SQLite database, by kind (transaction control not counted)',
        r.sqlStatements[kind],
        [['kind', kind]],
      ),
    ),
    gauge(
      'demo_capacity_per_sec',
      'Theoretical capacity of writes alone: max over n <= slots of n / heldMs(n) * 1000',
      r.capacityPerSec,
    ),
    gauge(
      'demo_mix_capacity_arrivals_per_sec',
      "Theoretical capacity for demo/scenario.ts's mix: slots / mean pool hold per arrival * 1000",
      r.mixArrivalsPerSec,
    ),
    gauge('demo_replicas', 'Replicas serving the demo (each with its own pool)', r.replicas),
    gauge('demo_cold_factor', 'The hold multiplier of the cold start now (1 once warm)', r.coldFactor),
  ];
}
