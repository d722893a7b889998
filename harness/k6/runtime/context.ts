/**
 * The portable ScenarioContext on k6's APIs (runs inside k6: no Node API).
 *   pick    = the same hash as the native engine (harness/scenario/data-rows.ts spread), so both engines hit the
 *             same rows for the same seq (and the same salt);
 *   row     = the data source's row for this arrival (data.ts: the same rowIndex as the native engine);
 *   sleep   = a timer of k6's global setTimeout (k6 >= v0.51), which holds the VU as think time does
 *             on the native engine and lets the transaction's deadline and the answers of sends in
 *             flight run meanwhile; on an older k6, its blocking sleep, as a resolved Promise;
 *   secrets = __ENV only: k6 passes the process environment through, the script holds no secret;
 *   env     = the declared secrets of __ENV alone, as on the native engine (scenario-env.ts), built once per VU.
 */
import { sleep } from 'k6';
import crypto from 'k6/crypto';
import { spread } from '../../scenario/data-rows.ts';
import { globalTimers } from './timers.ts';
import type { IdFormat, Row, ScenarioContext } from '../../scenario/types.ts';
import type { RuntimeConfig } from './config.ts';
import type { RunIds } from '../../run-ids.ts';
import { thinkTimeProblem } from '../../scenario/think-time.ts';
import type { ScenarioEnv } from '../../scenario/scenario-env.ts';

export interface RowSource {
  row(name: string, seq: number): Row;
  /**
   * What an arrival whose scenario code threw fails with, from its message (response.ts messageOf):
   * for a write to a row, what that means and the copy to make, and for a call of ctx.env its record
   * form, as on the native engine (row-writes.ts, scenario-env.ts).
   */
  threw(message: string): string;
}

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

export function bytesOf(body: string | Uint8Array): string | ArrayBuffer {
  return typeof body === 'string'
    ? body
    : (body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength) as ArrayBuffer);
}

/** `deadlineMs`: http.transactionTimeoutMs, which think time counts in (absent: no deadline, as on an older k6). */
function thinkTime(ms: number, deadlineMs: number | undefined): Promise<void> {
  const bad = thinkTimeProblem(ms, deadlineMs);
  if (bad !== null) throw new Error(bad);
  if (ms === 0) return Promise.resolve();
  const timers = globalTimers();
  if (timers !== null) return new Promise<void>((resolve) => void timers.setTimeout(resolve, ms));
  sleep(ms / 1000);
  return Promise.resolve();
}

/** An arrival's context; `ids`: the run's (its name and id key), plateau's own or setup()'s (ids.ts); `env`: scenarioEnv's. */
export function contextOf(
  cfg: Pick<RuntimeConfig, 'idPrefix' | 'transactionTimeoutMs'>,
  ids: RunIds,
  seq: number,
  rows: RowSource,
  env: ScenarioEnv,
): ScenarioContext {
  return {
    runId: ids.runId,
    seq,
    uniqueId: (format: IdFormat = 'seq') =>
      format === 'uuidv4' ? uuid(4) : format === 'uuidv7' ? uuid(7) : `${cfg.idPrefix}${ids.idKey}-${seq}`,
    pick: (keySpace = 100_000, salt) => spread(seq, keySpace, salt),
    hmacSha256: (name, body) => crypto.hmac('sha256', secret(name), bytesOf(body), 'hex'),
    env,
    row: (name) => rows.row(name, seq),
    sleep: (ms) => thinkTime(ms, cfg.transactionTimeoutMs),
  };
}
