import { describe, expect, it } from 'vitest';
import { stopClause, stopHead } from './stop-clause.ts';
import { fakeRun, type FakeStep } from '../testing/builders.ts';
import type { RunResult } from '../types.ts';

describe('stopHead: what failed, before what it means', () => {
  it.each([
    [
      'a plateau',
      'step 4 (400 req/s) delivered 0.78 < 0.90 (310.0 req/s achieved): throughput stopped following the offered rate at about 310 req/s',
      'step 4 (400 req/s) delivered 0.78 < 0.90 (310.0 req/s achieved)',
    ],
    [
      "a rerun's, a colon inside parentheses kept",
      'step 4 (600 arrivals/s, attempt 2, which confirmed it: a note) delivered 0.70 < 0.90 (419.7 arrivals/s achieved): throughput stopped',
      'step 4 (600 arrivals/s, attempt 2, which confirmed it: a note) delivered 0.70 < 0.90 (419.7 arrivals/s achieved)',
    ],
    [
      'every step held: up to its semicolon',
      'all 3 planned steps held; the last, step 3 (300 req/s), achieved 300.0 req/s: capacity is at least that',
      'all 3 planned steps held',
    ],
    ['no clause to cut: the whole detail', 'the plan has no steps', 'the plan has no steps'],
    [
      'a colon not followed by a space is no clause',
      'step 2 (200 req/s) at 12:00 failed',
      'step 2 (200 req/s) at 12:00 failed',
    ],
  ])('%s', (_name, detail, head) => {
    expect(stopHead(detail)).toBe(head);
  });
});

describe("stopClause: this run's stop, and the baseline's where it differs", () => {
  const stop = (stopReason: RunResult['stopReason'], stopDetail: string) => ({ stopReason, stopDetail });
  const plateau = stop(
    'plateau',
    'step 4 (400 req/s) delivered 0.78 < 0.90 (310.0 req/s achieved): throughput stopped',
  );

  it.each([
    [
      'both stopped by their plateau: this run only',
      plateau,
      stop('plateau', 'step 5 (500 req/s) delivered 0.82 < 0.90 (410.0 req/s achieved): throughput stopped'),
      '; this run stopped (plateau): step 4 (400 req/s) delivered 0.78 < 0.90 (310.0 req/s achieved)',
    ],
    [
      'a baseline whose every step held: its reason too',
      plateau,
      stop('max-rate-reached', 'all 6 planned steps held; the last, step 6 (600 req/s), achieved 600.0 req/s'),
      '; this run stopped (plateau): step 4 (400 req/s) delivered 0.78 < 0.90 (310.0 req/s achieved); the baseline stopped (max-rate-reached)',
    ],
    [
      'a failed first step',
      stop(
        'failed-first-step',
        'step 1 (100 req/s), the first step, delivered 0.40 < 0.90 (40.0 req/s achieved): the target sustains less than the lowest offered rate; start lower',
      ),
      plateau,
      '; this run stopped (failed-first-step): step 1 (100 req/s), the first step, delivered 0.40 < 0.90 (40.0 req/s achieved); the baseline stopped (plateau)',
    ],
    ['an empty detail: the reason alone', stop('plateau', ''), plateau, '; this run stopped (plateau)'],
  ])('%s', (_name, run, baseline, clause) => {
    expect(stopClause(run, baseline)).toBe(clause);
  });

  it("reads a run's own stop detail as the analysis wrote it", () => {
    const steps: FakeStep[] = [100, 200, 300, 400, 500].map((r) => ({ ratePerSec: r, okPerSec: Math.min(r, 310) }));
    const run = fakeRun({ steps, holdS: 12, rampS: 1, settleS: 2 });
    expect(run.stopDetail.startsWith(`${stopHead(run.stopDetail)}: `)).toBe(true);
    expect(stopClause(run, run)).toBe(
      '; this run stopped (plateau): step 4 (400 req/s) delivered 0.78 < 0.90 (310.0 req/s achieved)',
    );
  });
});
