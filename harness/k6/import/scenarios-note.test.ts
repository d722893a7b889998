/**
 * Several scenarios imported whole: a load beside another is said, with the flag that keeps one;
 * scenarios that ran one after another (a constant-arrival-rate scenario a rate, each with its
 * startTime) are one run's steps, said so, with no warning and no flag that would keep one rate.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { importK6 } from './import.ts';
import { scenariosNote } from './scenarios-note.ts';

const runsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'plateau-scenarios-'));
afterAll(() => fs.rmSync(runsDir, { recursive: true, force: true }));

describe('the note on several scenarios', () => {
  const by = { low: 100, high: 200 };
  it.each([
    ['one after another', { low: [0, 9_900], high: [10_000, 19_900] }, true],
    ['the next begun within a second of the last start before it', { low: [0, 10_500], high: [10_000, 19_900] }, true],
    ['at once (a background beside the steps)', { low: [0, 19_000], high: [5_000, 19_900] }, false],
    ['one with no start read (no iteration_duration)', { low: [0, 9_900] }, false],
  ] as const)('%s', (_, starts, inTurn) => {
    const n = scenariosNote('run.ndjson', by, starts, 0);
    expect(n !== null && 'oneAfterAnother' in n).toBe(inTurn);
    if (inTurn)
      expect(n?.note).toBe(
        "run.ndjson ran 2 scenarios one after another (low from 0 s, high from 10 s): imported whole, their iterations the arrivals of one run's steps",
      );
    else
      expect(n?.note).toMatch(
        /^run\.ndjson ran 2 scenarios \(high: 200 iterations, low: 100 iterations\): .*; pass --scenario high to import one scenario alone/,
      );
  });
});

describe('plateau import k6 of scenarios run one after another', () => {
  it('the real stepped-queue output, each 10 s stage its own scenario: judged as before, no warning, no flag', async () => {
    const t0Ms = Date.parse('2026-11-29T16:52:40.711Z');
    const lines = zlib
      .gunzipSync(fs.readFileSync('test/fixtures/k6/stepped-queue.ndjson.gz'))
      .toString('utf8')
      .split('\n')
      .map((l) => {
        if (!l.includes('"scenario":"steps"')) return l;
        const o = JSON.parse(l) as { data: { time: string; value: number; tags: Record<string, string> } };
        const ms = Date.parse(o.data.time) - (l.startsWith('{"metric":"iteration_duration"') ? o.data.value : 0);
        o.data.tags.scenario = `rate${50 * Math.min(5, Math.max(1, Math.ceil((ms - t0Ms) / 10_000)))}`;
        return JSON.stringify(o);
      });
    const file = path.join(runsDir, 'queue-in-turn.ndjson');
    fs.writeFileSync(file, lines.join('\n'));
    const [whole, inTurn] = await Promise.all([
      importK6({ file: 'test/fixtures/k6/stepped-queue.ndjson.gz', outDir: runsDir, steps: {} }),
      importK6({ file, outDir: runsDir, steps: {} }),
    ]);
    expect(Object.keys(inTurn.ingest.stats.scenarioIterations).sort()).toEqual([
      'rate100',
      'rate150',
      'rate200',
      'rate250',
      'rate50',
    ]);
    expect(inTurn.result.capacityPerSec).toBe(whole.result.capacityPerSec);
    expect(inTurn.result.steps.map((s) => s.throughputPerSec)).toEqual(
      whole.result.steps.map((s) => s.throughputPerSec),
    );
    expect(inTurn.notes).toContain(
      "queue-in-turn.ndjson ran 5 scenarios one after another (rate50 from 0 s, rate100 from 10 s, rate150 from 20 s, rate200 from 30 s, rate250 from 40 s): imported whole, their iterations the arrivals of one run's steps",
    );
    expect(inTurn.notes.some((n) => n.includes('--scenario'))).toBe(false);
    expect(inTurn.result.warnings.map((w) => w.code)).toEqual(whole.result.warnings.map((w) => w.code));
  });
});
