/**
 * A run's name and the key of the ids it sends, from a time and a random source given as
 * arguments: pure, so that plateau (environment.ts runIds, node:crypto) and a k6 script written
 * for the user (k6/runtime/ids.ts, when k6 starts) derive them alike.
 */

/** A run's name, and the key of the ids it sends (ctx.uniqueId's 'seq' format: `${ids.prefix}${idKey}-${seq}`). */
export interface RunIds {
  runId: string;
  idKey: string;
}

/** A random whole number in [0, below). */
export type RandomBelow = (below: number) => number;

/** A fresh run id: UTC timestamp plus 4 random hex digits, e.g. 20261129-172233-a1f3 (20 characters). */
export function runIdAt(now: Date, random: RandomBelow): string {
  const iso = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${iso}-${random(0x10000).toString(16).padStart(4, '0')}`;
}

/**
 * The run id (the one given, or a fresh one) and its id key, which no other run shares whatever
 * its run id: a generated run id is its own key (its second and random part are the run's); a
 * given one may be given again (a CI job's fixed --run-id with a fresh runs directory, another
 * machine), so its key adds the start second and 4 random characters, in base 36:
 * `nightly` -> `nightly-t5a3kx0q7c` (11 characters more, a dash and 10: the second takes 6 until 2038-12, then 7).
 */
export function runIdsAt(given: string | undefined, now: Date, random: RandomBelow): RunIds {
  if (given === undefined) {
    const runId = runIdAt(now, random);
    return { runId, idKey: runId };
  }
  const second = Math.floor(now.getTime() / 1000).toString(36);
  return {
    runId: given,
    idKey: `${given}-${second}${random(36 ** 4)
      .toString(36)
      .padStart(4, '0')}`,
  };
}
