import { describe, expect, it } from 'vitest';
import { requestSeriesOf } from '../../analysis/request-series.ts';
import {
  familyOf,
  lookAlike,
  metricNames,
  presetsExposed,
  UNIT_FLOOR_S,
  unitMeanProblem,
  unitNameProblem,
  poolGaugesMissing,
} from './metrics-check.ts';

const OTEL_ENDPOINT = metricNames(`# TYPE http_server_request_duration_seconds histogram
http_server_request_duration_seconds_bucket{le="0.005"} 1
http_server_request_duration_seconds_bucket{le="+Inf"} 2
http_server_request_duration_seconds_count 2
http_server_request_duration_seconds_sum 0.01
http_server_active_requests 0
process_cpu_seconds_total 1.5
hikaricp_connections_pending{pool="a"} 0
jvm_memory_used_bytes 100
`);

describe('the unit rule: a millisecond series read as seconds is refused', () => {
  const seconds = requestSeriesOf({ preset: 'otel' });

  it("refuses the issue's case: a mean over 1000 s for a target whose samples answered in 2 ms", () => {
    // the target really takes 1.2 s per request on average (heavy endpoints), its series in ms read as s
    const p = unitMeanProblem(seconds, 1200, 2);
    expect(p!.problem).toMatch(/reads a mean of 1200 s per request .* sample requests took 2\.0 ms/);
    expect(p!.fix).toMatch(/metrics\.requests\.unit: 'milliseconds'/);
  });

  it('refuses a 15 ms target misread (15 s) whose samples took 20 ms', () => {
    expect(unitMeanProblem(seconds, 15, 20)).not.toBeNull();
  });

  it('never refuses an honest slow target (its samples are slow too), nor a mean under the floor, nor nothing counted', () => {
    expect(unitMeanProblem(seconds, 30, 20_000)).toBeNull(); // 30 s per request, the sample took 20 s
    expect(unitMeanProblem(seconds, 400, 1_000)).toBeNull(); // long polls of 400 s, a sample of 1 s: 400 x
    expect(unitMeanProblem(seconds, UNIT_FLOOR_S - 0.1, 0.2)).toBeNull(); // a heavy mean of 9.9 s, a 0.2 ms sample
    expect(unitMeanProblem(seconds, null, 1)).toBeNull();
    // read in milliseconds already: a large mean is not this rule's business
    expect(unitMeanProblem(requestSeriesOf({ preset: 'envoy' }), 1200, 2)).toBeNull();
  });

  it('refuses a name that says milliseconds read as seconds, unless the unit was set explicitly', () => {
    const ms = requestSeriesOf({ preset: 'otel', name: 'http_server_duration_milliseconds' });
    expect(unitNameProblem(ms)).toEqual({
      problem:
        'the request series http_server_duration_milliseconds is named in milliseconds but the otel preset reads it in seconds: every server figure would be 1000 x too large',
      fix: "set metrics.requests.unit: 'milliseconds' (or the preset whose names these are)",
    });
    expect(unitNameProblem(requestSeriesOf({ preset: 'envoy', name: 'rq_time_seconds' }))!.fix).toMatch(
      /unit: 'seconds'/,
    );
    expect(
      unitNameProblem(requestSeriesOf({ preset: 'otel', name: 'http_server_duration_milliseconds', unit: 'seconds' })),
    ).toBeNull();
    expect(unitNameProblem(requestSeriesOf({ preset: 'envoy' }))).toBeNull();
    expect(unitNameProblem(requestSeriesOf({ preset: 'nginx' }))).toBeNull();
  });
});

describe('look-alike families of a missing series', () => {
  it("lists the OTel family for Spring's name, with its suffixes, and not the unrelated ones", () => {
    expect(lookAlike('http_server_requests_seconds_count', OTEL_ENDPOINT)).toEqual([
      'http_server_request_duration_seconds (_bucket, _count, _sum)',
      'http_server_active_requests',
    ]);
  });

  it('finds a typo, the same words in another order; nothing for a name like none of them', () => {
    expect(lookAlike('hikaricp_connection_pending', OTEL_ENDPOINT)).toEqual(['hikaricp_connections_pending']);
    // R2DBC's pool gauge where HikariCP's is exposed: the same words, another pool
    expect(lookAlike('r2dbc_pool_pending_connections', OTEL_ENDPOINT)).toEqual(['hikaricp_connections_pending']);
    expect(lookAlike('redis_blocked_clients', OTEL_ENDPOINT)).toEqual([]);
  });

  it('tells the preset the endpoint fits, and the family of a name', () => {
    expect(presetsExposed(OTEL_ENDPOINT)).toEqual(['otel']);
    expect(familyOf('x_seconds_bucket')).toBe('x_seconds');
    expect(familyOf('_count')).toBe('_count');
  });
});

describe('pool gauges: a name the endpoint lacks beside one it has', () => {
  const HIKARI = {
    active: 'hikaricp_connections_active',
    pending: 'hikaricp_connections_pending',
    max: 'hikaricp_connections_max',
  };
  it.each<[string, typeof HIKARI, string[], string[]]>([
    ['all three there', HIKARI, Object.values(HIKARI), []],
    ['none there: no pool (the HikariCP defaults on another target)', HIKARI, ['http_requests_total'], []],
    ['active misspelt', { ...HIKARI, active: 'hikaricp_connection_active' }, Object.values(HIKARI), ['active']],
    ['two missing', HIKARI, ['hikaricp_connections_max'], ['active', 'pending']],
  ])('%s', (_, pool, present, missing) => {
    expect(poolGaugesMissing(pool, new Set(present))).toEqual(missing);
  });
});
