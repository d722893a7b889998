/**
 * Simulated k6 runs (test/fixtures/k6-sim: a simulator's output, not k6's) whose plans a review
 * found derived wrong or refused: the JSON and the CSV export of each derive the plan it ran, a
 * collapsed step included; the run's own step flags fit both, and a period other than the run's
 * does not.
 */
import { describe, expect, it } from 'vitest';
import type { BucketRecord } from '../../../analysis/types.ts';
import { buildPlan } from '../../../analysis/plan.ts';
import { parseConfigOrThrow } from '../../config/validate.ts';
import { ingestLines } from '../output/ingest.ts';
import { readLines } from '../output/lines.ts';
import { deriveSteps } from './derive-steps.ts';
import { flagMismatches, mismatchFix, periodMismatch } from './plan-check.ts';

const DIR = 'test/fixtures/k6-sim';

async function read(file: string) {
  const records: BucketRecord[] = [];
  const r = await ingestLines(readLines(`${DIR}/${file}`), {
    source: 'k6',
    phase: 'steps',
    lateS: 5,
    sink: (x) => records.push(x),
  });
  const { offeredPerS, wholeSeconds, offeredPhases } = r.stats;
  return { stats: r.stats, derived: deriveSteps(records, offeredPerS, wholeSeconds, offeredPhases) };
}

type Flags = { startPerSec: number; stepPerSec: number; maxPerSec: number; rampS: number; holdS: number };
const stepsOf = (flags: Flags) =>
  buildPlan(
    parseConfigOrThrow({ target: { url: 'http://127.0.0.1:9' }, steps: flags, warmup: { enabled: false } }),
    null,
    'arrivals/s',
  ).steps;

const COLLAPSED_80 = { startPerSec: 80, stepPerSec: 80, maxPerSec: 320, rampS: 4, holdS: 6 };
const COLLAPSED_40 = { startPerSec: 40, stepPerSec: 40, maxPerSec: 160, rampS: 2, holdS: 8 };

describe('the JSON and the CSV (whole seconds) of a simulated run derive the plan it ran', () => {
  it.each([
    // 3 workers of about 13 ms an arrival, 150 VUs: 240 and 320/s collapse, a third and half dropped
    [
      'a80-seed12',
      COLLAPSED_80,
      'its CSV read 80 + i x 82 (rates never offered): the collapsed holds weighed as clean ones',
    ],
    ['a80-seed7', COLLAPSED_80, "its CSV was refused: step 3's hold (26-31 s) moves from 252 to 227/s"],
    // 4 workers of about 32 ms an arrival, 60 VUs: 160/s collapses
    [
      'b40-seed2',
      COLLAPSED_40,
      'its CSV lost step 4 (its last hold cut at a noisy second, the part seconds after read as a ramp down)',
    ],
    ['b40-seed12', COLLAPSED_40, "its CSV was refused: step 4's hold (34-37 s) offered 169/s, not 160/s"],
    // no collapse
    [
      'c20-seed3',
      { startPerSec: 20, stepPerSec: 20, maxPerSec: 80, rampS: 2, holdS: 8 },
      "its JSON was refused: step 3's hold (23-31 s) moves from 59 to 61/s; its CSV read 1 s ramps",
    ],
    [
      'f10-seed10',
      { startPerSec: 10, stepPerSec: 10, maxPerSec: 50, rampS: 2, holdS: 6 },
      "its JSON was refused: step 1's hold (4-9 s) moves from 11 to 9/s; its CSV read 1 s ramps",
    ],
  ])('%s: %j (before: %s)', async (run, plan) => {
    const json = await read(`${run}.ndjson.gz`);
    const csv = await read(`${run}.csv.gz`);
    expect([json.stats.wholeSeconds, csv.stats.wholeSeconds]).toEqual([false, true]);
    expect(json.derived.steps).toEqual(plan);
    expect(csv.derived.steps).toEqual(plan);
  });
});

describe("a collapsed run's step flags, against its CSV", () => {
  it('the flags it ran fit (a second of its last hold read 145/s at 160/s, and they were refused)', async () => {
    const { stats } = await read('b40-seed12.csv.gz');
    expect(flagMismatches(stepsOf(COLLAPSED_40), stats.offeredPerS, true)).toEqual([]);
    expect(periodMismatch(COLLAPSED_40, stats.offeredPerS, true, stats.offeredPhases)).toBeNull();
  });

  it("flags of another period are refused, with the run's plan as the fix: one second of a window says too little at whole seconds", async () => {
    const { stats } = await read('b40-seed12.csv.gz');
    const oneSecondRamps = { ...COLLAPSED_40, rampS: 1 };
    expect(flagMismatches(stepsOf(oneSecondRamps), stats.offeredPerS, true)).toEqual([]);
    expect(periodMismatch(oneSecondRamps, stats.offeredPerS, true, stats.offeredPhases)).toEqual(COLLAPSED_40);
    expect(
      mismatchFix(oneSecondRamps, stepsOf(oneSecondRamps), stats.offeredPerS, true, stats.t0Ms, stats.offeredPhases),
    ).toBe(
      "drop the step flags to let plateau derive the plan from the file, or give the plan it offered: --start-rate 40 --step-rate 40 --max-rate 160 --ramp 2 --hold 8 (the flags' period, 1 s ramp + 8 s hold = 9 s, is not the file's 10 s: each step's window lies 1 s further off its hold than the one before)",
    );
  });
});
