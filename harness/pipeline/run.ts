/**
 * The pipeline: preflight -> reset -> rtt -> warmup -> threads -> steps -> report, in the order of
 * analysis STAGE_NAMES, which `plateau plan` lists (test/pipeline.test.ts holds the two alike).
 * Each stage is recorded in run.json with its outcome, evidence and duration; a failing stage ends
 * the run, and the report is written in every case (failed, interrupted or complete).
 */
import path from 'node:path';
import type { RunResult } from '../../analysis/types.ts';
import type { PlateauConfig } from '../config/schema.ts';
import { buildPlan, vusGiven } from '../../analysis/plan.ts';
import { sampledArrivalMs } from '../../analysis/arrival-time.ts';
import { rateUnitOf, unitOf } from '../../analysis/format.ts';
import { Schedule } from '../../analysis/schedule.ts';
import { createLoadEngine, engineKind } from '../engine/create.ts';
import { whyNot, type LoadEngine } from '../engine/load-engine.ts';
import { scenarioRequests, type ScenarioRequests } from '../scenario/requests.ts';
import { scenarioDigest } from '../scenario/digest.ts';
import { randomDrawsOf, trafficSummary } from '../scenario/traffic.ts';
import { isWriteFailure, RunStore, redact, storedPlan } from '../store/run-store.ts';
import { secretScrubber, secretsHeldIn } from '../secret-scrub.ts';
import { DurationCap } from '../limits.ts';
import { Progress, type ProgressOut } from '../progress.ts';
import { environment, runIds } from '../environment.ts';
import { analyzeStore, writeReports } from '../report.ts';
import { PlateauError, EXIT } from '../errors.ts';
import type { RunContext } from './context.ts';
import type { Interrupt } from './interrupt.ts';
import { realClock, type Clock } from '../clock.ts';
import { runStage, skippedStage } from './stage.ts';
import { watchLateErrors } from './late-errors.ts';
import { guardExit } from './exit-guard.ts';
import { preflight } from './preflight.ts';
import { reset, resetsOrProbes } from './reset.ts';
import { keepIn, readAfter } from '../probes/distribution.ts';
import { measureRtt } from './rtt.ts';
import {
  maxArrivalsWithReruns,
  maxPlannedArrivals,
  warmup,
  warmupRuns,
  warmupScheduleS,
  type Warmed,
} from './warmup.ts';
import { keepAllReason, sizeThreads } from './threads.ts';
import { runSteps } from './steps.ts';
import { resizeVusFromWarmup } from './resize-vus.ts';
import { stageLineText } from '../../reports/cells.ts';

export interface RunOptions {
  config: PlateauConfig;
  interrupt: Interrupt;
  /** Time and timers of the run (default: the machine's clock). */
  clock?: Clock;
  out: ProgressOut;
  env?: NodeJS.ProcessEnv;
}

export interface RunOutput {
  dir: string;
  result: RunResult;
  exitCode: number;
  /** What ended the run, for the caller to print in full with its fix (a failed stage's line points to it). */
  error: PlateauError | null;
}

/**
 * The scenario's digest (digest.ts); undefined where it cannot be read (a data file removed since
 * it was loaded): the runs it is compared with then read it as unknown, and the run goes on.
 */
async function digestOrUnknown(abs: string, data: ScenarioRequests['data']): Promise<string | undefined> {
  try {
    return await scenarioDigest(abs, data);
  } catch {
    return undefined;
  }
}

/** A run id names the run's directory (and runs/latest): no scrubbing reaches a file's name, so one holding a secret is refused. */
function refuseSecretRunId(runId: string, declared: readonly string[], env: NodeJS.ProcessEnv): void {
  const held = secretsHeldIn(runId, declared, env);
  if (held.length === 0) return;
  throw new PlateauError(
    `--run-id (output.runId) holds the value of a secret of the environment (${held.join(', ')}): it would name the run's directory, which no scrubbing reaches`,
    'choose a run id that holds no secret (or leave it out for a fresh one)',
    'run-id-secret',
    EXIT.usage,
  );
}

