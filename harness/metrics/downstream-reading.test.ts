import { describe, expect, it } from 'vitest';
import type { DownstreamConfig } from '../../analysis/types.ts';
import { downstreamReadings } from './downstream-reading.ts';
import { parsePromText } from './prom-text.ts';

const TEXT = `
redis_commands_processed_total{instance="a:6379"} 1000
redis_commands_processed_total{instance="b:6379"} 250
redis_commands_processed_total{instance="c:6379",role="replica"} 50
redis_blocked_clients{instance="a:6379"} 3
redis_blocked_clients{instance="b:6379"} 1
app_redis_call_seconds_sum 1.5
app_redis_call_seconds_count 1300
broken_total NaN
`;
const p = parsePromText(TEXT);

const read = (d: DownstreamConfig) => {
  const problems: string[] = [];
  const r = downstreamReadings([d], p, problems)[d.name];
  return { r, problems };
};

describe('downstreamReadings', () => {
  it.each([
    [
      'ops summed over every series, by instance, saturation and latency',
      {
        name: 'redis',
        ops: 'redis_commands_processed_total',
        splitBy: 'instance',
        saturation: 'redis_blocked_clients',
        latency: 'app_redis_call_seconds',
      },
      {
        ops: 1300,
        byLabel: { 'a:6379': 1000, 'b:6379': 250, 'c:6379': 50 },
        saturation: 4,
        latencySumS: 1.5,
        latencyCount: 1300,
      },
    ],
    [
      'labels filter the ops and the saturation',
      {
        name: 'redis',
        ops: 'redis_commands_processed_total',
        labels: { instance: 'b:6379' },
        saturation: 'redis_blocked_clients',
      },
      { ops: 250, saturation: 1 },
    ],
    [
      'a series without the splitBy label is counted under (none)',
      { name: 'redis', ops: 'redis_commands_processed_total', splitBy: 'role' },
      { ops: 1300, byLabel: { '(none)': 1250, replica: 50 } },
    ],
  ] as [string, DownstreamConfig, object][])('%s', (_, d, want) => {
    const { r, problems } = read(d);
    expect(r).toEqual(want);
    expect(problems).toEqual([]);
  });

  it.each([
    [
      'a name the endpoint does not have',
      { name: 'sql', ops: 'mysql_global_status_questions' },
      /downstream sql: no series named mysql_global_status_questions .*metrics\.downstreams\[0\]\.ops/,
    ],
    [
      'labels that match none of the series',
      { name: 'redis', ops: 'redis_commands_processed_total', labels: { instance: 'z' } },
      /downstream redis: redis_commands_processed_total\{instance="z"\} matches none of its 3 series: fix the labels of metrics\.downstreams\[0\]\.labels/,
    ],
    [
      'a sample that is not a number',
      { name: 'b', ops: 'broken_total' },
      /downstream b: broken_total reads NaN \(not a number\)/,
    ],
    [
      'a splitBy label no series carries',
      { name: 'redis', ops: 'redis_commands_processed_total', splitBy: 'shard' },
      /no series of redis_commands_processed_total carries the label shard: set metrics\.downstreams\[0\]\.splitBy/,
    ],
  ] as [string, DownstreamConfig, RegExp][])('%s: a problem line naming the fix, the figure null', (_, d, line) => {
    const { r, problems } = read(d);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(line);
    if (!d.splitBy) expect(r.ops).toBeNull();
  });

  it('appends to the problems already found in the reading', () => {
    const problems = ['histogram without +Inf'];
    downstreamReadings([{ name: 'x', ops: 'nope_total' }], p, problems);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toBe('histogram without +Inf');
  });
});
