/**
 * The demo end to end, as `make loadtest` runs it: the queue shape, capacity near the configured
 * truth, the server cross-check and the pool reading. The decision's other paths run in simulated
 * time (test/sim-steps.test.ts).
 */
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { PlateauConfigInput } from '../harness/config/schema.ts';
import { DEMO_SCENARIO, runQuietly, tempRunsDir } from './helpers/pipeline.ts';
import { startDemoProcess } from '../harness/demo-process.ts';

const KEY = 'verdict-test-key-' + process.pid;
const env = { ...process.env, PLATEAU_DEMO_HMAC_KEY: KEY };
const runsDir = tempRunsDir();
afterAll(() => fs.rmSync(runsDir, { recursive: true, force: true }));

function configFor(url: string, runId: string, extra: Partial<PlateauConfigInput>): PlateauConfigInput {
  return {
    target: { url: `${url}/orders`, rttPath: '/ping' },
    scenario: DEMO_SCENARIO,
    warmup: { ratePerSec: 40, windowS: 1, stableWindows: 2, maxS: 4 },
    rtt: { samples: 10 },
    metrics: {
      url: '/metrics',
      scrapeEveryS: 1,
      requests: { name: 'http_server_requests_seconds', labels: { uri: '/orders' } },
    },
    output: { dir: runsDir, runId },
    ...extra,
  } as PlateauConfigInput;
}

// No ramp: each step goes to its rate at once and the settling second absorbs the change, so the
// steady windows (3 s each) are those of 1 s ramps, a second a step sooner.
const steps = (startPerSec: number, stepPerSec: number, maxPerSec: number) => ({
  startPerSec,
  stepPerSec,
  maxPerSec,
  rampS: 0,
  holdS: 4,
  settleS: 1,
});

/** What a failing assertion needs to say: the stop, and each step's rate, throughput, verdict and why. */
const describeRun = (r: Awaited<ReturnType<typeof runQuietly>>) =>
  `${r.result.stopReason}: ${r.result.stopDetail}\n${r.result.steps.map((s) => `${s.ratePerSec}/${s.attempt ?? 1}: ${s.throughputPerSec.toFixed(1)} ${s.verdict} ${s.reasons.join('; ')}`).join('\n')}`;

type Run = Awaited<ReturnType<typeof runQuietly>>;

/**
 * A shape test's run, made again once when it stopped generator-bound. On a busy machine a stall
 * of the generator (the test's own thread) can fail a step below the knee while the target's tail
 * stays low, and plateau then rightly says the generator, not the target, was the limit (this
 * made "queue: plateau" fail beside other work). That stop must say so with its evidence; the
 * shape is then measured once more, and a second generator-bound stop fails the test.
 */
async function runForShape(runId: string, run: (runId: string) => Promise<Run>): Promise<Run> {
  const first = await run(runId);
  if (first.result.overload?.shape !== 'generator-bound') return first;
  expect(first.result.generatorBound, describeRun(first)).toBe(true);
  expect(first.result.steps.find((s) => s.generatorBound)?.reasons.join(' '), describeRun(first)).toMatch(
    /generator-limited, not a server limit: /,
  );
  console.log(`${runId}: stopped generator-bound on this machine; measured once more\n${describeRun(first)}`);
  return run(`${runId}-again`);
}

describe('overload shapes', () => {
  it('queue: plateau, and the server agrees with the client below the knee', async () => {
    // The demo in its own process, as `make loadtest` runs it: sharing the test's event loop
    // would blur sub-millisecond timing on both sides.
    const demo = await startDemoProcess({ slots: 2, holdMs: 9.5 }, env);
    let r: Awaited<ReturnType<typeof runQuietly>>;
    try {
      // From 120 by 40: three steps below the 210.5 req/s truth (the cross-check needs a majority of
      // them), the knee at 200 and 240 past it.
      r = await runForShape('queue', (id) =>
        runQuietly(configFor(demo.url, id, { steps: steps(120, 40, 320), verdicts: { confirmFailedStep: false } }), {
          env,
        }),
      );
    } finally {
      await demo.stop();
    }
    expect(r.result.overload?.shape, describeRun(r)).toBe('plateau');
    expect(Math.abs(r.result.capacityPerSec! - demo.capacityPerSec) / demo.capacityPerSec, describeRun(r)).toBeLessThan(
      0.1,
    );
    // Server throughput agrees at every held step; latency agrees within max(0.5 ms, 5%) at the
    // median step (a noisy neighbour on this 2-core machine can delay the client in one step, and
    // the check then rightly says client-queueing).
    const held = r.result.steps.filter((s) => s.verdict === 'holds');
    const details = held.map((s) => s.crossCheck!.detail).join('\n');
    for (const s of held) expect(['consistent', 'client-queueing'], details).toContain(s.crossCheck?.verdict);
    const verdicts = held.map((s) => s.crossCheck!.verdict);
    expect(verdicts.filter((v) => v === 'consistent').length, details).toBeGreaterThan(held.length / 2);
    expect(r.result.steps.at(-1)!.poolReading).toMatch(/short of connections/);
  }, 120_000);

  // The other shapes (errors past a fail-fast pool's knee, collapse past a USL peak), a
  // generator-bound stop and drops the target caused are the decision's: test/sim-steps.test.ts runs
  // them through the real steps stage in simulated time against a model target (issue 26 item 7);
  // this file keeps the demo end to end.
});
