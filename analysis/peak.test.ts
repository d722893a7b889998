import { describe, expect, it } from 'vitest';
import { cutAbovePeak } from './peak.ts';
import { fakeRun, followingSteps, type FakeRunSpec } from './testing/builders.ts';
import { peakText } from '../reports/headline-text.ts';
import { renderMarkdown } from '../reports/markdown.ts';
import { renderPlateauTable } from '../reports/table.ts';

// default layout: 5 s ramp, 30 s hold, 5 s settle; step k's steady window is [40k + 10, 40k + 35)
describe('the peak counts whole steady windows only', () => {
  it.each<[string, FakeRunSpec, number | null, number, string]>([
    [
      'a cut step that read more than the steps before it: not the peak, named beside it',
      // step 3 (300 req/s) cut 12 s into its window
      { steps: followingSteps(5), stopAtS: 92, interrupted: true },
      1,
      200,
      '200.0 req/s (step 2; step 3, cut short 12 s into its steady window, read 300.0 req/s: not counted)',
    ],
    [
      'a cut step that read less: the peak as it was, nothing beside it',
      {
        steps: [{ ratePerSec: 100 }, { ratePerSec: 200 }, { ratePerSec: 300, okPerSec: 150 }],
        stopAtS: 92,
        interrupted: true,
      },
      1,
      200,
      '200.0 req/s (step 2)',
    ],
    [
      'the only step measured was cut: no peak, and what it read beside the dash',
      { steps: followingSteps(3), stopAtS: 18, interrupted: true },
      null,
      0,
      '– (step 1, cut short 8 s into its steady window, read 100.0 req/s: not counted)',
    ],
    [
      'a run that ended mid-window without an interrupt (its last second kept, a third offered): cut short too',
      { steps: followingSteps(4), stopAtS: 92 },
      1,
      200,
      '200.0 req/s (step 2; step 3, cut short 13 s into its steady window, read 284.6 req/s: not counted)',
    ],
    ['no cut: the highest step', { steps: followingSteps(3) }, 2, 300, '300.0 req/s (step 3)'],
    [
      'nothing served (every arrival failed): no peak, where it read "0.0 req/s (step 1)"',
      {
        steps: [
          { ratePerSec: 100, okPerSec: 0 },
          { ratePerSec: 200, okPerSec: 0 },
        ],
      },
      null,
      0,
      '–',
    ],
  ])('%s', (_, spec, peakStep, peakPerSec, text) => {
    const run = fakeRun(spec);
    expect({ peakStep: run.peakStep, peakPerSec: run.peakPerSec }).toEqual({ peakStep, peakPerSec });
    expect(peakText(run)).toBe(text);
  });

  it('the report and the terminal give the cut step beside the peak', () => {
    const run = fakeRun({ steps: followingSteps(5), stopAtS: 92, interrupted: true });
    expect(cutAbovePeak(run)).toMatchObject({ index: 2, verdict: 'incomplete', steadyS: 12 });
    const said =
      'Peak: 200.0 req/s (step 2; step 3, cut short 12 s into its steady window, read 300.0 req/s: not counted)';
    expect(renderMarkdown(run)).toContain(said);
    expect(renderPlateauTable(run)).toContain('; peak 200.0 req/s (step 2; step 3, cut short');
  });

  it("utilisation is read against the whole windows' peak, and the cut step gets no ρ (its ρ read 1.5)", () => {
    const run = fakeRun({ steps: followingSteps(5), stopAtS: 92, interrupted: true });
    expect(run.models?.utilisationBasePerSec).toBe(200);
    expect(run.models?.utilisation.map((u) => [u.index, u.rho])).toEqual([
      [0, 0.5],
      [1, 1],
    ]);
    expect(run.models?.little.map((l) => l.index)).toEqual([0, 1, 2]);
  });

  it('a contaminated cut step is named nowhere: its figure measured another topology', () => {
    const run = fakeRun({ steps: followingSteps(5), stopAtS: 92, interrupted: true });
    const steps = run.steps.map((s) => (s.verdict === 'incomplete' ? { ...s, contaminated: true } : s));
    expect(cutAbovePeak({ ...run, steps })).toBeNull();
  });
});
