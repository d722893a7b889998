/**
 * The sample requests built without sending anything: what `plan` can check of preflight's sample
 * arrivals, and which entries read each data source. Apart from sample-arrivals.ts, which sends:
 * these need no target.
 */
import type { ScenarioRequests } from '../scenario/requests.ts';
import type { SourceReaders } from '../scenario/data-load.ts';
import { scenarioStep } from './sample-blame.ts';
import { buildFix } from './sample-arrival.ts';

/**
 * What `plan` can check of the sample arrivals without sending anything: each request entry's
 * request built as preflight builds it (its fields, its data sources and rows, what its code
 * throws), refused with preflight's own words. A transaction's run needs the target's answers:
 * only preflight runs it.
 */
export function buildSampleRequests(s: ScenarioRequests): void {
  s.traffic.entries.forEach((_, i) => {
    const run = scenarioStep(`entry "${s.traffic.entries[i].name}"`, () => s.sample(i, i));
    if (run.kind === 'request')
      scenarioStep('request(ctx) for the sample request', () => run.build(0), buildFix(run.name));
  });
}

/**
 * Which entries read each data source, as far as building each request entry's sample request
 * offline tells (as buildSampleRequests does: nothing is sent), for the readBy a refusal of too few
 * rows suggests (data-load.ts). A transaction is not run (its run needs the target's answers), and
 * a request that cannot be built is refused by its own check: both are unknown.
 */
export function sourceReaders(s: ScenarioRequests): SourceReaders {
  const readers: Record<string, string[]> = {};
  const unknown: string[] = [];
  s.traffic.entries.forEach((e, i) => {
    const read = new Set<string>();
    try {
      const run = s.sample(i, i, (source) => read.add(source));
      if (run.kind !== 'request') throw new Error('a transaction');
      run.build(0);
    } catch {
      unknown.push(e.name);
      return;
    }
    for (const source of read) (readers[source] ??= []).push(e.name);
  });
  return { readers, unknown };
}
