/**
 * The esbuild warnings that refuse a config or scenario: those where esbuild is certain the code
 * silently does something other than what it says. A mix that repeats an entry's name runs
 * the later entry alone with its weight (`read` 70 then `read` 10 is `read` 10), and nothing
 * would show it but a wrong mix; a repeated `case` never runs; `x === NaN` is never true.
 *
 * Not refused, and not printed (a scenario is loaded by the main thread and again by every engine
 * worker, and `--json` prints one document): esbuild's guesses (suspicious-*), what fails loudly
 * where it runs (class-name-will-throw; a `return` whose value is on the next line: the request is
 * refused as undefined, the check rejects), and `x === -0` (equals-negative-zero): true for 0 as well,
 * a difference only to code that must tell -0 from 0, and refusing it would refuse code that means
 * `=== 0`. To see every warning: `npx esbuild <file> --log-limit=0 >/dev/null`.
 */
import path from 'node:path';
import type * as esbuild from 'esbuild';
import type { PlateauError } from '../errors.ts';
import { where } from './esbuild-location.ts';

/** esbuild's id -> what follows its text in the refusal, and the fix. */
const REFUSED: Readonly<Record<string, { effect?: string; fix: string }>> = {
  'duplicate-object-key': {
    effect: 'only the last one counts',
    fix: 'remove or rename one of the two (a mix needs a name of its own for each entry)',
  },
  'duplicate-class-member': { effect: 'only the last one counts', fix: 'remove or rename one of the two' },
  'duplicate-case': { fix: 'remove the later case, or give it the value meant' },
  'equals-nan': { fix: 'test for NaN with Number.isNaN(x)' },
  'equals-new-object': {
    fix: "compare the object's contents (for an empty array: Array.isArray(x) && x.length === 0)",
  },
  'impossible-typeof': {
    fix: 'compare typeof with one of "string", "number", "bigint", "boolean", "symbol", "undefined", "object", "function"',
  },
};

/** What a refusal is raised as: the kind's error for "<kind> <abs> <cause>" with its fix. */
export type RefusalError = (abs: string, cause: string, fix: string) => PlateauError;

/**
 * The refusal of the file `abs` for the warnings of its build, each with its file, line:column and
 * fix; null when none is refused. `workingDir` is the build's (warnings' files are relative to it).
 */
export function refusedWarnings(
  warnings: readonly esbuild.Message[],
  abs: string,
  workingDir: string,
  error: RefusalError,
): PlateauError | null {
  const problems = warnings.filter((w) => Object.hasOwn(REFUSED, w.id)).map((w) => problemOf(w, abs, workingDir));
  if (problems.length === 0) return null;
  if (problems.length === 1) return error(abs, `is refused: ${problems[0]!.text}`, problems[0]!.fix);
  return error(
    abs,
    `is refused, ${problems.length} problems:\n${problems.map((p) => `  - ${p.text}: ${p.fix}`).join('\n')}`,
    'fix each of them at its line',
  );
}

function problemOf(w: esbuild.Message, abs: string, workingDir: string): { text: string; fix: string } {
  const rule = REFUSED[w.id]!;
  const at = w.location ? `${where(w.location, abs, workingDir)}: ` : '';
  // the note's place, as "line 3:14" when it is in the warning's file (always so, for these ids)
  const first = w.notes[0]?.location;
  const beside = w.location ? path.resolve(workingDir, w.location.file) : abs;
  const firstAt = first ? ` (the first at ${where(first, beside, workingDir)})` : '';
  const text = `${at}${w.text}${firstAt}${rule.effect ? `; ${rule.effect}` : ''}`;
  return { text, fix: rule.fix };
}
