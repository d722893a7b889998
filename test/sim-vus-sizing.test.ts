/**
 * The VUs re-sized after the warmup (harness/pipeline/resize-vus.ts) in simulated time: the real
 * warmup on a simulated engine over a model target whose arrivals take 150 ms, three times the
 * 50 ms vus.expectedServiceMs sizes them for before load. A count the config gives is kept and the
 * other still follows the warmup's measured time per arrival (a user's run with --max-vus 300
 * alone kept the 9 VUs sized for 50 ms); run.json, the console and report.md say which was which.
 */
import { SIM_RTT_MS, simContext } from './helpers/sim-context.ts';
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { PlateauConfigInput } from '../harness/config/schema.ts';
import { runStage } from '../harness/pipeline/stage.ts';
import { warmup } from '../harness/pipeline/warmup.ts';
import { resizeVusFromWarmup } from '../harness/pipeline/resize-vus.ts';
import { trafficSummary } from '../harness/scenario/traffic.ts';
import { analyzeStore } from '../harness/report.ts';
import { renderMarkdown } from '../reports/markdown.ts';
import type { RunStore } from '../harness/store/run-store.ts';
import { tempRunsDir } from './helpers/pipeline.ts';

const runsDir = tempRunsDir();
afterAll(() => fs.rmSync(runsDir, { recursive: true, force: true }));
let runs = 0;

/** The warmup at 40/s, then the re-sizing, for steps up to 80/s; the store read back as `plateau report` does. */
async function warmAndResize(vus: PlateauConfigInput['vus'], sampledArrivalMs?: number) {
  const { clock, engine, store, ctx, lines, plan } = simContext({
    runsDir,
    runId: `vus-sim-${++runs}`,
    model: { capacityPerSec: 2000, serviceMs: 150, overload: 'queue' },
    config: {
      steps: { startPerSec: 40, stepPerSec: 40, maxPerSec: 80, rampS: 1, holdS: 4, settleS: 1 },
      warmup: { ratePerSec: 40, windowS: 1, stableWindows: 3, maxS: 20 },
      ...(vus ? { vus } : {}),
    },
  });
  store.update({ traffic: trafficSummary(ctx.requests.traffic) });
  // the plan as preflight's samples sized it (run.ts): a transaction's own time, longer than the plan's
  ctx.sampledArrivalMs = sampledArrivalMs;
  const record = (s: Parameters<RunStore['addStage']>[0]) => store.addStage(s);
  const warmed = await clock.run(runStage('warmup', record, () => warmup(ctx, engine), clock));
  resizeVusFromWarmup(ctx, engine, warmed);
  const allocated = engine.allocated;
  const maxVUs = engine.maxVUs;
  store.update({ status: 'complete', finishedAt: new Date(0).toISOString() });
  store.close();
  const { result, meta } = analyzeStore(store.dir);
  return { planned: plan.vus, vus: ctx.plan.vus, allocated, maxVUs, meta, result, lines };
}

