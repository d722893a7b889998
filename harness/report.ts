/**
 * Rebuilds every output of a run from its store alone: run.json + buckets.ndjson -> analysis ->
 * each registered renderer -> a file in the run directory. Used at the end of every run (also a
 * failed or interrupted one) and by `plateau report <dir>`. steps-by-name.csv is written beside
 * steps.csv only for a run with figures by name (reports/index.ts optionalRenderers).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { AnalyzeInput, MixShare, RunResult, ServerConfigInput, SloConfig } from '../analysis/types.ts';
import { mixShares } from '../analysis/entry-delivery.ts';
import { analyzeRun } from '../analysis/analyze.ts';
import { DEFAULT_RULES } from '../analysis/plan.ts';
import { rateUnitOf } from '../analysis/format.ts';
import { fileRenderers, optionalRenderers, renderers } from '../reports/index.ts';
import { nextTurn } from '../reports/charts/index.ts';
import { gaugesOf } from '../analysis/series.ts';
import { loadRun, type RunMeta } from './store/run-store.ts';
import { secretScrubber, type Scrub } from './secret-scrub.ts';
import { stepChecksFigures, type StepChecks } from '../reports/k6-checks-text.ts';

export function analyzeStore(dir: string): { result: RunResult; meta: RunMeta; tornLines: number } {
  const { meta, records, samples, tornLines } = loadRun(dir);
  const planned = meta.plan?.steps ?? [];
  const result = analyzeRun({
    runId: meta.runId,
    target: meta.target,
    engine: meta.engine,
    startedAt: meta.startedAt,
    rules: meta.plan?.rules ?? { ...DEFAULT_RULES },
    steps: planned,
    ...(meta.attempts?.length ? { attempts: meta.attempts } : {}),
    ...(meta.policy ? { policy: meta.policy } : {}),
    plannedSteps: planned.length,
    samples,
    promqlWindows: meta.promqlWindows,
    distribution: meta.distribution,
    records,
    stages: meta.stages,
    vus: meta.vus ?? { preAllocatedVUs: 0, maxVUs: 0, reason: 'not sized: the run stopped before planning' },
    rtt: meta.rtt,
    environment: meta.environment,
    interrupted: meta.status === 'interrupted' || meta.status === 'running',
    ...(meta.durationCapS !== undefined ? { durationCapS: meta.durationCapS } : {}),
    gauges: gaugesOf(samples),
    rateUnit: rateUnitOf(meta.traffic),
    ...(meta.traffic?.entries.length ? { entryNames: meta.traffic.entries.map((e) => e.name) } : {}),
    ...mixOf(meta.traffic),
    ...(meta.traffic?.iterations?.closedModel ? { closedModel: true } : {}),
    // plateau import k6 records the file it read
    ...(meta.environment.k6Output !== undefined ? { imported: true } : {}),
    // an iteration of several requests whose outcome was not matched by k6's vu and iter: ok a lower bound
    ...(meta.traffic?.iterations &&
    meta.traffic.iterations.requestsPerArrival > 1 &&
    !meta.traffic.iterations.exactOutcomes &&
    meta.traffic.iterations.of !== 'plateau-mix'
      ? { okLowerBound: true }
      : {}),
    ...busyBoundOf(meta.config),
    ...serverConfigOf(meta.config),
    // an imported k6 run's deadline is its script's, not the config's default
    ...(meta.environment.k6Output === undefined ? clientTimeoutOf(meta.config) : {}),
  });
  // the traffic the run offered, for the reports' mix and VU sizing (the analysis does not read run.json)
  if (meta.traffic) result.traffic = meta.traffic;
  // which scenario, for compare and the gate (differences.ts): another one, or other code under its name
  if (meta.scenario) result.scenario = meta.scenario;
  if (meta.scenarioDigest) result.scenarioDigest = meta.scenarioDigest;
  // what counted as a timeout, for compare and the gate; an import's deadlines were k6's (unknown)
  const http = meta.environment.k6Output === undefined ? deadlinesOf(meta.config) : undefined;
  if (http) result.http = http;
  if (meta.status === 'running') result.warnings.unshift({ code: 'unfinished', step: null, figures: {} });
  if (tornLines) result.warnings.unshift({ code: 'torn-lines', step: null, figures: { lines: tornLines } });
  const summed = summedScenariosOf(meta.config);
  if (summed.length > 1)
    result.warnings.unshift({
      code: 'k6-scenarios-summed',
      step: null,
      figures: {
        count: summed.length,
        scenarios: summed
          .slice(0, 5)
          .map((x) => `${x.name === '' ? '(no scenario tag)' : x.name}: ${x.iterations.toLocaleString('en-US')}`)
          .join(', '),
        first: summed.find((x) => x.name !== '')?.name ?? 'NAME',
      },
    });
  const checks = importedChecksOf(meta.config);
  if (checks.length > 0)
    result.warnings.unshift({ code: 'k6-checks-failed', step: null, figures: stepChecksFigures(checks) });
  const closed = meta.traffic?.iterations?.closedModel;
  if (closed?.heldS !== undefined)
    result.warnings.unshift({
      code: 'closed-model',
      step: null,
      figures: { heldS: closed.heldS, vus: closed.vus },
    });
  return { result, meta, tornLines };
}

/** The scenarios an imported k6 run summed into its arrivals (config.import.summed), most iterations first. */
function summedScenariosOf(config: unknown): { name: string; iterations: number }[] {
  const summed = (config as { import?: { summed?: unknown } } | null)?.import?.summed;
  return Array.isArray(summed)
    ? summed.filter(
        (x): x is { name: string; iterations: number } =>
          typeof x?.name === 'string' && typeof x?.iterations === 'number',
      )
    : [];
}

