/**
 * (Re)records the stored runs of test/fixtures/runs/: for each shape, a real run store as the
 * pipeline writes it (run.json, buckets.ndjson, probes.ndjson) and the outputs rendered at the end
 * of that run (report.md, summary.json, steps.csv, report.html, the terminal table as table.txt; the
 * chart-*.svg files are left out: each is byte for byte inside report.html, and the test checks so).
 * test/rerender.test.ts re-renders each store and expects these outputs byte for byte, so run this
 * only on purpose, when a change of output is intended, and review the diff before committing it.
 *
 *   npx tsx scripts/record-run-fixtures.ts [shape ...]     (default: every shape)
 *
 * native and mix take about 30 s each of real load against the embedded demo on 127.0.0.1 (mix: the
 * demo's own mix of reads, writes and a transaction, recorded by name); the others take
 * seconds (simulated time, or the import of a real k6 output).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startDemo } from '../demo/server.ts';
import { importK6 } from '../harness/k6/import/import.ts';
import { renderPlateauTable } from '../reports/table.ts';
import { DEMO_SCENARIO, runQuietly } from '../test/helpers/pipeline.ts';
import {
  NATIVE_DEMO,
  RUN_FIXTURES_DIR,
  SHAPES,
  TABLE_FILE,
  isChartFile,
  readStoredRun,
  simRun,
} from '../test/helpers/run-fixtures.ts';

const K6_FIXTURE = path.resolve('test/fixtures/k6/stepped-reject.ndjson');
const steps = (startPerSec: number, stepPerSec: number, maxPerSec: number) => ({
  startPerSec,
  stepPerSec,
  maxPerSec,
  rampS: 1,
  holdS: 6,
  settleS: 1,
});

/**
 * A real run of the whole pipeline against the embedded demo (2 slots x 9.5 ms), quiet, its table
 * written beside it; `runId` names the run and its directory.
 */
async function demoRun(runsDir: string, runId: string, scenario: string, steps: ReturnType<typeof stepsAt>) {
  const key = 'fixture-key-not-secret';
  const demo = await startDemo({ slots: NATIVE_DEMO.slots, holdMs: NATIVE_DEMO.holdMs, hmacKey: key });
  try {
    const r = await runQuietly(
      {
        target: { url: `${demo.url}/orders`, rttPath: '/ping' },
        scenario,
        steps,
        warmup: { ratePerSec: 40, windowS: 1, stableWindows: 2, maxS: 4 },
        rtt: { samples: 5 },
        output: { dir: runsDir, runId },
      },
      { env: { ...process.env, PLATEAU_DEMO_HMAC_KEY: key } },
    );
    if (r.exitCode !== 0) throw new Error(`the ${runId} run exited ${r.exitCode}: ${r.lines.join('')}`);
    fs.writeFileSync(path.join(r.dir, TABLE_FILE), renderPlateauTable(r.result) + '\n');
    return r.dir;
  } finally {
    await demo.close();
  }
}

/** A demo run's steps: 1 s ramps, 4 s holds. */
const stepsAt = (startPerSec: number, stepPerSec: number, maxPerSec: number) => ({
  startPerSec,
  stepPerSec,
  maxPerSec,
  rampS: 1,
  holdS: 4,
  settleS: 1,
});

