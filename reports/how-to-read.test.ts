import { describe, expect, it } from 'vitest';
import { fakeRun } from '../analysis/testing/builders.ts';
import { howToReadTerms } from './how-to-read.ts';
import { renderMarkdown } from './markdown.ts';

/** Steps 100, 200, 300, 400 offered, achieving `okPerSec`. */
function runOf(okPerSec: number[]) {
  return fakeRun({
    steps: okPerSec.map((ok, i) => ({ ratePerSec: 100 * (i + 1), okPerSec: ok })),
    holdS: 12,
    rampS: 1,
  });
}

const NEGATIVE =
  'A capture below 0 (step 4) is kept as measured: throughput fell as the offered rate rose, a sign of overload past the knee.';

describe("how to read: Capture's entry", () => {
  it.each<[string, number[], number | null, boolean]>([
    ['throughput kept following the rate', [100, 200, 300, 400], 1, false],
    ['throughput flat past the knee: capture 0, not below it', [100, 200, 300, 300], 0, false],
    ['throughput fell as the rate rose: capture below 0', [100, 200, 300, 290], -0.1, true],
  ])('%s', (_, okPerSec, lastCapture, said) => {
    const run = runOf(okPerSec);
    expect(run.steps.at(-1)!.capture).toBeCloseTo(lastCapture!, 6);
    const capture = howToReadTerms(run).find((t) => t.term === 'Capture')!;
    expect(capture.meaning.includes(NEGATIVE)).toBe(said);
    expect(renderMarkdown(run).includes(NEGATIVE)).toBe(said);
  });

  it('names every step whose capture fell below 0, each once', () => {
    const run = runOf([100, 200, 300, 290, 280]);
    expect(howToReadTerms(run).find((t) => t.term === 'Capture')!.meaning).toContain(
      'A capture below 0 (steps 4 and 5) is kept as measured',
    );
  });
});
