/**
 * k6 checks that failed on responses an import counts as successes: told per judged window where
 * they outnumber what its failed requests explain, under the capacity where the knee had them;
 * never for checks that failed with their requests (the real stepped-reject run's 503s).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import type { StepPlan } from '../../../analysis/types.ts';
import { capacityCaveats } from '../../../reports/warning-text.ts';
import { importK6 } from './import.ts';
import { unexplainedChecks } from './unexplained-checks.ts';
import type { CheckTally } from '../output/ingest-stats.ts';

const FIX = 'test/fixtures/k6';
const runsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'plateau-checks-'));
afterAll(() => fs.rmSync(runsDir, { recursive: true, force: true }));

/** One step whose steady window is seconds 2-4 of a tally of 5 seconds. */
const STEP: StepPlan = {
  index: 0,
  ratePerSec: 10,
  rampStartS: 0,
  holdStartS: 0,
  holdEndS: 4,
  steadyStartS: 2,
  steadyEndS: 4,
};
/** Each second: checks, failed checks, requests, failed requests (the window's two seconds alike). */
const tally = (c: number, cf: number, r: number, rf: number): CheckTally => ({
  checks: [0, 0, c, c, 50],
  checksFailed: [0, 0, cf, cf, 50],
  requests: [0, 0, r, r, 50],
  requestsFailed: [0, 0, rf, rf, 0],
});

describe('failed checks a window told of', () => {
  it.each([
    ['a third of the checks failed, no request', tally(100, 33, 100, 0), true],
    ['each failed check on a failed request (a 503 failing "status is 200")', tally(100, 16, 100, 16), false],
    ['two checks a request, both failed on each failed request', tally(200, 32, 100, 16), false],
    ['two checks a request, more failed than the failed requests explain', tally(200, 40, 100, 16), true],
    ['a check on every other request, its failures on failed requests', tally(50, 10, 100, 10), false],
    ['1% of the checks beyond those explained: a window edge can shift that many', tally(100, 1, 100, 0), false],
    ['no check failed', tally(100, 0, 100, 0), false],
  ])('%s', (_, t, told) => {
    const got = unexplainedChecks(t, [STEP]);
    expect(got.length > 0).toBe(told);
    // the seconds outside the window (50 failed checks in second 4) are never counted
    if (told)
      expect(got[0]).toEqual({
        step: 0,
        checks: t.checks[2] * 2,
        checksFailed: t.checksFailed[2] * 2,
        requests: t.requests[2] * 2,
        requestsFailed: t.requestsFailed[2] * 2,
      });
  });
});

describe('plateau import k6 of a run whose checks failed', () => {
  it('the real stepped-queue output, a third of its checks set failed: warned, under the capacity too', async () => {
    let k = 0;
    const lines = zlib
      .gunzipSync(fs.readFileSync(`${FIX}/stepped-queue.ndjson.gz`))
      .toString('utf8')
      .split('\n')
      .map((l) => (l.startsWith('{"metric":"checks"') && k++ % 3 === 0 ? l.replace('"value":1,', '"value":0,') : l));
    expect(k).toBe(5905);
    const file = path.join(runsDir, 'queue-checks.ndjson');
    fs.writeFileSync(file, lines.join('\n'));
    const { result } = await importK6({ file, outDir: runsDir, steps: {} });
    // the capacity is still the steps' (k6 failed no request), and it says what it rests on
    expect(result.capacityPerSec).toBe(150);
    const w = result.warnings.find((x) => x.code === 'k6-checks-failed');
    expect(w?.figures.steps).toEqual([0, 1, 2, 3, 4]);
    expect(w?.figures.checksFailed).toEqual([67, 133, 200, 202, 202]);
    expect(w?.figures.requestsFailed).toEqual([0, 0, 0, 0, 0]);
    expect(capacityCaveats(result)).toEqual([
      "k6 checks failed on responses counted as successes in steps 1-5 (the most at step 1: 67 of 200 checks failed, 34%, and 0 of 200 requests): k6's check() fails no request, so delivery and capacity count those responses as served; have the service answer such a response with an error status, or reject it in k6's responseCallback, to count it as failed; or run the load from plateau k6-script, whose checks fail their requests",
    ]);
  });

  it('the real stepped-reject output: its checks failed on its 503s, which count as failed already: no warning', async () => {
    const { result, ingest } = await importK6({ file: `${FIX}/stepped-reject.ndjson`, outDir: runsDir, steps: {} });
    expect(ingest.stats.checksFailed).toBe(182);
    expect(result.warnings.some((x) => x.code === 'k6-checks-failed')).toBe(false);
  });
});
