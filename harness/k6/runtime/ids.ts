/**
 * The run's name and id key in a k6 script written for the user (plateau k6-script), derived when
 * k6 starts: k6 runs setup() once per test and gives its return value to every VU's default
 * function, so one key serves every VU, and each `k6 run` of the same script has its own (a key
 * written into the script would send the same ids on every run). Runs inside k6: no Node API.
 *   runId = __ENV.PLATEAU_RUN_ID, else the run id the script was written with (k6-script --run-id),
 *           else a fresh one;
 *   idKey = run-ids.ts runIdsAt at k6's start: a fresh run id is its own key, a given one gets the
 *           start second and 4 random characters, as `plateau run --run-id` does.
 * When plateau drives k6 (its k6 engine, k8s) the script holds plateau's own key and no setup().
 */
import { runIdsAt, type RunIds } from '../../run-ids.ts';
import type { IdsAtStart } from './config.ts';

/** The environment variable that names a k6 run of the script (its ids' key adds a part of the run's own). */
export const RUN_ID_ENV = 'PLATEAU_RUN_ID';

/** The longest 'seq' id of a run with this key: the one of the plan's last arrival. */
function longestId(prefix: string, idKey: string, maxSeq: number): string {
  return `${prefix}${idKey}-${maxSeq}`;
}

/** The ids of this k6 run; throws (k6 then stops before any load) where a given run id makes them longer than ids.maxLength. */
export function idsAtStart(
  at: IdsAtStart,
  idPrefix: string,
  env: Record<string, string | undefined>,
  now: Date = new Date(),
  random: (below: number) => number = (below) => Math.floor(Math.random() * below),
): RunIds {
  const fromEnv = env[RUN_ID_ENV];
  const given = fromEnv !== undefined && fromEnv !== '' ? fromEnv : at.runId;
  const ids = runIdsAt(given, now, random);
  const longest = longestId(idPrefix, ids.idKey, at.maxSeq);
  if (at.maxLength !== undefined && longest.length > at.maxLength) {
    const over = longest.length - at.maxLength;
    const who =
      given === undefined ? 'the generated run id' : given === fromEnv ? `${RUN_ID_ENV}=${given}` : `run id ${given}`;
    throw new Error(
      `${who} makes ids of ${longest.length} characters ("${longest}"); the scenario's ids.maxLength is ${at.maxLength}: ` +
        `give ${RUN_ID_ENV} a run id ${over} characters shorter (a given run id gets 11 characters more in the ids, so that they are its own)`,
    );
  }
  return ids;
}
