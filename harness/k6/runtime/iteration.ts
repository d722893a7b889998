/**
 * The portable scenario's context on k6's APIs. This file is bundled into the k6 script and runs
 * inside k6 (no Node APIs): k6/http sends, k6/crypto signs, k6/execution numbers iterations.
 *   seq      = seqOffset + scenario.iterationInTest + 1: iterationInTest is unique across every
 *              instance of an execution-segmented run, so ids never collide between machines;
 *   pick     = the same Knuth hash as harness/scenario/context.ts (spread), so both engines hit
 *              the same rows for the same seq;
 *   secrets  = __ENV only: k6 passes the process environment through, the script holds no secret.
 */
import { check } from 'k6';
import crypto from 'k6/crypto';
import exec from 'k6/execution';
import http from 'k6/http';
import { Counter } from 'k6/metrics';
import { spread } from './spread.ts';
import type { IdFormat, RequestSpec, Scenario, ScenarioContext } from '../../scenario/types.ts';

export interface RuntimeConfig {
  runId: string;
  idPrefix: string;
  /** Relative request URLs resolve against it; a request elsewhere is the scenario's bug. */
  origin: string;
  seqOffset: number;
  timeoutMs: number;
  /** k6 `name` tag of every request: one name keeps k6's URL cardinality at one. */
  requestName: string;
  checkName: string;
}

/** Counted when the scenario's check rejects a response k6 deemed expected (2xx/3xx). */
const checkFailed = new Counter('plateau_check_failed');

function hex(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i++) s += (bytes[i] < 16 ? '0' : '') + bytes[i].toString(16);
  return s;
}

/** RFC 9562 v4 (random) or v7 (48-bit ms timestamp, then random). */
function uuid(version: 4 | 7): string {
  const b = new Uint8Array(crypto.randomBytes(16));
  if (version === 7) {
    const ms = Date.now();
    for (let i = 0; i < 6; i++) b[i] = Math.floor(ms / 2 ** (8 * (5 - i))) & 0xff;
  }
  b[6] = (b[6] & 0x0f) | (version << 4);
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = hex(b);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function secret(name: string): string {
  const v = __ENV[name];
  if (v === undefined || v === '')
    throw new Error(
      `environment variable ${name} is not set: export ${name}=<secret> before the run (secrets come only from the environment)`,
    );
  return v;
}

function bytesOf(body: string | Uint8Array): string | ArrayBuffer {
  return typeof body === 'string'
    ? body
    : (body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength) as ArrayBuffer);
}

export function contextOf(cfg: RuntimeConfig, seq: number): ScenarioContext {
  return {
    runId: cfg.runId,
    seq,
    uniqueId: (format: IdFormat = 'seq') =>
      format === 'uuidv4' ? uuid(4) : format === 'uuidv7' ? uuid(7) : `${cfg.idPrefix}${cfg.runId}-${seq}`,
    pick: (keySpace = 100_000) => spread(seq, keySpace),
    hmacSha256: (name, body) => crypto.hmac('sha256', secret(name), bytesOf(body), 'hex'),
    env: __ENV,
  };
}

function urlOf(spec: RequestSpec, origin: string): string {
  const url = /^https?:\/\//i.test(spec.url) ? spec.url : origin + (spec.url.startsWith('/') ? '' : '/') + spec.url;
  if (url !== origin && !url.startsWith(origin + '/') && !url.startsWith(origin + '?')) {
    throw new Error(`request(ctx) returned ${url}, but the target is ${origin}: a run loads one origin`);
  }
  return url;
}

function lowerCaseKeys(h: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of Object.keys(h)) out[k.toLowerCase()] = h[k];
  return out;
}

/** null when accepted, else why not (the portable check's contract). */
function verdictOf(s: Scenario, status: number, headers: Record<string, string>): string | null {
  try {
    const v = s.check!({ status, headers: lowerCaseKeys(headers) });
    return v === true || v === undefined ? null : typeof v === 'string' ? v : 'check returned false';
  } catch (err) {
    return `check threw: ${(err as Error).message}`;
  }
}

/** The k6 default function: one request of the scenario per iteration. */
export function iteration(scenario: Scenario, cfg: RuntimeConfig): () => void {
  return () => {
    const seq = cfg.seqOffset + exec.scenario.iterationInTest + 1;
    const spec = scenario.request(contextOf(cfg, seq));
    const body = spec.body === undefined || spec.body === null ? null : bytesOf(spec.body);
    const res = http.request((spec.method ?? 'GET').toUpperCase(), urlOf(spec, cfg.origin), body, {
      headers: spec.headers ?? {},
      timeout: `${cfg.timeoutMs}ms`,
      // never followed, as by the native engine: each hop would be a request of its own in k6's output
      redirects: 0,
      tags: { name: cfg.requestName },
    });
    if (!scenario.check) return;
    const verdict = verdictOf(scenario, res.status, res.headers);
    check(verdict, { [cfg.checkName]: (v) => v === null });
    if (verdict !== null && res.status >= 200 && res.status < 400) checkFailed.add(1, { check: verdict.slice(0, 100) });
  };
}
