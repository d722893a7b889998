/**
 * Preflight: can this run be valid? Each check fails before any load, naming the problem and the
 * fix: target reachable and healthy, secrets present, generated ids fit the target's column, a
 * unique data source has a row for every arrival, one sample arrival of each mix entry built,
 * sent and accepted (sample-arrivals.ts), and, with metrics, the declared series and the request
 * series present, in a plausible unit (metrics-check.ts); topology.command prints a number.
 */
import { checkDownstreamsInPrometheus, checkDownstreamsInText } from './downstream-check.ts';
import { checkLabelsAndRoutes, checkRequestLabelsInPrometheus } from './request-labels-check.ts';
import { request } from 'undici';
import type { PlateauConfig } from '../config/schema.ts';
import type { Scenario } from '../scenario/types.ts';
import type { ScenarioRequests } from '../scenario/requests.ts';
import { uniqueRowsProblem } from '../scenario/data-load.ts';
import { warmupRuns } from './warmup.ts';
import { sampleArrivals } from './sample-arrivals.ts';
import { sourceReaders } from './sample-offline.ts';
import { settleTooShort } from '../../analysis/settle-check.ts';
import { settleSOf } from '../../analysis/plan.ts';
import { formatId } from '../scenario/context.ts';
import { PlateauError, EXIT } from '../errors.ts';
import type { StageResult } from './stage.ts';
import { checkDisk, checkOpenFiles } from './generator-limits.ts';
import { explainConnectError } from './connect-errors.ts';
import { checkScrapeInterval } from './scrape-check.ts';
import {
  lookAlike,
  metricNames,
  poolGaugesMissing,
  presetsExposed,
  unitMeanProblem,
  unitNameProblem,
} from './metrics-check.ts';
import { parsePromText, sumOf } from '../metrics/prom-text.ts';
import { readTopologyCommand, TOPOLOGY_COMMAND_FIX } from '../metrics/topology-command.ts';
import { requestSeriesOf, requestSeriesText } from '../../analysis/request-series.ts';

export interface PreflightInput {
  config: PlateauConfig;
  scenario: Scenario;
  requests: ScenarioRequests;
  /** The key of the run's ids (environment.ts runIds): a given run id's suffix makes its ids longer. */
  idKey: string;
  /** The highest sequence number the plan can reach (warmup + steps). */
  maxSeq: number;
  /** The rows a unique data source must have: the plan's arrivals and a rerun of every step. */
  maxRows: number;
  maxVUs: number;
  durationS: number;
  env: NodeJS.ProcessEnv;
}

/** Resolves to each transaction's longest sample arrival (ms, think time included): the VUs' first sizing reads it. */
export async function preflight(p: PreflightInput): Promise<StageResult<Map<string, number>>> {
  const evidence: string[] = [];
  evidence.push('config valid');
  checkSecrets(p.scenario, p.env, evidence);
  checkIdLength(p, evidence);
  evidence.push(checkOpenFiles(p.maxVUs));
  evidence.push(checkDisk(p.config.output.dir, p.durationS));
  const noHealth = await checkHealth(p.config, evidence);
  if (p.config.metrics?.url) evidence.push(await checkMetrics(p.config));
  if (p.config.topology?.command) evidence.push(await checkTopologyCommand(p.config.topology.command));
  // the fix's readBy names the entries seen reading the source (sourceReaders), built only if one is suggested
  const fewRows = uniqueRowsProblem(p.requests.data, p.maxRows, warmupRuns(p.config), p.requests.traffic, true, () =>
    sourceReaders(p.requests),
  );
  if (fewRows) throw fewRows;
  const sentAt = performance.now();
  const lasted = await sampleArrivals(p.config, p.requests, evidence);
  // a transaction longer than the settle is counted in the next window, from the rate below
  const short = settleTooShort(lasted, { holdS: p.config.steps.holdS, settleS: settleSOf(p.config.steps) });
  if (short) throw new PlateauError(short.problem, short.fix, 'settle-too-short', EXIT.preflight);
  const series = p.config.metrics?.url ? await checkRequestSeries(p.config, performance.now() - sentAt) : null;
  if (series) evidence.push(series.line);
  const prom = p.config.metrics?.prometheus;
  const routes = prom
    ? await checkRequestLabelsInPrometheus(prom.url, requestSeriesOf(p.config.metrics!.requests), Date.now())
    : (series?.routes ?? null);
  const downstreams = await checkDownstreams(p.config);
  if (downstreams) evidence.push(downstreams);
  const checks = evidence.length;
  // said on the stage's line, where the user reads it before the load
  const sparse = await checkScrapeInterval(p.config);
  if (sparse) evidence.push(sparse);
  if (routes) evidence.push(routes);
  const notes = [noHealth, sparse, routes].filter((x): x is string => x !== null);
  return { value: lasted, detail: [`${checks} checks passed`, ...notes].join('; '), evidence };
}

