/**
 * Preflight: can this run be valid? Each check fails before any load, naming the problem and the
 * fix: target reachable and healthy, secrets present, generated ids fit the target's column, one
 * sample request built, sent and accepted.
 */
import { request, type Dispatcher } from 'undici';
import type { PlateauConfig } from '../config/schema.ts';
import type { Scenario } from '../scenario/types.ts';
import type { RequestBuilder } from '../scenario/load.ts';
import { formatId } from '../scenario/context.ts';
import { PlateauError, EXIT } from '../errors.ts';
import type { StageResult } from './stage.ts';
import { checkDisk, checkOpenFiles } from './generator-limits.ts';
import { explainConnectError } from './connect-errors.ts';

export interface PreflightInput {
  config: PlateauConfig;
  scenario: Scenario;
  build: RequestBuilder;
  runId: string;
  /** The highest sequence number the plan can reach (warmup + steps). */
  maxSeq: number;
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
  await sampleRequest(p, evidence);
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

async function sampleRequest(p: PreflightInput, evidence: string[]): Promise<void> {
  const req = scenarioStep('request(ctx) for the sample request', () => p.build(0));
  const url = new URL(req.path, p.config.target.url).href;
  const timeoutMs = p.config.http.timeoutMs;
  let res: Dispatcher.ResponseData;
  let text: string;
  try {
    res = await request(url, {
      method: req.method as 'GET',
      headers: req.headers,
      body: req.body ?? undefined,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: AbortSignal.timeout(timeoutMs),
    });
    text = await firstBytes(res.body, 200);
  } catch (err) {
    const e = err as Error & { code?: string };
    throw new PlateauError(
      `the sample request ${req.method} ${url} failed: ${e.code ?? e.name}: ${e.message}`,
      'make the target answer one request within http.timeoutMs before measuring thousands',
      'sample-request-failed',
      EXIT.preflight,
    );
  }
  const verdict = scenarioStep('check(response) for the sample response', () =>
    p.scenario.check?.({ status: res.statusCode, headers: res.headers }),
  );
  if (res.statusCode >= 400 || (verdict !== undefined && verdict !== true)) {
    throw new PlateauError(
      `the sample request ${req.method} ${url} got ${res.statusCode}${typeof verdict === 'string' ? ` (check: ${verdict})` : ''}: ${text}`,
      res.statusCode === 401 || res.statusCode === 403
        ? 'the target refused the credentials: check the secret in the environment (the HMAC key) and how the scenario signs'
        : 'fix the scenario so that one request succeeds before measuring thousands',
      'sample-request-failed',
      EXIT.preflight,
    );
  }
  evidence.push(`sample request ${req.method} ${new URL(url).pathname} answered ${res.statusCode}`);
}

/** Runs the user's scenario code; what it throws becomes a preflight failure that names the scenario. */
function scenarioStep<T>(what: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw new PlateauError(
      `the scenario failed in ${what}: ${(err as Error)?.message ?? String(err)}`,
      'fix the scenario module (request(ctx) must return { method?, url, headers?, body? }; check(response) must not throw) before any load is sent',
      'scenario-failed',
      EXIT.preflight,
    );
  }
}

/** The first `max` bytes of a body as text; the rest is not read (a hostile target may send gigabytes). */
async function firstBytes(body: Dispatcher.ResponseData['body'], max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    n += chunk.length;
    if (n >= max) break;
  }
  body.destroy();
  return Buffer.concat(chunks).subarray(0, max).toString('utf8');
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
