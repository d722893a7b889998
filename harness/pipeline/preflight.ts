/**
 * Preflight: can this run be valid? Each check fails before any load, naming the problem and the
 * fix: target reachable and healthy, secrets present, generated ids fit the target's column, a
 * unique data source has a row for every arrival, one sample arrival of each mix entry built,
 * sent and accepted (sample-arrivals.ts).
 */
import { request } from 'undici';
import type { PlateauConfig } from '../config/schema.ts';
import type { Scenario } from '../scenario/types.ts';
import type { ScenarioRequests } from '../scenario/requests.ts';
import { uniqueRowsProblem } from '../scenario/data-load.ts';
import { sampleArrivals } from './sample-arrivals.ts';
import { formatId } from '../scenario/context.ts';
import { PlateauError, EXIT } from '../errors.ts';
import type { StageResult } from './stage.ts';
import { checkDisk, checkOpenFiles } from './generator-limits.ts';
import { explainConnectError } from './connect-errors.ts';

export interface PreflightInput {
  config: PlateauConfig;
  scenario: Scenario;
  requests: ScenarioRequests;
  runId: string;
  /** The highest sequence number the plan can reach (warmup + steps). */
  maxSeq: number;
  /** The rows a unique data source must have: the plan's arrivals and a rerun of every step. */
  maxRows: number;
  maxVUs: number;
  durationS: number;
  env: NodeJS.ProcessEnv;
}

export async function preflight(p: PreflightInput): Promise<StageResult<void>> {
  const evidence: string[] = [];
  evidence.push('config valid');
  checkSecrets(p.scenario, p.env, evidence);
  checkIdLength(p, evidence);
  evidence.push(checkOpenFiles(p.maxVUs));
  evidence.push(checkDisk(p.config.output.dir, p.durationS));
  await checkHealth(p.config, evidence);
  if (p.config.metrics?.url)
    evidence.push(await checkMetrics(p.config.metrics.url, p.config.metrics.series, p.config.target.url));
  const fewRows = uniqueRowsProblem(p.requests.data, p.maxRows);
  if (fewRows) throw fewRows;
  await sampleArrivals(p.config, p.requests, evidence);
  return { value: undefined, detail: `${evidence.length} checks passed`, evidence };
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

/** The longest id is the one of the largest sequence number the plan reaches. */
function checkIdLength(p: PreflightInput, evidence: string[]): void {
  const max = p.scenario.ids?.maxLength;
  if (!max) return;
  const longest = formatId('seq', p.scenario.ids?.prefix ?? '', p.runId, p.maxSeq);
  if (longest.length > max) {
    throw new PlateauError(
      `generated ids reach ${longest.length} characters ("${longest}"); the target's id column allows ${max}`,
      'shorten ids.prefix or the run id (--run-id), or raise ids.maxLength if the column is wider',
      'id-too-long',
      EXIT.preflight,
    );
  }
  evidence.push(`longest generated id ${longest.length} chars <= ids.maxLength ${max}`);
}

async function checkHealth(config: PlateauConfig, evidence: string[]): Promise<void> {
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
  evidence.push(
    status === 404
      ? `target reachable (${url} answered 404: no health endpoint, set target.healthPath)`
      : `target healthy: ${url} answered ${status}`,
  );
}

async function checkMetrics(metricsUrl: string, series: string[], targetUrl: string): Promise<string> {
  const url = new URL(metricsUrl, targetUrl).href;
  const m = { series };
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
  const present = new Set(
    text
      .split('\n')
      .filter((l) => l && !l.startsWith('#'))
      .map((l) => l.split(/[{\s]/, 1)[0]),
  );
  const missing = m.series.filter((s) => !present.has(s));
  if (missing.length) {
    throw new PlateauError(
      `metrics endpoint ${url} has no series ${missing.join(', ')}`,
      'correct metrics.series, or enable the metrics in the target (Spring: management.metrics)',
      'metrics-missing',
      EXIT.preflight,
    );
  }
  return `metrics endpoint ${new URL(url).pathname} answers with ${present.size} series${m.series.length ? `, including ${m.series.join(', ')}` : ''}`;
}
