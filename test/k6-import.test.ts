/**
 * The k6 side that starts nothing and measures no time: `plateau import k6` of real k6 outputs
 * (test/fixtures/k6), report --merge of two imports, and the execution segments' share of a plan.
 * A pure file (vitest.config.ts PURE_IN_TEST): it runs as the CPU hog's work beside the
 * integration set. The generated script and the k6 engine in the pipeline: test/k6-engine.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { importK6 } from '../harness/k6/import/import.ts';
import { mergeRuns } from '../harness/merge.ts';
import { planShare, segmentLength } from '../harness/k6/engine/segment.ts';
import { planForInstance, rerunVusBound } from '../harness/engine/create.ts';
import { deriveSteps } from '../harness/k6/import/derive-steps.ts';
import { buildPlan } from '../analysis/plan.ts';
import { parseConfigOrThrow } from '../harness/config/validate.ts';
import { tempRunsDir } from './helpers/pipeline.ts';

const FIX = path.resolve('test/fixtures/k6');
const runsDir = tempRunsDir();
afterAll(() => fs.rmSync(runsDir, { recursive: true, force: true }));

describe('plateau import k6', () => {
  it('stepped-queue: derives 50..250 by 50 and finds the plateau near 140 req/s', async () => {
    const r = await importK6({ file: `${FIX}/stepped-queue.ndjson.gz`, outDir: runsDir, runId: 'queue', steps: {} });
    expect(r.stepsFrom).toBe('derived');
    expect(r.result.steps.map((s) => s.ratePerSec)).toEqual([50, 100, 150, 200, 250]);
    expect(r.result.stopReason).toBe('plateau');
    expect(r.result.kneeStep).toBe(2);
    const plateauPerSec = r.result.steps[3].throughputPerSec;
    expect(Math.abs(plateauPerSec - 140) / 140).toBeLessThan(0.15);
    expect(Math.abs(r.result.capacityPerSec! - 140) / 140).toBeLessThan(0.15);
    for (const f of ['run.json', 'buckets.ndjson', 'report.md', 'summary.json'])
      expect(fs.existsSync(path.join(r.dir, f))).toBe(true);
    // k6 measures no event-loop delay of plateau's: not measured, not a perfect 0
    const summary = JSON.parse(fs.readFileSync(path.join(r.dir, 'summary.json'), 'utf8')) as {
      steps: { loopDelayMaxMs: unknown }[];
    };
    expect(summary.steps.map((s) => s.loopDelayMaxMs)).toEqual(r.result.steps.map(() => null));
  });

  it('stepped-reject from the step flags: the 180 step fails with 503s as errors', async () => {
    const r = await importK6({
      file: `${FIX}/stepped-reject.csv.gz`,
      outDir: runsDir,
      runId: 'reject',
      steps: { startPerSec: 60, stepPerSec: 60, maxPerSec: 180, rampS: 2, holdS: 6, settleS: 2 },
    });
    expect(r.result.steps.map((s) => s.verdict)).toEqual(['holds', 'holds', 'fails']);
    expect(r.result.steps[2].errors.http_5xx).toBeGreaterThan(0);
  });

  it('says which flags to give when steps cannot be derived', async () => {
    // stepped-reject cut within its first hold (t0 22:23:38.6 +05:30; the hold ends 8 s later): one rate, no plan
    const file = path.join(runsDir, 'stepped-reject-one-step.ndjson');
    const lines = fs.readFileSync(`${FIX}/stepped-reject.ndjson`, 'utf8').split('\n');
    fs.writeFileSync(file, lines.filter((l) => !/"time":"2026-11-29T22:2(3:4[6-9]|3:5|[4-9]:)/.test(l)).join('\n'));
    await expect(importK6({ file, outDir: runsDir, steps: {} })).rejects.toMatchObject({
      code: 'k6-steps-unknown',
      message: expect.stringMatching(
        /^cannot derive the steps of .*stepped-reject-one-step\.ndjson: the run held one rate only, about 60\/s/,
      ),
      hint: expect.stringMatching(
        /^plateau judges a run of rising steps: .*; or, if this run was one step of such a plan, give it with the step flags \(--start-rate, --step-rate, --max-rate, --ramp, --hold\)/,
      ),
    });
    // with a second scenario beside it, the fix names the one to keep first
    const kept = lines.filter((l) => !/"time":"2026-11-29T22:2(3:4[6-9]|3:5|[4-9]:)/.test(l));
    const iteration = kept.find((l) => l.includes('"metric":"iterations"') && l.includes('"type":"Point"'))!;
    kept.push(iteration.replace('"scenario":"steps"', '"scenario":"background"'));
    const two = path.join(runsDir, 'stepped-reject-one-step-two.ndjson');
    fs.writeFileSync(two, kept.join('\n'));
    await expect(importK6({ file: two, outDir: runsDir, steps: {} })).rejects.toMatchObject({
      code: 'k6-steps-unknown',
      hint: expect.stringMatching(
        /^pass --scenario steps to import one scenario alone .*; plateau judges a run of rising steps/,
      ),
    });
  });

  it('report --merge of two runs adds rates and counts exactly', async () => {
    const a = await importK6({ file: `${FIX}/stepped-queue.ndjson.gz`, outDir: runsDir, runId: 'qa', steps: {} });
    const b = await importK6({ file: `${FIX}/stepped-queue.ndjson.gz`, outDir: runsDir, runId: 'qb', steps: {} });
    // the same output imported again stands in for a second instance: as it is, it is refused as the
    // run again (merge.ts sameRunTwice); started 3 ms later, as another machine's instance would be, it merges
    const bMeta = path.join(b.dir, 'run.json');
    const later = JSON.parse(fs.readFileSync(bMeta, 'utf8')) as { startedAt: string };
    later.startedAt = new Date(Date.parse(later.startedAt) + 3).toISOString();
    fs.writeFileSync(bMeta, JSON.stringify(later));
    const m = await mergeRuns({ dirs: [a.dir, b.dir], outDir: runsDir, runId: 'merged' });
    expect(m.result.steps.map((s) => s.ratePerSec)).toEqual([100, 200, 300, 400, 500]);
    m.result.steps.forEach((s, i) =>
      expect(s.completed).toBe(a.result.steps[i].completed + b.result.steps[i].completed),
    );
    // a run of another traffic (here: a mix with a transaction) is no instance of the same run
    const meta = path.join(b.dir, 'run.json');
    const other = JSON.parse(fs.readFileSync(meta, 'utf8'));
    other.traffic = {
      entries: [
        { name: 'read', weight: 9, transaction: false },
        { name: 'checkout', weight: 1, transaction: true },
      ],
    };
    fs.writeFileSync(meta, JSON.stringify(other));
    await expect(mergeRuns({ dirs: [a.dir, b.dir], outDir: runsDir, runId: 'merged-2' })).rejects.toThrow(
      /qb offered another traffic than .*qa \(arrivals\/s against req\/s\)/,
    );
  });

  it('derivation needs a stepped offered rate', () => {
    expect(deriveSteps([]).steps).toBeNull();
  });
});

describe('execution segments', () => {
  it.each([
    ['0:1/2', 0.5],
    ['1/4:1/2', 0.25],
    ['50%:75%', 0.25],
    ['0.5', 0.5],
    [undefined, 1],
  ])('%s is %d of the rate', (seg, share) => {
    expect(segmentLength(seg)).toBeCloseTo(share, 12);
  });
  it('scales the judged rates, not the k6 stages', () => {
    const plan = buildPlan(
      parseConfigOrThrow({
        target: { url: 'http://x/' },
        steps: { startPerSec: 100, stepPerSec: 100, maxPerSec: 200, rampS: 1, holdS: 10 },
      }),
      null,
    );
    const share = planShare(plan, '0:1/4');
    expect(share.steps.map((s) => s.ratePerSec)).toEqual([25, 50]);
    expect(share.segments).toEqual(plan.segments);
  });
  it('the plan a k6 instance runs has its share of the rates and maxVUs a multiple of the LCD, within limits.maxInFlight', () => {
    const input = {
      engine: 'k6' as const,
      target: { url: 'http://x/' },
      steps: { startPerSec: 90, stepPerSec: 90, maxPerSec: 180, rampS: 1, holdS: 10 },
      vus: { preAllocated: 4, max: 10 },
      k6: { executionSegment: '0:1/3' },
    };
    const config = parseConfigOrThrow(input);
    const plan = planForInstance(buildPlan(config, null), config);
    expect(plan.steps.map((s) => s.ratePerSec)).toEqual([30, 60]);
    expect(plan.vus).toMatchObject({ preAllocatedVUs: 4, maxVUs: 12 });
    const bounded = parseConfigOrThrow({ ...input, limits: { maxInFlight: 11 } });
    expect(planForInstance(buildPlan(bounded, null), bounded).vus).toMatchObject({ maxVUs: 9 });
    const native = parseConfigOrThrow({ ...input, engine: 'native' });
    expect(planForInstance(buildPlan(native, null), native)).toEqual(buildPlan(native, null));
  });
  it('a maxVUs sized above verdicts.maxVUsBound still rounds up (only maxInFlight caps it); a rerun raises maxVUs to a multiple of the LCD within the bound', () => {
    const input = {
      engine: 'k6' as const,
      target: { url: 'http://x/' },
      steps: { startPerSec: 90, stepPerSec: 90, maxPerSec: 180, rampS: 1, holdS: 10 },
      vus: { preAllocated: 4, max: 200 },
      verdicts: { maxVUsBound: 100 },
      k6: { executionSegment: '0:1/3' },
    };
    const config = parseConfigOrThrow(input);
    expect(planForInstance(buildPlan(config, null), config).vus.maxVUs).toBe(201);
    expect(rerunVusBound(config)).toBe(99);
    expect(rerunVusBound(parseConfigOrThrow({ ...input, engine: 'native' }))).toBe(100);
    expect(rerunVusBound(parseConfigOrThrow({ ...input, k6: {} }))).toBe(100);
  });
});
