/**
 * The "done when" on the demo: its own mix (demo/scenario.ts: reads, signed writes taking
 * accounts from a CSV, a create-then-confirm transaction, body checks) through the whole pipeline
 * on two worker threads, and per-name rows whose rates match the weights in the steady window:
 * each share within 2% of its weight's plus half a percentage point (completions counted by the
 * second they end shift a transaction's few arrivals against the others).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemo, type DemoHandle } from '../demo/server.ts';
import type { RunResult } from '../analysis/types.ts';
import { DEMO_MIX } from '../demo/mix.ts';
import { runQuietly, tempRunsDir } from './helpers/pipeline.ts';

const KEY = 'test-key-not-secret-' + process.pid;
const env = { ...process.env, PLATEAU_DEMO_HMAC_KEY: KEY };
let demo: DemoHandle;
const runsDir = tempRunsDir();

beforeAll(async () => {
  // every request holds a slot 60 ms: an arrival takes longer than the 50 ms vus.expectedServiceMs
  // sizes the VUs for, so the warmup's measured time sizes them (40 slots: capacity far above 200/s)
  demo = await startDemo({ slots: 40, holdMs: 60, readHoldMs: 60, confirmHoldMs: 60, hmacKey: KEY });
});
afterAll(async () => {
  await demo.close();
  fs.rmSync(runsDir, { recursive: true, force: true });
});

describe('the demo mix through the pipeline', () => {
  let result: RunResult;
  let dir: string;
  let lines: string[];
  beforeAll(async () => {
    const r = await runQuietly(
      {
        target: { url: `${demo.url}/orders`, rttPath: '/ping' },
        scenario: path.resolve('demo/scenario.ts'),
        steps: { startPerSec: 200, stepPerSec: 100, maxPerSec: 200, rampS: 1, holdS: 4, settleS: 1 },
        warmup: { ratePerSec: 40, windowS: 1, stableWindows: 2, maxS: 2 },
        rtt: { samples: 5 },
        output: { dir: runsDir, runId: 'demo-mix' },
        workers: 2,
      },
      { env },
    );
    expect(r.exitCode, r.lines.join('')).toBe(0);
    result = r.result;
    dir = r.dir;
    lines = r.lines;
  }, 120_000);

  it('counts arrivals for the verdicts and names for the rows, at the weights within 2% per steady window', () => {
    const total = Object.values(DEMO_MIX).reduce((a, b) => a + b, 0);
    expect(result.steps.map((s) => s.verdict)).toEqual(['holds']);
    for (const s of result.steps) {
      expect(s.byName, `step ${s.index}`).toBeDefined();
      const arrivals = Object.entries(DEMO_MIX).reduce((a, [name]) => a + s.byName![name].completedPerSec, 0);
      expect(Math.abs(arrivals - s.completedPerSec) / s.completedPerSec).toBeLessThan(0.001);
      for (const [name, w] of Object.entries(DEMO_MIX)) {
        const share = s.byName![name].completedPerSec / s.completedPerSec;
        expect(Math.abs(share - w / total), `${name} at ${s.ratePerSec}/s: share ${share}`).toBeLessThan(
          0.02 * (w / total) + 0.005,
        );
        expect(s.byName![name].errorRate).toBe(0);
      }
      expect(s.byName!.checkout.transaction).toBe(true);
      expect(s.byName!['checkout: create'].completedPerSec).toBeCloseTo(s.byName!.checkout.completedPerSec, 0);
      expect(s.byName!['checkout: confirm'].completedPerSec).toBeCloseTo(s.byName!.checkout.completedPerSec, 0);
      // the server counts requests: a checkout is two
      expect(s.requestsPerSec! / s.completedPerSec).toBeCloseTo(1 + DEMO_MIX.checkout / total, 1);
    }
  });

  it('the transaction holds its think time; run.json keeps the mix and how the VUs were sized', () => {
    const s = result.steps[0];
    expect(s.byName!.checkout.latency.find((p) => p.q === 50)!.valueMs!).toBeGreaterThan(20);
    const meta = JSON.parse(fs.readFileSync(path.join(dir, 'run.json'), 'utf8'));
    expect(meta.traffic.entries.map((e: { name: string }) => e.name)).toEqual(Object.keys(DEMO_MIX));
    expect(meta.traffic.sizedFrom).toBe('warmup');
    expect(meta.vus.reason).toMatch(/per arrival measured in the warmup/);
    const perArrival = Number(/x ([\d.]+) ms per arrival/.exec(meta.vus.reason)![1]);
    expect(perArrival).toBeGreaterThan(60); // 70% reads and 25% writes of 60 ms, 5% two requests and 20 ms think
    // the reason rounds the time to 0.1 ms: the sizing may differ from it by one VU
    expect(Math.abs(meta.vus.preAllocatedVUs - Math.ceil(((200 * perArrival) / 1000) * 2))).toBeLessThanOrEqual(1);
    // the worker threads allocated and opened them before the first step (not the warmup's sizing)
    const opened = lines
      .join('')
      .match(/connections: (\d+) open for the (\d+) VUs allocated \((\d+) preallocated\) before the first step/);
    expect(opened, lines.join('')).not.toBeNull();
    expect(Number(opened![3])).toBe(meta.vus.preAllocatedVUs);
    expect(Number(opened![2])).toBe(meta.vus.preAllocatedVUs);
  });
});
