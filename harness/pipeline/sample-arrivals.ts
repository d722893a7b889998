/**
 * Preflight's sample arrivals: one of each mix entry, sent before any load, so a scenario that
 * cannot succeed once (a wrong secret, a check that rejects the target's answer, a transaction
 * whose second request 404s) fails with the entry, the request and the answer, not after a
 * thousand failed requests. Each sample has ids of its own and, for a unique data source, a row
 * the load never uses (context.ts), each try another. A sample the target failed (a 5xx, a reset)
 * is tried again: an entry is refused only when none of its tries succeeded, the target's failure
 * told from the scenario's, each with its fix (sample-blame.ts).
 */
import type { PlateauConfig } from '../config/schema.ts';
import type { ScenarioRequests } from '../scenario/requests.ts';
import type { EntryRun } from '../scenario/arrivals.ts';
import type { Row } from '../scenario/types.ts';
import type { RowRead } from '../scenario/row-names.ts';
import { PlateauError, EXIT } from '../errors.ts';
import { NAME_FIX } from '../scenario/names.ts';
import { MAX_TRIES, scenarioStep, TargetFailure } from './sample-blame.ts';
import { sampleArrival } from './sample-arrival.ts';
import { builtName, refuseNameFromRow } from './sample-names.ts';

/** Runs every entry's sample arrivals; resolves to each transaction's longest (ms, think time included). */
export async function sampleArrivals(
  config: PlateauConfig,
  s: ScenarioRequests,
  evidence: string[],
): Promise<Map<string, number>> {
  const entries = s.traffic.entries;
  const lasted = new Map<string, number>();
  let second = entries.length;
  for (let i = 0; i < entries.length; i++) {
    const first = await tried(config, s, i, i, 0);
    const { run } = first;
    evidence.push(
      (entries.length === 1 && run.kind === 'request'
        ? `sample request ${first.sent[0]} answered ${first.sent[1]}`
        : `sample arrival of "${run.name}": ${first.sent.join(' ')}`) + triesNote(first.failures),
    );
    if (run.kind !== 'transaction') continue;
    // a second arrival of the transaction, of another number, ids and rows: names its run builds from
    // data (an id of an answer, ctx.pick, ctx.uniqueId) come out otherwise, and would fill the run's names
    const again = await tried(config, s, i, second++, SECOND_SAMPLE_SEQ);
    refuseNameFromRow(run.name, [first.names, again.names], [first.reads, again.reads], s);
    const built = builtName(first.names, again.names);
    if (built) {
      throw new PlateauError(
        `transaction "${run.name}" named a request "${built[0]}" in one sample arrival and "${built[1]}" in the next, from the same code: the name is built from data`,
        NAME_FIX,
        'scenario-failed',
        EXIT.preflight,
      );
    }
    evidence.push(`second sample arrival of "${run.name}": ${again.sent.join(' ')}${triesNote(again.failures)}`);
    lasted.set(run.name, Math.max(first.ms, again.ms));
  }
  return lasted;
}

/** One sample arrival that succeeded: what it sent and got, its request names in order, the rows it read, and the tries the target failed before it. */
interface Sampled {
  run: EntryRun;
  sent: string[];
  names: string[];
  reads: RowRead[];
  failures: TargetFailure[];
  /** How long the arrival that succeeded took, ms (think time included). */
  ms: number;
}

/** Pause between tries of a sample arrival the target failed. */
const RETRY_PAUSE_MS = 100;

/**
 * Entry i's sample arrival (sample number `sampleNo`, arrival number `seq`), tried again while the
 * target is what failed it (sample-blame.ts), at most MAX_TRIES times: each try has ids of its own
 * (its arrival number is the next) and a unique source's row of its own, since a try the target
 * failed may have used its row (data-rows.ts sampleRowSlot); other sources give each try the same
 * rows. A scenario's failure is refused at once: it fails every arrival.
 */
async function tried(
  config: PlateauConfig,
  s: ScenarioRequests,
  i: number,
  sampleNo: number,
  seq: number,
): Promise<Sampled> {
  const entry = s.traffic.entries[i].name;
  const failures: TargetFailure[] = [];
  for (;;) {
    // the rows each sample arrival reads, for names built from their text
    const reads: RowRead[] = [];
    const run = scenarioStep(`entry "${entry}"`, () =>
      s.sample(i, sampleNo, (source: string, row: Row) => reads.push({ source, row }), failures.length),
    );
    const names: string[] = [];
    try {
      const startMs = performance.now();
      const sent = await sampleArrival(config, s, run, seq + failures.length, names);
      return { run, sent, names, reads, failures, ms: performance.now() - startMs };
    } catch (err) {
      if (!(err instanceof TargetFailure)) throw afterTargetFailures(err, failures);
      failures.push(err);
      if (!err.retry || failures.length === MAX_TRIES) throw allTriesFailed(config, entry, failures);
      await new Promise((r) => setTimeout(r, RETRY_PAUSE_MS));
    }
  }
}

/**
 * A scenario's refusal on a later try keeps what the target failed before it: a try re-reads the
 * sample's rows of sources other than unique ones, so a create the target kept from a failed try
 * can answer the next with a 409, and the first failure is the one to see.
 */
function afterTargetFailures(err: unknown, failures: readonly TargetFailure[]): unknown {
  if (failures.length === 0 || !(err instanceof Error)) return err;
  const n = failures.length;
  err.message = `${err.message} (on try ${n + 1}: the target had failed ${n === 1 ? 'the first' : `the first ${n}`} (${failures.map((f) => f.short).join('; ')}), and each try reads the same rows as the first (a unique source's excepted), so what a failed try left on the target may explain this answer)`;
  return err;
}

/** The refusal of an entry the target failed on every try: how many, and the last try's failure. */
function allTriesFailed(config: PlateauConfig, entry: string, failures: readonly TargetFailure[]): TargetFailure {
  const last = failures[failures.length - 1];
  if (failures.length === 1) return last;
  const of = config.scenario ? `entry "${entry}"` : entry;
  return new TargetFailure(
    `the target failed all ${failures.length} sample arrivals of ${of}: the last, ${last.message}`,
    last.hint,
    last.short,
    false,
  );
}

/** What an arrival that succeeded after failed tries says of them: ' (the target failed 2 attempts before it: "checkout: confirm" got 500)'. */
function triesNote(failures: readonly TargetFailure[]): string {
  if (failures.length === 0) return '';
  const what = [...new Set(failures.map((f) => f.short))].join(', ');
  return ` (the target failed ${failures.length} attempt${failures.length > 1 ? 's' : ''} before it: ${what})`;
}

/** The second sample arrival's number: far from the first's 0, so ctx.pick and ctx.uniqueId differ (its rows follow its sample number). */
const SECOND_SAMPLE_SEQ = 7_919;
