/**
 * The steps stage an import records: what it read (samples, buckets, t0, the metrics), what it
 * left out, and how it counted arrivals and names.
 */
import path from 'node:path';
import type { StageOutcome } from '../../../analysis/types.ts';
import type { IngestResult } from '../output/ingest.ts';
import { foldedCountOf, type NamesSummary } from '../output/names.ts';
import type { ImportOptions } from './import-options.ts';
import { unnamedClause } from './unnamed-note.ts';
import { outsideClause, type OutsideScenarios } from './outside-note.ts';

/** The steps stage of an import, its evidence what the ingest counted and the notes. */
export function importStage(
  o: ImportOptions,
  ing: IngestResult,
  stepsFrom: string,
  nSteps: number,
  durationMs: number,
  notes: readonly string[],
  outside: OutsideScenarios | null,
): StageOutcome {
  const st = ing.stats;
  const spanS = ((st.lastMs ?? 0) - (st.firstMs ?? 0)) / 1000;
  return {
    name: 'steps',
    status: 'pass',
    durationMs,
    detail: `imported ${path.basename(o.file)} (${ing.format}): ${st.points.toLocaleString('en-US')} samples over ${spanS.toFixed(1)} s into ${st.buckets} one-second buckets; ${nSteps} step${nSteps === 1 ? '' : 's'} ${stepsFrom === 'derived' ? 'derived from the offered rate' : 'from the flags'}${namesClause(st.names, outside)}${unnamedClause(st)}`,
    evidence: [
      `t0 ${new Date(st.t0Ms ?? 0).toISOString()} (${st.t0From === 'vus' ? 'first vus point - 1 s' : st.t0From === 'setup-end' ? "setup()'s last sample, after the first vus point - 1 s" : st.t0From === 'option' ? 'given with --t0' : 'earliest iteration start: no vus points'})`,
      `samples by metric: ${Object.entries(st.byMetric)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
      `${st.skipped} samples skipped (setup/teardown or other scenarios), ${st.late} arrived after their second closed, ${st.beforeT0} before t0`,
      `${ing.badLines} unreadable lines${ing.badLines ? ' (a torn last line is normal for a killed run)' : ''}; ${st.checksFailed} failed checks`,
      arrivalsLine(st),
      ...(st.wholeSeconds
        ? [
            'timestamps in whole seconds (CSV timeFormat unix or rfc3339): each second is +-1 s; an iteration is counted started at its end second + 0.5 s - its duration, and offered shared between the two seconds where it may have started',
          ]
        : []),
      ...notes,
    ],
  };
}

/** Every iteration named its VU and iteration, so each iteration's outcome is its own requests' (second.ts). */
export function exactOutcomes(st: IngestResult['stats']): boolean {
  return st.iterationsCounted > 0 && st.iterationsKnown === st.iterationsCounted;
}

/** k6's default system tags (v0.41 and later) with the VU and its iteration added. */
const SYSTEM_TAGS_WITH_ITERATIONS =
  'proto,subproto,status,method,url,name,group,check,error,error_code,tls_version,scenario,service,expected_response,vu,iter';

function arrivalsLine(st: IngestResult['stats']): string {
  const names = st.names.kept.length + (st.names.folded > 0 || st.names.foldedMore ? 1 : 0);
  const byName = names > 1 ? `; by the name tag: ${names} names` : '';
  switch (st.arrivalsFrom) {
    case 'plateau_arrival':
      return `arrivals from plateau_arrival samples (a mix), requests from http_reqs${byName}`;
    case 'iterations': {
      const iterations = st.iterationsCounted;
      const requests = st.requestsCounted;
      const ok = exactOutcomes(st)
        ? "ok = iterations none of whose requests failed (each request matched to its iteration by k6's vu and iter)"
        : `ok = iterations - failed requests of the same second (at least 0; those beyond it carried to the next)${requests > iterations ? `: a lower bound at several requests an iteration; for an exact count run k6 with --system-tags=${SYSTEM_TAGS_WITH_ITERATIONS}` : ''}`;
      return `arrivals are k6 iterations (${iterations.toLocaleString('en-US')}), ${ok}, requests from http_reqs (${requests.toLocaleString('en-US')})${byName}`;
    }
    default:
      return `arrivals are requests (http_reqs)${byName}`;
  }
}

/** The names in the stage's one line: how many, and what was folded (the evidence has the fix). */
function namesClause(n: NamesSummary, outside: OutsideScenarios | null): string {
  const folded = n.folded > 0 || n.foldedMore;
  const keys = n.kept.length + (folded ? 1 : 0);
  return `${keys > 1 ? `; ${keys} names${outsideClause(outside)}` : ''}${folded ? `; ${foldedCountOf(n)} built from data folded into one name: give requests a fixed name tag` : ''}`;
}