function checkSecrets(s: Scenario, env: NodeJS.ProcessEnv, evidence: string[]): void {
  const missing = (s.secrets ?? []).filter((name) => !env[name]);
  if (missing.length) {
    throw new PlateauError(
      `secret environment variable${missing.length > 1 ? 's' : ''} ${missing.join(', ')} not set`,
      `export ${missing.map((m) => `${m}=...`).join(' ')} before the run (secrets are read only from the environment)`,
      'secret-missing',
      EXIT.preflight,
    );
  }
  if (s.secrets?.length) evidence.push(`secrets present: ${s.secrets.join(', ')} (values never recorded)`);
}

/**
 * The longest id of a run: the one of the largest sequence number the plan reaches, or a sample
 * arrival's: preflight's samples carry ids of their own (`p<entry>-` after the prefix, context.ts),
 * longer than a short plan's, and a target that refuses them would fail preflight with its own
 * error (a 500 of an overflowing column) instead of this one.
 */
export function longestId(prefix: string, idKey: string, maxSeq: number, entries: number): string {
  const load = formatId('seq', prefix, idKey, maxSeq);
  const sample = formatId('seq', `${prefix}p${Math.max(0, entries - 1)}-`, idKey, 0);
  return sample.length > load.length ? sample : load;
}

function checkIdLength(p: PreflightInput, evidence: string[]): void {
  const max = p.scenario.ids?.maxLength;
  if (!max) return;
  const tooLong = runIdsTooLong(p.scenario, p.idKey, p.maxSeq, p.requests.traffic.entries.length);
  if (tooLong) throw tooLong;
  const longest = longestId(p.scenario.ids?.prefix ?? '', p.idKey, p.maxSeq, p.requests.traffic.entries.length);
  evidence.push(`longest generated id ${longest.length} chars <= ids.maxLength ${max}`);
}

/**
 * The refusal of a run whose ids exceed the scenario's ids.maxLength (the longest a run of this
 * plan makes: longestId), or null: preflight's check, and plan's, which sees it without sending
 * anything (`maxSeq`: warmup/pipeline maxPlannedArrivals; `entries`: the mix's, one sample each).
 */
export function runIdsTooLong(
  scenario: Pick<Scenario, 'ids'>,
  idKey: string,
  maxSeq: number,
  entries: number,
): PlateauError | null {
  return idTooLong(longestId(scenario.ids?.prefix ?? '', idKey, maxSeq, entries), scenario.ids?.maxLength);
}

/** The refusal of a run whose longest id exceeds ids.maxLength (preflight, and k6-script before it writes a script); null when it fits. */
export function idTooLong(
  longest: string,
  max: number | undefined,
  exitCode: number = EXIT.preflight,
): PlateauError | null {
  if (!max || longest.length <= max) return null;
  return new PlateauError(
    `generated ids reach ${longest.length} characters ("${longest}"); the target's id column allows ${max}`,
    'shorten ids.prefix or the run id (--run-id: one given gets 11 characters more in the ids, so that they are its own), or raise ids.maxLength if the column is wider',
    'id-too-long',
    exitCode,
  );
}