export async function runPipeline(o: RunOptions): Promise<RunOutput> {
  const { config } = o;
  const env = o.env ?? process.env;
  const { runId, idKey } = runIds(config.output.runId);
  const requests = await scenarioRequests(
    config.scenario ? path.resolve(config.scenario) : null,
    config.target.url,
    runId,
    { env, idKey, maxBodyBytes: config.http.maxBodyBytes, transactionTimeoutMs: config.http.transactionTimeoutMs },
  );
  const { scenario } = requests;
  const digest = config.scenario ? await digestOrUnknown(path.resolve(config.scenario), requests.data) : undefined;
  const scrub = secretScrubber(scenario.secrets ?? [], env);
  refuseSecretRunId(runId, scenario.secrets ?? [], env);
  // the unit the live lines and the decision's reasons give rates in: arrivals/s for a transaction
  const rateUnit = rateUnitOf(trafficSummary(requests.traffic));
  const plan0 = engineKind(config).planForInstance(buildPlan(config, null, rateUnit));
  const store = RunStore.create(
    config.output.dir,
    {
      schemaVersion: 2,
      runId,
      idKey,
      status: 'running',
      startedAt: new Date().toISOString(),
      finishedAt: null,
      target: config.target.url,
      engine: config.engine,
      scenario: scenario.name ?? config.scenario ?? 'default',
      ...(digest !== undefined ? { scenarioDigest: digest } : {}),
      traffic: { ...trafficSummary(requests.traffic), ...randomDrawsOf(requests.data, runId) },
      config: redact(config),
      plan: storedPlan(plan0),
      vus: plan0.vus,
      rtt: null,
      stages: [],
      interruptedAtStep: null,
      environment: environment(config.engine),
    },
    scrub,
  );
  // a signal's message names the run's own directory (output.dir may be anywhere)
  o.interrupt.runDir = store.dir;
  const progress = new Progress({ write: (s) => o.out.write(scrub(s)), isTTY: o.out.isTTY });
  const clock = o.clock ?? realClock;
  const cap = new DurationCap(config.limits.maxDurationS, o.interrupt, (line) => progress.info(line), clock);
  progress.info(
    `plateau run ${runId}: ${config.target.url}, steps ${plan0.steps.map((s) => s.ratePerSec).join(', ')} ${rateUnit}; store ${store.dir}`,
  );
  const ctx: RunContext = {
    runId,
    idKey,
    config,
    plan: plan0,
    scenario,
    requests,
    store,
    progress,
    interrupt: o.interrupt,
    clock,
    loadCap: cap,
  };
  let error: PlateauError | null = null;
  // an append the directory refused mid-run stops the load; the run ends as that (below)
  store.onWriteFailure = () => o.interrupt.trigger();
  // set as soon as the engine exists, so a stage that throws still closes its threads
  const engine: { current: LoadEngine | null } = { current: null };
  const scrubbed = (e: PlateauError) => {
    e.message = scrub(e.message);
    if (e.stack) e.stack = scrub(e.stack);
    return e;
  };
  // what the scenario's code leaves unhandled while no engine listens is said; plateau's own stops the run
  const releaseExit = guardExit(store.dir);
  const late = watchLateErrors(
    (line) => progress.info(line),
    () => o.interrupt.trigger(),
  );
  try {
    await stages(ctx, env, cap, engine);
  } catch (err) {
    // A bug (any other error) still ends as a failed run with its data and its report; the store's
    // own files refusing a write mid-run (a full disk) is said as that, not as a bug
    error = scrubbed(
      err instanceof PlateauError
        ? err
        : inRunDir(err, store.dir)
          ? unwritableRunDir(store.dir, err)
          : internalError(err),
    );
  } finally {
    // from here a signal stops nothing: the status and the exit code are the run's as it ended
    o.interrupt.loadEnded = true;
    cap.end();
    await engine.current?.close();
    if (late.fault) error ??= scrubbed(asRunError(late.fault.err));
    if (store.writeFailure !== null) error ??= unwritableRunDir(store.dir, store.writeFailure);
    try {
      store.update({
        status: error ? 'failed' : o.interrupt.interrupted ? 'interrupted' : 'complete',
        finishedAt: new Date().toISOString(),
        // the cap, not a signal: the report says which stopped it
        ...(cap.reached ? { durationCapS: config.limits.maxDurationS } : {}),
      });
    } catch (err) {
      // the run directory cannot be written any more (a full disk, a mount gone read-only): said as
      // that, with the fix, not as a bug that hides the run's own end
      if (!isWriteFailure(err)) throw err;
      error ??= unwritableRunDir(store.dir, err);
    } finally {
      store.close();
    }
  }
  let result: RunResult;
  try {
    result = await writeReports(store.dir);
  } catch (err) {
    if (!isWriteFailure(err)) throw err;
    error ??= unwritableRunDir(store.dir, err);
    // what the store holds, judged for the table the CLI prints; no file of it could be written (a
    // store that cannot be read either ends here with the run's own error, said by the CLI)
    try {
      result = analyzeStore(store.dir).result;
    } catch {
      throw error;
    }
  } finally {
    late.release();
    releaseExit();
  }
  // plateau's own exception while the reports were written: the run's status stands, the exit says it
  if (late.fault) error ??= scrubbed(asRunError(late.fault.err));
  const exitCode = error ? error.exitCode : o.interrupt.interrupted ? EXIT.interrupted : EXIT.ok;
  return { dir: store.dir, result, exitCode, error };
}

