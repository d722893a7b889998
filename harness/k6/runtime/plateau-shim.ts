/**
 * What a scenario module imports from 'plateau' when bundled for k6: only defineScenario (the
 * real package entry pulls in the Node harness, which k6 cannot run).
 */
import type { Scenario } from '../../scenario/types.ts';

export function defineScenario(s: Scenario): Scenario {
  return s;
}