/** Each shape's recording: writes one run directory under runsDir named as the shape, returns it. */
const RECORDERS: Record<string, (runsDir: string) => Promise<string>> = {
  // 120 and 180 hold below the demo's 210.5 req/s of writes; 240 fails and its confirmation stops the run
  native: (runsDir) => demoRun(runsDir, 'native', DEMO_SCENARIO, stepsAt(120, 60, 300)),
  // the demo's own mix (reads 1.9 ms, writes and confirms 9.5 ms, a transaction of two): about
  // 430 arrivals/s on 2 slots; 150 and 300 hold, 450 fails and its confirmation stops the run
  mix: (runsDir) => demoRun(runsDir, 'mix', path.resolve('demo/scenario.ts'), stepsAt(150, 150, 600)),
  async k6(runsDir) {
    // the import writes the store and renders every report, as `plateau import k6 FILE --run-id k6` does
    const r = await importK6({ file: K6_FIXTURE, outDir: runsDir, runId: 'k6', steps: {} });
    fs.writeFileSync(path.join(r.dir, TABLE_FILE), renderPlateauTable(r.result) + '\n');
    return r.dir;
  },
  async interrupted(runsDir) {
    // step 3 (300 req/s) ramps from 14 s and holds 15-21 s: interrupted at 17.5 s, mid-hold
    return (
      await simRun({
        runsDir,
        runId: 'interrupted',
        model: { capacityPerSec: 1000, serviceMs: 10, overload: 'queue' },
        config: { steps: steps(100, 100, 500) },
        interruptAtS: 17.5,
      })
    ).dir;
  },
  async 'generator-bound'(runsDir) {
    // 4 VUs x 25 req/s each = 100 req/s: 150 drops a third while the tail stays at 40 ms, and maxVUs may not rise
    return (
      await simRun({
        runsDir,
        runId: 'generator-bound',
        model: { capacityPerSec: 10_000, serviceMs: 40, overload: 'queue' },
        config: { steps: steps(50, 50, 150), verdicts: { maxVUsBound: 4 } },
        vus: { preAllocated: 4, max: 4 },
      })
    ).dir;
  },
  async contaminated(runsDir) {
    // replicas 1 -> 2 at 10 s: inside step 2 (7-14 s); it is rerun and the rerun counts
    return (
      await simRun({
        runsDir,
        runId: 'contaminated',
        model: { capacityPerSec: 1000, serviceMs: 10, overload: 'queue', topology: { atS: 10, from: 1, to: 2 } },
        config: { steps: steps(100, 100, 300), topology: { metric: 'replicas', everyS: 1, rerun: true } },
      })
    ).dir;
  },
};

async function record(shape: string, runsDir: string): Promise<void> {
  const t0 = performance.now();
  const dir = await RECORDERS[shape]!(runsDir);
  const problems = SHAPES[shape]!(readStoredRun(dir));
  if (problems.length) {
    const table = fs.existsSync(path.join(dir, TABLE_FILE)) ? fs.readFileSync(path.join(dir, TABLE_FILE), 'utf8') : '';
    throw new Error(`the ${shape} run does not have its shape (nothing written): ${problems.join('; ')}\n${table}`);
  }
  const dest = path.join(RUN_FIXTURES_DIR, shape);
  fs.rmSync(dest, { recursive: true, force: true });
  fs.mkdirSync(dest, { recursive: true });
  let bytes = 0;
  for (const f of fs
    .readdirSync(dir)
    .sort()
    .filter((name) => !isChartFile(name))) {
    fs.copyFileSync(path.join(dir, f), path.join(dest, f));
    bytes += fs.statSync(path.join(dest, f)).size;
  }
  console.log(
    `${shape}: ${fs.readdirSync(dest).length} files, ${(bytes / 1024).toFixed(0)} KB in ${path.relative(process.cwd(), dest)} (${((performance.now() - t0) / 1000).toFixed(1)} s)`,
  );
}

async function main(): Promise<void> {
  const asked = process.argv.slice(2);
  const unknown = asked.filter((s) => !(s in RECORDERS));
  if (unknown.length)
    throw new Error(`unknown shape(s) ${unknown.join(', ')}: choose from ${Object.keys(RECORDERS).join(', ')}`);
  // one fixed directory: run.json records config.output.dir, and a random name would change it at every recording
  const runsDir = path.join(os.tmpdir(), 'plateau-run-fixtures');
  fs.rmSync(runsDir, { recursive: true, force: true });
  try {
    for (const shape of asked.length ? asked : Object.keys(RECORDERS)) await record(shape, runsDir);
  } finally {
    fs.rmSync(runsDir, { recursive: true, force: true });
  }
  console.log(
    're-recorded: review `git diff test/fixtures/runs/` before committing; every difference is a change of output',
  );
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