/** A write failure of a file of the run directory's own (its path inside it). */
function inRunDir(err: unknown, dir: string): boolean {
  const file = (err as NodeJS.ErrnoException)?.path;
  return isWriteFailure(err) && typeof file === 'string' && path.resolve(file).startsWith(path.resolve(dir));
}

/** The run directory stopped taking writes during the run. */
function unwritableRunDir(dir: string, err: unknown): PlateauError {
  return new PlateauError(
    `the run directory ${dir} cannot be written any more (${(err as Error).message}): the run's end and its reports could not be stored; what it stored before is there, its run.json may still say running`,
    `make ${dir} writable again (free space, permissions, the mount), then rebuild the reports from what it stored with \`plateau report ${dir}\``,
    'run-dir-unwritable',
    EXIT.stage,
  );
}

/** A fault the run stopped for: a PlateauError as it is (thrown-by.ts faultError), anything else plateau's bug. */
const asRunError = (err: unknown) => (err instanceof PlateauError ? err : internalError(err));

/** An error plateau did not expect, as a PlateauError that keeps its stack (printed by the CLI). */
export function internalError(err: unknown): PlateauError {
  const e = err instanceof Error ? err : new Error(String(err));
  const out = new PlateauError(
    `internal error (a bug, please report it): ${e.message}`,
    "the run's data and report are kept in its directory; report the bug with the stack printed below",
    'internal',
    EXIT.bug,
  );
  out.stack = e.stack;
  return out;
}

