/** `plateau plan`, `gate` and `compare` with --json: one JSON document on stdout, the exit codes of the text. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fakeRun, type FakeStep } from '../analysis/testing/builders.ts';
import type { RunResult } from '../analysis/types.ts';
import { baselineOf } from '../harness/gate/baseline.ts';
import { cliInProcess } from './helpers/cli.ts';

/** Steps 100..600 holding up to `kneePerSec`, then flat just above it. */
function kneeRun(kneePerSec: number): RunResult {
  const steps: FakeStep[] = [];
  for (let r = 100; r <= 600; r += 100) steps.push({ ratePerSec: r, okPerSec: r <= kneePerSec ? r : kneePerSec + 10 });
  return fakeRun({ steps, holdS: 12, rampS: 1, settleS: 2 });
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plateau-json-'));
const write = (name: string, value: unknown) => {
  const f = path.join(dir, name);
  fs.writeFileSync(f, JSON.stringify(value));
  return f;
};
const baselineFile = write('baseline.json', baselineOf(kneeRun(400), '2025-01-01T00:00:00.000Z', 'runs/base'));

/** The CLI in this process (test/helpers/cli.ts), with no GitHub step summary; gate.test.ts runs a case through the binary. */
const plateau = (args: string[]) => cliInProcess(args, { ...process.env, GITHUB_STEP_SUMMARY: '' });

describe('plateau plan --json', () => {
  it.concurrent(
    "names a random source's seed, in the text and the document (a review: nothing said what its rows follow)",
    async () => {
      const args = ['plan', '--target', 'http://127.0.0.1:9/', '--scenario', 'test/fixtures/scenarios/random-seed.ts'];
      const steps = ['--start-rate', '10', '--step-rate', '10', '--max-rate', '20', '--hold', '5', '--ramp', '1'];
      const [json, text] = await Promise.all([plateau([...args, ...steps, '--json']), plateau([...args, ...steps])]);
      expect(json.status, json.stderr).toBe(0);
      expect(JSON.parse(json.stdout).data).toEqual([
        expect.objectContaining({ name: 'accounts', order: 'random', seed: 'checkout-ab' }),
      ]);
      expect(text.stdout).toContain(
        'rows, random (seeded by its seed "checkout-ab": every run given it draws the same rows)\n',
      );
    },
  );

  it.concurrent('prints the plan the text shows, as values', async () => {
    const args = [
      'plan',
      '--demo',
      '--start-rate',
      '100',
      '--step-rate',
      '150',
      '--max-rate',
      '500',
      '--hold',
      '12',
      '--ramp',
      '1',
    ];
    const [json, text] = await Promise.all([plateau([...args, '--json']), plateau(args)]);
    expect(json.status, json.stderr).toBe(0);
    const doc = JSON.parse(json.stdout);
    expect(doc).toMatchObject({
      schemaVersion: 3,
      kind: 'plateau-plan',
      timing: { rampS: 1, holdS: 12 },
      engine: { kind: 'native' },
      scenario: { module: expect.stringMatching(/scenario\.ts$/) },
    });
    // every step row of the text, figure for figure
    const rows = [...text.stdout.matchAll(/^ +(\d+) +(\d+) +(\d+) s +(\d+)-(\d+) s +(\d+) /gm)].map((m) =>
      m.slice(1).map(Number),
    );
    expect(rows.length).toBeGreaterThan(0);
    expect(
      doc.steps.map((s: Record<string, number>) => [
        s.index + 1,
        s.ratePerSec,
        s.rampStartS,
        s.steadyStartS,
        s.steadyEndS,
        s.expectedSamples,
      ]),
    ).toEqual(rows);
    expect(text.stdout).toContain(`VUs      ${doc.vus.preAllocatedVUs} preallocated, max ${doc.vus.maxVUs}`);
    // 100 + 150k never reaches 500: the text's note is the document's warning (the demo's mix has a transaction: arrivals)
    expect(text.stdout).toMatch(/note: the last step is 400 arrivals\/s/);
    // its data source, as the text names it
    expect(doc.data).toEqual([
      expect.objectContaining({ name: 'accounts', order: 'sequential', file: expect.stringMatching(/accounts\.csv$/) }),
    ]);
    expect(text.stdout).toContain(`data     accounts (${doc.data[0].file}): ${doc.data[0].rows} rows, sequential`);
    expect(doc.warnings).toContainEqual(
      expect.objectContaining({ code: 'last-step-below-max', lastRatePerSec: 400, maxPerSec: 500 }),
    );
    expect(doc.durations.stepsS).toBe(doc.steps.at(-1).holdEndS);
    // the text's stages are the document's, threads included where that stage sizes them
    expect(text.stdout).toContain(
      `stages   ${doc.stages.map((s: string) => (s === 'steps' ? `${doc.steps.length} steps` : s)).join(' -> ')}\n`,
    );
    expect(doc.stages.includes('threads')).toBe(doc.threads.sizes);
    // the mix the text names, entry by entry, and that the warmup may re-size the VUs
    // with each entry's tails: 70% of step 1's 700 samples make a p90 (300), 25% of step 2's 1,750 too
    const tails = (p90From: number | null) => [
      { q: 99, requiredSamples: 3000, fromStepIndex: null },
      { q: 90, requiredSamples: 300, fromStepIndex: p90From },
    ];
    expect(doc.traffic).toEqual({
      entries: [
        { name: 'read order', weight: 70, share: 0.7, transaction: false, tails: tails(0) },
        { name: 'create order', weight: 25, share: 0.25, transaction: false, tails: tails(1) },
        { name: 'checkout', weight: 5, share: 0.05, transaction: true, tails: tails(null) },
      ],
      vusFromWarmup: true,
    });
    expect(text.stdout).toContain(
      '  p90 (300 a window): read order from step 1; create order from step 2; checkout at no step of this plan',
    );
    expect(text.stdout).toContain('mix: read order 70%, create order 25%, checkout 5% (transaction)\n');
    expect(text.stdout).toMatch(/^VUs .*raised after the warmup where its measured time per arrival is longer\)$/m);
    // the document's reason is the text's, which says the transaction's sample arrivals re-size a provisional figure
    expect(text.stdout).toContain(
      `VUs      ${doc.vus.preAllocatedVUs} preallocated, max ${doc.vus.maxVUs} (${doc.vus.reason})\n`,
    );
    expect(doc.vus.reason).toMatch(
      /; provisional: re-sized before load with the measured RTT and, where longer, the time per arrival of preflight's sample arrivals, each transaction's own \("checkout", think time included, which only sending them measures\), and raised after the warmup/,
    );
  });

  it.concurrent('a usage error stays text on stderr, exit 2, nothing on stdout', async () => {
    const r = await plateau(['plan', '--demo', '--json', '--hold', '1', '--hold', '2']);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/--hold was given 2 times/);
  });
});

