import { describe, expect, it } from 'vitest';
import { confirmedOverloadShape, overloadShape } from './overload-shape.ts';
import { stepWithP99 as step } from './testing/builders.ts';

describe('overloadShape', () => {
  const knee = step({ index: 3, ratePerSec: 400, throughputPerSec: 398 });
  it.each([
    ['plateau', step({ index: 4, ratePerSec: 450, throughputPerSec: 401, verdict: 'fails' })],
    ['collapse', step({ index: 4, ratePerSec: 450, throughputPerSec: 300, verdict: 'fails' })],
    [
      'errors',
      step({
        index: 4,
        ratePerSec: 450,
        throughputPerSec: 300,
        errorRate: 0.3,
        errors: { http_5xx: 600 },
        verdict: 'fails',
      }),
    ],
    ['generator-bound', step({ index: 4, ratePerSec: 450, generatorBound: true, verdict: 'fails' })],
  ] as const)('%s', (shape, bad) => {
    const o = overloadShape(knee, bad);
    expect(o.shape).toBe(shape);
    expect(o.meaning.length).toBeGreaterThan(20);
  });
  it('none when nothing failed', () => expect(overloadShape(knee, null).shape).toBe('none'));
  it('successes counted as a lower bound: a collapse only where even every completion is under the best before', () => {
    // 112 ok of 125 completed: the failed requests, not a fall of what was served (pre60-reject: 130 exact)
    const bounded = step({ index: 4, ratePerSec: 150, throughputPerSec: 112, completedPerSec: 125, verdict: 'fails' });
    const best = step({ index: 3, ratePerSec: 120, throughputPerSec: 120 });
    expect(overloadShape(best, bounded, best).shape).toBe('collapse');
    expect(overloadShape(best, bounded, best, 'arrivals/s', true).shape).toBe('plateau');
    const fell = { ...bounded, throughputPerSec: 60, completedPerSec: 70 };
    expect(overloadShape(best, fell, best, 'arrivals/s', true)).toMatchObject({
      shape: 'collapse',
      evidence:
        'throughput fell from at least 120.0 arrivals/s (at 120 offered) to at most 70.0 arrivals/s at 150 offered (its completions)',
    });
  });
  it("a confirmed failure's shape is its confirmation's, and a first attempt that read otherwise is said", () => {
    const knee89 = step({ index: 2, ratePerSec: 90, throughputPerSec: 89.3 });
    const stalled = step({ index: 3, ratePerSec: 120, throughputPerSec: 0.1, verdict: 'fails' });
    const confirmation = step({ index: 3, attempt: 2, ratePerSec: 120, throughputPerSec: 85.1, verdict: 'fails' });
    const o = confirmedOverloadShape(knee89, [stalled, confirmation], knee89);
    expect(o.shape).toBe('plateau');
    expect(o.evidence).toBe(
      'throughput 85.1 req/s at 120 offered vs 89.3 at the knee (attempt 2, which the run stopped on; attempt 1 read collapse: throughput fell from 89.3 req/s (at 90 offered) to 0.1 req/s at 120 offered)',
    );
    // attempts that agree: the confirmation's evidence alone
    const again = { ...stalled, attempt: 2, throughputPerSec: 0.2 };
    expect(confirmedOverloadShape(knee89, [stalled, again], knee89)).toEqual(overloadShape(knee89, again, knee89));
    expect(confirmedOverloadShape(knee89, [], knee89).shape).toBe('none');
  });
});
