/**
 * The factory: the only place that knows which engine a config gets. engineKind(config) says what
 * that engine can do before it starts (limits, `plateau plan`, preflight, the plan each instance
 * runs); createLoadEngine makes it: k6 in its own process, or the native engine on worker
 * threads (one execution segment each) when more than one is asked for or the machine has the
 * cores, in this thread otherwise.
 */
import path from 'node:path';
import type { PlateauConfig } from '../config/schema.ts';
import type { Plan } from '../../analysis/plan.ts';
import type { Scenario } from '../scenario/types.ts';
import type { RunStore } from '../store/run-store.ts';
import { usableCpus } from '../cpu-quota.ts';
import { InThreadEngine, NATIVE_CAPABILITIES, vusBound, type EngineKind, type LoadEngine } from './load-engine.ts';
import { VuPool } from './vu-pool.ts';
import { WorkerEngine } from './workers.ts';
import type { Arrivals } from '../scenario/arrivals.ts';
import { K6Engine } from '../k6/engine/k6-engine.ts';
import { k6Kind } from '../k6/engine/kind.ts';

/** 'auto' = one worker per CPU this process may use (the affinity mask, capped by a cgroup CPU quota). */
export function workerCount(setting: PlateauConfig['workers'], cpus: () => number = () => usableCpus().count): number {
  return setting === 'auto' ? cpus() : setting;
}

/** The native engine runs the plan as built and has every capability. */
function nativeKind(config: PlateauConfig): EngineKind {
  return {
    capabilities: NATIVE_CAPABILITIES,
    whyNot: {},
    planForInstance: (plan) => plan,
    rerunVusBound: () => vusBound(config),
    planLines: () => [],
    preflight: (_env, base) => base(),
  };
}

/** What the engine of this config can do, before it starts. */
export function engineKind(config: PlateauConfig): EngineKind {
  return ENGINES[config.engine].kind(config);
}

/** The plan one instance of this config's engine runs. */
export function planForInstance(plan: Plan, config: PlateauConfig): Plan {
  return engineKind(config).planForInstance(plan);
}

/** The largest maxVUs a rerun of this config's engine may raise to. */
export function rerunVusBound(config: PlateauConfig): number {
  return engineKind(config).rerunVusBound();
}

export interface EngineInput {
  config: PlateauConfig;
  plan: Plan;
  runId: string;
  /** The key of the ids the run sends (environment.ts runIds): the worker threads' and k6's contexts build ids from it. */
  idKey: string;
  /** The scenario as the native engine runs it (arrivals.keepHeaders: the socket client keeps headers only then). */
  arrivals: Arrivals;
  env: NodeJS.ProcessEnv;
  /** The scenario (k6 bundles it into its script). */
  scenario: Scenario;
  /** The run's store: an engine with files of its own (k6) writes them under its dir, scrubs them with its scrubber and records its facts in run.json. */
  store: Pick<RunStore, 'dir' | 'meta' | 'update' | 'scrub'>;
  /** A progress line. */
  note(line: string): void;
}

export function createLoadEngine(o: EngineInput): Promise<LoadEngine> {
  return ENGINES[o.config.engine].create(o);
}

/** Every engine a config may name: the one table that maps the name to the engine. */
const ENGINES: Record<
  PlateauConfig['engine'],
  { kind(config: PlateauConfig): EngineKind; create(o: EngineInput): Promise<LoadEngine> }
> = {
  native: { kind: nativeKind, create: createNative },
  k6: {
    kind: k6Kind,
    create: async (o) =>
      new K6Engine({
        config: o.config,
        plan: o.plan,
        scenario: o.scenario,
        runId: o.runId,
        idKey: o.idKey,
        env: o.env,
        store: o.store,
        note: o.note,
      }),
  },
};

/** The native engine on worker threads when more than one is asked for or the machine has the cores, in this thread otherwise. */
async function createNative(o: EngineInput): Promise<LoadEngine> {
  const { config, plan } = o;
  const origin = new URL(config.target.url).origin;
  const count = workerCount(config.workers);
  const http = { ...config.http, keepHeaders: o.arrivals.keepHeaders };
  if (count <= 1) {
    return new InThreadEngine(
      new VuPool(origin, http, plan.vus.preAllocatedVUs, plan.vus.maxVUs),
      o.arrivals,
      config.http.client,
    );
  }
  return WorkerEngine.create(
    count,
    {
      origin,
      targetUrl: config.target.url,
      http,
      preAllocatedVUs: plan.vus.preAllocatedVUs,
      maxVUs: plan.vus.maxVUs,
      scenarioPath: config.scenario ? path.resolve(config.scenario) : null,
      runId: o.runId,
      idKey: o.idKey,
      maxBodyBytes: config.http.maxBodyBytes,
      transactionTimeoutMs: config.http.transactionTimeoutMs,
    },
    o.env,
    (line) => o.note(line),
  );
}
