/** The reset stage: every configured hook in order; the first that fails ends the run before load. */
import type { PlateauConfig } from '../config/schema.ts';
import { runHook } from '../reset/hooks.ts';
import type { StageResult } from './stage.ts';

export async function reset(config: PlateauConfig): Promise<StageResult<void>> {
  const evidence: string[] = [];
  for (const hook of config.reset.hooks) evidence.push(await runHook(hook, config.target.url));
  return {
    value: undefined,
    detail: `${evidence.length} hook${evidence.length > 1 ? 's' : ''} restored the standard state`,
    evidence,
  };
}
