import { describe, expect, it } from 'vitest';
import { backgroundFit } from './downstream-background.ts';

const at = (pairs: [number, number][]) => pairs.map(([perSec, opsPerSec]) => ({ perSec, opsPerSec }));

describe('backgroundFit: a constant background of ops explains a fan-out that falls with the rate', () => {
  it.each<[string, [number, number][], { b: number; k: number } | null]>([
    // seen: 2.5 calls per request and Redis's exporter's ~6 ops/s, at 10, 50 and 90 req/s
    [
      'the exporter beside a fixed 2.5 calls',
      [
        [10, 31],
        [50, 129],
        [90, 226],
      ],
      { b: 386 / 3 - 121.875, k: 2.4375 },
    ],
    [
      'two steps: the line through both',
      [
        [10, 31],
        [50, 129.5],
      ],
      { b: 6.375, k: 2.4625 },
    ],
    [
      'no background: the fan-out did not fall',
      [
        [100, 250],
        [200, 500],
      ],
      null,
    ],
    [
      'a fan-out that rose with the rate: no background makes that',
      [
        [100, 250],
        [200, 600],
      ],
      null,
    ],
    [
      'off the line by more than 5% (the fan-out moved for another cause)',
      [
        [100, 1600],
        [200, 3300],
        [300, 3600],
      ],
      null,
    ],
    ['one step: nothing to fit', [[100, 250]], null],
    [
      'one rate twice: no slope',
      [
        [100, 250],
        [100, 260],
      ],
      null,
    ],
  ])('%s', (_, pairs, want) => {
    const fit = backgroundFit(at(pairs));
    if (want === null) expect(fit).toBeNull();
    else {
      expect(fit!.backgroundOpsPerSec).toBeCloseTo(want.b, 9);
      expect(fit!.opsPerRequest).toBeCloseTo(want.k, 9);
    }
  });
});
