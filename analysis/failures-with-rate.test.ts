/** Failures that keep their share at the warmup's lower rate (failures-with-rate.ts), and what the run then says. */
import { describe, expect, it } from 'vitest';
import { failuresKept, keptZ, warmupFailedAt, type FailedAt } from './failures-with-rate.ts';
import { analyzeRun } from './analyze.ts';
import { summarizeStop } from './stop.ts';
import { overloadShape } from './overload-shape.ts';
import { buildInput, DEFAULT_RULES, nameResult, stepResult } from './testing/builders.ts';
import type { AnalysedRecord, StageOutcome, StepResult } from './types.ts';

const at = (ratePerSec: number, completed: number, failed: number): FailedAt => ({ ratePerSec, completed, failed });

describe("failuresKept: the warmup failed about the step's share, on the counts", () => {
  it.each<[string, FailedAt, FailedAt, boolean]>([
    // the reviewer's run: 16 of 125 at 50 arrivals/s, 60 of 400 at 100
    ["the reviewer's run: about the same share at half the rate", at(50, 125, 16), at(100, 400, 60), true],
    ['many arrivals, a share a little lower', at(50, 5000, 700), at(100, 5000, 750), true],
    ['the warmup failed more than the step', at(50, 100, 40), at(100, 400, 60), true],
    ['none failed in the warmup: they fall with the rate', at(50, 250, 0), at(100, 500, 75), false],
    ['half the share at half the rate: in proportion to it', at(50, 250, 19), at(100, 500, 75), false],
    ['too few warmup arrivals to tell', at(50, 6, 1), at(100, 500, 75), false],
    // a limit shedding past 20/s: 60% fail at 50/s, 80% at 100/s; a fall, though more than half the share
    ['a limit shedding past 20/s', at(50, 500, 300), at(100, 1000, 800), false],
    ['80% at both rates: not the limit', at(50, 500, 400), at(100, 1000, 800), true],
    ["a warmup at the step's rate is no lower rate", at(100, 500, 75), at(100, 500, 75), false],
    ['a warmup with nothing completed', at(50, 0, 0), at(100, 500, 75), false],
  ])('%s', (_, warmup, step, kept) => {
    expect(failuresKept(warmup, step)).toBe(kept);
  });

  it('scales with the counts: the same shares decide only with enough arrivals', () => {
    expect(keptZ(at(50, 20, 3), at(100, 40, 6))).toBeLessThan(1.645);
    expect(keptZ(at(50, 2000, 300), at(100, 4000, 600))).toBeGreaterThan(1.645);
  });
});

describe('warmupFailedAt: the warmup phase of the buckets, at the recorded rate', () => {
  const bucket = (phase: string, tS: number, completed: number, ok: number) =>
    ({ phase, tS, completed, ok }) as AnalysedRecord;
  const warmupStage = (ratePerSec: number, windowsFromS: number[] = [1, 2]): StageOutcome => ({
    name: 'warmup',
    status: 'pass',
    durationMs: 3000,
    detail: '',
    evidence: [],
    warmup: {
      stable: true,
      tookS: 3,
      ratePerSec,
      windows: windowsFromS.map((fromS) => ({ fromS, throughputPerSec: 42, p50Ms: 1 })),
    },
  });
  const records = [
    bucket('warmup', 0, 24, 20), // the ramp
    bucket('warmup', 1, 50, 42),
    bucket('warmup', 2, 50, 43),
    bucket('warmup', 3, 1, 1), // the part of a second written at the stop
    bucket('steps', 1, 100, 85),
  ];

  it('counts the warmup phase from its first judged window on', () => {
    expect(warmupFailedAt(records, [warmupStage(50)])).toEqual(at(50, 101, 15));
  });

  it('is null without a warmup stage, a judged window or a completed arrival', () => {
    expect(warmupFailedAt(records, [])).toBeNull();
    expect(warmupFailedAt(records, [warmupStage(50, [])])).toBeNull();
    expect(warmupFailedAt([bucket('steps', 1, 100, 85)], [warmupStage(50)])).toBeNull();
  });
});

