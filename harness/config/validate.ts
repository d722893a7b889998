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
import { NO_FLAGS, type Given } from './given.ts';

export type { Problem } from './messages.ts';
export { settleSOf } from './cross-field.ts';

/** `given`: the fields the CLI's flags set (none by default): their problems are said in the flags' words. */
export function validateConfig(
  raw: unknown,
  given: Given = NO_FLAGS,
): { config: PlateauConfig; problems: [] } | { config: null; problems: Problem[] } {
  // Issues without a message of their own in the schema are worded by messages.ts, never by zod.
  const parsed = configSchema.safeParse(raw, { error: () => NO_MESSAGE });
  if (parsed.success) {
    const problems = [...targetSpaceProblems(raw), ...crossFieldProblems(parsed.data, new Set(), given)];
    return problems.length ? { config: null, problems } : { config: parsed.data, problems: [] };
  }
  const issues = parsed.error.issues;
  const failed = new Set(issues.filter((i) => i.code !== 'unrecognized_keys').map((i) => fieldName(i.path)));
  const problems = [
    ...issues.flatMap((i) => problemsOf(i, configSchema, raw, given)),
    ...targetSpaceProblems(raw),
    ...crossFieldProblems((validParts(configSchema, raw) ?? {}) as ConfigParts, failed, given),
  ];
  return { config: null, problems };
}

/**
 * One problem's line: the message alone where it begins with the flag that set its field; else the
 * field, with the flag that set it where a rule does not speak of flags (the user typed the flag,
 * not the field), then the message.
 */
function problemLine(p: Problem, given: Given): string {
  if (p.flag) return `  - ${p.message}`;
  const flag = given.flag(p.field);
  return `  - ${flag ? `${flag} (${p.field})` : p.field}: ${p.message}`;
}

/**
 * The config, or a PlateauError listing every problem. `file`: the config file the fields are in
 * (plateau.config.ts by default); `given`: the fields the flags set. The fix names where the user
 * sets what is named above, the flags, the file's fields or both, unless `fix` words it.
 */
export function parseConfigOrThrow(
  raw: unknown,
  o: { file?: string; given?: Given; fix?: string } = {},
): PlateauConfig {
  const given = o.given ?? NO_FLAGS;
  const file = o.file ?? 'plateau.config.ts';
  const r = validateConfig(raw, given);
  if (r.config) return r.config;
  const lines = r.problems.map((p) => problemLine(p, given)).join('\n');
  const byFlag = r.problems.filter((p) => p.flag ?? given.flag(p.field)).length;
  const fix =
    o.fix ??
    (byFlag === r.problems.length
      ? 'fix the flags named above (--help lists them)'
      : byFlag > 0
        ? `fix the flags named above, and the fields in ${file}`
        : `fix the fields named above in ${file} or the matching CLI flags (--help)`);
  throw new PlateauError(
    `the configuration has ${r.problems.length} problem${r.problems.length > 1 ? 's' : ''}:\n${lines}`,
    fix,
    'config-invalid',
    EXIT.usage,
  );
}
