/**
 * The data-distribution probes around the load: each probe of `probes.distribution` is read
 * before the warmup (inside the reset stage, once the data is restored) and after the last step.
 * Every reading goes to run.json's `distribution[]` as it is taken; the analysis judges them
 * (analysis/distribution.ts). Before the run, a probe that cannot be read, or reads nothing (no
 * rows, only 0s), fails the stage (exit 3, no load sent), and a SKEWED reading of a probe with `require: 'spread'`
 * stops the run before any load; after the run, a probe that cannot be read is recorded with its
 * problem (the load's figures stand).
 */
import { judgeDistribution } from '../../analysis/distribution.ts';
import type { DistributionRecord, DistributionWhen } from '../../analysis/types.ts';
import { readingText } from '../../reports/text-distribution.ts';
import type { PlateauConfig } from '../config/schema.ts';
import { PlateauError, EXIT } from '../errors.ts';
import type { RunStore } from '../store/run-store.ts';
import { readMetricCounts } from './metric-source.ts';
import type { DistributionProbe } from './probes-schema.ts';
import { isBug } from '../reset/sql-hook.ts';
import { readSqlCounts } from './sql-source.ts';

/** Where a reading goes as soon as it is taken (run.json). */
export type KeepReading = (r: DistributionRecord) => void;

export function probesAt(config: Pick<PlateauConfig, 'probes'>, when: DistributionWhen): DistributionProbe[] {
  return (config.probes?.distribution ?? []).filter((p) => p.when.includes(when));
}

/** Appends each reading to run.json's distribution[]. */
export function keepIn(store: RunStore): KeepReading {
  return (r) => store.update({ distribution: [...(store.meta.distribution ?? []), r] });
}

/** One reading; a probe that cannot be read gives a record with its problem (a bug of plateau's still throws). */
export async function readProbe(
  p: DistributionProbe,
  when: DistributionWhen,
  env: NodeJS.ProcessEnv,
  targetUrl: string,
): Promise<DistributionRecord> {
  const who = `distribution probe ${JSON.stringify(p.name)}`;
  const base = {
    name: p.name,
    when,
    source: p.source,
    takenAt: new Date().toISOString(),
    ...(p.expectNodes !== undefined ? { expectNodes: p.expectNodes } : {}),
    maxSkew: p.maxSkew,
    ...(p.require ? { require: p.require } : {}),
  };
  try {
    const r = p.source === 'sql' ? await readSqlCounts(p, env, who) : await readMetricCounts(p, targetUrl, who);
    const nothing = countsNothing(p, r.counts);
    if (nothing) return { ...base, from: r.from, counts: r.counts, problem: nothing };
    return { ...base, from: r.from, counts: r.counts };
  } catch (err) {
    if (!(err instanceof PlateauError) || isBug(err)) throw err;
    const from = p.source === 'sql' ? `${p.driver}${p.urlEnv ? ` via $${p.urlEnv}` : ` ${p.database}`}` : (p.url ?? '');
    return { ...base, from, counts: {}, problem: `${err.message.replace(`${who}: `, '')} (fix: ${err.hint})` };
  }
}

/**
 * Why a reading that counts nothing (no rows, or only 0s) is no reading: it says which query or
 * filter matched nothing, not that one node holds everything (SKEWED) or the data is spread.
 */
function countsNothing(p: DistributionProbe, counts: Record<string, number>): string | null {
  const entries = Object.entries(counts);
  if (entries.some(([, c]) => c > 0)) return null;
  const what = entries.length
    ? `only counts of 0 (${entries.map(([n]) => `${n} 0`).join(', ')})`
    : p.source === 'sql'
      ? 'no rows'
      : `no sample of ${p.series}${p.labels ? ` with ${JSON.stringify(p.labels)}` : ''}`;
  const fix =
    p.source === 'sql'
      ? "run the query by hand against the same database and check its filters (database and table names, role = 'LEADER'); if a reset hook loads the data, it runs before this reading"
      : 'check series, labels and nodeLabel against the endpoint';
  return `the probe read ${what}: nothing to judge (fix: ${fix})`;
}

/**
 * The readings before the run, each kept and said in one line; throws (before any load) for a
 * probe that cannot be read, and for a SKEWED reading of a probe that requires 'spread'.
 */
export async function readBefore(
  config: Pick<PlateauConfig, 'probes' | 'target'>,
  env: NodeJS.ProcessEnv,
  keep: KeepReading,
): Promise<string[]> {
  const lines: string[] = [];
  for (const p of probesAt(config, 'before')) {
    const record = await readProbe(p, 'before', env, config.target.url);
    keep(record);
    const reading = judgeDistribution(record);
    if (record.problem !== undefined) {
      throw new PlateauError(
        `distribution probe ${JSON.stringify(p.name)} could not be read before the run (no load was sent): ${record.problem}`,
        `fix probes.distribution "${p.name}" (docs/distribution.md), or remove it`,
        'probe-unread',
        EXIT.preflight,
      );
    }
    if (reading.verdict === 'SKEWED' && p.require === 'spread') {
      throw new PlateauError(
        `distribution ${readingText(reading)}; the probe requires 'spread', so no load was sent`,
        'spread the data first (re-split the regions, move the leaders back: docs/distribution.md), or remove require from the probe',
        'distribution-skewed',
        EXIT.preflight,
      );
    }
    lines.push(`distribution ${readingText(reading)}`);
  }
  return lines;
}

/** The readings after the last step, each kept and returned in one line (a problem is recorded, never thrown). */
export async function readAfter(
  config: Pick<PlateauConfig, 'probes' | 'target'>,
  env: NodeJS.ProcessEnv,
  keep: KeepReading,
): Promise<string[]> {
  const lines: string[] = [];
  for (const p of probesAt(config, 'after')) {
    const record = await readProbe(p, 'after', env, config.target.url);
    keep(record);
    lines.push(`distribution ${readingText(judgeDistribution(record))}`);
  }
  return lines;
}
