import { describe, expect, it } from 'vitest';
import { mergeRecords } from './buckets.ts';
import { analyzeRun } from './analyze.ts';
import { THROWN, unhandledText, unhandledWarning } from './scenario-unhandled.ts';
import { buildInput, buildRecords, type FakeRunSpec } from './testing/builders.ts';
import { warningText } from '../reports/warning-text.ts';

const SPEC: FakeRunSpec = {
  steps: [{ ratePerSec: 100, latencyMs: 5 }],
  rampS: 1,
  holdS: 6,
  settleS: 1,
  warmupS: 3,
  sources: 2,
};

describe("the rejections a scenario's code left unhandled", () => {
  const records = buildRecords(SPEC);
  const stray = [
    [records[0].phase, records[0].tS, records[0].source, 2, 'warm stray'],
    ['steps', 4, 'fake/1', 1, 'late'],
    ['steps', 4, 'fake/0', 4, 'early'],
  ] as const;
  const withStray = stray.reduce((rs, [p, t, s, c, f]) => {
    const i = rs.findIndex((r) => r.phase === p && r.tS === t && r.source === s);
    expect(i, `${p} ${t} ${s}`).toBeGreaterThanOrEqual(0);
    return rs.map((r, j) => (j === i ? { ...r, unhandled: { count: c, first: f } } : r));
  }, records);

  it('merge across sources by summing, the first source in order keeping its message', () => {
    const merged = mergeRecords(withStray);
    expect(merged.find((r) => r.phase === 'steps' && r.tS === 4)?.unhandled).toEqual({ count: 5, first: 'early' });
    expect(mergeRecords(records).some((r) => r.unhandled)).toBe(false);
  });

  it('make one warning of the run: the count, the first message, the warmup before the steps; none where none came', () => {
    expect(unhandledWarning(mergeRecords(withStray))).toEqual([
      { code: 'scenario-unhandled', step: null, figures: { count: 7, first: 'warm stray', phases: 'warmup, steps' } },
    ]);
    expect(unhandledWarning(mergeRecords(records))).toEqual([]);
  });

  it("reach the run's warnings, worded with the fix", () => {
    const run = analyzeRun({ ...buildInput(SPEC), records: withStray });
    const w = run.warnings.find((x) => x.code === 'scenario-unhandled');
    expect(w).toBeDefined();
    expect(warningText(w!, run)).toBe(
      '7 error(s) the scenario\'s code left unhandled came during the load (warmup, steps), after their arrivals had ended (promises it did not await, timers or handlers that threw): they failed no arrival and no figure counts them, so what failed in them is unseen; the first: "a promise the scenario\'s code left unhandled rejected: warm stray"; await every promise a transaction starts before run() returns (or end it with .catch), and catch errors inside the timers and handlers it sets, so that a failure fails its arrival',
    );
  });

  it("word an exception a timer or handler threw apart from a rejection (a run stored before either holds rejections' messages only)", () => {
    expect(unhandledText(`${THROWN}boom in a timer`)).toBe(
      "a timer or event handler of the scenario's code threw, uncaught: boom in a timer",
    );
    expect(unhandledText('stray')).toBe("a promise the scenario's code left unhandled rejected: stray");
  });
});
