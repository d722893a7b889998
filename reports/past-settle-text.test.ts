import { describe, expect, it } from 'vitest';
import { warningTexts } from './warning-text.ts';
import { warningsBrief } from './warnings-brief.ts';
import { stepResult } from '../analysis/testing/builders.ts';
import type { Symptom } from '../analysis/types.ts';

describe('a transaction longer than its steps settled, in words', () => {
  const w: Symptom = {
    code: 'transaction-past-settle',
    step: null,
    figures: { name: 'session', steps: [1, 2], p50Ms: 6100, settleS: 3, settleToSet: 10 },
  };
  const steps = [0, 1, 2].map((index) => stepResult({ index }));
  it('says what the window counted and the settle to set; an import, the stages to hold longer', () => {
    expect(warningTexts({ steps, warnings: [w], traffic: undefined })).toEqual([
      'transaction "session" took a median of up to 6.1 s in steps 2 and 3, longer than the 3 s each step settled before its window: an arrival counts in the second it ends, so the window counted "session" arrivals made before it, at the rate below, and its delivery reads short of what the target carried; set steps.settleS (or --settle) to at least 10, with the hold as much longer',
    ]);
    expect(
      warningTexts({
        steps,
        warnings: [w],
        traffic: undefined,
        rules: { deliveryMin: 0.9, captureMin: 0.6, minTailSamples: 30, imported: true },
      })[0],
    ).toMatch(/; hold each rate longer than a transaction lasts \(the k6 script's stages\)$/);
    // one step: its median; a median just past the settle is never printed as the settle
    const one = { ...w, figures: { ...w.figures, steps: [0], p50Ms: 3040, settleToSet: 5 } };
    expect(warningTexts({ steps, warnings: [one], traffic: undefined })[0]).toMatch(
      /^transaction "session" took a median of 3\.04 s in step 1, longer than the 3 s /,
    );
    expect(warningsBrief({ steps, warnings: [w], kneeStep: null })?.text).toBe(
      '1 on transactions longer than the settle',
    );
  });
});
