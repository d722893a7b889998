/**
 * The k6 engine end to end: the generated script (snapshot, type-checked against @types/k6), an
 * imported run's plateau, and a live run whose k6 is a replay of a real k6 output (so the stream,
 * live judging and the graceful SIGINT stop are exercised without k6). Tests needing the real
 * binary run only when k6 is on PATH.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleK6Script } from '../harness/k6/engine/bundle.ts';
import { k6Options } from '../harness/k6/engine/options.ts';
import { findK6, requireK6 } from '../harness/k6/engine/binary.ts';
import { importK6 } from '../harness/k6/import/import.ts';
import { startK6, writeK6Script } from '../harness/k6/engine/process.ts';
import { createLoadEngine, engineKind } from '../harness/engine/create.ts';
import { WorkerEngine } from '../harness/engine/workers.ts';
import { Schedule } from '../analysis/schedule.ts';
import { defaultScenario } from '../harness/scenario/default.ts';
import { scenarioRequests } from '../harness/scenario/requests.ts';
import type { BucketRecord } from '../analysis/types.ts';
import { mergeRuns } from '../harness/merge.ts';
import { planShare, segmentLength } from '../harness/k6/engine/segment.ts';
import { planForInstance, rerunVusBound } from '../harness/engine/create.ts';
import { deriveSteps } from '../harness/k6/import/derive-steps.ts';
import { buildPlan } from '../analysis/plan.ts';
import { parseConfigOrThrow } from '../harness/config/validate.ts';
import { loadRun } from '../harness/store/run-store.ts';
import { PlateauError } from '../harness/errors.ts';
import { tinyServer } from './helpers/tiny-server.ts';
import { k6ScriptDiagnostics } from './helpers/k6-script-check.ts';
import { runQuietly, tempRunsDir } from './helpers/pipeline.ts';

const FIX = path.resolve('test/fixtures/k6');
const ECHOED_TOKEN = 'k6-echoed-token-7f3a91';
const k6OnPath = findK6() !== null;
const runsDir = tempRunsDir();
afterAll(() => fs.rmSync(runsDir, { recursive: true, force: true }));

async function demoScript(): Promise<string> {
  const config = parseConfigOrThrow({
    target: { url: 'http://127.0.0.1:8080/orders' },
    scenario: 'demo/scenario.ts',
    steps: { startPerSec: 50, stepPerSec: 50, maxPerSec: 150, rampS: 2, holdS: 8 },
    vus: { preAllocated: 10, max: 40 },
  });
  return bundleK6Script({
    scenarioPath: 'demo/scenario.ts',
    targetUrl: config.target.url,
    options: k6Options(buildPlan(config, null), 2),
    runtime: {
      runId: 'snapshot-run',
      idKey: 'snapshot-run',
      idPrefix: 'ord-',
      origin: 'http://127.0.0.1:8080',
      seqOffset: 0,
      timeoutMs: 10_000,
      requestName: 'create order',
      checkName: 'create order: check',
    },
  });
}

describe('the generated k6 script', () => {
  it("is kept as a snapshot (the data files' absolute paths written from <repo>)", async () => {
    const script = (await demoScript()).split(path.resolve('.')).join('<repo>');
    await expect(script).toMatchFileSnapshot('__snapshots__/k6-demo-script.js');
  });

  it("type-checks against @types/k6 (checkJs, the script's k6 side: the runtime and the entry)", async () => {
    expect(k6ScriptDiagnostics(await demoScript())).toEqual([]);
  });

  it('holds one ramping-arrival-rate scenario reproducing the plan, p(99.9), and no secret', async () => {
    const s = await demoScript();
    expect(s).toContain('"executor": "ramping-arrival-rate"');
    expect(s).toContain('"p(99.9)"');
    expect(s).toMatch(/^import .* from "k6\/http";$/m);
    expect(s).not.toMatch(/require\(|node:/);
    expect(s).toContain('__ENV[name]');
  });

  it('jumps where the plan jumps (rampS 0: a 0 s stage, since k6 ramps every stage from the previous target)', () => {
    const plan = buildPlan(
      parseConfigOrThrow({
        target: { url: 'http://x/' },
        steps: { startPerSec: 50, stepPerSec: 50, maxPerSec: 150, rampS: 0, holdS: 10 },
      }),
      null,
    );
    const o = k6Options(plan, 2).scenarios.plateau;
    expect(o.startRate).toBe(50);
    expect(o.stages).toEqual([
      { duration: '10s', target: 50 },
      { duration: '0s', target: 100 },
      { duration: '10s', target: 100 },
      { duration: '0s', target: 150 },
      { duration: '10s', target: 150 },
    ]);
    // with a ramp, no 0 s stage
    const ramped = buildPlan(
      parseConfigOrThrow({
        target: { url: 'http://x/' },
        steps: { startPerSec: 50, stepPerSec: 50, maxPerSec: 100, rampS: 2, holdS: 10 },
      }),
      null,
    );
    expect(k6Options(ramped, 2).scenarios.plateau.stages.some((st) => st.duration === '0s')).toBe(false);
  });

  it('writes a fractional rate per 1,000 s, since k6 reads whole arrivals per timeUnit', () => {
    const plan = buildPlan(
      parseConfigOrThrow({
        target: { url: 'http://x/' },
        steps: { startPerSec: 2.5, stepPerSec: 2.5, maxPerSec: 5, rampS: 2, holdS: 10 },
      }),
      null,
    );
    const o = k6Options(plan, 2).scenarios.plateau;
    expect(o.timeUnit).toBe('1000s');
    expect([o.startRate, ...o.stages.map((st) => st.target)].every(Number.isInteger)).toBe(true);
    expect(o.stages.at(-1)!.target).toBe(5000);
    expect(
      k6Options(
        buildPlan(
          parseConfigOrThrow({
            target: { url: 'http://x/' },
            steps: { startPerSec: 50, stepPerSec: 50, maxPerSec: 100, rampS: 2, holdS: 10 },
          }),
          null,
        ),
        2,
      ).scenarios.plateau.timeUnit,
    ).toBe('1s');
  });

  it("never follows a redirect (each hop would be a request of its own in k6's output)", async () => {
    expect(await demoScript()).toMatch(/redirects: 0/);
  });

  it('refuses a scenario importing Node APIs, naming the fix', async () => {
    const bad = path.join(runsDir, 'bad-scenario.ts');
    fs.writeFileSync(
      bad,
      "import { createHmac } from 'node:crypto';\nexport default { request: () => ({ url: '/' + createHmac('sha256', 'k').digest('hex') }) };\n",
    );
    await expect(
      bundleK6Script({
        scenarioPath: bad,
        targetUrl: 'http://x/',
        options: k6Options({ segments: [], vus: { preAllocatedVUs: 1, maxVUs: 1, reason: '' } }, 1),
        runtime: {
          runId: 'r',
          idKey: 'r',
          idPrefix: '',
          origin: 'http://x',
          seqOffset: 0,
          timeoutMs: 1,
          requestName: 'r',
          checkName: 'c',
        },
      }),
    ).rejects.toThrow(/k6 runs no Node APIs/);
  });
});

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
    const b = await importK6({ file: `${FIX}/stepped-queue.csv.gz`, outDir: runsDir, runId: 'qb', steps: {} });
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

  it('streams buckets while k6 writes, judges live and stops k6 with SIGINT after the knee', async () => {
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

  it.skipIf(!fs.existsSync('/proc/stat'))(
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

  it("a rerun gets its raised maxVUs, and under an execution segment the next leg's ids start after the whole striped leg", async () => {
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
  });

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
