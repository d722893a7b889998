/**
 * An import's refusals of its input before anything is judged: a --scenario that kept no
 * iteration of the file, and requests whose outcome the file does not say.
 */
import path from 'node:path';
import { fmtInt } from '../../../analysis/format.ts';
import { PlateauError, EXIT } from '../../errors.ts';
import type { IngestResult } from '../output/ingest.ts';
import type { ImportOptions } from './import-options.ts';
import { nearest } from '../../config/nearest.ts';
import { summedScenarios } from './scenarios-note.ts';

/**
 * Refuses a --scenario that kept no iteration of the file, naming the scenarios it has, most
 * iterations first, and in its fix the one the user most likely meant: a name near the one given
 * (a typo), else the one with the most iterations (the stepped one, beside a background's few:
 * scenariosNote's choice), which the import can judge.
 */
export function scenariosCheck(o: ImportOptions, ingest: IngestResult): void {
  const { scenarioIterations, otherScenarios, requestsCounted } = ingest.stats;
  if (!o.scenarios?.length || Object.keys(scenarioIterations).length > 0 || requestsCounted > 0) return;
  const has = summedScenarios(otherScenarios).filter((x) => x.name !== '');
  const list = has
    .map(({ name, iterations: k }, i) => `${name} (${fmtInt(k)}${i === 0 ? ` iteration${k === 1 ? '' : 's'}` : ''})`)
    .join(', ');
  throw new PlateauError(
    `--scenario ${o.scenarios.join(',')} matches no iteration of ${path.basename(o.file)}${has.length ? ` (its scenarios: ${list})` : ' (its iterations carry no scenario tag)'}`,
    has.length
      ? `give one of them: ${scenarioFix(
          o.scenarios,
          has.map((x) => x.name),
        )}`
      : 'drop --scenario: the whole file is one run',
    'k6-scenario-unknown',
    EXIT.usage,
  );
}

/** The --scenario to give: the name nearest one given, and the one with the most iterations (`names` is most first). */
function scenarioFix(given: readonly string[], names: readonly string[]): string {
  const most = names[0];
  if (names.length === 1) return `--scenario ${most}`;
  const typo = given.find((g) => nearest(g, names) !== undefined);
  const close = typo === undefined ? undefined : nearest(typo, names);
  if (close === undefined) return `--scenario ${most} (the most iterations)`;
  if (close === most) return `--scenario ${most} (the name nearest "${typo}", and the most iterations)`;
  return `--scenario ${close} (the name nearest "${typo}"), or --scenario ${most} (the most iterations)`;
}

/**
 * Refuses requests that carry neither `status` nor `expected_response`: counted, each would read
 * as failed (a run whose every request succeeded read 100% errors and failed its first step).
 */
export function outcomeCheck(o: ImportOptions, ingest: IngestResult): void {
  const { requestsWithoutOutcome: without, requestsCounted: all } = ingest.stats;
  if (without === 0) return;
  throw new PlateauError(
    `${fmtInt(without)} of the ${fmtInt(all)} http_reqs samples of ${path.basename(o.file)} carry neither a \`status\` nor an \`expected_response\` tag, so nothing tells a success from a failure (k6 run with --system-tags that left both out?)`,
    'rerun k6 with its default system tags, or with status and expected_response in --system-tags (e.g. --system-tags status,expected_response,method,name,scenario,url,error_code)',
    'k6-no-outcome',
    EXIT.usage,
  );
}
