/**
 * The k6 engine end to end: a live run whose k6 is a replay of a real k6 output (so the stream,
 * live judging and the graceful SIGINT stop are exercised without k6). Tests needing the real
 * binary run only when k6 is on PATH. The generated script (snapshot, type-checked against
 * @types/k6) loads nothing but code: test/k6-script-generated.test.ts, of the unit project; an
 * imported run's plateau, report --merge and the execution segments' arithmetic start nothing:
 * test/k6-import.test.ts, a pure file.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findK6, requireK6 } from '../harness/k6/engine/binary.ts';
import { startK6, writeK6Script } from '../harness/k6/engine/process.ts';
import { createLoadEngine, engineKind } from '../harness/engine/create.ts';
import { WorkerEngine } from '../harness/engine/workers.ts';
import { Schedule } from '../analysis/schedule.ts';
import { defaultScenario } from '../harness/scenario/default.ts';
import { scenarioRequests } from '../harness/scenario/requests.ts';
import type { BucketRecord } from '../analysis/types.ts';
import { buildPlan } from '../analysis/plan.ts';
import { parseConfigOrThrow } from '../harness/config/validate.ts';
import { loadRun } from '../harness/store/run-store.ts';
import { PlateauError } from '../harness/errors.ts';
import { tinyServer } from './helpers/tiny-server.ts';
import { runQuietly, tempRunsDir } from './helpers/pipeline.ts';

const FIX = path.resolve('test/fixtures/k6');
const ECHOED_TOKEN = 'k6-echoed-token-7f3a91';
const k6OnPath = findK6() !== null;
const runsDir = tempRunsDir();
afterAll(() => fs.rmSync(runsDir, { recursive: true, force: true }));

describe('the k6 engine in the pipeline (k6 replayed from a real output)', () => {
  let server: Awaited<ReturnType<typeof tinyServer>>;
  beforeAll(async () => {
    server = await tinyServer((_q, s) => {
      s.writeHead(200);
      s.end('ok');
    });
  });
  afterAll(async () => server.close());

  it('without k6, preflight fails naming the fix', () => {
    let err: unknown;
    try {
      requireK6({ PATH: '/nonexistent' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(PlateauError);
    expect((err as PlateauError).message).toMatch(/k6 is not on PATH/);
    expect((err as PlateauError).hint).toMatch(/install k6.*K6_BIN/);
  });

  it('the stand-in answers a SIGINT with 105 after its replay is written, while it lingers', async () => {
    // the pipeline test below stops it there when the machine is slow; it once closed its output twice (exit 1)
    const dir = fs.mkdtempSync(path.join(runsDir, 'fake-k6-'));
    const replay = path.join(dir, 'replay.ndjson');
    fs.writeFileSync(
      replay,
      fs.readFileSync(`${FIX}/stepped-reject.ndjson`, 'utf8').split('\n').slice(0, 50).join('\n'),
    );
    const out = path.join(dir, 'out.json');
    const child = spawn(process.execPath, [`${FIX}/fake-k6.mjs`, 'run', '--out', `json=${out}`, 'script.js'], {
      env: { ...process.env, FAKE_K6_REPLAY: replay, FAKE_K6_LINGER_MS: '30000' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const whole = fs.statSync(replay).size;
    while (!fs.existsSync(out) || fs.statSync(out).size < whole) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 100)); // past the write that closed the output
    child.kill('SIGINT');
    expect(await exited).toBe(105);
    expect(stdout).toMatch(/SIGINT after 50 lines/);
  });

  // the three k6 runs below at once (each its own stand-in process and run directory); the thread
  // count after them runs alone, as it reads the whole process's threads
  it.concurrent('streams buckets while k6 writes, judges live and stops k6 with SIGINT after the knee', async () => {
    // the replay is written in about 3 s, a real k6 would run on to its schedule's end: lingering,
    // the stand-in is still running when a slow machine's plateau has judged the knee
    const env = {
      ...process.env,
      K6_BIN: `${FIX}/fake-k6.mjs`,
      FAKE_K6_REPLAY: `${FIX}/stepped-queue.ndjson.gz`,
      FAKE_K6_LINGER_MS: '30000',
      // echoed by the stand-in into k6's own files (console.log, the output, the summary)
      PLATEAU_TEST_TOKEN: ECHOED_TOKEN,
      FAKE_K6_ECHO: 'PLATEAU_TEST_TOKEN',
    };
    const r = await runQuietly(
      {
        engine: 'k6',
        target: { url: `${server.url}/work` },
        steps: { startPerSec: 50, stepPerSec: 50, maxPerSec: 250, rampS: 2, holdS: 8 },
        // the replay cannot follow a confirmation rerun's schedule, so the test judges one leg
        vus: { preAllocated: 10, max: 30 },
        rtt: { samples: 3 },
        verdicts: { confirmFailedStep: false },
        output: { dir: runsDir, runId: 'live-k6' },
      },
      { env },
    );
    expect(r.exitCode, r.lines.join('')).toBe(0);
    expect(r.result.engine).toBe('k6');
    expect(r.result.steps.slice(0, 4).map((s) => s.verdict)).toEqual(['holds', 'holds', 'holds', 'fails']);
    expect(Math.abs(r.result.capacityPerSec! - 140) / 140).toBeLessThan(0.15);
    const { meta } = loadRun(r.dir);
    expect(meta.environment.k6Exit).toMatch(/105/);
    expect(r.result.steps).toHaveLength(4); // step 5 never judged: k6 was stopped at the knee
    expect(meta.stages.find((s) => s.name === 'warmup')?.status).toBe('skipped');
    const console = fs.readFileSync(path.join(r.dir, 'k6/leg-0/console.log'), 'utf8');
    expect(console).toMatch(/SIGINT after \d+ lines/);
    const script = fs.readFileSync(path.join(r.dir, 'k6/leg-0/script.js'), 'utf8');
    expect(script).toContain('ramping-arrival-rate');
    // the given run id's ids are the run's own: its id key, recorded in run.json, is the script's
    expect(meta.idKey).toMatch(/^live-k6-[0-9a-z]{10}$/);
    expect(script).toContain(`"idKey": "${meta.idKey}"`);
    // k6's own files were scrubbed once it exited: the token replaced where k6 wrote it, and in no file of the run
    expect(console).toContain('denied for [redacted]');
    expect(fs.readFileSync(path.join(r.dir, 'k6/leg-0/out.json'), 'utf8')).toContain('"echo":"[redacted]"');
    expect(fs.readFileSync(path.join(r.dir, 'k6/leg-0/summary.json'), 'utf8')).toContain('denied for [redacted]');
    for (const f of fs.readdirSync(r.dir, { recursive: true, encoding: 'utf8' })) {
      const file = path.join(r.dir, f);
      if (fs.statSync(file).isFile()) expect(fs.readFileSync(file, 'utf8'), f).not.toContain(ECHOED_TOKEN);
    }
  });

  (fs.existsSync('/proc/stat') ? it.concurrent : it.skip)(
    "a running k6's seconds carry the CPU steal and k6's CPU that plateau samples beside it (Linux only: skipped where there is no /proc/stat)",
    async () => {
      const config = parseConfigOrThrow({
        engine: 'k6',
        target: { url: `${server.url}/work` },
        steps: { startPerSec: 50, stepPerSec: 50, maxPerSec: 100, rampS: 1, holdS: 4 },
      });
      const records: BucketRecord[] = [];
      const run = startK6({
        config,
        plan: buildPlan(config, null),
        scenario: defaultScenario(config.target.url),
        runId: 'k6-host',
        idKey: 'k6-host',
        dir: path.join(runsDir, 'k6-host'),
        phase: 'steps',
        seqOffset: 0,
        // the replay's first 4 s, moved to the present and written as their time comes
        env: {
          ...process.env,
          K6_BIN: `${FIX}/fake-k6.mjs`,
          FAKE_K6_REPLAY: `${FIX}/stepped-queue.ndjson.gz`,
          FAKE_K6_REALTIME_S: '4',
        },
        sink: (r) => records.push(r),
        note: () => undefined,
      });
      await run.done;
      expect(records.length).toBeGreaterThanOrEqual(4);
      // every second k6 wrote lies within plateau's sampling (the last may end after k6 exited)
      for (const r of records.slice(0, -1)) {
        expect(r.cpuSteal, `second ${r.tS}`).toBeGreaterThanOrEqual(0);
        // the stand-in's own process (node), read from /proc while it ran (about 1 to 2% here)
        expect(r.processCpu, `second ${r.tS}`).toBeGreaterThanOrEqual(0);
      }
      expect(records.reduce((a, r) => a + (r.processCpu ?? 0), 0)).toBeGreaterThan(0);
      expect(records.every((r) => (r.cpuSteal ?? 0) <= 1 && (r.processCpu ?? 0) <= 1)).toBe(true);
    },
  );

  it.concurrent(
    "a rerun gets its raised maxVUs, and under an execution segment the next leg's ids start after the whole striped leg",
    async () => {
      const config = parseConfigOrThrow({
        engine: 'k6',
        target: { url: `${server.url}/work` },
        steps: { startPerSec: 50, stepPerSec: 50, maxPerSec: 100, rampS: 1, holdS: 4 },
        vus: { preAllocated: 10, max: 30 },
        k6: { executionSegment: '0:1/2' },
      });
      const plan = buildPlan(config, null);
      const dir = path.join(runsDir, 'k6-leg');
      const env = { ...process.env, K6_BIN: `${FIX}/fake-k6.mjs`, FAKE_K6_REPLAY: `${FIX}/stepped-queue.ndjson.gz` };
      const updates: Record<string, string>[] = [];
      const store = {
        dir,
        scrub: (text: string) => text,
        meta: { environment: {} },
        update: (p: { environment?: Record<string, string> }) => {
          if (p.environment) updates.push(p.environment);
        },
      } as unknown as Parameters<typeof createLoadEngine>[0]['store'];
      const engine = await createLoadEngine({
        config,
        plan,
        runId: 'k6-leg',
        idKey: 'k6-leg',
        // the native engine's view of the scenario: k6 builds its own requests from the bundle
        arrivals: (await scenarioRequests(null, config.target.url, 'k6-leg')).arrivals,
        env,
        scenario: defaultScenario(config.target.url),
        store,
        note: () => undefined,
      });
      expect(engine.instances).toBe(1);
      engine.maxVUs = 60;
      const records: BucketRecord[] = [];
      const run = engine.start({
        segments: plan.segments,
        phase: 'steps',
        seqOffset: 1_000,
        offsetS: 7,
        gracefulStopMs: 0,
        sink: (r) => records.push(r),
      });
      const { lastSeq, dispatched } = await run.done;
      await engine.close();
      // the leg's files under its start second, its seconds shifted to it, k6's exit in run.json
      expect(fs.readFileSync(path.join(dir, 'k6/leg-7/script.js'), 'utf8')).toMatch(/"maxVUs": 60/);
      expect(Math.min(...records.map((r) => r.tS))).toBeGreaterThanOrEqual(7);
      expect(updates.at(-1)?.k6Exit).toMatch(/^k6 exited /);
      // k6's iterationInTest counts the global sequence: the next leg starts after all of it, not
      // after what this instance started (the stand-in replays a recorded run: dispatched is its count)
      expect(lastSeq).toBe(1_000 + new Schedule(plan.segments).totalArrivals);
      expect(dispatched).toBeGreaterThan(0);
    },
  );

  it("writes maxVUs as a multiple of the segment sequence's LCD, so that k6 does not re-split the segment by it", async () => {
    const config = parseConfigOrThrow({
      engine: 'k6',
      target: { url: `${server.url}/work` },
      steps: { startPerSec: 30, stepPerSec: 30, maxPerSec: 60, rampS: 1, holdS: 4 },
      vus: { preAllocated: 4, max: 10 },
      k6: { executionSegment: '1/3:2/3', executionSegmentSequence: '0,1/3,2/3,1' },
    });
    const plan = buildPlan(config, null);
    const file = await writeK6Script({
      config,
      plan,
      scenario: defaultScenario(config.target.url),
      runId: 'k6-lcd',
      idKey: 'k6-lcd',
      dir: path.join(runsDir, 'k6-lcd'),
      seqOffset: 0,
    });
    const script = fs.readFileSync(file, 'utf8');
    expect(script).toMatch(/"maxVUs": 12/);
    expect(script).toMatch(/"preAllocatedVUs": 4/);
  });

  it.skipIf(!fs.existsSync('/proc/self/task'))(
    "runs no native engine thread beside k6, though workers are asked for (Linux only: the process's threads are read from /proc/self/task)",
    async () => {
      const threads = () => fs.readdirSync('/proc/self/task').length;
      // libuv's thread pool starts all its threads on first use: started before the count, not during the run
      await fs.promises.readFile(`${FIX}/stepped-queue.ndjson.gz`);
      const before = threads();
      let peak = before;
      const sampler = setInterval(() => {
        peak = Math.max(peak, threads());
      }, 10);
      const env = { ...process.env, K6_BIN: `${FIX}/fake-k6.mjs`, FAKE_K6_REPLAY: `${FIX}/stepped-queue.ndjson.gz` };
      const r = await runQuietly(
        {
          engine: 'k6',
          workers: 2,
          target: { url: `${server.url}/work` },
          steps: { startPerSec: 50, stepPerSec: 50, maxPerSec: 250, rampS: 2, holdS: 8 },
          vus: { preAllocated: 10, max: 30 },
          rtt: { samples: 3 },
          verdicts: { confirmFailedStep: false },
          output: { dir: runsDir, runId: 'k6-threads' },
        },
        { env },
      ).finally(() => clearInterval(sampler));
      peak = Math.max(peak, threads());
      expect(r.exitCode, r.lines.join('')).toBe(0);
      expect(r.result.steps.length).toBeGreaterThan(0);
      expect(r.lines.join('')).toContain('engine: k6\n');
      expect(peak - before, 'threads started in this process during the k6 run').toBe(0);
      // the count does see an engine's threads: the native engine the same config would get with engine native
      const native = await WorkerEngine.create(
        2,
        {
          origin: server.url,
          targetUrl: `${server.url}/work`,
          http: { timeoutMs: 1000, client: 'socket' },
          preAllocatedVUs: 1,
          maxVUs: 1,
          scenarioPath: null,
          runId: 'k6-threads-control',
          idKey: 'k6-threads-control',
          maxBodyBytes: 65_536,
        },
        process.env,
      );
      try {
        expect(threads()).toBeGreaterThanOrEqual(before + 2);
      } finally {
        await native.close();
      }
    },
  );

  it('the factory says what k6 cannot do before it starts, in the words the stages record', () => {
    const steps = { startPerSec: 10, stepPerSec: 10, maxPerSec: 20, rampS: 1, holdS: 5 };
    const k6 = engineKind(parseConfigOrThrow({ engine: 'k6', target: { url: 'http://x/' }, steps }));
    expect(k6.capabilities).toEqual({
      warmup: false,
      preconnect: false,
      threadSizing: false,
      schedulerLag: false,
      liveStop: true,
    });
    expect(k6.whyNot.warmup).toMatch(/^skipped with engine k6/);
    expect(k6.whyNot.threadSizing).toBe('k6 schedules its own goroutines');
    const native = engineKind(parseConfigOrThrow({ target: { url: 'http://x/' }, steps }));
    expect(Object.values(native.capabilities).every(Boolean)).toBe(true);
    expect(native.planLines()).toEqual([]);
  });

  it.skipIf(!k6OnPath)('with the real k6 binary (skipped: k6 is not on PATH on this machine)', async () => {
    const r = await runQuietly({
      engine: 'k6',
      target: { url: `${server.url}/work` },
      steps: { startPerSec: 20, stepPerSec: 20, maxPerSec: 40, rampS: 1, holdS: 6 },
      rtt: { samples: 3 },
      output: { dir: runsDir, runId: 'real-k6' },
    });
    expect(r.exitCode, r.lines.join('')).toBe(0);
    expect(r.result.steps.every((s) => s.verdict === 'holds')).toBe(true);
  });
});