/** Checks the target answers its health path; a note for the stage's line when it answered 404 (no health endpoint). */
async function checkHealth(config: PlateauConfig, evidence: string[]): Promise<string | null> {
  const url = new URL(config.target.healthPath, config.target.url).href;
  let status: number;
  try {
    const res = await request(url, { headersTimeout: 5000, bodyTimeout: 5000 });
    status = res.statusCode;
    await res.body.dump();
  } catch (err) {
    const f = explainConnectError(url, err);
    throw new PlateauError(
      `target ${f.problem}`,
      f.kind === 'tls' ? f.fix : `${f.fix} (--target / target.url)`,
      f.kind === 'tls' ? 'target-tls' : 'target-unreachable',
      EXIT.preflight,
    );
  }
  if (status >= 500) {
    throw new PlateauError(
      `target health ${url} answered ${status}`,
      'fix the target (or set target.healthPath to its real health endpoint) before loading it',
      'target-unhealthy',
      EXIT.preflight,
    );
  }
  if (status !== 404) {
    evidence.push(`target healthy: ${url} answered ${status}`);
    return null;
  }
  evidence.push(`target reachable (${url} answered 404: no health endpoint, set target.healthPath)`);
  return `${url} answered 404: no health endpoint, so the RTT is timed on that 404 (set target.healthPath, or target.rttPath to a cheap path of the service)`;
}

/** The declared downstreams' series exist where the run reads them: through Prometheus when it is given, else on the endpoint. */
async function checkDownstreams(config: PlateauConfig): Promise<string | null> {
  const m = config.metrics;
  if (!m?.downstreams.length) return null;
  if (m.prometheus) return checkDownstreamsInPrometheus(config);
  if (!m.url) return null;
  const { url, text } = await fetchMetrics(m.url, config.target.url);
  return checkDownstreamsInText(config, url, text);
}

/** topology.command prints a number now: one that cannot be read would leave every step's topology unknown. */
async function checkTopologyCommand(cmd: string): Promise<string> {
  const r = await readTopologyCommand(cmd);
  if ('problem' in r)
    throw new PlateauError(
      `topology.command cannot be read: ${r.problem}`,
      TOPOLOGY_COMMAND_FIX,
      'topology-command',
      EXIT.preflight,
    );
  return `topology.command printed ${r.value}`;
}

/** The metrics endpoint's text, or the refusal naming why it cannot be read. */
async function fetchMetrics(metricsUrl: string, targetUrl: string): Promise<{ url: string; text: string }> {
  const url = new URL(metricsUrl, targetUrl).href;
  let text: string;
  let status: number;
  try {
    const res = await request(url, { headersTimeout: 5000, bodyTimeout: 5000 });
    text = await res.body.text();
    status = res.statusCode;
  } catch (err) {
    const f = explainConnectError(url, err);
    throw new PlateauError(
      `metrics endpoint ${f.problem}`,
      f.kind === 'tls' ? f.fix : 'fix metrics.url (Spring: /actuator/prometheus) or remove the metrics section',
      f.kind === 'tls' ? 'metrics-tls' : 'metrics-unreachable',
      EXIT.preflight,
    );
  }
  if (status !== 200) {
    throw new PlateauError(
      `metrics endpoint ${url} did not answer: HTTP ${status}`,
      'fix metrics.url (Spring: /actuator/prometheus) or remove the metrics section',
      'metrics-unreachable',
      EXIT.preflight,
    );
  }
  return { url, text };
}

/** " (it has http_x (_count, _sum), ...)" of the families that look like the missing names, or ''. */
function lookAlikeText(missing: readonly string[], present: ReadonlySet<string>): string {
  const seen = [...new Set(missing.flatMap((m) => lookAlike(m, present)))];
  return seen.length ? `; the endpoint has these that look alike: ${seen.join(', ')}` : '; nothing there looks alike';
}