async function stages(
  ctx: RunContext,
  env: NodeJS.ProcessEnv,
  cap: DurationCap,
  engine: { current: LoadEngine | null },
): Promise<void> {
  const { config, store } = ctx;
  const kind = engineKind(config);
  const record = (s: Parameters<RunStore['addStage']>[0]) => {
    store.addStage(s);
    ctx.progress.info(stageLineText(s));
  };
  const maxSeq = maxPlannedArrivals(config, ctx.plan);
  const lasted = await runStage('preflight', record, () =>
    kind.preflight(env, () =>
      preflight({
        config,
        scenario: ctx.scenario,
        requests: ctx.requests,
        idKey: ctx.idKey,
        maxSeq,
        maxRows: maxArrivalsWithReruns(config, ctx.plan),
        maxVUs: ctx.plan.vus.maxVUs,
        durationS: ctx.plan.durationS + (warmupRuns(config) ? config.warmup.maxS : 0),
        env,
      }),
    ),
  );
  if (resetsOrProbes(config)) await runStage('reset', record, () => reset(config, env, keepIn(store)));
  else record(skippedStage('reset', 'no reset hook configured: the target keeps what earlier runs left'));
  if (ctx.interrupt.interrupted) return;
  const rttPath = config.target.rttPath ?? config.target.healthPath;
  const rtt = await runStage('rtt', record, () =>
    measureRtt(new URL(config.target.url).origin, rttPath, config.rtt.samples),
  );
  // a transaction's own time, as its sample arrivals took it, where longer than the plan's (arrival-time.ts)
  const sampled = sampledArrivalMs(
    store.meta.traffic?.entries ?? [],
    lasted,
    config.vus.expectedServiceMs + (rtt.httpMedianMs ?? 0),
  );
  ctx.sampledArrivalMs = sampled ?? undefined;
  ctx.plan = kind.planForInstance(buildPlan(config, rtt.httpMedianMs, unitOf(ctx.plan.rules), ctx.sampledArrivalMs));
  const given = vusGiven(config.vus);
  store.update({
    rtt,
    plan: storedPlan(ctx.plan),
    vus: ctx.plan.vus,
    // as resize-vus.ts records it after a warmup, which may replace it
    ...(sampled !== null && store.meta.traffic && given !== 'both'
      ? {
          traffic: {
            ...store.meta.traffic,
            sizedFrom: 'samples' as const,
            ...(given === 'max' || given === 'preAllocated' ? { vusGiven: given } : {}),
          },
        }
      : {}),
  });
  ctx.progress.info(
    `VUs: ${ctx.plan.vus.preAllocatedVUs} preallocated, max ${ctx.plan.vus.maxVUs} (${ctx.plan.vus.reason})`,
  );
  const pool = await createLoadEngine({
    config,
    plan: ctx.plan,
    runId: ctx.runId,
    idKey: ctx.idKey,
    arrivals: ctx.requests.arrivals,
    env,
    scenario: ctx.scenario,
    store,
    note: (line) => ctx.progress.info(line),
  }).catch((err: unknown) => {
    // threads that cannot start (a data file gone since preflight read it): the report says so as
    // the threads' failure, not as steps that produced no data
    const e = err as Error;
    const fix = err instanceof PlateauError ? [`fix: ${err.hint}`] : [];
    record({
      name: 'threads',
      status: 'fail',
      durationMs: 0,
      detail: `the engine could not start: ${e.message}`,
      evidence: fix,
    });
    throw err;
  });
  engine.current = pool;
  // The report says how the generator was shaped (threads, HTTP client), not only which engine it was.
  const nameEngine = () => {
    ctx.progress.info(`engine: ${pool.label}`);
    store.update({ environment: { ...store.meta.environment, engine: pool.label } });
  };
  nameEngine();
  let seqOffset = 0;
  let warmed: Warmed | null = null;
  const warm = config.warmup.enabled && pool.capabilities.warmup;
  // Cold connects would land in the first seconds' tail and drops (an open model's cold start):
  // over TLS each costs the generator about 2 ms, so a VU pool growing to cover them can starve it
  // (docs/decisions/015). Before the warmup and again before the first step (for the VUs whose
  // connection the warmup lost).
  if (warm && pool.capabilities.preconnect && !ctx.interrupt.interrupted) await preconnect(ctx, pool, 'the warmup');
  if (!config.warmup.enabled)
    record(skippedStage('warmup', 'disabled (--no-warmup, or warmup.enabled: false in the config)'));
  else if (!pool.capabilities.warmup) record(skippedStage('warmup', whyNot(pool, 'warmup')));
  else if (!ctx.interrupt.interrupted) {
    // limits.maxDurationS counts the warmup's load, its whole schedule at most
    const warmupT0Ms = ctx.clock.now();
    cap.start(warmupT0Ms, warmupT0Ms + warmupScheduleS(config) * 1000);
    warmed = await runStage('warmup', record, () => warmup(ctx, pool));
    cap.end();
    seqOffset = warmed.lastSeq;
    resizeVusFromWarmup(ctx, pool, warmed);
  }
  if (ctx.interrupt.interrupted) return;
  const keepAll = keepAllReason(ctx, pool, warmed && { stable: warmed.verdict.stable });
  if (keepAll) record(skippedStage('threads', keepAll));
  else {
    const before = pool.instances;
    await runStage('threads', record, () => sizeThreads(ctx, pool, warmed!.records));
    if (pool.instances !== before) nameEngine();
  }
  if (pool.capabilities.preconnect) await preconnect(ctx, pool, 'the first step');
  const steps = await runStage('steps', record, () =>
    runSteps(ctx, pool, seqOffset, rtt.httpMinMs, warmed?.record ?? null),
  );
  store.update({ interruptedAtStep: steps.interruptedAtStep });
  for (const line of await readAfter(config, env, keepIn(store))) ctx.progress.info(line);
}

async function preconnect(ctx: RunContext, pool: LoadEngine, before: string): Promise<void> {
  const c = await pool.preconnect();
  ctx.progress.info(
    `connections: ${c.ready} open for the ${c.ready + c.failed} VUs allocated (${ctx.plan.vus.preAllocatedVUs} preallocated) before ${before}${c.failed ? ` (${c.failed} connects failed; those VUs connect on first use)` : ''}`,
  );
}