/** A first step at 100/s whose completions kept up while 15% failed (5xx), with names. */
const first: StepResult = stepResult({
  throughputPerSec: 85,
  completedPerSec: 100,
  delivery: 0.85,
  completed: 500,
  ok: 425,
  failed: 75,
  errorRate: 0.15,
  errors: { http_5xx: 75 },
  verdict: 'fails',
  byName: {
    good: nameResult(425),
    broken: nameResult(50, { ok: 0, failed: 50, errorRate: 1, errors: { http_5xx: 50 } }),
    other: nameResult(25, { ok: 0, failed: 25, errorRate: 1, errors: { http_5xx: 25 } }),
  },
});

describe('a failed first step read against the warmup', () => {
  it('failures that kept their share: not "start lower", both shares and the failing names', () => {
    const s = summarizeStop([first], 4, false, DEFAULT_RULES, [], false, null, at(50, 250, 37));
    expect(s.stopReason).toBe('failed-first-step');
    expect(s.stopDetail).toMatch(
      /but 15\.00% of them failed \(http_5xx 75\): failures, not throughput, took its delivery under 0\.90; they do not fall with the rate, so starting lower would fail them too \(the warmup at 50 req\/s failed 14\.80% of 250 requests, this step at 100 15\.00% of 500\): fix what fails in the target or in the scenario's requests: broken 50 of 50 failed \(http_5xx\), other 25 of 25 \(http_5xx\); the errors table gives kinds and samples$/,
    );
    expect(s.stopDetail).not.toMatch(/start lower/);
    const shape = overloadShape(null, first, null, 'req/s', false, DEFAULT_RULES, at(50, 250, 37));
    expect(shape.meaning).toMatch(
      /^the warmup, at 50 req\/s, failed 14\.80% of its requests too: these failures do not fall/,
    );
  });

  it('failures that fell with the rate keep "start lower", and the overload shape its words', () => {
    for (const warmup of [at(50, 250, 0), at(50, 250, 15), null]) {
      const s = summarizeStop([first], 4, false, DEFAULT_RULES, [], false, null, warmup);
      expect(s.stopDetail).toMatch(
        /the target sustains less than the lowest offered rate; start lower; 15\.00% of completed requests failed$/,
      );
      const meaning = overloadShape(null, first, null, 'req/s', false, DEFAULT_RULES, warmup).meaning;
      expect(meaning).toMatch(/fails requests instead of queueing/);
      // no step held: there is no knee to be past (a review)
      expect(meaning).not.toMatch(/past the knee/);
      expect(meaning).toMatch(
        warmup ? /from the first step/ : /^the first step failed them, with no step held below it/,
      );
    }
  });

  it('a step whose completions fell short too: "start lower" stands, whatever the warmup failed', () => {
    const short = { ...first, completedPerSec: 80, throughputPerSec: 68, delivery: 0.68 };
    const s = summarizeStop([short], 4, false, DEFAULT_RULES, [], false, null, at(50, 250, 37));
    expect(s.stopDetail).toMatch(/start lower/);
  });

  it('the whole analysis: the stop line and the overload shape agree, from the warmup buckets', () => {
    const step = { ratePerSec: 100, okPerSec: 85, failedPerSec: 15, errorKind: 'http_5xx' as const, status: '500' };
    const input = buildInput({ steps: [step], rampS: 1, holdS: 10, settleS: 2 });
    const warm = buildInput({
      steps: [{ ...step, ratePerSec: 50, okPerSec: 42.5, failedPerSec: 7.5 }],
      rampS: 1,
      holdS: 4,
      settleS: 0,
    });
    const run = analyzeRun({
      ...input,
      records: [...warm.records.map((r) => ({ ...r, phase: 'warmup' })), ...input.records],
      stages: [
        ...input.stages,
        {
          name: 'warmup',
          status: 'pass',
          durationMs: 5000,
          detail: 'stable',
          evidence: [],
          warmup: {
            stable: true,
            tookS: 5,
            ratePerSec: 50,
            windows: [{ fromS: 1, throughputPerSec: 42.5, p50Ms: 10 }],
          },
        },
      ],
    });
    expect(run.stopReason).toBe('failed-first-step');
    // from the first window on: the ramp's second left out
    expect(run.stopDetail).toMatch(
      /they do not fall with the rate, so starting lower would fail them too \(the warmup at 50 req\/s failed 15\.00% of 200 requests, this step at 100 15\.00% of 800\)/,
    );
    expect(run.overload?.meaning).toMatch(/^the warmup, at 50 req\/s, failed 15\.00% of its requests too/);
  });
});
