/**
 * The threads stage: with `workers: auto` and a target on this machine, the steps run on as few
 * engine threads as the warmup's measured cost says the plan's top rate needs; every thread the
 * generator does not take is CPU the target gets (docs/decisions/022). Elsewhere all threads run.
 */
import { onThisMachine } from '../../analysis/machine.ts';
import type { BucketRecord } from '../../analysis/types.ts';
import { threadsForPlan } from '../../analysis/thread-sizing.ts';
import { unitOf } from '../../analysis/format.ts';
import { whyNot, type LoadEngine } from '../engine/load-engine.ts';
import { machineAddresses } from '../environment.ts';
import type { RunContext } from './context.ts';
import type { StageResult } from './stage.ts';

/** Threads are sized for this share of verdicts.generatorBusyMax: the estimate's margin. */
export const SIZING_SHARE_OF_BUSY_MAX = 2 / 3;

/** Why the threads stay as they are, or null when the warmup's cost decides. `addresses`: this machine's own (environment.ts). */
export function keepAllReason(
  ctx: Pick<RunContext, 'config'>,
  engine: Pick<LoadEngine, 'instances' | 'capabilities' | 'whyNot'>,
  warm: { stable: boolean } | null,
  addresses: readonly string[] = machineAddresses(),
): string | null {
  const { config } = ctx;
  const all = `all ${engine.instances} threads run the steps`;
  if (!engine.capabilities.threadSizing) return whyNot(engine, 'threadSizing');
  if (engine.instances <= 1) return 'the engine runs on one thread';
  if (config.workers !== 'auto') return `workers set to ${config.workers} (config or --workers): ${all}`;
  if (!onThisMachine(config.target.url, addresses))
    return `the target is not on this machine, so the generator takes no CPU from it: ${all}`;
  if (!warm) return `no warmup measured what an arrival costs: ${all}`;
  if (!warm.stable) return `the warmup did not settle, so its cost is no guide: ${all}`;
  return null;
}

export async function sizeThreads(
  ctx: RunContext,
  engine: LoadEngine,
  warmRecords: readonly BucketRecord[],
): Promise<StageResult<void>> {
  const top = Math.max(...ctx.plan.steps.map((s) => s.ratePerSec));
  const bound = ctx.config.verdicts.generatorBusyMax * SIZING_SHARE_OF_BUSY_MAX;
  const before = engine.instances;
  const unit = unitOf(ctx.plan.rules);
  const sizing = threadsForPlan(warmRecords, before, top, bound, unit);
  if (sizing.threads < before) await engine.shrink(sizing.threads);
  const evidence = [
    `threads: ${engine.instances} of ${before}`,
    'workers: N in the config (or --workers N) sets the count instead',
  ];
  if (sizing.costUs !== null)
    evidence.unshift(
      `cost per arrival ${sizing.costUs.toFixed(1)} µs of thread time; one thread at ${Math.round(sizing.ratePerSec)} ${unit} would be ${Math.round(sizing.oneThreadBusy! * 100)}% busy; bound ${Math.round(bound * 100)}% (verdicts.generatorBusyMax x ${SIZING_SHARE_OF_BUSY_MAX.toFixed(2)})`,
    );
  return { value: undefined, detail: sizing.detail, evidence, threads: { kept: engine.instances, of: before } };
}
