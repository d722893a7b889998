/**
 * An import's refusals of its input before anything is judged: a --scenario that kept no
 * iteration of the file, and requests whose outcome the file does not say.
 */
import path from 'node:path';
import { fmtInt } from '../../../analysis/format.ts';
import { PlateauError, EXIT } from '../../errors.ts';
import type { IngestResult } from '../output/ingest.ts';
import type { ImportOptions } from './import-options.ts';

/** Refuses a --scenario that kept no iteration of the file, naming the scenarios it has. */
export function scenariosCheck(o: ImportOptions, ingest: IngestResult): void {
  const { scenarioIterations, otherScenarios, requestsCounted } = ingest.stats;
  if (!o.scenarios?.length || Object.keys(scenarioIterations).length > 0 || requestsCounted > 0) return;
  const has = otherScenarios.filter((n) => n !== '');
  throw new PlateauError(
    `--scenario ${o.scenarios.join(',')} matches no iteration of ${path.basename(o.file)}${has.length ? ` (its scenarios: ${has.join(', ')})` : ' (its iterations carry no scenario tag)'}`,
    has.length ? `give one of them: --scenario ${has[0]}` : 'drop --scenario: the whole file is one run',
    'k6-scenario-unknown',
    EXIT.usage,
  );
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
