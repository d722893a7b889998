import { describe, expect, it } from 'vitest';
import { gaugesOf, SERVER_RATE_MIN_S } from './series.ts';

const scrape = (tS: number, requestsCount: number, poolActive = 1) => ({
  kind: 'scrape',
  phase: 'steps',
  tS,
  requestsCount,
  poolActive,
});
const serverRate = (readings: ReturnType<typeof scrape>[]) =>
  gaugesOf(readings)
    .find((g) => g.name === 'server req/s')
    ?.points.map((p) => [p.tS, Math.round(p.value)]);

describe("the server's throughput from its request counter", () => {
  it('is read over at least SERVER_RATE_MIN_S: a reading milliseconds after another is no spike', () => {
    expect(SERVER_RATE_MIN_S).toBe(0.5);
    // 500 req/s throughout; the demo's run of 12-05 had readings at 105.007 and 105.022 s
    const r = serverRate([scrape(103, 0), scrape(105, 1000), scrape(105.015, 1010), scrape(107, 2000)]);
    // 105.015 is read against 103 (1,010 in 2.015 s), 107 against 105.015 (990 in 1.985 s)
    expect(r).toEqual([
      [105, 500],
      [105.015, 501],
      [107, 499],
    ]);
  });

  it('reads nothing across a counter that went back (a restarted server) and resumes after it', () => {
    expect(serverRate([scrape(1, 5000), scrape(2, 5500), scrape(3, 100), scrape(4, 600)])).toEqual([
      [2, 500],
      [4, 500],
    ]);
  });

  it('keeps the gauges first, in the order first seen, then the server rate', () => {
    expect(gaugesOf([scrape(1, 0), scrape(2, 100)]).map((g) => g.name)).toEqual(['pool active', 'server req/s']);
  });
});
