/**
 * `plateau import k6` of a user's own script: arrivals are its iterations, each second broken
 * down by the `name` tag (the real votacao output), one name gives no breakdown (the stepped
 * runs), and URLs built from data are folded into one row, with the fix said.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import type { BucketRecord, StageOutcome } from '../../../analysis/types.ts';
import { importK6 } from './import.ts';
import { mergeRuns } from '../../merge.ts';
import type { PlateauError } from '../../errors.ts';

const FIX = 'test/fixtures/k6';
const runsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'plateau-import-'));
afterAll(() => fs.rmSync(runsDir, { recursive: true, force: true }));

const buckets = (dir: string): BucketRecord[] =>
  fs
    .readFileSync(path.join(dir, 'buckets.ndjson'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as BucketRecord);
const stepsStage = (dir: string) =>
  (JSON.parse(fs.readFileSync(path.join(dir, 'run.json'), 'utf8')) as { stages: StageOutcome[] }).stages.find(
    (s) => s.name === 'steps',
  )!;
/** The synthetic runs below: 10 arrivals/s for 12 s, one step. */
const FLAGS = { startPerSec: 10, stepPerSec: 10, maxPerSec: 10, rampS: 1, holdS: 10 };
/** votacao is a closed model: any rates (it was offered none; the flags only give it steps for its tables). */
const VOTACAO_FLAGS = { startPerSec: 5, stepPerSec: 5, maxPerSec: 10, rampS: 1, holdS: 10 };

/** One k6 JSON output line: a point `ms` after 16:52:40 UTC. */
const T = Date.parse('2026-11-29T16:52:40.000Z');
const line = (metric: string, ms: number, value: number, tags: Record<string, string>) =>
  JSON.stringify({ metric, type: 'Point', data: { time: new Date(T + ms).toISOString(), value, tags } });

