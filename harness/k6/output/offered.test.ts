import { describe, expect, it } from 'vitest';
import { offerSpread } from './offered.ts';
import { ingestLines } from './ingest.ts';

async function* once(lines: string[]) {
  yield lines;
}

describe('offered arrivals at whole-second timestamps', () => {
  it('each arrival is shared by the seconds its span overlaps, and its span counted by where it starts, to a quarter second', () => {
    const out: number[] = [];
    const phases: number[] = [];
    // spans from 2.3 s (a quarter: 2.25), 2.9 s (the next second's start) and 4.0 s, t0 at 0
    offerSpread(out, 0, 2300, 1, phases);
    offerSpread(out, 0, 2900, 2, phases);
    offerSpread(out, 0, 4000, 3, phases);
    expect(out.map((v) => Math.round(v * 100) / 100)).toEqual([0, 0, 0.9, 2.1, 3]);
    expect(phases).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 2, 0, 0, 0, 3]);
  });

  it('a drop stamped S happened in [S, S + 1 s), which a t0 off the whole second (--t0) shares as it does an iteration', async () => {
    const head =
      'metric_name,timestamp,metric_value,check,error,error_code,expected_response,group,method,name,proto,scenario,service,status,subproto,tls_version,url,extra_tags,metadata';
    const row = (metric: string, s: number, value: number) =>
      `${metric},${1795971160 + s},${value.toFixed(6)},,,,,,,,,steps,,,,,,,`;
    // t0 given 0.4 s into a second: 4 drops stamped 3 lie in [2.6, 3.6) s of the series
    const lines = [head, row('vus', 1, 1), row('dropped_iterations', 3, 4)];
    const t0Ms = 1795971160400;
    const { stats } = await ingestLines(once(lines), { source: 'k6', phase: 'steps', lateS: 5, t0Ms, sink: () => {} });
    expect(stats.wholeSeconds).toBe(true);
    expect(stats.offeredPerS.map((v) => Math.round(v * 100) / 100)).toEqual([0, 0, 1.6, 2.4]);
    // their span starts 0.6 s into second 2: counted there at phase 2 (2.5 s, the nearest quarter)
    expect(stats.offeredPhases).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4]);
  });
});
