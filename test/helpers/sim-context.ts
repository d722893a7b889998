/**
 * One simulated run's setup, shared by the tests that drive the real stages in simulated time: a
 * validated config, its plan, a simulated clock, a model target, a simulated engine over it, a
 * fresh run store and the RunContext the stages read (the prober reads the model's counters).
 */
import { requestArrivals } from '../../harness/scenario/arrivals.ts';
import type { ScenarioRequests } from '../../harness/scenario/requests.ts';
import { trafficOf } from '../../harness/scenario/traffic.ts';
import type { PlateauConfigInput } from '../../harness/config/schema.ts';
import { parseConfigOrThrow } from '../../harness/config/validate.ts';
import { SimClock } from '../../harness/clock.ts';
import { ModelTarget, type ModelTargetOptions } from '../../harness/engine/model-target.ts';
import { SimulatedEngine } from '../../harness/engine/simulated.ts';
import type { RunContext } from '../../harness/pipeline/context.ts';
import { Interrupt } from '../../harness/pipeline/interrupt.ts';
import { Progress } from '../../harness/progress.ts';
import { RunStore, storedPlan } from '../../harness/store/run-store.ts';
import { buildPlan } from '../../analysis/plan.ts';

/** The fastest round trip every simulated run reads (ms). */
/** The simulated engine sends nothing: the scenario is one GET entry, for the stages that read it. */
const simRequests: ScenarioRequests = (() => {
  const arrivals = requestArrivals(() => ({ method: 'GET', path: '/orders', headers: {}, body: null }));
  const scenario = { request: () => ({ method: 'GET', url: '/orders' }) };
  return { scenario, traffic: trafficOf(scenario), arrivals, data: {}, sample: () => arrivals.entries[0] };
})();

export const SIM_RTT_MS = 0.5;

export interface SimContextOptions {
  runsDir: string;
  runId: string;
  model: ModelTargetOptions;
  config: Partial<PlateauConfigInput>;
  /** VUs the engine starts with (default: the plan's sizing). */
  vus?: { preAllocated: number; max: number };
  /** Target seconds already lived before the run (the warmup's time). */
  targetAgeS?: number;
  /** Engine instances and thread time per arrival, for the threads stage. */
  instances?: number;
  costUsPerArrival?: number;
  /** run.json's startedAt (default: the epoch). */
  startedAtMs?: number;
  environment?: Record<string, string>;
}

export function simContext(o: SimContextOptions) {
  const config = parseConfigOrThrow({
    target: { url: 'http://model.test/orders' },
    workers: 1,
    output: { dir: o.runsDir, runId: o.runId },
    ...(o.vus ? { vus: o.vus } : {}),
    ...o.config,
  } as PlateauConfigInput);
  const plan = buildPlan(config, SIM_RTT_MS);
  const clock = new SimClock();
  const target = new ModelTarget(o.model, clock.now() - (o.targetAgeS ?? 0) * 1000);
  const engine = new SimulatedEngine({
    clock,
    target,
    preAllocatedVUs: plan.vus.preAllocatedVUs,
    maxVUs: plan.vus.maxVUs,
    instances: o.instances,
    costUsPerArrival: o.costUsPerArrival,
  });
  const store = RunStore.create(o.runsDir, {
    schemaVersion: 2,
    runId: o.runId,
    status: 'running',
    startedAt: new Date(o.startedAtMs ?? 0).toISOString(),
    finishedAt: null,
    target: config.target.url,
    engine: engine.label,
    scenario: 'model',
    config,
    vus: plan.vus,
    plan: storedPlan(plan),
    rtt: {
      connectMedianMs: SIM_RTT_MS,
      httpMedianMs: SIM_RTT_MS,
      httpP90Ms: SIM_RTT_MS,
      httpMinMs: SIM_RTT_MS,
      samples: 1,
    },
    stages: [],
    interruptedAtStep: null,
    environment: { engine: engine.label, ...o.environment },
  });
  const interrupt = new Interrupt();
  /** What the run printed (plain lines, as when stdout is not a TTY). */
  const lines: string[] = [];
  const ctx: RunContext = {
    runId: o.runId,
    idKey: o.runId,
    config,
    plan,
    scenario: { request: () => ({ method: 'GET', url: '/orders' }) },
    requests: simRequests,
    store,
    progress: new Progress({ write: (line) => void lines.push(line), isTTY: false }),
    interrupt,
    clock,
    readServer: async () => target.reading(clock.now()),
  };
  return { config, plan, clock, target, engine, store, interrupt, ctx, lines };
}
