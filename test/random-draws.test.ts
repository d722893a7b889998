/**
 * Runs of a random data source record what its draws followed (run.json traffic.randomDraws: its
 * seed, else the run id), and compare says where two runs drew other rows: through the pipeline
 * against a real server on 127.0.0.1, one short step each.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settingDifferences } from '../analysis/compare/differences.ts';
import { analyzeStore } from '../harness/report.ts';
import { runQuietly, tempRunsDir } from './helpers/pipeline.ts';
import { tinyServer } from './helpers/tiny-server.ts';

const runsDir = tempRunsDir();
let srv: Awaited<ReturnType<typeof tinyServer>>;
beforeAll(async () => {
  srv = await tinyServer((_req, res) => res.end('ok'));
});
afterAll(async () => {
  await srv.close();
  fs.rmSync(runsDir, { recursive: true, force: true });
});

function runOf(fixture: string, runId: string) {
  return runQuietly({
    target: { url: `${srv.url}/`, healthPath: '/' },
    scenario: path.resolve(`test/fixtures/scenarios/${fixture}.ts`),
    steps: { startPerSec: 20, stepPerSec: 20, maxPerSec: 20, rampS: 0, holdS: 2, settleS: 1 },
    warmup: { enabled: false },
    rtt: { samples: 2 },
    // both counts given: VUs sized from each run's RTT would differ too (max VUs 12 vs 16)
    vus: { preAllocated: 10, max: 40 },
    output: { dir: runsDir, runId },
  });
}

describe('random rows across runs', () => {
  it('are recorded by their seed or run id, and compare says where two runs drew other rows', async () => {
    const [u1, u2, s1, s2] = await Promise.all([
      runOf('random-unseeded', 'draws-u1'),
      runOf('random-unseeded', 'draws-u2'),
      runOf('random-seed', 'draws-s1'),
      runOf('random-seed', 'draws-s2'),
    ]);
    for (const r of [u1, u2, s1, s2]) expect(r.error?.message ?? null, r.lines.join('')).toBeNull();
    const meta = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, 'run.json'), 'utf8'));
    expect(meta(u1.dir).traffic.randomDraws).toEqual({ accounts: { by: 'run id', text: 'draws-u1' } });
    expect(meta(s1.dir).traffic.randomDraws).toEqual({ accounts: { by: 'seed', text: 'checkout-ab' } });
    const result = (dir: string) => analyzeStore(dir).result;
    expect(settingDifferences(result(u1.dir), result(u2.dir))).toEqual([
      expect.stringMatching(
        /^random rows of data source "accounts" differs: run id draws-u1 vs run id draws-u2: each run drew other rows/,
      ),
    ]);
    expect(settingDifferences(result(s1.dir), result(s2.dir))).toEqual([]);
  });
});
