import { describe, expect, it } from 'vitest';
import { analyzeRun } from './analyze.ts';
import { unjudgeableReasons } from './gate/judgeable.ts';
import { shownStage } from './stage-shown.ts';
import { buildInput } from './testing/builders.ts';
import type { StageOutcome, WarmupRecord } from './types.ts';

/** A warmup at 25 req/s whose three windows of 2 s read a median of `p50Ms`, settled or not. */
const record = (stable: boolean, p50Ms = 10): WarmupRecord => ({
  stable,
  tookS: stable ? 7 : 31,
  ratePerSec: 25,
  windows: [1, 3, 5].map((fromS) => ({ fromS, throughputPerSec: 25, p50Ms })),
});

const NOT_STABLE = 'not stable within 30 s at 25 req/s (median spread 40%; waiting for stable windows); continuing';

const stage = (over: Partial<StageOutcome>): StageOutcome => ({
  name: 'warmup',
  status: 'pass',
  durationMs: 31_000,
  detail: NOT_STABLE,
  evidence: [],
  ...over,
});

describe('shownStage: the status a stage is shown with', () => {
  it.each([
    ['a warmup that ran its course unsettled reads warn', stage({ warmup: record(false) }), 'warn'],
    ['a settled warmup passes', stage({ detail: 'stable after 7.0 s', warmup: record(true) }), 'pass'],
    ['an interrupted warmup stays interrupted', stage({ status: 'interrupted', warmup: record(false) }), 'interrupted'],
    ['a failed warmup stays failed', stage({ status: 'fail', detail: 'refused names' }), 'fail'],
    ['a skipped warmup stays skipped', stage({ status: 'skipped', durationMs: 0, detail: 'disabled' }), 'skipped'],
    ['a warmup stored without its record: as recorded', stage({}), 'pass'],
    [
      'another stage with such a record (none has one): as recorded',
      stage({ name: 'threads', warmup: record(false) }),
      'pass',
    ],
  ] as const)('%s', (_name, s, status) => {
    const shown = shownStage(s);
    expect(shown.status).toBe(status);
    // only the status: the reason stays in the detail, the evidence and the record as stored
    expect({ ...shown, status: s.status }).toEqual(s);
  });
});

describe('analyzeRun: an unsettled warmup', () => {
  // the warmup and step 1 read 31 ms, step 2 10.6 ms: a target still warming (cold-target reads the warmup's record)
  const input = (stable: boolean) => {
    const i = buildInput({
      steps: [
        { ratePerSec: 50, latencyMs: 30.7 },
        { ratePerSec: 100, latencyMs: 10.6 },
      ],
    });
    return { ...i, stages: [i.stages[0], stage({ warmup: record(stable, 31) }), ...i.stages.slice(1)] };
  };

  it('reads warn in the run result (summary.json, the Stages tables), as evidence it is used as before', () => {
    const unsettled = analyzeRun(input(false));
    const settled = analyzeRun(input(true));
    expect(unsettled.stages.map((s) => `${s.name}:${s.status}`)).toEqual([
      'preflight:pass',
      'warmup:warn',
      'steps:pass',
    ]);
    expect(unsettled.stages[1].detail).toBe(NOT_STABLE);
    // what the analysis and the gate read of it is what they read of a passing warmup
    expect(unsettled.warnings).toEqual(settled.warnings);
    expect(unsettled.warnings.some((w) => w.code === 'cold-target' && w.figures.measured === 'warmup')).toBe(true);
    expect(unjudgeableReasons(unsettled)).toEqual(unjudgeableReasons(settled));
    expect({ ...unsettled, stages: [] }).toEqual({ ...settled, stages: [] });
  });
});
