import { describe, expect, it } from 'vitest';
import { generatorFix } from './generator-fix.ts';
import { waitedOnTargetText } from './verdicts.ts';
import { stepResult } from './testing/builders.ts';

// a review: the gate read "allow more VUs" for a knee held generator-limited by a stall, whose
// drops were the target's (decision 046): more VUs would only queue more requests at the target
describe("the generator's fix reads the generator's own symptom, not drops that were the target's", () => {
  it.each([
    [
      'VU drops the target caused, and a stall: the stall',
      { dropped: 250, waitedOnTarget: true, loopDelayMaxMs: 300, generatorBusy: 0.12 },
      'run the generator on a machine of its own or a quieter one: its threads were mostly idle, so it was stalled, not short of CPU',
    ],
    [
      'VU drops the target caused beside drops on a saturated thread: cores',
      { dropped: 300, droppedBusy: 50, waitedOnTarget: true, generatorBusy: 0.95 },
      'give the generator more cores or workers (--workers), or a machine of its own',
    ],
    [
      // its VUs were held by its own queue (a one-thread generator at 100% against nginx, 12-08)
      'VU drops while the generator was saturated: cores, not VUs',
      { dropped: 28_351, generatorBusy: 0.98, generatorSaturated: true as const, vusAllocatedMax: 10_000 },
      'give the generator more cores or workers (--workers), or a machine of its own',
    ],
    [
      'VU drops of its own: more VUs',
      { dropped: 250, generatorBusy: 0.12, vusAllocatedMax: 100 },
      'allow more VUs (vus.max and verdicts.maxVUsBound; 100 were allocated)',
    ],
  ])('%s', (_, over, fix) => {
    expect(generatorFix(stepResult(over))).toBe(fix);
  });

  it("counts as the target's only the drops for want of a VU, not those on a saturated thread", () => {
    const s = stepResult({ dropped: 300, droppedBusy: 50, vusAllocatedMax: 64 });
    expect(waitedOnTargetText(s, 'the tail grew')).toMatch(
      /^250 arrivals dropped \(no free VU; 64 allocated\), but the tail grew/,
    );
  });
});
