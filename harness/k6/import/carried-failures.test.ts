/**
 * An imported iteration counts in the second it ended, with the outcome of its requests, some of
 * which it may have sent before a steady window began (decision 063). The real votacao output
 * (5 VUs, every iteration gets one 400 in its middle) has such a window: its first iterations
 * failed by requests sent before it, so it has more failed arrivals than failed requests, and the
 * errors table says how many came from before it instead of leaving 38 beside "400 37".
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { importK6 } from './import.ts';

const FILE = 'test/fixtures/k6/public-votacao-constant-vus.ndjson';
const runsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'plateau-carried-'));
afterAll(() => fs.rmSync(runsDir, { recursive: true, force: true }));

/** The fixture's iterations and failed requests per second since t0, by JSON.parse (setup's samples left out). */
function recount(t0Ms: number): Map<number, { iterations: number; failedRequests: number }> {
  const perS = new Map<number, { iterations: number; failedRequests: number }>();
  for (const l of fs.readFileSync(FILE, 'utf8').split('\n')) {
    if (!l.trim()) continue;
    const o = JSON.parse(l) as {
      type: string;
      metric: string;
      data: { time: string; value: number; tags?: Record<string, string> };
    };
    if (o.type !== 'Point' || (o.data.tags?.group ?? '').startsWith('::setup')) continue;
    const tS = Math.max(0, Math.floor((Date.parse(o.data.time) - t0Ms) / 1000));
    const w = perS.get(tS) ?? perS.set(tS, { iterations: 0, failedRequests: 0 }).get(tS)!;
    if (o.metric === 'iterations') w.iterations += o.data.value;
    if (o.metric === 'http_reqs' && o.data.tags?.expected_response !== 'true') w.failedRequests += o.data.value;
  }
  return perS;
}

describe('an iteration failed by a request sent before its window', () => {
  it('votacao, step 1 over [6, 21) s: 38 failed iterations, 37 failed requests, and the errors table says 1 failed before the window', async () => {
    const r = await importK6({
      file: FILE,
      outDir: runsDir,
      steps: { startPerSec: 5, stepPerSec: 5, maxPerSec: 10, rampS: 1, holdS: 20, settleS: 5 },
    });
    const s = r.result.steps[0];
    expect([s.steadyStartS, s.steadyEndS]).toEqual([6, 21]);
    const raw = recount(r.ingest.stats.t0Ms!);
    let iterations = 0;
    let failedRequests = 0;
    for (let tS = s.steadyStartS; tS < s.steadyEndS; tS++) {
      iterations += raw.get(tS)?.iterations ?? 0;
      failedRequests += raw.get(tS)?.failedRequests ?? 0;
    }
    expect([iterations, failedRequests]).toEqual([38, 37]);
    // all 38 failed, one by the 400 of second 5, where no iteration ended (its iteration ended in the window)
    expect([s.completed, s.failed, s.requestsFailed]).toEqual([38, 38, 37]);
    const md = fs.readFileSync(path.join(r.dir, 'report.md'), 'utf8');
    expect(md).toContain(
      '| 1 | 38 (at least 1 failed by a request sent before the window) | 100.00% | http\\_4xx 38 | 400 37 |',
    );
    // a window whose failed requests cover its failed arrivals says nothing more
    expect(md).toMatch(/\n\| 2 \| 39 \| 100\.00% \|/);
    expect(md).toMatch(
      /each failed request fails one iteration: one that ended in its second or, where fewer ended there, the next to end \(perhaps in the next window/,
    );
    const html = fs.readFileSync(path.join(r.dir, 'report.html'), 'utf8');
    expect(html).toContain('38 (at least 1 failed by a request sent before the window)');
  });
});
