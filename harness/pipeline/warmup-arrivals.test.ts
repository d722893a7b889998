import { describe, expect, it } from 'vitest';
import { buildPlan } from '../../analysis/plan.ts';
import { Schedule } from '../../analysis/schedule.ts';
import { parseConfigOrThrow } from '../config/validate.ts';
import { uniqueRowsProblem } from '../scenario/data-load.ts';
import type { LoadedSource } from '../scenario/context.ts';
import { maxArrivalsWithReruns, maxPlannedArrivals, warmupRuns } from './warmup.ts';

const config = (extra: Record<string, unknown>) =>
  parseConfigOrThrow({
    target: { url: 'http://127.0.0.1:8080/orders' },
    steps: { startPerSec: 10, stepPerSec: 10, maxPerSec: 30, rampS: 2, holdS: 10 },
    warmup: { ratePerSec: 20, maxS: 30 },
    ...extra,
  });

describe('the arrivals a plan can make count the warmup only when one runs', () => {
  it.each<[string, Record<string, unknown>, number]>([
    ['enabled, native engine: its 1 s ramp and maxS at its rate', {}, 20 * 31],
    ['disabled', { warmup: { ratePerSec: 20, maxS: 30, enabled: false } }, 0],
    ['on k6, which has no warmup stage', { engine: 'k6' }, 0],
  ])('%s', (_, extra, warmupArrivals) => {
    const c = config(extra);
    const plan = buildPlan(c);
    expect(warmupRuns(c)).toBe(warmupArrivals > 0);
    expect(maxPlannedArrivals(c, plan)).toBe(new Schedule(plan.segments).totalArrivals + warmupArrivals);
  });

  it('a unique source with rows for the steps and their reruns is enough when the warmup is disabled', () => {
    const c = config({ warmup: { maxS: 30, enabled: false } });
    const needed = maxArrivalsWithReruns(c, buildPlan(c));
    const src = (usable: number): Record<string, LoadedSource> => ({
      u: { rows: Array.from({ length: usable + 1 }, () => ({})), order: 'unique', file: 'u.csv', usable },
    });
    expect(uniqueRowsProblem(src(needed), needed, warmupRuns(c), { entries: [] })).toBeNull();
    const short = uniqueRowsProblem(src(needed - 1), needed, warmupRuns(c), { entries: [] })!;
    expect(short.message).not.toMatch(/warmup/);
    expect(short.hint).toMatch(
      /^add at least 1 row, lower the plan \(steps\.maxPerSec or --max-rate, steps\.holdS or --hold\), or/,
    );
  });
});
