/**
 * `plateau report` re-derives every classification from the stored buckets, probes and attempts
 * alone (issue 26 item 1): each stored run of test/fixtures/runs/ (native, k6, interrupted,
 * generator-bound, contaminated) is re-rendered from its store and must give the outputs stored
 * beside it byte for byte; and a live run in simulated time, rendered at its end as the pipeline
 * does, re-renders identically with the classifications and actions the live decision took.
 *
 * A difference here is a change of output. When it is intended, re-record the fixtures on purpose
 * (npx tsx scripts/record-run-fixtures.ts) and review `git diff test/fixtures/runs/`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ModelTargetOptions } from '../harness/engine/model-target.ts';
import { loadRun } from '../harness/store/run-store.ts';
import {
  RECORD_COMMAND,
  RUN_FIXTURES_DIR,
  SHAPES,
  STORE_FILES,
  actionOf,
  classificationOf,
  compareOutputs,
  copyStore,
  outputFiles,
  readStoredRun,
  renderOutputs,
  simRun,
  type SimRun,
} from './helpers/run-fixtures.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'plateau-rerender-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const HOW_TO_RERECORD = `if this change of output is intended, re-record on purpose with \`${RECORD_COMMAND}\` and review \`git diff test/fixtures/runs/\``;
const shapes = fs
  .readdirSync(RUN_FIXTURES_DIR)
  .filter((f) => fs.statSync(path.join(RUN_FIXTURES_DIR, f)).isDirectory())
  .sort();
const bytesOf = (dir: string, files: readonly string[]) =>
  Object.fromEntries(
    files.filter((f) => fs.existsSync(path.join(dir, f))).map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf8')]),
  );

describe('the stored runs re-render byte for byte', () => {
  it('a fixture of every shape is stored, and nothing else', () => {
    expect(shapes).toEqual(Object.keys(SHAPES).sort());
  });

  describe.each(shapes)('%s', (shape) => {
    const fixture = path.join(RUN_FIXTURES_DIR, shape);

    it('re-rendered from its store alone, every stored output is identical, and the store is left as it was', async () => {
      const dir = copyStore(fixture, path.join(tmp, shape));
      await renderOutputs(dir);
      const problems = compareOutputs(fixture, dir, shape);
      expect(problems, `${problems.join('\n')}\n${HOW_TO_RERECORD}`).toEqual([]);
      expect(bytesOf(dir, STORE_FILES)).toEqual(bytesOf(fixture, STORE_FILES));
      // the fixture holds the outputs, not only the store: a fixture with no report would compare nothing
      expect(outputFiles(fixture)).toEqual(
        expect.arrayContaining(['report.html', 'report.md', 'steps.csv', 'summary.json', 'table.txt']),
      );
    });

    it('holds the run of its shape', () => {
      expect(SHAPES[shape]!(readStoredRun(fixture))).toEqual([]);
    });
  });

  it('a difference is reported with the file and its first differing line', async () => {
    // the check itself can fail: one changed figure in a stored output is found and named
    const fixture = path.join(tmp, 'tampered');
    fs.cpSync(path.join(RUN_FIXTURES_DIR, 'generator-bound'), fixture, { recursive: true });
    const csv = fs.readFileSync(path.join(fixture, 'steps.csv'), 'utf8').split('\n');
    csv[2] = csv[2]!.replace(/\d/, (d) => String((Number(d) + 1) % 10));
    fs.writeFileSync(path.join(fixture, 'steps.csv'), csv.join('\n'));
    const dir = copyStore(fixture, path.join(tmp, 'tampered-render'));
    await renderOutputs(dir);
    const problems = compareOutputs(fixture, dir, 'tampered');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(
      /^tampered\/steps\.csv differs from its re-render at line 3:\n {2}stored: {6}.+\n {2}re-rendered: .+$/,
    );
  });

  it('the outputs come from the store: a store whose policy allowed more VUs re-derives a rerun, not the stop it stored', async () => {
    const dir = copyStore(path.join(RUN_FIXTURES_DIR, 'generator-bound'), path.join(tmp, 'more-vus'));
    const meta = JSON.parse(fs.readFileSync(path.join(dir, 'run.json'), 'utf8'));
    meta.policy.maxVUsBound = 64;
    fs.writeFileSync(path.join(dir, 'run.json'), JSON.stringify(meta, null, 2) + '\n');
    const result = await renderOutputs(dir);
    expect(result.replayDiffers).toEqual([
      { index: 2, attempt: 1, recorded: { kind: 'stop' }, derived: { kind: 'rerun', maxVUs: 8 } },
    ]);
    expect(
      compareOutputs(path.join(RUN_FIXTURES_DIR, 'generator-bound'), dir, 'more-vus').map((p) => p.split(' ')[0]),
    ).toEqual(expect.arrayContaining(['more-vus/report.md', 'more-vus/summary.json']));
  });
});

/** Live runs in simulated time: what the steps stage decided, against what the store re-derives. */
const slow: ModelTargetOptions = { capacityPerSec: 10_000, serviceMs: 40, overload: 'queue' };
const steps = (startPerSec: number, stepPerSec: number, maxPerSec: number) => ({
  startPerSec,
  stepPerSec,
  maxPerSec,
  rampS: 1,
  holdS: 6,
  settleS: 1,
});
const LIVE: { name: string; run: Omit<SimRun, 'runsDir' | 'runId'>; classes: string[]; actions: string[] }[] = [
  {
    name: 'generator-bound, rerun with maxVUs doubled, which holds',
    run: {
      model: slow,
      config: { steps: steps(50, 50, 150), verdicts: { maxVUsBound: 64 } },
      vus: { preAllocated: 4, max: 4 },
    },
    classes: ['step 1#1:holds', 'step 2#1:holds', 'step 3#1:fails:transient:generatorBound', 'step 3#2:holds'],
    actions: ['go-on', 'go-on', 'rerun maxVUs 8', 'go-on'],
  },
  {
    name: 'a topology change inside step 2, rerun',
    run: {
      model: { capacityPerSec: 1000, serviceMs: 10, overload: 'queue', topology: { atS: 10, from: 1, to: 2 } },
      config: { steps: steps(100, 100, 300), topology: { metric: 'replicas', everyS: 1, rerun: true } },
      vus: { preAllocated: 40, max: 40 },
    },
    classes: ['step 1#1:holds', 'step 2#1:holds:contaminated', 'step 2#2:holds', 'step 3#1:holds'],
    actions: ['go-on', 'rerun maxVUs 40', 'go-on', 'go-on'],
  },
  {
    name: 'a queue past its capacity: the failure confirmed by its rerun, the run stopped',
    run: {
      model: { capacityPerSec: 250, serviceMs: 10, overload: 'queue' },
      config: { steps: steps(100, 100, 400) },
      vus: { preAllocated: 60, max: 60 },
    },
    classes: ['step 1#1:holds', 'step 2#1:holds', 'step 3#1:fails:waitedOnTarget', 'step 3#2:fails:waitedOnTarget'],
    actions: ['go-on', 'go-on', 'rerun maxVUs 60', 'stop'],
  },
];

describe('a live run in simulated time re-renders as it was rendered at its end', () => {
  it.each(LIVE)('$name', async ({ name, run, classes, actions }) => {
    const runId = `live-${LIVE.findIndex((l) => l.name === name)}`;
    const live = await simRun({ ...run, runsDir: path.join(tmp, 'live'), runId });
    // what the live steps stage decided
    expect(live.live.judged.map(classificationOf)).toEqual(classes);
    expect(live.live.attempts.map(actionOf)).toEqual(actions);
    // the store alone, re-rendered elsewhere: the same bytes, charts included
    const again = copyStore(live.dir, path.join(tmp, `${runId}-again`));
    const result = await renderOutputs(again);
    const written = outputFiles(live.dir);
    expect(outputFiles(again)).toEqual(written);
    for (const f of written)
      expect(fs.readFileSync(path.join(again, f), 'utf8'), f).toBe(fs.readFileSync(path.join(live.dir, f), 'utf8'));
    // and the same classifications and actions, derived from the evidence
    expect(result.steps.map(classificationOf)).toEqual(live.live.judged.map(classificationOf));
    expect(result.replayDiffers).toBeUndefined();
    expect(loadRun(again).meta.attempts?.map(actionOf)).toEqual(actions);
  });
});
