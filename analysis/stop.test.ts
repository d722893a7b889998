import { describe, expect, it } from 'vitest';
import { summarizeStop } from './stop.ts';
import { DEFAULT_RULES, stepResult } from './testing/builders.ts';
import type { StepResult } from './types.ts';

/** A run whose second step failed because the generator could not drive it. */
function stopWith(bad: Partial<StepResult>) {
  const held = stepResult({ index: 0, ratePerSec: 100 });
  const failed = stepResult({
    index: 1,
    ratePerSec: 200,
    throughputPerSec: 150,
    delivery: 0.75,
    verdict: 'fails',
    generatorBound: true,
    reasons: ['generator-limited, not a server limit: ...'],
    ...bad,
  });
  return summarizeStop([held, failed], 4, false, DEFAULT_RULES);
}

describe('a generator-bound stop says what would let the generator keep up', () => {
  it('dropped arrivals: more VUs', () => {
    const s = stopWith({ dropped: 300, vusAllocatedMax: 64 });
    expect(s.stopReason).toBe('generator-bound');
    expect(s.stopDetail).toMatch(
      /cannot establish capacity; at least 100\.0 req\/s held\. To measure further, allow more VUs \(vus\.max and verdicts\.maxVUsBound; 64 were allocated\)$/,
    );
  });

  it('drops refused on a saturated thread (TLS): not more VUs', () => {
    expect(stopWith({ dropped: 300, droppedBusy: 300, generatorBusy: 0.92 }).stopDetail).toMatch(
      /To measure further, give the generator more cores or workers \(--workers\), or a machine of its own$/,
    );
    expect(stopWith({ dropped: 300, droppedBusy: 299, generatorBusy: 0.92 }).stopDetail).toMatch(/allow more VUs/);
  });

  it('late while mostly idle: a machine of its own', () => {
    expect(stopWith({ lagP99Ms: 40, generatorBusy: 0.45 }).stopDetail).toMatch(
      /To measure further, run the generator on a machine of its own: its threads were mostly idle/,
    );
  });

  it('late while busy, or not measured: more cores or workers', () => {
    expect(stopWith({ lagP99Ms: 40, generatorBusy: 0.95 }).stopDetail).toMatch(
      /To measure further, give the generator more cores or workers \(--workers\), or a machine of its own$/,
    );
    expect(stopWith({ generatorBusy: null, generatorCpu: 0.95 }).stopDetail).toMatch(
      /To measure further, give the generator more cores or a machine of its own \(k6 can split the plan over machines: k6.executionSegment\)$/,
    );
    expect(stopWith({ lagP99Ms: 40 }).stopDetail).toMatch(/more cores or workers/);
  });
});
