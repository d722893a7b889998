/**
 * A generator at its own CPU ceiling is never the target's limit. The scenario spins 4 ms of the
 * engine thread per arrival, so one thread dispatches at most 250 arrivals/s (wall time: a busy
 * machine only lowers that); the target is a real server on 127.0.0.1 that answers at once, far
 * above it. At 400 arrivals/s the thread is saturated and the responses wait behind its spins, so
 * the client's tail grows: read as the target's, the run stated step 1's rate as the target's
 * capacity (a one-thread generator against nginx read the same way at 40,000 req/s: "collapse",
 * the target blamed, with nginx's worker at 60% of a core). Nothing here is timed: the thread's
 * ceiling is set by the spin, step 1 (10/s) keeps it 4% busy.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../analysis/types.ts';
import { runQuietly, tempRunsDir } from './helpers/pipeline.ts';
import { tinyServer } from './helpers/tiny-server.ts';

const runsDir = tempRunsDir();
let server: Awaited<ReturnType<typeof tinyServer>>;
let result: RunResult;
let printed: string;

beforeAll(async () => {
  server = await tinyServer((_q, res) => res.end('ok'));
  const r = await runQuietly({
    target: { url: `${server.url}/` },
    scenario: path.resolve('test/fixtures/scenarios/spin-4ms.ts'),
    // short: the spin saturates the thread at once (no warmup: the VUs are fixed, and one thread runs)
    steps: { startPerSec: 10, stepPerSec: 390, maxPerSec: 400, rampS: 0, holdS: 3, settleS: 1 },
    warmup: { enabled: false },
    workers: 1,
    // VUs enough that none is wanted: the responses queue behind the spins, not the arrivals behind the VUs
    vus: { preAllocated: 100, max: 100 },
    rtt: { samples: 5 },
    output: { dir: runsDir, runId: 'generator-saturated' },
  });
  expect(r.exitCode, r.lines.join('')).toBe(0);
  result = r.result;
  printed = r.lines.join('');
}, 120_000);

afterAll(async () => {
  await server?.close();
  fs.rmSync(runsDir, { recursive: true, force: true });
});

describe('a generator saturated by its own work, against a target far above its rate', () => {
  it('blames the generator: no capacity is stated for the target', () => {
    // step 1 may be rerun (a stall of a busy machine): the attempt that held is the baseline
    const first = result.steps.find((s) => s.ratePerSec === 10 && s.verdict === 'holds')!;
    expect(first, printed).toBeDefined();
    const top = result.steps.find((s) => s.ratePerSec === 400 && s.verdict !== 'holds')!;
    expect(top, printed).toBeDefined();
    expect(top.generatorSaturated, printed).toBe(true);
    expect(top.generatorBound, top.verdictDetail).toBe(true);
    expect(top.waitedOnTarget).toBeUndefined();
    expect(result.stopReason, result.stopDetail).toBe('generator-bound');
    expect(result.capacityPerSec).toBeNull();
    expect(result.heldAtLeastPerSec).toBeCloseTo(first.throughputPerSec, 6);
    expect(result.overload?.shape ?? 'generator-bound').toBe('generator-bound');
  });

  it("says the client's tail cannot be the target's, and asks for CPU, not VUs", () => {
    const top = result.steps.find((s) => s.ratePerSec === 400 && s.verdict !== 'holds')!;
    // the tail is read and said either way; it is never the target's while the thread is saturated
    expect(top.verdictDetail).toMatch(
      /^generator-limited, not a server limit: .*(busy \d+(\.\d)?% of the time > 90%|the target's tail stayed low)/,
    );
    expect(top.verdictDetail).not.toMatch(/the target is the limit/);
    expect(result.stopDetail).toMatch(
      /give the generator more cores or workers \(--workers\), or a machine of its own/,
    );
    expect(result.stopDetail).not.toMatch(/allow more VUs/);
  });
});
