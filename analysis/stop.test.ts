import { describe, expect, it } from 'vitest';
import { summarizeStop } from './stop.ts';
import { DEFAULT_RULES, fakeRun, stepResult } from './testing/builders.ts';
import { capacityText } from '../reports/headline-text.ts';

describe('a run in which plateau refused names the scenario sent', () => {
  const refusedNames = { count: 57, first: 'http.send: name "page echo black" is one past 100 names in the run' };

  it('establishes no capacity, whatever held or failed after, and keeps what held before as a lower bound', () => {
    // step 3 held with refusals, its step 4 failed at the target: without the refusal, capacity 290
    const steps = [
      stepResult({ index: 0, ratePerSec: 100, throughputPerSec: 100 }),
      stepResult({ index: 1, ratePerSec: 200, throughputPerSec: 200 }),
      stepResult({ index: 2, ratePerSec: 300, throughputPerSec: 290, refusedNames }),
      stepResult({ index: 3, ratePerSec: 400, throughputPerSec: 300, delivery: 0.75, verdict: 'fails' }),
    ];
    const s = summarizeStop(steps, 5, false, DEFAULT_RULES);
    expect(s).toMatchObject({ capacityPerSec: null, heldAtLeastPerSec: 200, kneeStep: 1, stopReason: 'error' });
    expect(s.stopDetail).toBe(
      `step 3 (300 req/s): plateau refused 57 sends of the scenario for their name and failed their arrivals itself: those failures are the scenario's, not the target's, so this run establishes no capacity (at least 200.0 req/s held before it); the first: "${refusedNames.first}"`,
    );
    expect(
      summarizeStop(
        steps.map(({ refusedNames: _, ...s }) => s),
        5,
        false,
        DEFAULT_RULES,
      ),
    ).toMatchObject({
      capacityPerSec: 290,
      stopReason: 'plateau',
    });
    // the headline says why
    const run = fakeRun({ steps: [{ ratePerSec: 100 }] });
    expect(capacityText({ ...run, ...s, steps })).toBe(
      'not established (at least 200.0 req/s held; plateau refused names the scenario sent, and failed their arrivals itself)',
    );
  });

  it('interrupted: the attempt the interrupt cut was never decided, so it reads interrupted, not error', () => {
    const steps = [
      stepResult({ index: 0 }),
      stepResult({ index: 1, ratePerSec: 200, refusedNames, verdict: 'incomplete' }),
    ];
    expect(summarizeStop(steps, 4, true, DEFAULT_RULES).stopReason).toBe('interrupted');
    expect(summarizeStop(steps, 4, false, DEFAULT_RULES).stopReason).toBe('error');
  });

  it('in its first step: no step held before it', () => {
    const s = summarizeStop([stepResult({ index: 0, refusedNames })], 4, false, DEFAULT_RULES);
    expect(s).toMatchObject({ capacityPerSec: null, heldAtLeastPerSec: null, kneeStep: null, stopReason: 'error' });
    expect(s.stopDetail).toMatch(/so this run establishes no capacity \(no step held before it\)/);
  });

  it('cuts a long first message at a word, with an ellipsis inside its quotes', () => {
    const long = { count: 1, first: `http.send: ${'word '.repeat(80)}end` };
    const s = summarizeStop([stepResult({ index: 0, refusedNames: long })], 4, false, DEFAULT_RULES);
    expect(s.stopDetail).toMatch(/plateau refused 1 send of the scenario .*; the first: "http\.send: (word )+word…"$/);
  });
});
