/**
 * A target that fails every fifth request whatever the rate (a reviewer's /err route): the first
 * step fails on delivery, and the warmup, at half its rate, failed the same share. The stop must
 * not say "start lower" (a lower start fails them too: docs/decisions/072), the warmup's line says
 * what share of it failed, and report.md and summary.json agree.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../analysis/types.ts';
import { runQuietly, tempRunsDir } from './helpers/pipeline.ts';
import { tinyServer } from './helpers/tiny-server.ts';

const runsDir = tempRunsDir();
let target: Awaited<ReturnType<typeof tinyServer>>;
let answered = 0;

beforeAll(async () => {
  // by the server's own count: a fifth of its answers are 500s at any rate
  target = await tinyServer((req, res) => {
    answered++;
    const failing = req.url === '/load' && answered % 5 === 0;
    res.writeHead(failing ? 500 : 200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
  });
});
afterAll(async () => {
  await target.close();
  fs.rmSync(runsDir, { recursive: true, force: true });
});

describe('failures at any rate fail the first step', () => {
  let result: RunResult;
  let dir: string;
  beforeAll(async () => {
    // 200/s for a 1 s steady window, the warmup at its default half (100/s) for two 1 s windows:
    // 200 arrivals a side, enough for the rule to tell 20% from a fall to 10% (z about 3)
    const r = await runQuietly({
      target: { url: `${target.url}/load` },
      steps: { startPerSec: 200, stepPerSec: 200, maxPerSec: 200, rampS: 0, holdS: 2, settleS: 1 },
      warmup: { windowS: 1, stableWindows: 2, maxS: 3 },
      rtt: { samples: 3 },
      verdicts: { confirmFailedStep: false },
      gracefulStopS: 1,
      output: { dir: runsDir, runId: 'any-rate' },
    });
    expect(r.exitCode, r.lines.join('')).toBe(0);
    result = r.result;
    dir = r.dir;
  }, 60_000);

  it('says the failures do not fall with the rate, with both shares, instead of "start lower"', () => {
    expect(result.stopReason).toBe('failed-first-step');
    expect(result.stopDetail).toMatch(
      /failures, not throughput, took its delivery under 0\.90; they do not fall with the rate, so starting lower would fail them too \(the warmup at 100 req\/s failed (19|20|21)\.\d\d% of \d+ requests, this step at 200 (19|20|21)\.\d\d% of \d+\): fix what fails in the target or in the scenario's requests; the errors table gives kinds and samples$/,
    );
    expect(result.stopDetail).not.toMatch(/start lower/);
    expect(result.overload?.meaning).toMatch(
      /^the warmup, at 100 req\/s, failed (19|20|21)\.\d\d% of its requests too/,
    );
  });

  it("the warmup's line says what share of its requests failed", () => {
    const warmup = result.stages.find((s) => s.name === 'warmup')!;
    expect(warmup.detail).toMatch(/; (19|20|21)\.\d\d% of their requests failed/);
  });

  it('report.md and summary.json say the same', () => {
    const summary = JSON.parse(fs.readFileSync(path.join(dir, 'summary.json'), 'utf8')) as RunResult;
    expect(summary.stopDetail).toBe(result.stopDetail);
    expect(summary.overload?.meaning).toBe(result.overload?.meaning);
    const md = fs.readFileSync(path.join(dir, 'report.md'), 'utf8');
    expect(md).toContain(`**Stop reason: failed-first-step**: ${result.stopDetail.replaceAll('_', '\\_')}`);
  });
});