describe('the VUs after the warmup (arrivals of 150 ms, steps to 80/s)', () => {
  // before load: 80/s x (50 ms + 0.5 ms RTT) x 2 = 9 preallocated; after the warmup: 80/s x ~150.5 ms x 2 = 25
  const fromWarmup = (n: number) => n >= 24 && n <= 26;

  it('none given: both sized from the warmup', async () => {
    const r = await warmAndResize(undefined);
    expect(r.planned.preAllocatedVUs).toBe(Math.ceil(((80 * (50 + SIM_RTT_MS)) / 1000) * 2));
    expect(fromWarmup(r.vus.preAllocatedVUs), r.vus.reason).toBe(true);
    expect(r.vus.maxVUs).toBe(4 * r.vus.preAllocatedVUs);
    expect(r.meta.traffic?.sizedFrom).toBe('warmup');
    expect(r.meta.traffic?.vusGiven).toBeUndefined();
  });

  it('only vus.max given (--max-vus 300): the preallocated VUs are still sized from the warmup, the max kept', async () => {
    const r = await warmAndResize({ max: 300 });
    expect(r.planned).toMatchObject({ preAllocatedVUs: 9, maxVUs: 300 });
    expect(fromWarmup(r.vus.preAllocatedVUs), r.vus.reason).toBe(true);
    expect(r.allocated).toBe(r.vus.preAllocatedVUs);
    expect(r.vus.maxVUs).toBe(300);
    expect(r.maxVUs).toBe(300);
    expect(r.vus.reason).toMatch(
      /^preallocated by Little's law: 80 arrivals\/s x [\d.]+ ms per arrival measured in the warmup .* = \d+; max 300 given \(vus\.max, --max-vus\)$/,
    );
    expect(r.lines.join('')).toContain(
      `VUs: ${r.vus.preAllocatedVUs} preallocated, max 300 (preallocated by Little's law`,
    );
    expect(r.meta.vus).toEqual(r.vus);
    expect(r.meta.traffic).toMatchObject({ sizedFrom: 'warmup', vusGiven: 'max' });
    const md = renderMarkdown(r.result);
    expect(md).toContain(
      "**VUs sized from**: the warmup's measured time per arrival (the whole entry, think time included, plus the RTT), by Little's law for the preallocated VUs (at most the given max); the max as the config gives it (vus.max, --max-vus).",
    );
    expect(md).not.toContain('the VU counts the config gives');
  });

  it("sized from preflight's samples where they took longer than the warmup measured: kept, and said so (a review's 6 s sessions the warmup never saw end)", async () => {
    const r = await warmAndResize(undefined, 400);
    expect(r.vus.reason).toMatch(/ \(kept: the warmup measured 15\d\.\d ms per arrival, less\)$/);
    expect(r.meta.traffic?.sizedFrom).toBe('samples');
    expect(renderMarkdown(r.result)).toContain(
      "**VUs sized from**: preflight's sample arrivals: each transaction's own time (think time included) and vus.expectedServiceMs plus the RTT for a request, by the mix's weights and Little's law: no warmup measured a longer time per arrival.",
    );
    // shorter than the warmup's: the warmup's figure sizes them
    expect((await warmAndResize(undefined, 100)).meta.traffic?.sizedFrom).toBe('warmup');
  });

  it('a given vus.max below the warmup sizing caps the preallocated VUs', async () => {
    const r = await warmAndResize({ max: 12 });
    expect(r.vus).toMatchObject({ preAllocatedVUs: 12, maxVUs: 12 });
    expect(r.allocated).toBe(12);
    expect(r.vus.reason).toMatch(/= \d+, capped at the given max; max 12 given/);
  });

  it('only vus.preAllocated given: kept, and the max follows 4x the warmup sizing', async () => {
    const r = await warmAndResize({ preAllocated: 10 });
    expect(r.planned).toMatchObject({ preAllocatedVUs: 10, maxVUs: 36 }); // 4 x 9
    expect(r.vus.preAllocatedVUs).toBe(10);
    expect(fromWarmup(r.vus.maxVUs / 4), r.vus.reason).toBe(true);
    expect(r.maxVUs).toBe(r.vus.maxVUs);
    expect(r.vus.reason).toMatch(
      /^preallocated 10 given \(vus\.preAllocated, --vus\); max 4 x \d+, by Little's law: 80 arrivals\/s x /,
    );
    expect(r.meta.traffic).toMatchObject({ sizedFrom: 'warmup', vusGiven: 'preAllocated' });
    expect(renderMarkdown(r.result)).toContain(
      "by Little's law for the max VUs; the preallocated VUs as the config gives them (vus.preAllocated, --vus).",
    );
  });

  it('both given: nothing re-sized, and the report says both were given', async () => {
    const r = await warmAndResize({ preAllocated: 10, max: 300 });
    expect(r.vus).toEqual(r.planned);
    expect(r.allocated).toBe(10);
    expect(r.meta.traffic?.sizedFrom).toBe('given');
    expect(r.meta.traffic?.vusGiven).toBeUndefined();
    expect(renderMarkdown(r.result)).toContain(
      '**VUs sized from**: the VU counts the config gives (vus.preAllocated, vus.max).',
    );
  });
});
