/**
 * What every stage of one run shares: the config, the plan, the scenario as a request builder,
 * the VU pool, the store, the progress line, the interruption flag and the clock.
 */
import type { PlateauConfig } from '../config/schema.ts';
import type { Plan } from '../../analysis/plan.ts';
import type { Scenario } from '../scenario/types.ts';
import type { ScenarioRequests } from '../scenario/requests.ts';
import type { RunStore } from '../store/run-store.ts';
import type { Progress } from '../progress.ts';
import type { Interrupt } from './interrupt.ts';
import type { Clock } from '../clock.ts';
import type { ServerReader } from '../metrics/prober.ts';

export interface RunContext {
  runId: string;
  /** The key of the ids the run sends (environment.ts runIds). */
  idKey: string;
  config: PlateauConfig;
  plan: Plan;
  scenario: Scenario;
  /** The scenario as traffic: its entries, the native engine's arrivals, its data, preflight's samples. */
  requests: ScenarioRequests;
  store: RunStore;
  progress: Progress;
  interrupt: Interrupt;
  /** Time and timers of the run: the machine's (realClock), or simulated in tests. */
  clock: Clock;
  /** Preflight's sample arrivals' time per arrival, where it sized the VUs (arrival-time.ts sampledArrivalMs). */
  sampledArrivalMs?: number;
  /** The prober's readings from somewhere other than the target's metrics endpoint (a model target in tests). */
  readServer?: ServerReader;
  /** limits.maxDurationS's count of load (harness/limits.ts DurationCap): each leg of the steps starts and ends it. */
  loadCap?: LoadCap;
}

/** Counts the seconds load runs, from start() to end() at most to the scheduled end (clock ms), against limits.maxDurationS. */
export interface LoadCap {
  start(startMs: number, endMs: number): void;
  end(): void;
}
