/**
 * A stage is a function of the run context that returns evidence; this wrapper times it and turns
 * it into a StageOutcome (pass, interrupted, or fail with the PlateauError's message).
 */
import type { StageOutcome } from '../../analysis/types.ts';
import { realClock, type Clock } from '../clock.ts';
import { PlateauError } from '../errors.ts';

export interface StageResult<T> {
  value: T;
  detail: string;
  evidence: string[];
  threads?: StageOutcome['threads'];
  warmup?: StageOutcome['warmup'];
  /** The run was interrupted during the stage: recorded as interrupted, not pass. */
  interrupted?: boolean;
}

export async function runStage<T>(
  name: StageOutcome['name'],
  record: (o: StageOutcome) => void,
  body: () => Promise<StageResult<T>>,
  /** Times the stage (default: the machine's clock; the run's clock in simulated time). */
  clock: Clock = realClock,
): Promise<T> {
  const t0 = clock.now();
  try {
    const r = await body();
    record({
      name,
      status: r.interrupted ? 'interrupted' : 'pass',
      durationMs: Math.round(clock.now() - t0),
      detail: r.detail,
      evidence: r.evidence,
      ...(r.threads ? { threads: r.threads } : {}),
      ...(r.warmup ? { warmup: r.warmup } : {}),
    });
    return r.value;
  } catch (err) {
    const e = err as Error;
    const evidence = err instanceof PlateauError ? [`fix: ${err.hint}`] : [];
    record({ name, status: 'fail', durationMs: Math.round(clock.now() - t0), detail: e.message, evidence });
    throw err;
  }
}

export function skippedStage(name: StageOutcome['name'], detail: string): StageOutcome {
  return { name, status: 'skipped', durationMs: 0, detail, evidence: [] };
}
