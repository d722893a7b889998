/**
 * Where an interruption cut the steps, as the stop line says it (analysis/interrupted-stop.ts) and
 * as the steps stage's line says it (harness/pipeline/steps.ts): one rule, cut.ts, in the same terms.
 */
import { describe, expect, it } from 'vitest';
import { analyzeRun } from './analyze.ts';
import { buildInput, withAttempts, type FakeStep } from './testing/builders.ts';
import { cutOf } from './cut.ts';

/** Each step 13 s: a 1 s ramp, then a 12 s hold whose last 10 s are its steady window. */
const LAYOUT = { holdS: 12, rampS: 1, settleS: 2 };
/** Steps 100..500 holding up to 400, then step 5 (flat at 410) rerun as attempt 2. */
const STEPS: FakeStep[] = [100, 200, 300, 400, 500, 500].map((r) => ({ ratePerSec: r, okPerSec: Math.min(r, 410) }));

/** The run interrupted at second `stopAtS` (the second the cut fell in), its stop line. */
function cutAt(stopAtS?: number): string {
  const input = buildInput({
    steps: STEPS,
    ...LAYOUT,
    interrupted: true,
    ...(stopAtS === undefined ? {} : { stopAtS }),
  });
  return analyzeRun(withAttempts(input, { 5: { index: 4 } })).stopDetail;
}

describe('the stop line of an interrupted run says where the cut fell', () => {
  it.each<[string, number | undefined, string]>([
    [
      'in step 1, before any step ended',
      0,
      'interrupted during step 1 (100 req/s, its ramp), before any step ended; no step held before it',
    ],
    [
      "in step 2's ramp",
      13,
      'interrupted during step 2 (200 req/s, its ramp), after step 1 (100 req/s); at least 100.0 req/s held before it: capacity not established',
    ],
    [
      "in step 2's hold, before its steady window",
      15,
      'interrupted during step 2 (200 req/s, its hold), after step 1 (100 req/s); at least 100.0 req/s held before it: capacity not established',
    ],
    [
      "in step 2's steady window",
      20,
      'interrupted during step 2 (200 req/s, its hold, 4 s into its 10 s steady window), after step 1 (100 req/s); at least 100.0 req/s held before it: capacity not established',
    ],
    [
      "in the ramp of step 5's rerun",
      65,
      'interrupted during step 5 (500 req/s, its rerun, attempt 2), after its attempt 1; at least 400.0 req/s held before it: capacity not established',
    ],
    [
      "in the steady window of step 5's rerun",
      72,
      'interrupted during step 5 (500 req/s, its rerun, attempt 2, 4 s into its 10 s steady window), after its attempt 1; at least 400.0 req/s held before it: capacity not established',
    ],
  ])('%s', (_, stopAtS, detail) => {
    expect(cutAt(stopAtS)).toBe(detail);
  });

  it('a run cut after its last attempt ended names that attempt', () => {
    expect(cutAt()).toMatch(/; the run was then cut short \(interrupted after step 5 \(500 req\/s, attempt 2\)\)$/);
  });
});

describe('cutOf: the attempt running when the load stopped', () => {
  const plan = buildInput({ steps: STEPS.slice(0, 3), ...LAYOUT }).steps;
  const attempts = plan.map((s) => ({ ...s, attempt: 1 }));
  const judged = (n: number) => analyzeRun(buildInput({ steps: STEPS.slice(0, n), ...LAYOUT })).steps;
  it.each<[string, number | null, number, ReturnType<typeof cutOf>]>([
    ['no second offered load', null, 0, { index: 0, attempt: 1, ratePerSec: 100, phase: 'before' }],
    ["step 2's ramp", 13, 1, { index: 1, attempt: 1, ratePerSec: 200, phase: 'ramp' }],
    ["step 2's hold", 20, 1, { index: 1, attempt: 1, ratePerSec: 200, phase: 'hold' }],
    // the stop fell in the last second of step 2, whose window was judged whole: it ended
    ["step 2's last second, its window whole", 25, 2, { index: 2, attempt: 1, ratePerSec: 300, phase: 'before' }],
    ['the last second of the last attempt, its window whole', 38, 3, null],
  ])('%s', (_, lastS, ran, cut) => {
    expect(cutOf(attempts, lastS, judged(ran))).toEqual(cut);
  });
});