/** The steps an imported k6 run's failed checks were not explained in (config.import.checks). */
function importedChecksOf(config: unknown): StepChecks[] {
  const checks = (config as { import?: { checks?: unknown } } | null)?.import?.checks;
  return Array.isArray(checks)
    ? checks.filter(
        (c): c is StepChecks =>
          typeof c === 'object' &&
          c !== null &&
          ['step', 'checks', 'checksFailed', 'requests', 'requestsFailed'].every(
            (k) => typeof (c as Record<string, unknown>)[k] === 'number',
          ),
      )
    : [];
}

/** http.timeoutMs and http.transactionTimeoutMs of the run's recorded config, when both are numbers. */
function deadlinesOf(config: unknown): RunResult['http'] {
  const h = (config as { http?: { timeoutMs?: unknown; transactionTimeoutMs?: unknown } } | null)?.http;
  const [t, tx] = [h?.timeoutMs, h?.transactionTimeoutMs];
  return typeof t === 'number' && typeof tx === 'number' ? { timeoutMs: t, transactionTimeoutMs: tx } : undefined;
}

/** verdicts.generatorBusyMax of the run's recorded config, when it is a number. */
function busyBoundOf(config: unknown): { generatorBusyMax?: number } {
  const v = (config as { verdicts?: { generatorBusyMax?: unknown } } | null)?.verdicts?.generatorBusyMax;
  return typeof v === 'number' && Number.isFinite(v) ? { generatorBusyMax: v } : {};
}

/** http.timeoutMs of the run's recorded config, when it is a number. */
function clientTimeoutOf(config: unknown): { clientTimeoutMs?: number } {
  const v = (config as { http?: { timeoutMs?: unknown } } | null)?.http?.timeoutMs;
  return typeof v === 'number' && Number.isFinite(v) ? { clientTimeoutMs: v } : {};
}

/** The recorded config's metrics (request series, routes, downstreams) and latency objective, for the analysis. */
function serverConfigOf(config: unknown): Pick<AnalyzeInput, 'serverConfig' | 'slo'> {
  const c = config as { metrics?: ServerConfigInput; slo?: SloConfig } | null;
  return {
    ...(c?.metrics ? { serverConfig: { requests: c.metrics.requests, downstreams: c.metrics.downstreams } } : {}),
    ...(c?.slo ? { slo: c.slo } : {}),
  };
}

/**
 * Every renderer's files: the synchronous ones first, so report.md exists even if charting fails.
 * Each is scrubbed of the environment's secret-looking values (and URL credentials): a store may
 * hold one that nothing said was secret when it was written (an import or a run made without the
 * variable set, an older plateau's), and `plateau report` rebuilds from the store alone.
 */
export async function writeReports(dir: string, scrub: Scrub = secretScrubber([], process.env)): Promise<RunResult> {
  const { result } = analyzeStore(dir);
  const write = (file: string, text: string) => fs.writeFileSync(path.join(dir, file), scrub(text));
  // the loop turns between the parts, as between the charts (reports/charts/index.ts nextTurn)
  for (const r of renderers) {
    await nextTurn();
    write(r.file, r.render(result));
  }
  for (const r of optionalRenderers) {
    const text = r.render(result);
    if (text !== null) write(r.file, text);
  }
  for (const r of fileRenderers) {
    for (const f of await r.render(result)) write(f.file, f.content);
  }
  return result;
}

/** What the end of a run names: the reports first, then the other files, each only where it was written. */
const REPORT_FILES = ['report.md', 'report.html'];
const OTHER_FILES = ['summary.json', 'steps.csv', 'steps-by-name.csv', 'run.json', 'buckets.ndjson', 'probes.ndjson'];

/**
 * The line a run ends with: "report: runs/<id>/report.md and report.html (also summary.json, ...)",
 * naming only the files the run's directory holds (report.html is missing where charting failed).
 */
export function reportFilesLine(dir: string, cwd: string = process.cwd()): string {
  const has = (f: string) => fs.existsSync(path.join(dir, f));
  // relative where it lies under cwd (runs/<id>), else absolute: '../../tmp/x' says less than /tmp/x
  const relative = path.relative(cwd, dir);
  const rel = relative === '' ? '.' : relative.startsWith('..') || path.isAbsolute(relative) ? dir : relative;
  const [first, ...more] = REPORT_FILES.filter(has);
  const also = OTHER_FILES.filter(has);
  const head = first ? `${rel}/${first}${more.length ? ` and ${more.join(' and ')}` : ''}` : `${rel}/`;
  return `report: ${head}${also.length ? ` (also ${also.join(', ')})` : ''}`;
}

/** The mix's shares for the analysis (each entry keeps up with its share), where the traffic is a mix. */
function mixOf(traffic: Parameters<typeof mixShares>[0]): { mix?: MixShare[] } {
  const mix = mixShares(traffic);
  return mix ? { mix } : {};
}
