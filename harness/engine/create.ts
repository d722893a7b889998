/**
 * Chooses the native engine's shape: worker threads (one execution segment each) when more than
 * one is asked for or the machine has the cores; the same thread otherwise.
 */
import path from 'node:path';
import type { PlateauConfig } from '../config/schema.ts';
import type { Plan } from '../plan.ts';
import { usableCpus } from '../cpu-quota.ts';
import { InThreadEngine, type LoadEngine } from './load-engine.ts';
import { VuPool } from './vu-pool.ts';
import { WorkerEngine } from './workers.ts';
import type { PreparedRequest, Outcome } from './http.ts';

/** 'auto' = one worker per CPU this process may use (the affinity mask, capped by a cgroup CPU quota). */
export function workerCount(setting: PlateauConfig['workers'], cpus: () => number = () => usableCpus().count): number {
  return setting === 'auto' ? cpus() : setting;
}

export async function createLoadEngine(o: {
  config: PlateauConfig;
  plan: Plan;
  runId: string;
  build: (seq: number) => PreparedRequest;
  check: (o: Outcome) => string | null;
  /** The scenario's check reads response headers: the socket client keeps them only then. */
  keepHeaders: boolean;
  env: NodeJS.ProcessEnv;
}): Promise<LoadEngine> {
  const { config, plan } = o;
  const origin = new URL(config.target.url).origin;
  const count = workerCount(config.workers);
  const http = { ...config.http, keepHeaders: o.keepHeaders };
  if (count <= 1) {
    return new InThreadEngine(new VuPool(origin, http, plan.vus.preAllocatedVUs, plan.vus.maxVUs), o.build, o.check);
  }
  return WorkerEngine.create(count, {
    origin,
    targetUrl: config.target.url,
    http,
    preAllocatedVUs: plan.vus.preAllocatedVUs,
    maxVUs: plan.vus.maxVUs,
    scenarioPath: config.scenario ? path.resolve(config.scenario) : null,
    runId: o.runId,
  }, o.env);
}
