/**
 * What every stage of one run shares: the config, the plan, the scenario as a request builder,
 * the VU pool, the store, the progress line and the interruption flag.
 */
import type { PlateauConfig } from '../config/schema.ts';
import type { Plan } from '../plan.ts';
import type { Scenario } from '../scenario/types.ts';
import type { RequestBuilder } from '../scenario/load.ts';
import type { Outcome } from '../engine/http.ts';
import type { RunStore } from '../store/run-store.ts';
import type { Progress } from '../progress.ts';
import type { Interrupt } from './interrupt.ts';

export interface RunContext {
  runId: string;
  config: PlateauConfig;
  plan: Plan;
  scenario: Scenario;
  build: RequestBuilder;
  check(o: Outcome): string | null;
  store: RunStore;
  progress: Progress;
  interrupt: Interrupt;
}
