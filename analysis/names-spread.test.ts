/**
 * Names spread over the engine threads (issue 27): each thread under its own 100, the run's past
 * it. The attempt by whose end they passed 100 together stops the run as a refused send does, live
 * (the decision over each thread's buckets) and in the report (the replay over merged, folded ones).
 */
import { describe, expect, it } from 'vitest';
import { analyzeRun } from './analyze.ts';
import { decideAttempt, type Evidence } from './decision.ts';
import { encodeHistogram, newHistogram, recordUs } from './histogram.ts';
import { namesSeen, namesSpreadBy } from './names-spread.ts';
import { buildInput, DEFAULT_RULES } from './testing/builders.ts';
import { DEFAULT_GENERATOR_BOUNDS } from './generator-symptoms.ts';
import type { AttemptRecord, BucketRecord, DecisionPolicy, NameBucket, NextAction, StepResult } from './types.ts';
import { warningTexts } from '../reports/warning-text.ts';
import { capacityText } from '../reports/headline-text.ts';

const COLOURS = ['red', 'blue', 'green', 'tan', 'pink', 'gray', 'black', 'white', 'gold', 'teal'];
const ITEMS = [
  'shirt',
  'hat',
  'sock',
  'belt',
  'coat',
  'shoe',
  'scarf',
  'glove',
  'vest',
  'cap',
  'boot',
  'tie',
  'bag',
  'ring',
  'pin',
];

function bucket(): NameBucket {
  const h = newHistogram();
  recordUs(h, 2000);
  return { completed: 1, ok: 1, errors: {}, duration: encodeHistogram(h) };
}

/**
 * Three steps on two threads: the first sends one fixed name; from the second on, each thread
 * sends 15 names of data a second, its own (`product red shirt`...): 75 a thread by the second's
 * end (76 with the fixed one, each under 100), 150 together.
 */
function spreadRun() {
  const input = buildInput({
    steps: [{ ratePerSec: 100 }, { ratePerSec: 200 }, { ratePerSec: 300 }],
    sources: 2,
    rampS: 1,
    holdS: 4,
    settleS: 1,
  });
  const second = input.steps[1];
  let k = 0;
  const records: BucketRecord[] = input.records.map((r) => {
    const byName: Record<string, NameBucket> = { read: bucket() };
    if (r.tS >= second.rampStartS && r.tS < second.holdEndS)
      for (let i = 0; i < 15; i++, k++) byName[`product ${COLOURS[k % 10]} ${ITEMS[Math.floor(k / 10)]}`] = bucket();
    return { ...r, byName };
  });
  return { input: { ...input, records }, second };
}

const POLICY: DecisionPolicy = {
  rules: DEFAULT_RULES,
  bounds: DEFAULT_GENERATOR_BOUNDS,
  confirmFailedStep: true,
  rerunContaminated: true,
  maxVUsBound: 400,
};

describe('names spread over the engine threads', () => {
  it('are counted together: past 100 by the end of the attempt they passed it in, none before', () => {
    const { input, second } = spreadRun();
    const seen = namesSeen(input.records);
    expect(seen.names).toHaveLength(151);
    // each thread alone stays under 100
    for (const t of ['fake/0', 'fake/1'])
      expect(namesSeen(input.records.filter((r) => r.source === t)).names).toHaveLength(76);
    expect(namesSpreadBy(seen, input.steps[0])).toBeNull();
    expect(namesSpreadBy(seen, second)).toEqual({ names: 151, first: expect.stringMatching(/^product /) });
    expect(namesSpreadBy(seen, { holdEndS: second.rampStartS + 1 })).toBeNull(); // 31 names by then
    // the warmup's are its own phase
    expect(namesSeen(input.records, 'warmup').names).toEqual([]);
  });

  it("stop the live run at that attempt, over each thread's own buckets, with the fix", () => {
    const { input } = spreadRun();
    const ev: Evidence = { records: input.records, probes: [], rttMs: 0.5 };
    let judged: StepResult[] = [];
    const actions: NextAction[] = [];
    const whys: (string | null)[] = [];
    for (const s of input.steps.slice(0, 2)) {
      const a: AttemptRecord = { ...s, attempt: 1, maxVUs: 200 };
      const d = decideAttempt(judged, a, ev, POLICY);
      judged = d.judged;
      actions.push(d.action);
      whys.push(d.why);
    }
    expect(actions).toEqual([{ kind: 'go-on' }, { kind: 'stop' }]);
    expect(judged[1].namesSpread).toMatchObject({ names: 151 });
    expect(judged[1].refusedNames).toBeUndefined();
    expect(whys[1]).toMatch(
      /^the scenario's names, spread over the engine threads, passed the run's 100 together: 151 distinct names, each thread under its own 100 .*; the first past 100: "product [a-z]+ [a-z]+"; give each request a fixed name/,
    );
  });

  it('stop the run in the report: stop reason error, no capacity, what held before kept, the warning says so', () => {
    const { input, second } = spreadRun();
    // the live run stopped at the second step: its stored attempts and buckets end there
    const attempts = input.steps.slice(0, 2).map((s, i): AttemptRecord => ({
      ...s,
      attempt: 1,
      maxVUs: 200,
      action: i === 0 ? { kind: 'go-on' } : { kind: 'stop' },
    }));
    const run = analyzeRun({
      ...input,
      attempts,
      records: input.records.filter((r) => r.tS < second.holdEndS),
    });
    expect(run).toMatchObject({ stopReason: 'error', capacityPerSec: null, heldAtLeastPerSec: 100 });
    expect(run.replayDiffers).toBeUndefined();
    expect(run.stopDetail).toMatch(
      /^step 2 \(200 req\/s\): the scenario's names, spread over the engine threads, passed the run's 100 together: 151 distinct names.*, so this run establishes no capacity \(at least 100(\.0)? req\/s held before it\); the first past 100: "product .*give each request a fixed name/,
    );
    expect(capacityText(run)).toBe(
      "not established (at least 100.0 req/s held; the scenario's names, spread over the engine threads, passed 100 together)",
    );
    const w = run.warnings.find((x) => x.code === 'names-past-limit');
    expect(w).toMatchObject({ step: 1, figures: { count: 51 } });
    expect(warningTexts(run).join('\n')).toMatch(
      /^51 names past the run's 100 are folded into one row, "\(51 names past 100\)" .*spread over the engine threads, and the run stopped at step 2 for them .*give each request a fixed name/m,
    );
  });
});