/** The endpoint answers, has every series metrics.series declares, and names no other unit than the request series is read in. */
async function checkMetrics(config: PlateauConfig): Promise<string> {
  const m = config.metrics!;
  const { url, text } = await fetchMetrics(m.url!, config.target.url);
  const present = metricNames(text);
  const missing = m.series.filter((s) => !present.has(s));
  if (missing.length) {
    throw new PlateauError(
      `metrics endpoint ${url} has no series ${missing.join(', ')}${lookAlikeText(missing, present)}`,
      'correct metrics.series, or enable the metrics in the target (Spring: management.metrics)',
      'metrics-missing',
      EXIT.preflight,
    );
  }
  const named = unitNameProblem(requestSeriesOf(m.requests));
  if (named) throw new PlateauError(named.problem, named.fix, 'metrics-unit', EXIT.preflight);
  const pool = poolGaugesMissing(m.pool, present);
  if (pool.length) {
    const names = pool.map((f) => m.pool[f]);
    throw new PlateauError(
      `metrics endpoint ${url} has the pool's ${(['active', 'pending', 'max'] as const)
        .filter((f) => !pool.includes(f))
        .map((f) => m.pool[f])
        .join(
          ', ',
        )} but no ${pool.map((f) => `${m.pool[f]} (metrics.pool.${f})`).join(', ')}${lookAlikeText(names, present)}`,
      `set metrics.pool.${pool[0]}${pool.length > 1 ? ' (and the others named)' : ''} to the gauge the target exposes`,
      'metrics-missing',
      EXIT.preflight,
    );
  }
  return `metrics endpoint ${new URL(url).pathname} answers with ${present.size} series${m.series.length ? `, including ${m.series.join(', ')}` : ''}`;
}

/**
 * After the sample arrivals (a target creates its request series at its first request): the
 * request series of the preset is there (nginx: its counter; the others: _count and _sum), and its
 * mean is plausible in its unit against the samples' time (metrics-check.ts: the unit rule).
 */
async function checkRequestSeries(
  config: PlateauConfig,
  sampleMs: number,
): Promise<{ line: string; routes: string | null }> {
  const m = config.metrics!;
  const r = requestSeriesOf(m.requests);
  const { url, text } = await fetchMetrics(m.url!, config.target.url);
  const present = metricNames(text);
  const missing = [r.count, r.sum].filter((n): n is string => n !== null && !present.has(n));
  if (missing.length) {
    const presets = presetsExposed(present).filter((p) => p !== r.preset);
    throw new PlateauError(
      `metrics endpoint ${url} has no series ${missing.join(', ')} (the request series of ${requestSeriesText(r)})${lookAlikeText(missing, present)}`,
      presets.length
        ? `set metrics.requests.preset: '${presets[0]}' (the endpoint has ${requestSeriesOf({ preset: presets[0] }).count})`
        : 'set metrics.requests.preset, or name and unit, to the series the target exposes (or enable them in the target)',
      'metrics-missing',
      EXIT.preflight,
    );
  }
  const samples = parsePromText(text);
  const count = sumOf(samples, r.count, r.labels);
  const sum = r.sum ? sumOf(samples, r.sum, r.labels) : null;
  const meanS = count && sum !== null ? (sum * r.toSeconds) / count : null;
  const bad = unitMeanProblem(r, meanS, sampleMs);
  if (bad) throw new PlateauError(bad.problem, bad.fix, 'metrics-unit', EXIT.preflight);
  // with metrics.prometheus the labels are checked there (a `job` label is Prometheus's, not the endpoint's)
  const routes = m.prometheus ? null : checkLabelsAndRoutes(r, samples, `metrics endpoint ${url}`);
  const what = `request series ${requestSeriesText(r)}`;
  if (r.sum === null) return { line: `${what}: ${count ?? 0} requests counted`, routes };
  const line =
    meanS === null
      ? `${what}: no request counted yet under its labels, unit not checked`
      : `${what}: mean ${(meanS * 1000).toFixed(2)} ms over ${count} requests counted, the samples ${sampleMs.toFixed(1)} ms (unit plausible)`;
  return { line, routes };
}