/** The lines as a k6 output file in the runs directory; its path. */
function written(name: string, lines: readonly string[]): string {
  const file = path.join(runsDir, name);
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

describe('plateau import k6 of a user script', () => {
  it('votacao (5 VUs, 4 named requests an iteration): arrivals are iterations, requests and names kept', async () => {
    const r = await importK6({
      file: `${FIX}/public-votacao-constant-vus.ndjson`,
      outDir: runsDir,
      steps: VOTACAO_FLAGS,
    });
    const bs = buckets(r.dir);
    const sum = (f: (b: BucketRecord) => number) => bs.reduce((a, b) => a + f(b), 0);
    expect([sum((b) => b.completed), sum((b) => b.requests ?? 0)]).toEqual([107, 558]);
    const names = new Set(bs.flatMap((b) => Object.keys(b.byName ?? {})));
    expect([...names].sort()).toEqual(['create_agenda', 'get_results', 'open_voting_session', 'submit_vote']);
    // a constant-vus run: the steps are the flags', never offered, and no capacity is claimed
    expect(r.notes).toEqual([
      expect.stringMatching(
        /^public-votacao-constant-vus\.ndjson looks like a closed-model run .*all 5 of its VUs were active through \d+ seconds in a row .*: the steps are the flags' rates, which the run was never offered; its capacity is not established$/,
      ),
    ]);
    expect([r.result.capacityPerSec, r.result.stopReason]).toEqual([null, 'closed-model']);
    expect(r.result.warnings.map((w) => w.code)).toContain('closed-model');
    // every iteration of votacao got a 400: no step held, and the headline says what the run was
    const headline = fs.readFileSync(path.join(r.dir, 'report.md'), 'utf8');
    expect(headline).toMatch(
      /\*\*Capacity: not established: a closed-model k6 run: its VUs set the load, no rate was offered\*\*/,
    );
    expect(headline).toMatch(
      /a closed-model k6 run \(constant-vus, ramping-vus, per-vu-iterations or shared-iterations\): all 5 of its VUs active through \d+ seconds in a row/,
    );
    expect(stepsStage(r.dir).evidence.join('\n')).toMatch(
      /arrivals are k6 iterations \(107\).*by the name tag: 4 names/,
    );
    // 558 requests in 107 iterations: the rates count iterations, and every text says so
    expect(r.result.traffic).toEqual({
      entries: [],
      iterations: { requestsPerArrival: 5.215, closedModel: { heldS: 43, readings: 43, vus: 5 } },
    });
    const md = fs.readFileSync(path.join(r.dir, 'report.md'), 'utf8');
    expect(md).toMatch(/an arrival is one iteration \(k6's iterations metric\), which sent 5\.21 requests on average/);
    const texts = [r.result.stopDetail, ...r.result.steps.flatMap((s) => s.reasons)].join(' ');
    expect(texts).toMatch(/arrivals\/s/);
    expect(texts).not.toMatch(/req\/s/);
  });

  /**
   * stepped-reject (60, 120, 180/s; the 180 step fails with 503s) as a closed model would write its
   * gauges: vus and vus_max both 10 every second, and its 3 drops taken out.
   */
  function rejectAsClosed(): string {
    const lines = fs
      .readFileSync(`${FIX}/stepped-reject.ndjson`, 'utf8')
      .split('\n')
      .filter((l) => !l.includes('"metric":"dropped_iterations"') || !l.includes('"type":"Point"'))
      .map((l) =>
        /"metric":"vus(_max)?","type":"Point"|"type":"Point".*"metric":"vus(_max)?"/.test(l)
          ? l.replace(/"value":[0-9.e+-]+/, '"value":10')
          : l,
      );
    return written('stepped-reject-closed.ndjson', lines);
  }

  it('a closed model whose steps held, then failed: no capacity, stop reason closed-model, in every text', async () => {
    const file = rejectAsClosed();
    await expect(importK6({ file, outDir: runsDir, steps: {} })).rejects.toMatchObject({ code: 'k6-closed-model' });
    const steps = { startPerSec: 60, stepPerSec: 60, maxPerSec: 180, rampS: 2, holdS: 6, settleS: 2 };
    const r = await importK6({ file, outDir: runsDir, steps });
    expect(r.result.steps.map((s) => s.verdict)).toEqual(['holds', 'holds', 'fails']);
    expect(r.result).toMatchObject({ capacityPerSec: null, stopReason: 'closed-model', kneeStep: 1 });
    // no overload shape judged against rates it was never offered
    expect(r.result.overload).toBeUndefined();
    expect(r.result.stopDetail).toMatch(/^a closed-model k6 run .*capacity not established \(1\d\d\.\d req\/s held\)/);
    const md = fs.readFileSync(path.join(r.dir, 'report.md'), 'utf8');
    expect(md).toMatch(
      /\*\*Capacity: not established \(at least 1\d\d\.\d req\/s held; a closed-model k6 run: its VUs set the load, no rate was offered\)\*\*/,
    );
    const summary = JSON.parse(fs.readFileSync(path.join(r.dir, 'summary.json'), 'utf8')) as {
      capacityPerSec: unknown;
    };
    expect(summary.capacityPerSec).toBeNull();
    // --open-model (the user knows it was an arrival rate): no check, the steps derived and judged;
    // its one failure, the last step's, is confirmed by no later step: what held is a lower bound
    const told = await importK6({ file, outDir: runsDir, steps: {}, openModel: true });
    expect(told.result.steps.map((st) => st.ratePerSec)).toEqual([60, 120, 180]);
    expect(told.result.stopReason).toBe('unconfirmed');
    expect(told.result.heldAtLeastPerSec).toBeGreaterThan(100);
    expect(told.result.traffic?.iterations?.closedModel).toBeUndefined();
    // a run of two scenarios: the gauges count both, so they say nothing of either
    const two = fs.readFileSync(file, 'utf8').split('\n');
    const it = two.find((l) => l.includes('"metric":"iterations"') && l.includes('"type":"Point"'))!;
    two.push(it.replace('"scenario":"steps"', '"scenario":"background"'));
    const twoFile = written('stepped-reject-closed-two.ndjson', two);
    const both = await importK6({ file: twoFile, outDir: runsDir, steps: {} });
    expect(both.result.traffic?.iterations?.closedModel).toBeUndefined();
    expect(both.result.heldAtLeastPerSec).toBeGreaterThan(100);
    // and the import says its arrivals mix both, with their iterations and the flag that keeps one
    const steppedIterations = r.ingest.stats.scenarioIterations.steps;
    expect(steppedIterations).toBeGreaterThan(1000);
    expect(both.ingest.stats.scenarioIterations).toEqual({ steps: steppedIterations, background: 1 });
    expect(both.notes).toContain(
      `stepped-reject-closed-two.ndjson ran 2 scenarios (steps: ${steppedIterations.toLocaleString('en-US')} iterations, background: 1 iteration): its arrivals are all their iterations together, and its steps are judged on their sum; pass --scenario steps to import one scenario alone (its iterations, requests and drops; --scenario again for more)`,
    );
    expect(stepsStage(both.dir).evidence.some((e) => e.includes('ran 2 scenarios'))).toBe(true);
    // a warning of the report too (report.md's Warnings, the console's count), not only a note
    expect(both.result.warnings.find((w) => w.code === 'k6-scenarios-summed')?.figures).toEqual({
      count: 2,
      scenarios: `steps: ${steppedIterations.toLocaleString('en-US')}, background: 1`,
      first: 'steps',
    });
    expect(fs.readFileSync(path.join(both.dir, 'report.md'), 'utf8')).toContain(
      'and was imported whole: its arrivals are all their iterations together, so its steps and capacity are of their sum',
    );
    // with one kept, nothing is mixed: no such note
    const kept = await importK6({ file: twoFile, outDir: runsDir, steps: {}, scenarios: ['steps'], openModel: true });
    expect(kept.notes.some((n) => n.includes('scenarios ('))).toBe(false);
    expect(kept.result.warnings.some((w) => w.code === 'k6-scenarios-summed')).toBe(false);
    expect(kept.ingest.stats.scenarioIterations).toEqual({ steps: steppedIterations });
    // the same file with its own gauges: an arrival-rate run, judged as one (its one failure, the
    // last step's, unconfirmed: the 120 step held at least)
    const open = await importK6({ file: `${FIX}/stepped-reject.ndjson`, outDir: runsDir, steps });
    expect(open.result.stopReason).toBe('unconfirmed');
    expect(open.result.heldAtLeastPerSec).toBeGreaterThan(100);
    expect(open.result.overload).toBeDefined();
    // merged with it (report --merge), in either order: the merge holds a closed model's share
    for (const dirs of [
      [open.dir, r.dir],
      [r.dir, open.dir],
    ]) {
      const m = await mergeRuns({ dirs, outDir: runsDir });
      expect([m.result.stopReason, m.result.capacityPerSec]).toEqual(['closed-model', null]);
    }
  });

  it('step flags the file was not offered are refused with the rates it was (a hold given long read delivery 1.43)', async () => {
    const file = `${FIX}/stepped-queue.ndjson.gz`;
    const plan = { startPerSec: 50, stepPerSec: 50, maxPerSec: 250, rampS: 2, holdS: 8 };
    // the plan as k6 ran it: imported
    const ran = await importK6({ file, outDir: runsDir, steps: plan });
    expect(ran.result.steps.map((x) => x.ratePerSec)).toEqual([50, 100, 150, 200, 250]);
    for (const wrong of [
      { ...plan, holdS: 12 },
      { ...plan, startPerSec: 100, stepPerSec: 100, maxPerSec: 500 },
    ])
      await expect(importK6({ file, outDir: runsDir, steps: wrong })).rejects.toMatchObject({
        code: 'k6-steps-mismatch',
        message: expect.stringMatching(
          /^the step flags do not match stepped-queue\.ndjson\.gz: step \d is \d+ req\/s by the flags, the file offered \d+\.\d in its judged window \(\d+-\d+ s\)/,
        ),
        hint: expect.stringMatching(
          /^drop the step flags to let plateau derive the plan from the file, or give the plan it offered: --start-rate 50 --step-rate 50 --max-rate 250 --ramp 2 --hold 8/,
        ),
      });
  });

  it('flags are judged where the report judges them: the wrong step is named, at its window (step 1 was blamed, at 8-12 s)', async () => {
    const file = `${FIX}/stepped-queue.ndjson.gz`;
    // k6 ran 50 + i x 50; the flags say 50 + i x 60: steps 2 to 4 are wrong, step 1 right (judged 6-10 s)
    const wrongStep = { startPerSec: 50, stepPerSec: 60, maxPerSec: 230, rampS: 2, holdS: 8 };
    const err = await importK6({ file, outDir: runsDir, steps: wrongStep }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'k6-steps-mismatch' });
    const { message, hint } = err as { message: string; hint: string };
    expect(message).toMatch(
      /^the step flags do not match stepped-queue\.ndjson\.gz: step 2 is 110 req\/s by the flags, the file offered 100\.0 in its judged window \(16-20 s\); step 3 is 170 req\/s .*\(26-30 s\); step 4 is 230 req\/s .*\(36-40 s\) /,
    );
    expect(message).not.toMatch(/step 1 /);
    expect(hint).toBe(
      'drop the step flags to let plateau derive the plan from the file, or give the plan it offered: --start-rate 50 --step-rate 50 --max-rate 250 --ramp 2 --hold 8',
    );
  });

  it("a period other than the run's is refused: its window drifts a second a step, into step 5's ramp (accepted, its average hid it)", async () => {
    const file = `${FIX}/stepped-queue.ndjson.gz`;
    const shortRamp = { startPerSec: 50, stepPerSec: 50, maxPerSec: 250, rampS: 1, holdS: 8 };
    const err = await importK6({ file, outDir: runsDir, steps: shortRamp }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'k6-steps-mismatch' });
    const { message, hint } = err as { message: string; hint: string };
    expect(message).toMatch(
      /: step 5 is 250 req\/s by the flags, the file offered 237\.\d at 41-42 s of its judged window \(41-45 s\), 24\d\.\d over it: a ramp's second, or a period other than the run's/,
    );
    expect(hint).toMatch(
      /--ramp 2 --hold 8 \(the flags' period, 1 s ramp \+ 8 s hold = 9 s, is not the file's 10 s: each step's window lies 1 s further off its hold than the one before\)$/,
    );
  });

  it('step flags that stop short of the run are refused: the steps above them failed, and "raise the top rate" was said', async () => {
    const file = `${FIX}/stepped-queue.ndjson.gz`;
    const short = { startPerSec: 50, stepPerSec: 50, maxPerSec: 150, rampS: 2, holdS: 8 };
    await expect(importK6({ file, outDir: runsDir, steps: short })).rejects.toMatchObject({
      code: 'k6-steps-mismatch',
      message: expect.stringMatching(
        /^stepped-queue\.ndjson\.gz offered 3,\d{3} more arrivals over 1\d s after the flags' last step \(150\/s\) ended, up to 25\d\/s: the flags stop short of the run k6 made/,
      ),
      hint: expect.stringMatching(/^give the plan k6 ran, its top rate included/),
    });
  });

  it('a --t0 far before the first sample, or after samples of the run, is refused with the numbers', async () => {
    const file = `${FIX}/stepped-reject.ndjson`;
    const t0Fix = /^pass the scenario's start as --t0 .*or drop --t0: the default is the first vus point - 1 s$/;
    // years early: refused at the first sample, before a second is filled (it ran out of memory)
    await expect(
      importK6({ file, outDir: runsDir, steps: {}, t0Ms: Date.parse('2020-01-01T00:00:00Z') }),
    ).rejects.toMatchObject({
      code: 'k6-t0-early',
      message: expect.stringMatching(
        /^--t0 2020-01-01T00:00:00\.000Z is [\d,]+ s before the first sample of stepped-reject\.ndjson \(2026-11-29T16:53:3\d/,
      ),
      hint: expect.stringMatching(t0Fix),
    });
    // 10 s late: the samples before it would have piled into its first second
    await expect(
      importK6({ file, outDir: runsDir, steps: {}, t0Ms: Date.parse('2026-11-29T16:53:48.6Z') }),
    ).rejects.toMatchObject({
      code: 'k6-t0-late',
      message: expect.stringMatching(
        /^--t0 2026-11-29T16:53:48\.600Z is (9|10)\.\d s after the first of [\d,]+ requests and iterations/,
      ),
      hint: expect.stringMatching(t0Fix),
    });
    // a scenario that starts 20 s in (startTime): k6's gauges from the run's start, its load later;
    // --t0 at the load's start imports it, the gauges before it are no sign of a wrong t0
    const late = fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .map((l) => {
        if (!l.includes('"type":"Point"') || /"metric":"vus(_max)?"/.test(l)) return l;
        return l.replace(
          /"time":"([^"]+)"/,
          (_, t: string) => `"time":"${new Date(Date.parse(t) + 20_000).toISOString()}"`,
        );
      });
    const startTime = written('stepped-reject-start-20s.ndjson', late);
    await expect(importK6({ file: startTime, outDir: runsDir, steps: {} })).rejects.toMatchObject({
      code: 'k6-steps-unknown',
      message: expect.stringMatching(/the first arrivals came 2\d s after t0/),
    });
    const t0 = Date.parse('2026-11-29T16:53:38.6Z') + 20_000;
    const atLoad = await importK6({ file: startTime, outDir: runsDir, steps: {}, t0Ms: t0 });
    expect(atLoad.result.steps.map((x) => x.ratePerSec)).toEqual([60, 120, 180]);
    // the run's own t0, given: imported as derived
    const derived = await importK6({ file, outDir: runsDir, steps: {} });
    // the environment is the importing machine's, and the report says so before its keys
    const md = fs.readFileSync(path.join(derived.dir, 'report.md'), 'utf8');
    expect(md).toMatch(
      /## Environment\n\n\| Key \| Value \|\n\|[-| ]+\|\n\| describes \| the machine that imported the k6 output, not the one k6 ran on/,
    );
    const given = await importK6({ file, outDir: runsDir, steps: {}, t0Ms: derived.ingest.stats.t0Ms! });
    expect(given.result.steps.map((x) => x.ratePerSec)).toEqual([60, 120, 180]);
  });

  it('votacao without step flags: refused as a closed model, with the fix', async () => {
    await expect(
      importK6({ file: `${FIX}/public-votacao-constant-vus.ndjson`, outDir: runsDir, steps: {} }),
    ).rejects.toMatchObject({
      code: 'k6-closed-model',
      message: expect.stringMatching(
        /looks like a closed-model run .*no iteration was dropped, which an arrival rate does not do .*so the VUs set its load and the rate of iterations started is its own throughput/,
      ),
      hint: expect.stringMatching(
        /^run the load as a ramping-arrival-rate scenario.*; if it was an arrival rate whose VUs were sized to it exactly \(all busy at each reading\), pass --open-model$/,
      ),
    });
  });

  it('one name (the stepped runs): no breakdown, the step is its name', async () => {
    const r = await importK6({ file: `${FIX}/stepped-reject.ndjson`, outDir: runsDir, steps: {} });
    const bs = buckets(r.dir);
    expect(bs.some((b) => b.byName)).toBe(false);
    expect(bs.reduce((a, b) => a + b.completed, 0)).toBe(2697);
    expect(r.result.steps.map((s) => s.ratePerSec)).toEqual([60, 120, 180]);
    // one request an iteration: its rates are requests'
    expect(r.result.traffic?.iterations?.requestsPerArrival).toBeCloseTo(1, 2);
    expect(r.result.stopDetail).toMatch(/req\/s/);
    expect(r.notes).toEqual([]);
  });

  it('a run stopped 2.6 s into the hold of its third step: two steps judged, the run interrupted, the arrivals after them said', async () => {
    // the same k6 output, its points from 22:23:59.5 (+05:30) on cut: k6 stopped mid-hold
    const cut = fs
      .readFileSync(`${FIX}/stepped-reject.ndjson`, 'utf8')
      .split('\n')
      .filter((l) => !/"time":"2026-11-29T22:2(3:59\.[5-9]|4:)/.test(l));
    const r = await importK6({ file: written('stepped-reject-cut.ndjson', cut), outDir: runsDir, steps: {} });
    expect(r.result.steps.map((s) => s.ratePerSec)).toEqual([60, 120]);
    // it read "max-rate-reached: raise the top rate", of a run whose next step was cut
    expect(r.notes).toEqual([
      expect.stringMatching(
        /^stepped-reject-cut\.ndjson ends with whole lines, but its arrivals end at 20-21 s, 5 s after the hold of step 2 \(120 req\/s\), the last of the steps derived from its arrivals, above its rate \(180\/s at 18 s\): k6 had gone on to a next step, cut before 3 s of its hold showed: k6 stopped before the end of its plan \(Ctrl-C, a threshold's abortOnFail, or test\.abort\(\)\?\)\. The run is judged as interrupted: what its steps held is a lower bound, and a capacity needs a failure past the knee that a later complete step confirmed/,
      ),
    ]);
    expect(r.result).toMatchObject({ interrupted: true, stopReason: 'interrupted', capacityPerSec: null });
  });

  /**
   * 12 s of one iteration a 100 ms, each a GET of /orders/<id> (and, with `fixed`, a GET of a fixed
   * URL first), as k6 writes it when the script gives no name (name = url = the URL).
   */
  function idUrls(fixed: boolean, firstId = 10_000): string {
    const lines: string[] = [];
    for (let i = 0; i < 120; i++) {
      const at = 1000 + i * 100;
      if (i % 10 === 0) lines.push(line('vus', at, 1, {}));
      const urls = [...(fixed ? ['http://127.0.0.1:8080/orders'] : []), `http://127.0.0.1:8080/orders/${firstId + i}`];
      for (const [k, url] of urls.entries()) {
        const tags = { expected_response: 'true', group: '', name: url, scenario: 'default', status: '200', url };
        lines.push(line('http_reqs', at + 10 * k + 5, 1, tags), line('http_req_duration', at + 10 * k + 5, 4, tags));
      }
      const it = { group: '', scenario: 'default' };
      lines.push(line('iteration_duration', at + 30, 30, it), line('iterations', at + 30, 1, it));
    }
    return written(`ids-${fixed}-${firstId}.ndjson`, lines);
  }
  const FIX_NOTE = /^fix: give each request a fixed name.*tags: \{ name: 'read order' \}/;

  it('URLs with ids (k6 names a request by its URL) are folded into one row, and the import says so with the fix', async () => {
    const r = await importK6({ file: idUrls(true), outDir: runsDir, steps: FLAGS });
    const names = new Set(buckets(r.dir).flatMap((b) => Object.keys(b.byName ?? {})));
    expect([...names]).toEqual(['http://127.0.0.1:8080/orders', '(unnamed: 120 URLs)']);
    const folded = buckets(r.dir).reduce((a, b) => a + (b.byName?.['(unnamed: 120 URLs)']?.completed ?? 0), 0);
    expect(folded).toBe(120);
    expect(r.notes[0]).toMatch(
      /^120 URLs folded into one row, "\(unnamed: 120 URLs\)", rather than one row each \(e\.g\. URL "http:\/\/127\.0\.0\.1:8080\/orders\/10000" has a number/,
    );
    expect(r.notes[1]).toMatch(FIX_NOTE);
    const stage = stepsStage(r.dir);
    expect(stage.evidence).toEqual(expect.arrayContaining(r.notes));
    expect(stage.detail).toMatch(
      /; 2 names; 120 URLs built from data folded into one name: give requests a fixed name tag$/,
    );
  });

  it('short ids (/orders/1, /orders/2, ...) fold too once more than 10 differ only in their numbers, the first 10 with them', async () => {
    const r = await importK6({ file: idUrls(true, 1), outDir: runsDir, steps: FLAGS });
    const bs = buckets(r.dir);
    const names = new Set(bs.flatMap((b) => Object.keys(b.byName ?? {})));
    expect([...names].sort()).toEqual(['(unnamed: 120 URLs)', 'http://127.0.0.1:8080/orders']);
    expect(bs.reduce((a, b) => a + (b.byName?.['(unnamed: 120 URLs)']?.completed ?? 0), 0)).toBe(120);
    expect(r.notes[0]).toMatch(/differs only in its numbers from 10 names before it/);
  });

  it('a run of one rate (10/s for 12 s) is refused as such, with how to run or give steps', async () => {
    await expect(
      importK6({ file: idUrls(false, 20_000), outDir: runsDir, steps: {}, openModel: true }),
    ).rejects.toMatchObject({
      code: 'k6-steps-unknown',
      message: expect.stringMatching(
        /: the run held one rate only, about 10\/s from \d+ to \d+ s: there are no steps to judge$/,
      ),
      hint: expect.stringMatching(
        /^plateau judges a run of rising steps: run k6 again with a ramping-arrival-rate scenario whose stages rise in steps .*; or, if this run was one step of such a plan, give it with the step flags/,
      ),
    });
  });

  it('only URLs with ids: no breakdown at all, and the import says why, with the fix', async () => {
    const r = await importK6({ file: idUrls(false), outDir: runsDir, steps: FLAGS });
    expect(buckets(r.dir).some((b) => b.byName)).toBe(false);
    expect(r.notes[0]).toMatch(/^no breakdown by name: the requests' 120 URLs look built from data \(e\.g\. URL /);
    expect(r.notes[1]).toMatch(FIX_NOTE);
  });
});

describe('plateau import k6 of requests without a name tag (--system-tags without name)', () => {
  /** 12 s of one iteration a 100 ms, a GET of each URL, as k6 writes it without the name tag (no url tag either when `urls` is null). */
  function unnamed(file: string, urls: readonly string[] | null): string {
    const lines: string[] = [];
    for (let i = 0; i < 120; i++) {
      const at = 1000 + i * 100;
      if (i % 10 === 0) lines.push(line('vus', at, 1, {}));
      for (const [k, url] of (urls ?? ['', '']).entries()) {
        const tags = {
          expected_response: 'true',
          group: '',
          scenario: 'default',
          status: '200',
          ...(urls ? { url } : {}),
        };
        lines.push(line('http_reqs', at + 10 * k + 5, 1, tags), line('http_req_duration', at + 10 * k + 5, 4, tags));
      }
      const it = { group: '', scenario: 'default' };
      lines.push(line('iteration_duration', at + 30, 30, it), line('iterations', at + 30, 1, it));
    }
    return written(file, lines);
  }
  const FIX_SYSTEM_TAGS =
    /^fix: run k6 again with name in --system-tags .*, or give each request a name tag: http\.get\(url, \{ tags: \{ name: 'read order' \} \}\)$/;

  it('two URLs: no by-name table, and the import says why and how to get one (it said nothing)', async () => {
    const file = unnamed('no-name-tag.ndjson', ['http://127.0.0.1:8080/orders', 'http://127.0.0.1:8080/cart']);
    const r = await importK6({ file, outDir: runsDir, steps: FLAGS });
    expect(buckets(r.dir).some((b) => b.byName)).toBe(false);
    expect(r.notes).toEqual([
      'no-name-tag.ndjson: its 240 requests carry no `name` tag (k6 run with --system-tags that left it out?), though they went to several URLs ("http://127.0.0.1:8080/orders", "http://127.0.0.1:8080/cart", ...): the results are not broken down by name',
      expect.stringMatching(FIX_SYSTEM_TAGS),
    ]);
    // in the report too (the import's stage evidence)
    expect(fs.readFileSync(path.join(r.dir, 'report.md'), 'utf8')).toContain(
      '; no request has a name tag, so results are not broken down by name: run k6 with name in --system-tags, or tag requests with { tags: { name } } |',
    );
  });

  it('no url tag either: said, for nothing tells how many requests there were; one URL: nothing lost, nothing said', async () => {
    const none = await importK6({ file: unnamed('no-name-no-url.ndjson', null), outDir: runsDir, steps: FLAGS });
    expect(none.notes[0]).toBe(
      'no-name-no-url.ndjson: its 240 requests carry no `name` tag (k6 run with --system-tags that left it out?): the results are not broken down by name',
    );
    const one = unnamed('no-name-one-url.ndjson', ['http://127.0.0.1:8080/orders', 'http://127.0.0.1:8080/orders']);
    expect((await importK6({ file: one, outDir: runsDir, steps: FLAGS })).notes).toEqual([]);
  });
});

describe("plateau import k6: k6's vu and iter match each request to its iteration", () => {
  /**
   * 12 s of one iteration a 100 ms, each a login and a buy; every fifth iteration's two requests
   * both get a 503. With `vuIter`, the samples carry k6's vu and iter (metadata, v0.41+ layout:
   * built here, see harness/k6/output/iteration-outcomes.test.ts for why).
   */
  /** `shiftMs`: the same traffic that much later (another load generator's run of the plan). */
  function twoRequests(vuIter: boolean, shiftMs = 0): string {
    const lines: string[] = [];
    const meta = (i: number) => (vuIter ? `,"metadata":{"iter":"${i >> 1}","vu":"${(i % 2) + 1}"}` : '');
    const at = (metric: string, ms: number, value: number, tags: Record<string, string>, i: number) =>
      `{"metric":"${metric}","type":"Point","data":{"time":"${new Date(T + shiftMs + ms).toISOString()}","value":${value},"tags":${JSON.stringify(tags)}${meta(i)}}}`;
    for (let i = 0; i < 120; i++) {
      const start = 1000 + i * 100;
      if (i % 10 === 0) lines.push(line('vus', start + shiftMs, 2, {}));
      const failed = i % 5 === 4;
      for (const [k, name] of ['login', 'buy'].entries()) {
        const tags = failed
          ? { expected_response: 'false', group: '', name, scenario: 'default', status: '503' }
          : { expected_response: 'true', group: '', name, scenario: 'default', status: '200' };
        lines.push(
          at('http_reqs', start + 10 * k + 5, 1, tags, i),
          at('http_req_duration', start + 10 * k + 5, 4, tags, i),
        );
      }
      const it = { group: '', scenario: 'default' };
      lines.push(at('iteration_duration', start + 30, 30, it, i), at('iterations', start + 30, 1, it, i));
    }
    return written(`two-requests-${vuIter}-${shiftMs}.ndjson`, lines);
  }
  const okOf = (dir: string) => buckets(dir).reduce((a, b) => a + b.ok, 0);

  it('with them: each iteration fails once, however many of its requests failed, and every text says the count is exact', async () => {
    const r = await importK6({ file: twoRequests(true), outDir: runsDir, steps: FLAGS });
    // 120 iterations, 24 of them with both requests failed
    expect([buckets(r.dir).reduce((a, b) => a + b.completed, 0), okOf(r.dir)]).toEqual([120, 96]);
    expect(r.result.traffic).toEqual({ entries: [], iterations: { requestsPerArrival: 2, exactOutcomes: true } });
    expect(stepsStage(r.dir).evidence.join('\n')).toMatch(
      /arrivals are k6 iterations \(120\), ok = iterations none of whose requests failed \(each request matched to its iteration by k6's vu and iter\)/,
    );
    const md = fs.readFileSync(path.join(r.dir, 'report.md'), 'utf8');
    expect(md).toMatch(
      /an iteration failed when one of its requests did \(each request matched to its iteration by k6's vu and iter\)/,
    );
  });

  it('merged, exact only if every run was', async () => {
    const [a, b] = [
      await importK6({ file: twoRequests(true), outDir: runsDir, steps: FLAGS }),
      await importK6({ file: twoRequests(false, 300), outDir: runsDir, steps: FLAGS }),
    ];
    expect(
      (await mergeRuns({ dirs: [a.dir, b.dir], outDir: runsDir })).result.traffic?.iterations?.exactOutcomes,
    ).toBeUndefined();
    const c = await importK6({ file: twoRequests(true, 300), outDir: runsDir, steps: FLAGS });
    expect((await mergeRuns({ dirs: [a.dir, c.dir], outDir: runsDir })).result.traffic?.iterations?.exactOutcomes).toBe(
      true,
    );
    // the JSON and the CSV export of one real k6 run: the same start, the same counts every second
    const json = await importK6({ file: `${FIX}/stepped-reject.ndjson`, outDir: runsDir, steps: {} });
    const csv = await importK6({ file: `${FIX}/stepped-reject.csv.gz`, outDir: runsDir, steps: {} });
    await expect(mergeRuns({ dirs: [json.dir, csv.dir], outDir: runsDir })).rejects.toMatchObject({
      code: 'merge-same-run',
    });
    // and of one whose CSV stamps move samples between seconds: starts within a second, the same
    // totals (merged, it had read capacity 300 req/s for 150)
    const q = [
      await importK6({ file: `${FIX}/stepped-queue.ndjson.gz`, outDir: runsDir, steps: {} }),
      await importK6({ file: `${FIX}/stepped-queue.csv.gz`, outDir: runsDir, steps: {} }),
    ];
    await expect(mergeRuns({ dirs: [q[1].dir, q[0].dir], outDir: runsDir })).rejects.toMatchObject({
      code: 'merge-same-run',
      message: expect.stringMatching(
        /again, its json export beside its csv export: starts 0 ms apart and the same totals \(5,905 completed, 5,905 ok, 1,344 dropped\) \(one k6 output imported twice, its JSON and CSV exports, or a copied run\)/,
      ),
    });
    // k6's default CSV stamps whole seconds: its start reads up to a second before the JSON's
    const csvLines = zlib
      .gunzipSync(fs.readFileSync(`${FIX}/stepped-queue.csv.gz`))
      .toString('utf8')
      .split('\n');
    const bySecond = csvLines.map((l, i) => {
      const f = l.split(',');
      if (i === 0 || f.length < 2) return l;
      f[1] = String(Math.floor(Number(f[1]) / 1000));
      return f.join(',');
    });
    const wholeFile = path.join(runsDir, 'stepped-queue-whole-seconds.csv');
    fs.writeFileSync(wholeFile, bySecond.join('\n'));
    const whole = await importK6({ file: wholeFile, outDir: runsDir, steps: {} });
    expect(whole.result.heldAtLeastPerSec).toBeGreaterThan(100);
    await expect(mergeRuns({ dirs: [q[0].dir, whole.dir], outDir: runsDir })).rejects.toMatchObject({
      code: 'merge-same-run',
      message: expect.stringMatching(/its csv export beside its json export: starts \d+ ms apart and the same totals/),
    });
    // two instances of one distributed run in one format, given one --t0 and splitting its arrivals
    // evenly, may share a start and totals: they merge (here the JSON's seconds, one answer moved)
    const twin = await importK6({ file: `${FIX}/stepped-queue.ndjson.gz`, outDir: runsDir, steps: {} });
    const buckets = path.join(twin.dir, 'buckets.ndjson');
    const rows = fs
      .readFileSync(buckets, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as BucketRecord);
    const from = rows.findIndex((r) => r.ok > 1);
    const to = rows.length - 1 - [...rows].reverse().findIndex((r) => r.ok > 1);
    rows[from] = { ...rows[from], ok: rows[from].ok - 1, completed: rows[from].completed - 1 };
    rows[to] = { ...rows[to], ok: rows[to].ok + 1, completed: rows[to].completed + 1 };
    fs.writeFileSync(buckets, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    await expect(mergeRuns({ dirs: [q[0].dir, twin.dir], outDir: runsDir })).resolves.toBeDefined();
    // one run imported twice (the same start and counts) is one run, never two
    const again = await importK6({ file: twoRequests(true), outDir: runsDir, steps: FLAGS });
    await expect(mergeRuns({ dirs: [a.dir, again.dir], outDir: runsDir })).rejects.toMatchObject({
      code: 'merge-same-run',
      message: expect.stringMatching(
        /is .* again, the same start \(2026-11-29T16:52:40\.000Z\) and the same counts in each of its seconds .*: merged, it would read twice its capacity$/,
      ),
    });
  });

  it('without them: the lower bound, and the import says how to make it exact', async () => {
    const r = await importK6({ file: twoRequests(false), outDir: runsDir, steps: FLAGS });
    // each of the 48 failed requests counted as a failed iteration
    expect(okOf(r.dir)).toBe(72);
    expect(r.result.traffic).toEqual({ entries: [], iterations: { requestsPerArrival: 2 } });
    expect(stepsStage(r.dir).evidence.join('\n')).toMatch(
      /ok = iterations - failed requests of the same second \(at least 0; those beyond it carried to the next\): a lower bound at several requests an iteration; for an exact count run k6 with --system-tags=proto,subproto,status,method,url,name,group,check,error,error_code,tls_version,scenario,service,expected_response,vu,iter/,
    );
    const md = fs.readFileSync(path.join(r.dir, 'report.md'), 'utf8');
    expect(md).toMatch(/k6 run with vu and iter in --system-tags makes it exact/);
    // the verdict's figures say which way they may be off: delivery at least, failures up to
    expect(r.result.rules.okLowerBound).toBe(true);
    expect(r.result.steps[0].reasons.join('; ')).toMatch(
      /^delivery at least 0\.60 < 0\.90: .*; up to 40\.00% of [\d,]+ completed arrivals failed$/,
    );
    expect(r.result.stopDetail).toMatch(
      /delivered at least 0\.60 < 0\.90 .*; up to 40\.00% of completed arrivals failed/,
    );
    // matched by vu and iter: exact, said plainly
    const exact = await importK6({ file: twoRequests(true), outDir: runsDir, steps: FLAGS });
    expect(exact.result.rules.okLowerBound).toBeUndefined();
    expect(exact.result.stopDetail).not.toMatch(/at least|up to/);
  });
});

describe("plateau import k6 of plateau's own script's mix", () => {
  /** 12 s of plateau's k6 runtime at 10 arrivals/s: each second 8 reads and 2 checkouts of two requests. */
  function plateauMix(): string {
    const lines: string[] = [];
    for (let i = 0; i < 120; i++) {
      const at = 1000 + i * 100;
      if (i % 10 === 0) lines.push(line('vus', at, 2, {}));
      const checkout = i % 5 === 4;
      const names = checkout ? ['checkout: create', 'checkout: confirm'] : ['read'];
      for (const [k, name] of names.entries()) {
        const tags = { expected_response: 'true', group: '', name, scenario: 'steps', status: '200' };
        lines.push(line('http_reqs', at + 10 * k + 5, 1, tags), line('http_req_duration', at + 10 * k + 5, 4, tags));
      }
      const entry = checkout ? 'checkout' : 'read';
      lines.push(
        line('plateau_arrival', at + 30, checkout ? 25 : 5, {
          group: '',
          name: entry,
          outcome: 'ok',
          scenario: 'steps',
          transaction: String(checkout),
        }),
        line('iteration_duration', at + 31, 30, { group: '', scenario: 'steps' }),
        line('iterations', at + 31, 1, { group: '', scenario: 'steps' }),
      );
    }
    return written('plateau-mix.ndjson', lines);
  }

  it('counts its arrivals, 1.2 requests each, in arrivals/s, and says what an arrival was', async () => {
    const r = await importK6({ file: plateauMix(), outDir: runsDir, steps: FLAGS });
    expect(r.ingest.stats.arrivalsFrom).toBe('plateau_arrival');
    expect(r.result.traffic).toEqual({ entries: [], iterations: { requestsPerArrival: 1.2, of: 'plateau-mix' } });
    const md = fs.readFileSync(path.join(r.dir, 'report.md'), 'utf8');
    expect(md).toMatch(
      /an arrival is one entry of its mix \(its plateau\\?_arrival samples\), which sent 1\.20 requests/,
    );
    expect(md).toMatch(/\*\*Capacity: [^*]*arrivals\/s/);
  });
});

/** stepped-reject's CSV export, a line each (the fixture has no quoted field: a comma always separates). */
function rejectCsvLines(): string[] {
  return zlib
    .gunzipSync(fs.readFileSync(`${FIX}/stepped-reject.csv.gz`))
    .toString('utf8')
    .trim()
    .split('\n');
}

describe('plateau import k6 of a CSV whose header is not what k6 writes', () => {
  it('names the missing column, or a first line that is a row, where it said "not k6 output"', async () => {
    const [header, ...rows] = rejectCsvLines();
    const at = header.split(',').indexOf('timestamp');
    const without = (line: string) =>
      line
        .split(',')
        .filter((_, i) => i !== at)
        .join(',');
    const noTime = written('no-timestamp.csv', [without(header), ...rows.slice(0, 50).map(without)]);
    await expect(importK6({ file: noTime, outDir: runsDir, steps: {} })).rejects.toMatchObject({
      code: 'k6-output-invalid',
      message: expect.stringMatching(
        /is not k6 CSV output as k6 writes it: its header has no `timestamp` column \(it has metric_name, metric_value, /,
      ),
    });
    const headless = written('no-header.csv', rows.slice(0, 50));
    await expect(importK6({ file: headless, outDir: runsDir, steps: {} })).rejects.toMatchObject({
      message: expect.stringMatching(
        /its first line is a row \(http_reqs, 2026-11-29T22:23:38\.\d+\+05:30, \.\.\.\), not the header k6 writes first/,
      ),
    });
  });
});

describe('plateau import k6 of a file that is not k6 output', () => {
  /** A JMeter JTL (CSV) header, as JMeter writes it, and its rows. */
  const JTL_HEADER =
    'timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect';
  const jtlRow = (i: number) =>
    `${1700000000000 + i},12,read order,200,OK,tg 1-1,text,true,,100,50,1,1,http://x/,10,0,1`;
  const NOT_K6_HINT =
    "pass a file written by k6 run --out json=FILE or --out csv=FILE (plain or .gz): plateau imports k6's output only, not another tool's results (a JMeter JTL, a Gatling simulation.log)";

  it('a CSV whose header has none of k6\'s columns (a JMeter JTL) is named not k6 output, its header against k6\'s (it read "holds no k6 samples", the fix a k6 run that sent requests)', async () => {
    // 1 row, and 30: past the 20 unreadable lines that read "neither JSON samples nor CSV rows"
    for (const rows of [1, 30]) {
      const file = written(`jmeter-${rows}.jtl.csv`, [
        JTL_HEADER,
        ...Array.from({ length: rows }, (_, i) => jtlRow(i)),
      ]);
      await expect(importK6({ file, outDir: runsDir, steps: {} })).rejects.toMatchObject({
        code: 'k6-output-invalid',
        message: `${file} is not k6 output: it is a CSV whose header (timeStamp, elapsed, label, responseCode, responseMessage, ...) has none of k6's columns (k6's header starts metric_name,timestamp,metric_value,...)`,
        hint: NOT_K6_HINT,
      });
    }
    const abc = written('abc.csv', ['a,b,c', '1,2,3']);
    await expect(importK6({ file: abc, outDir: runsDir, steps: {} })).rejects.toMatchObject({
      message: `${abc} is not k6 output: it is a CSV whose header (a, b, c) has none of k6's columns (k6's header starts metric_name,timestamp,metric_value,...)`,
    });
    // a header with one of k6's columns keeps its precise message
    const odd = written('odd.csv', ['foo,timestamp,bar', '1,2,3']);
    await expect(importK6({ file: odd, outDir: runsDir, steps: {} })).rejects.toMatchObject({
      code: 'k6-output-invalid',
      message: `${odd} is not k6 CSV output as k6 writes it: its header has no \`metric_name\`, \`metric_value\` column (it has foo, timestamp, bar)`,
    });
  });

  it('neither JSON lines nor CSV (a Gatling simulation.log), or JSON lines of another shape, is named not k6 output, with what k6 writes', async () => {
    const gatling = written('simulation.log', [
      'RUN\tcomputerdatabase.BasicSimulation\tbasicsimulation\t1700000000000\t \t3.9.5',
      'USER\tUsers\tSTART\t1700000000100',
      'REQUEST\t\trequest_1\t1700000000200\t1700000000250\tOK\t ',
    ]);
    await expect(importK6({ file: gatling, outDir: runsDir, steps: {} })).rejects.toMatchObject({
      code: 'k6-output-invalid',
      message: `${gatling} is not k6 output: its 3 lines are neither k6's JSON lines (k6 run --out json: one {"metric":...,"type":"Point",...} a line) nor its CSV (--out csv: a header that starts metric_name,timestamp,metric_value)`,
      hint: NOT_K6_HINT,
    });
    const other = written('other.ndjson', ['{"label":"read order","elapsed":12}']);
    await expect(importK6({ file: other, outDir: runsDir, steps: {} })).rejects.toMatchObject({
      code: 'k6-output-invalid',
      message: expect.stringMatching(/other\.ndjson is not k6 output: its one line is neither k6's JSON lines/),
    });
    // k6's own output with no sample in it (its CSV header, its metric definitions) keeps its message
    const [header] = rejectCsvLines();
    const definitions = fs
      .readFileSync(`${FIX}/stepped-reject.ndjson`, 'utf8')
      .split('\n')
      .filter((l) => l.includes('"type":"Metric"'));
    for (const file of [written('header-only.csv', [header]), written('definitions.ndjson', definitions)])
      await expect(importK6({ file, outDir: runsDir, steps: {} })).rejects.toMatchObject({
        code: 'k6-output-empty',
        message: `${file} holds no k6 samples`,
      });
  });
});

describe('plateau import k6 of a file with unreadable lines in its middle', () => {
  it('says how many, beside the report, and in a refusal of the plan (a summary.json field alone said it)', async () => {
    const lines = fs.readFileSync(`${FIX}/stepped-reject.ndjson`, 'utf8').trim().split('\n');
    const mid = Math.floor(lines.length / 2);
    const file = written('mid-garbage.ndjson', [
      ...lines.slice(0, mid),
      'not json',
      '{"metric": ',
      ...lines.slice(mid),
    ]);
    const r = await importK6({ file, outDir: runsDir, steps: {} });
    expect(r.notes).toContain(
      'mid-garbage.ndjson has 2 lines that are neither a k6 sample nor a row, left out (damaged, or other text mixed in?): where they were samples, the seconds they belong to read low',
    );
    expect(r.ingest.tornLastLine).toBe(false);
  });
});

describe("plateau import k6 of k6's end-of-test summary", () => {
  it.each(['public-crushtest-summary-export.json', 'public-k6reporter-handlesummary.json'])(
    '%s is named as the summary, with the file to pass instead',
    async (name) => {
      await expect(importK6({ file: `${FIX}/${name}`, outDir: runsDir, steps: {} })).rejects.toMatchObject({
        code: 'k6-output-summary',
        message: `${FIX}/${name} is k6's end-of-test summary (--summary-export or handleSummary), not its output: it holds a total for each metric over the whole run, and the steps are judged second by second`,
      });
    },
  );

  it('k6\'s console summary (the text it prints at the end) is named as such, with how to get raw output (it read "not k6 output")', async () => {
    const file = `${FIX}/stepped-queue.console-summary.txt`;
    await expect(importK6({ file, outDir: runsDir, steps: {} })).rejects.toMatchObject({
      code: 'k6-output-summary',
      message: `${file} looks like k6's end-of-test summary (the text k6 prints when a run ends), not its output: it holds a total for each metric over the whole run, and the steps are judged second by second`,
      hint: 'run k6 with raw output (k6 run --out json=file.json script.js, or --out csv=file.csv) and pass that file',
    });
  });
});

describe('plateau import k6 of a run with no steps: a continuous ramp, a flat rate', () => {
  /** 40 s of one ramping-arrival-rate stage from `from` to `to` arrivals/s (a flat rate where they are equal), iterations of 10 ms. */
  function stage(name: string, from: number, to: number): string {
    const lines: string[] = [];
    const tags = { group: '', scenario: 'default' };
    let due = 0;
    for (let ms = 0; ms <= 41_000; ms++) {
      if (ms % 1000 === 0 && ms > 0) lines.push(line('vus', ms, 5, {}), line('vus_max', ms, 50, {}));
      if (ms >= 40_000) continue;
      due += (from + ((to - from) * (ms + 0.5)) / 40_000) / 1000;
      if (due < 1) continue;
      due -= 1;
      lines.push(line('iteration_duration', ms + 10, 10, tags), line('iterations', ms + 10, 1, tags));
    }
    return written(name, lines);
  }
  const STAGES_FIX =
    "plateau judges a run of rising steps, each rate held: run k6 again with a ramping-arrival-rate scenario whose stages ramp to each rate, then hold it (stages: [{ duration: '2s', target: 50 }, { duration: '8s', target: 50 }, { duration: '2s', target: 100 }, { duration: '8s', target: 100 }, ...]; plateau k6-script writes such a script from a plateau config)";

  it('a continuous ramp is refused as one, with stages that hold each rate; its step flags are refused without "drop the step flags", which led back (the fixes pointed at each other)', async () => {
    const file = stage('ramp.ndjson', 20, 120);
    await expect(importK6({ file, outDir: runsDir, steps: {} })).rejects.toMatchObject({
      code: 'k6-steps-unknown',
      message: `cannot derive the steps of ${file}: the offered rate rose continuously from 20 to 120/s over 40 s, with no holds: there are no steps to judge`,
      hint: STAGES_FIX,
    });
    const steps = { startPerSec: 20, stepPerSec: 20, maxPerSec: 120, rampS: 2, holdS: 6 };
    await expect(importK6({ file, outDir: runsDir, steps })).rejects.toMatchObject({
      code: 'k6-steps-mismatch',
      hint: `its offered rate rose continuously from 20 to 120/s over 40 s, with no holds: neither these flags nor any others fit it, and no plan is derived from it; ${STAGES_FIX}`,
    });
    // a flat run's flags that do not match: the fix says no plan is derived either, not to drop them
    const flat = stage('flat.ndjson', 50, 50);
    await expect(
      importK6({ file: flat, outDir: runsDir, steps: { ...steps, startPerSec: 100 } }),
    ).rejects.toMatchObject({
      code: 'k6-steps-mismatch',
      hint: expect.stringMatching(
        /^give the rates and times k6 ran \(its ramping-arrival-rate stages: --start-rate, --step-rate, --max-rate, --ramp, --hold\) \(no plan is derived from the file either: the run held one rate only, about 50\/s from \d+ to \d+ s: there are no steps to judge\)$/,
      ),
    });
  });
});

describe('plateau import k6 --scenario', () => {
  it('a scenario the file does not have is refused with the ones it has (the fix named the step flags)', async () => {
    await expect(
      importK6({ file: `${FIX}/stepped-reject.ndjson`, outDir: runsDir, steps: {}, scenarios: ['nope'] }),
    ).rejects.toMatchObject({
      message:
        '--scenario nope matches no iteration of stepped-reject.ndjson (its scenarios: steps (2,697 iterations))',
      hint: 'give one of them: --scenario steps',
      code: 'k6-scenario-unknown',
    });
  });

  it('its fix names the scenario nearest the typo, else the one with the most iterations, never the first seen (it said background for stepz)', async () => {
    // stepped-reject with 50 iterations of a scenario "background" before its first: the first seen, and first alphabetically
    const lines = fs.readFileSync(`${FIX}/stepped-reject.ndjson`, 'utf8').trim().split('\n');
    const first = lines.findIndex((l) => l.includes('"metric":"iterations"') && l.includes('"type":"Point"'));
    const bg = lines[first].replace('"scenario":"steps"', '"scenario":"background"');
    const file = written('stepped-reject-background.ndjson', [
      ...lines.slice(0, first),
      ...Array.from({ length: 50 }, () => bg),
      ...lines.slice(first),
    ]);
    const refusal = (scenario: string) =>
      importK6({ file, outDir: runsDir, steps: {}, scenarios: [scenario] }).then(
        () => expect.unreachable(),
        (err: PlateauError) => [err.message, err.hint],
      );
    const listed =
      'matches no iteration of stepped-reject-background.ndjson (its scenarios: steps (2,697 iterations), background (50))';
    expect(await refusal('stepz')).toEqual([
      `--scenario stepz ${listed}`,
      'give one of them: --scenario steps (the name nearest "stepz", and the most iterations)',
    ]);
    expect((await refusal('Steps'))[1]).toBe(
      'give one of them: --scenario steps (the name nearest "Steps", and the most iterations)',
    );
    expect((await refusal('xyz'))[1]).toBe('give one of them: --scenario steps (the most iterations)');
    expect((await refusal('backgrnd'))[1]).toBe(
      'give one of them: --scenario background (the name nearest "backgrnd"), or --scenario steps (the most iterations)',
    );
  });
});

describe('plateau import k6 of requests outside any scenario (setup(), teardown())', () => {
  it('says how many and their names, counts no by-name row for them, and leaves them out of the requests an iteration (their names counted in the Stages row with none to show)', async () => {
    // stepped-reject (one name, "work") with 30 requests of setup() as its load begins and 30 of
    // teardown() 3 s after its last: no scenario tag, and the root group, as k6 writes them when
    // --system-tags leave group out (with it, their ::setup group leaves them out of the import)
    const lines = fs.readFileSync(`${FIX}/stepped-reject.ndjson`, 'utf8').trim().split('\n');
    const reqs = lines.filter((l) => l.startsWith('{"metric":"http_reqs","type":"Point"'));
    const outside = (l: string, ms: number, name: string) => {
      const o = JSON.parse(l) as { data: { time: string; tags: Record<string, string> } };
      o.data.time = new Date(Date.parse(o.data.time) + ms).toISOString();
      delete o.data.tags.scenario;
      o.data.tags.name = name;
      return JSON.stringify(o);
    };
    const at = lines.indexOf(reqs[0]);
    const file = written('stepped-reject-setup.ndjson', [
      ...lines.slice(0, at),
      ...Array.from({ length: 30 }, () => outside(reqs[0], 0, 'setup: login')),
      ...lines.slice(at),
      ...Array.from({ length: 30 }, () => outside(reqs.at(-1)!, 3000, 'teardown: cleanup')),
    ]);
    const plain = await importK6({ file: `${FIX}/stepped-reject.ndjson`, outDir: runsDir, steps: {} });
    const r = await importK6({ file, outDir: runsDir, steps: {} });
    expect(r.notes).toContain(
      'stepped-reject-setup.ndjson has 60 requests outside any scenario ("setup: login" 30, "teardown: cleanup" 30; no scenario tag, as k6 writes setup()\'s and teardown()\'s): they belong to no iteration and are not in the steps; 2 of the run\'s names are theirs alone, so in no table by name, steps-by-name.csv or summary.json',
    );
    expect(stepsStage(r.dir).detail).toMatch(/; 3 names \(2 only outside any scenario, in no step\)$/);
    // the steps' one name: no breakdown, as without them; the same steps, iterations and requests an iteration
    expect(r.result.steps.map((st) => [st.ratePerSec, st.verdict, st.byName])).toEqual(
      plain.result.steps.map((st) => [st.ratePerSec, st.verdict, undefined]),
    );
    expect(r.result.traffic).toEqual(plain.result.traffic);
  });
});

describe('plateau import k6 of requests whose outcome the file does not say', () => {
  it('refuses a CSV without the status and expected_response columns, naming --system-tags (it read 100% errors)', async () => {
    const [header, ...rows] = rejectCsvLines();
    const names = header.split(',');
    const keep = names.map((n, i) => (n === 'status' || n === 'expected_response' ? -1 : i)).filter((i) => i >= 0);
    // the fixture has no quoted field: a comma always separates
    const cut = (line: string) => {
      const f = line.split(',');
      return keep.map((i) => f[i]).join(',');
    };
    const file = written('no-outcome.csv', [cut(header), ...rows.map(cut)]);
    await expect(importK6({ file, outDir: runsDir, steps: {} })).rejects.toMatchObject({
      message:
        '2,697 of the 2,697 http_reqs samples of no-outcome.csv carry neither a `status` nor an `expected_response` tag, so nothing tells a success from a failure (k6 run with --system-tags that left both out?)',
      hint: expect.stringMatching(
        /^rerun k6 with its default system tags, or with status and expected_response in --system-tags/,
      ),
      code: 'k6-no-outcome',
    });
  });
});

describe('plateau import k6 of a file cut short', () => {
  it('a .gz that ends mid-stream (k6 killed while writing it) imports what decoded and says the run is cut', async () => {
    const whole = fs.readFileSync(`${FIX}/stepped-queue.ndjson.gz`);
    const file = path.join(runsDir, 'cut.ndjson.gz');
    fs.writeFileSync(file, whole.subarray(0, 200_000));
    const r = await importK6({ file, outDir: runsDir, runId: 'cut-gz', steps: {} });
    expect(r.ingest.stats.points).toBeGreaterThan(10_000);
    expect(r.notes.some((n) => n.startsWith('cut.ndjson.gz ends mid-stream (gzip cut short'))).toBe(true);
    // judged as interrupted: what it held is a lower bound, never a capacity for the gate
    expect(r.result).toMatchObject({ interrupted: true, stopReason: 'interrupted', capacityPerSec: null });
    const meta = JSON.parse(fs.readFileSync(path.join(r.dir, 'run.json'), 'utf8')) as { status: string };
    expect(meta.status).toBe('interrupted');
    // its steps stage too, as a live run's cut stage is
    expect(stepsStage(r.dir).status).toBe('interrupted');
  });

  it('a .gz cut before any sample decoded (inside its header, or its first block) says the gzip stream is cut short (it read "holds no k6 samples")', async () => {
    const whole = fs.readFileSync(`${FIX}/stepped-queue.ndjson.gz`);
    for (const bytes of [100, 6]) {
      const file = path.join(runsDir, `head-${bytes}.ndjson.gz`);
      fs.writeFileSync(file, whole.subarray(0, bytes));
      await expect(importK6({ file, outDir: runsDir, steps: {} })).rejects.toMatchObject({
        code: 'k6-output-cut',
        message: `${file} is a gzip stream cut short after ${bytes} bytes, before any k6 sample in it decoded: a copy or download cut short, or k6 killed as it began writing?`,
        hint: 'copy the file whole again (gzip -t FILE says whether a .gz is whole), or pass the plain file k6 wrote',
      });
    }
  });

  it('a plain file whose last line is torn: the same, its steps held but the failing one missing', async () => {
    // stepped-reject cut mid-sample as its 180 step began (the failure that made its capacity never written)
    const text = fs.readFileSync(`${FIX}/stepped-reject.ndjson`, 'utf8');
    const at = text.indexOf('"time":"2026-11-29T22:24:00');
    expect(at).toBeGreaterThan(0);
    const file = written('torn.ndjson', [text.slice(0, at + 20)]);
    const r = await importK6({ file, outDir: runsDir, steps: {} });
    expect(r.ingest.tornLastLine).toBe(true);
    expect(r.notes).toContain(
      "torn.ndjson ends in a torn line (its last line cut mid-sample: k6 killed while writing it?): the samples before the cut are imported (the second it fell in, 21-22 s, holds only part of its samples: the last second of load is not judged), the run's last seconds are missing, and the run is judged as interrupted: what its steps held is a lower bound, and a capacity needs a failure past the knee that a later complete step confirmed by failing too (an import has no rerun)",
    );
    // its 180 step had shown 3 whole seconds of its hold and part of a fourth, the second cut
    // (left out): too little of a hold to place a step (it read 'incomplete' with that second counted)
    expect(r.result.steps.map((st) => st.verdict)).toEqual(['holds', 'holds']);
    expect(r.result).toMatchObject({ interrupted: true, stopReason: 'interrupted', capacityPerSec: null });
    expect(r.result.heldAtLeastPerSec).toBeGreaterThan(50);
    // the whole file: not torn, complete
    const whole = await importK6({ file: `${FIX}/stepped-reject.ndjson`, outDir: runsDir, steps: {} });
    expect([whole.ingest.tornLastLine, whole.result.interrupted]).toEqual([false, false]);
  });

  /** stepped-reject (60, 120, 180/s; 2 s ramps, 6 s holds) with its points from `iso` on left out: k6 stopped there, its lines whole. */
  function cleanlyCut(name: string, iso: string): string {
    const end = Date.parse(iso);
    const lines = fs
      .readFileSync(`${FIX}/stepped-reject.ndjson`, 'utf8')
      .trim()
      .split('\n')
      .filter((l) => {
        const time = (JSON.parse(l) as { data: { time?: string } }).data.time;
        return time === undefined || Date.parse(time) < end;
      });
    return written(name, lines);
  }

  it('whole lines that end mid-hold (a Ctrl-C): judged as interrupted, and said so, not stop reason error', async () => {
    // 4.5 s into the 180 step's hold (18-24 s): it read "error: step 3 ... the run was not marked interrupted: it ended early"
    const file = cleanlyCut('ctrl-c.ndjson', '2026-11-29T22:24:01.4+05:30');
    const r = await importK6({ file, outDir: runsDir, steps: {} });
    expect(r.ingest.tornLastLine).toBe(false);
    expect(r.result.steps.map((st) => st.ratePerSec)).toEqual([60, 120, 180]);
    expect(r.notes[0]).toBe(
      "ctrl-c.ndjson ends with whole lines, but its arrivals end at 22-23 s, 4 s into the 6 s hold of step 3 (180 req/s) of the steps derived from its arrivals: k6 stopped before the end of its plan (Ctrl-C, a threshold's abortOnFail, or test.abort()?). The run is judged as interrupted: what its steps held is a lower bound, and a capacity needs a failure past the knee that a later complete step confirmed by failing too (an import has no rerun), and its last second of load, cut part way, is not judged",
    );
    expect(r.result).toMatchObject({ interrupted: true, stopReason: 'interrupted', capacityPerSec: null });
    expect(r.result.stopDetail).toMatch(
      /^interrupted during step 3 \(180 req\/s, its hold, 1 s into its 3 s steady window\), after step 2 \(120 req\/s\); /,
    );
    const meta = JSON.parse(fs.readFileSync(path.join(r.dir, 'run.json'), 'utf8')) as { status: string };
    expect(meta.status).toBe('interrupted');
  });

  it('with the step flags: a run that ended in the ramp of a step they plan is interrupted too', async () => {
    // cut 1 s into the ramp to 180 (16-18 s): the flags plan 180, the file has none of its hold
    const file = cleanlyCut('ctrl-c-flags.ndjson', '2026-11-29T22:23:55.9+05:30');
    const steps = { startPerSec: 60, stepPerSec: 60, maxPerSec: 180, rampS: 2, holdS: 6 };
    const r = await importK6({ file, outDir: runsDir, steps });
    expect(r.notes[0]).toMatch(
      /^ctrl-c-flags\.ndjson ends with whole lines, but its arrivals end at 17-18 s, in the ramp to step 3 \(180 req\/s\) of the plan the flags give, before its hold began: k6 stopped before the end of its plan \(.*; or the flags plan more steps than the run had\)/,
    );
    expect(r.result).toMatchObject({ interrupted: true, stopReason: 'interrupted', capacityPerSec: null });
  });

  it('the second the cut fell in is left out: a fifth of its samples read as a collapse of the step that held', async () => {
    // stepped-reject torn at 22:23:53.8, 15.2 s after its t0, late in the 120/s step's hold: the
    // second 15-16 s held 24 arrivals of its 120, and the step read "fails" at 88/s
    const text = fs.readFileSync(`${FIX}/stepped-reject.ndjson`, 'utf8');
    const at = text.indexOf('"time":"2026-11-29T22:23:53.8');
    expect(at).toBeGreaterThan(0);
    const r = await importK6({
      file: written('torn-mid-hold.ndjson', [text.slice(0, at + 20)]),
      outDir: runsDir,
      steps: {},
    });
    expect(r.notes[0]).toMatch(
      /^torn-mid-hold\.ndjson ends in a torn line .*: the samples before the cut are imported \(the second it fell in, 15-16 s, holds only part of its samples: the last second of load is not judged\), /,
    );
    expect(r.result.steps.map((st) => [st.ratePerSec, st.verdict])).toEqual([
      [60, 'holds'],
      [120, 'incomplete'],
    ]);
    expect(r.result.steps[1].throughputPerSec).toBeGreaterThan(115);
    expect(r.result).toMatchObject({ interrupted: true, capacityPerSec: null, heldAtLeastPerSec: 60 });
  });
});
