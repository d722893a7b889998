/**
 * The reset stage: every configured hook in order, then the distribution probes' readings before
 * the run (harness/probes/distribution.ts), so the load meets restored data whose layout is on
 * record. The first hook that fails, a probe that cannot be read, or a SKEWED reading of a probe
 * that requires 'spread' ends the run before any load.
 */
import type { PlateauConfig } from '../config/schema.ts';
import { probesAt, readBefore, type KeepReading } from '../probes/distribution.ts';
import { runHook } from '../reset/hooks.ts';
import type { StageResult } from './stage.ts';

/** Whether the stage has anything to do: a hook, or a probe read before the run. */
export function resetsOrProbes(config: PlateauConfig): boolean {
  return config.reset.hooks.length > 0 || probesAt(config, 'before').length > 0;
}

export async function reset(
  config: PlateauConfig,
  env: NodeJS.ProcessEnv = process.env,
  keep: KeepReading = () => {},
): Promise<StageResult<void>> {
  const evidence: string[] = [];
  for (const [i, hook] of config.reset.hooks.entries()) evidence.push(await runHook(hook, config.target.url, env, i));
  const n = evidence.length;
  // the SQL hooks' row counts and the readings belong in the stage's one line: the report shows it
  const sql = evidence.filter((line) => line.startsWith('sql on '));
  const readings = await readBefore(config, env, keep);
  evidence.push(...readings);
  const head =
    n > 0
      ? `${n} hook${n > 1 ? 's' : ''} restored the standard state`
      : 'no reset hook configured: the target keeps what earlier runs left';
  return { value: undefined, detail: [head, ...sql, ...readings].join('; '), evidence };
}
