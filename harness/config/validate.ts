/**
 * Turns raw config into a valid PlateauConfig or a list of every problem, each naming its field,
 * the rule and the fix (CONVENTIONS 7: five mistakes get five lines). The cross-field rules run on
 * whatever parsed, so a misspelt key does not hide "maxPerSec below startPerSec".
 */
import { PlateauError, EXIT } from '../errors.ts';
import { crossFieldProblems, targetSpaceProblems } from './cross-field.ts';
import { fieldName, NO_MESSAGE, problemsOf, type Problem } from './messages.ts';
import { configSchema, type PlateauConfig } from './schema.ts';
import { validParts, type ConfigParts } from './valid-parts.ts';

export type { Problem } from './messages.ts';
export { settleSOf } from './cross-field.ts';

export function validateConfig(
  raw: unknown,
): { config: PlateauConfig; problems: [] } | { config: null; problems: Problem[] } {
  // Issues without a message of their own in the schema are worded by messages.ts, never by zod.
  const parsed = configSchema.safeParse(raw, { error: () => NO_MESSAGE });
  if (parsed.success) {
    const problems = [...targetSpaceProblems(raw), ...crossFieldProblems(parsed.data)];
    return problems.length ? { config: null, problems } : { config: parsed.data, problems: [] };
  }
  const issues = parsed.error.issues;
  const failed = new Set(issues.filter((i) => i.code !== 'unrecognized_keys').map((i) => fieldName(i.path)));
  const problems = [
    ...issues.flatMap((i) => problemsOf(i, configSchema, raw)),
    ...targetSpaceProblems(raw),
    ...crossFieldProblems((validParts(configSchema, raw) ?? {}) as ConfigParts, failed),
  ];
  return { config: null, problems };
}

/**
 * The config, or a PlateauError listing every problem. `fix`: where the user sets those fields
 * (the config file they gave and the run's flags, by default plateau.config.ts's).
 */
export function parseConfigOrThrow(
  raw: unknown,
  fix = 'fix the fields named above in plateau.config.ts or the matching CLI flags (plateau run --help)',
): PlateauConfig {
  const r = validateConfig(raw);
  if (r.config) return r.config;
  const lines = r.problems.map((p) => `  - ${p.field}: ${p.message}`).join('\n');
  throw new PlateauError(
    `the configuration has ${r.problems.length} problem${r.problems.length > 1 ? 's' : ''}:\n${lines}`,
    fix,
    'config-invalid',
    EXIT.usage,
  );
}
