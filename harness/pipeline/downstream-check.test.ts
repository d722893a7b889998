import { describe, expect, it } from 'vitest';
import { validateConfig } from '../config/validate.ts';
import type { PlateauConfig } from '../config/schema.ts';
import { checkDownstreamsInText, downstreamSeries, stoppedLine } from './downstream-check.ts';

function config(downstreams: unknown[]): PlateauConfig {
  const r = validateConfig({
    target: { url: 'http://127.0.0.1:8080/orders' },
    steps: { startPerSec: 50, stepPerSec: 50, maxPerSec: 200, rampS: 1, holdS: 10 },
    metrics: { url: '/metrics', downstreams },
  });
  if (!r.config) throw new Error(JSON.stringify(r.problems));
  return r.config;
}

const TEXT = [
  '# TYPE demo_sql_statements_total counter',
  'demo_sql_statements_total{kind="select"} 12',
  'redis_blocked_clients 0',
  'app_redis_call_seconds_sum 0.5',
  'app_redis_call_seconds_count 100',
].join('\n');

describe('preflight of the declared downstreams', () => {
  it('passes when every series is on the endpoint', () => {
    const c = config([
      { name: 'sql', ops: 'demo_sql_statements_total' },
      {
        name: 'redis',
        ops: 'demo_sql_statements_total',
        saturation: 'redis_blocked_clients',
        latency: 'app_redis_call_seconds',
      },
    ]);
    expect(checkDownstreamsInText(c, 'http://x/metrics', TEXT)).toBe('downstream series present: sql, redis');
  });

  it('refuses a missing series, naming it, its downstream and the look-alikes, with the fix', () => {
    const c = config([{ name: 'sql', ops: 'demo_sql_statement_total', latency: 'app_redis_call' }]);
    let err: Error | undefined;
    try {
      checkDownstreamsInText(c, 'http://x/metrics', TEXT);
    } catch (e) {
      err = e as Error;
    }
    expect(err?.message).toMatch(
      /has no demo_sql_statement_total \(downstream sql\), app_redis_call_sum \(downstream sql\)/,
    );
    expect(err?.message).toMatch(/look alike: .*demo_sql_statements \(_total\)/);
    expect((err as Error & { hint: string }).hint).toMatch(
      /correct the name in metrics\.downstreams.*metrics\.prometheus/,
    );
  });

  it('says nothing without downstreams', () => {
    expect(checkDownstreamsInText(config([]), 'http://x/metrics', TEXT)).toBeNull();
  });

  it('reads the latency as its _sum and _count', () => {
    expect(downstreamSeries({ name: 'r', ops: 'o', labels: {}, latency: 'l' }).map((s) => s.name)).toEqual([
      'o',
      'l_sum',
      'l_count',
    ]);
  });
});

/** One series scraped every `everyS` from 0 to `lastS` (seconds, as epoch ms). */
const scraped = (everyS: number, lastS: number) => [
  {
    labels: {},
    samples: Array.from({ length: lastS / everyS + 1 }, (_, k): [number, number] => [k * everyS * 1000, k]),
  },
];

describe('stoppedLine: an exporter whose scrapes stopped, though its samples are inside the last five minutes', () => {
  it.each<[string, number, number, number, string | null]>([
    ['scraped every 1 s, the newest 2 s old: live', 1, 100, 102, null],
    ['scraped every 1 s, the newest 10 s old: live (10 s at the least)', 1, 100, 110, null],
    ['scraped every 1 s, the newest 30 s old: stopped', 1, 100, 130, 'stopped scraping x 30 s ago, every 1.0 s before'],
    ['scraped every 15 s, the newest 40 s old: live (3 intervals)', 15, 90, 130, null],
    [
      'scraped every 15 s, the newest 50 s old: stopped',
      15,
      90,
      140,
      'stopped scraping x 50 s ago, every 15.0 s before',
    ],
  ])('%s', (_, everyS, lastS, nowS, line) => {
    expect(stoppedLine(scraped(everyS, lastS), nowS * 1000, 'x')).toBe(line);
  });

  it('a single sample has no interval to judge by: not said', () => {
    expect(stoppedLine([{ labels: {}, samples: [[0, 1]] }], 200_000, 'x')).toBeNull();
  });
});
