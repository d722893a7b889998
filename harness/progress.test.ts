import { describe, expect, it } from 'vitest';
import { buildPlan, buildRecords, type FakeRunSpec } from '../analysis/testing/builders.ts';
import { Progress } from './progress.ts';

const SPEC: FakeRunSpec = {
  steps: [{ ratePerSec: 3000, droppedPerSec: 11, failedPerSec: 5, latencyMs: 20 }],
  rampS: 1,
  holdS: 3,
  settleS: 1,
};

function lines(records: Parameters<Progress['bucket']>[0][]): string[] {
  const out: string[] = [];
  const p = new Progress({ write: (s) => out.push(s), isTTY: false }, 1);
  const plan = buildPlan(SPEC);
  for (const second of records) p.bucket(second, plan, plan[0].holdEndS);
  return out;
}

describe('Progress', () => {
  it('shows a second summed over every engine instance, as one instance would have shown it', () => {
    const whole = buildRecords(SPEC);
    const split = buildRecords({ ...SPEC, sources: 2 });
    const bySecond = whole.map((w) => split.filter((r) => r.tS === w.tS));
    expect(bySecond.every((g) => g.length === 2)).toBe(true);
    const shown = lines(bySecond);
    expect(shown).toEqual(lines(whole.map((w) => [w])));
    expect(shown[2]).toMatch(
      /step 1\/1 target 3000\/s {2}t=2s {2}achieved 3000\/s {2}p99 \d+\.\d ms {2}errors 5 {2}dropped 11 /,
    );
  });

  it("shows the busiest engine thread's busy share when the engine measured it", () => {
    const [a, b] = buildRecords({ ...SPEC, sources: 2 }).filter((r) => r.tS === 2);
    expect(
      lines([
        [
          { ...a, busy: 0.31 },
          { ...b, busy: 0.47 },
        ],
      ])[0],
    ).toMatch(/ VUs \d+\/\d+ {2}busy 47% {2}left /);
    expect(lines([[a, b]])[0]).not.toMatch(/busy/);
  });

  it("shows the generator process's share of its CPUs where it was read (k6's, which has no thread busy share)", () => {
    const [a, b] = buildRecords({ ...SPEC, sources: 2 }).filter((r) => r.tS === 2);
    expect(
      lines([
        [
          { ...a, busy: 0.31, processCpu: 0.2 },
          { ...b, busy: 0.47 },
        ],
      ])[0],
    ).toMatch(/ {2}busy 47% {2}cpu 20% {2}left /);
    expect(lines([[{ ...a, processCpu: 0.93 }]])[0]).toMatch(/ VUs \d+\/\d+ {2}cpu 93% {2}left /);
    expect(lines([[a, b]])[0]).not.toMatch(/cpu/);
  });
});