describe('plateau gate --json', () => {
  it.concurrent.each<[string, number, RunResult]>([
    ['pass', 0, kneeRun(400)],
    ['regression', 1, kneeRun(300)],
    ['invalid', 3, { ...kneeRun(400), interrupted: true, stopReason: 'interrupted' }],
  ])('%s: exit %i as with the text, and the decision as one document', async (status, code, run) => {
    const file = write(`${status}.json`, run);
    const r = await plateau([
      'gate',
      file,
      '--baseline',
      baselineFile,
      '--tolerance',
      '5%',
      '--junit',
      path.join(dir, `${status}.xml`),
      '--summary',
      path.join(dir, `${status}.md`),
      '--monthly-cost',
      '730',
      '--json',
    ]);
    expect(r.status, r.stderr).toBe(code);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({
      schemaVersion: 3,
      kind: 'plateau-gate',
      status,
      exitCode: code,
      tolerance: 0.05,
      stepPerSec: 100,
    });
    expect(doc.baseline).toMatchObject({ comparedPerSec: 400, knee: { step: 4, ratePerSec: 400 } });
    expect(doc.run.runId).toBe(run.runId);
    expect(doc.reasons.length > 0).toBe(status === 'invalid');
    expect(doc.cost === null).toBe(false);
    // the files are written as without --json
    expect(fs.readFileSync(path.join(dir, `${status}.md`), 'utf8')).toContain('## plateau gate');
  });

  it.concurrent('a usage error still exits 2 with --json', async () => {
    const r = await plateau([
      'gate',
      write('u.json', kneeRun(400)),
      '--baseline',
      baselineFile,
      '--tolerance',
      'lots',
      '--json',
    ]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--tolerance lots/);
  });
});

describe('plateau compare --json', () => {
  it.concurrent("both runs' figures and the differences, with --out still Markdown", async () => {
    const a = kneeRun(400),
      b = kneeRun(300);
    const out = path.join(dir, 'cmp.md');
    const r = await plateau([
      'compare',
      write('a.json', a),
      write('b.json', { ...b, engine: 'k6' }),
      '--json',
      '--out',
      out,
    ]);
    expect(r.status, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({
      schemaVersion: 3,
      kind: 'plateau-compare',
      a: { runId: a.runId, capacityPerSec: a.capacityPerSec },
      b: { engine: 'k6', capacityPerSec: b.capacityPerSec },
    });
    expect(doc.change.capacity).toBeCloseTo((b.capacityPerSec! - a.capacityPerSec!) / a.capacityPerSec!, 9);
    expect(doc.rates.map((x: { ratePerSec: number }) => x.ratePerSec)).toEqual([100, 200, 300, 400, 500, 600]);
    expect(doc.warnings.join('\n')).toMatch(/engine differs: native vs k6/);
    expect(fs.readFileSync(out, 'utf8')).toMatch(/^# plateau compare/);
    // a directory given as --out (the run stores' habit) is named as one, with the fix
    const intoDir = await plateau(['compare', write('a.json', a), write('b.json', b), '--out', dir]);
    expect(intoDir.status).toBe(2);
    expect(intoDir.stderr).toContain(`cannot write ${dir} (--out): EISDIR: it is a directory`);
    expect(intoDir.stderr).toContain(
      'fix: give --out the path of a file (in that directory, say), not of the directory',
    );
  });
});
