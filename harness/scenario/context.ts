/**
 * Builds the per-iteration ScenarioContext. Secrets are read from the environment once per name
 * and kept only in memory.
 */
import { createHmac, randomUUID, randomBytes } from 'node:crypto';
import type { IdFormat, ScenarioContext } from './types.ts';
import { PlateauError, EXIT } from '../errors.ts';

export interface ContextFactory {
  (seq: number): ScenarioContext;
}

export function contextFactory(runId: string, idPrefix = '', env: NodeJS.ProcessEnv = process.env): ContextFactory {
  const keys = new Map<string, Buffer>();
  const keyOf = (name: string): Buffer => {
    let k = keys.get(name);
    if (!k) {
      const v = env[name];
      if (v === undefined || v === '') {
        throw new PlateauError(
          `environment variable ${name} is not set`,
          `export ${name}=<secret> before the run (secrets come only from the environment)`,
          'secret-missing',
          EXIT.preflight,
        );
      }
      k = Buffer.from(v, 'utf8');
      keys.set(name, k);
    }
    return k;
  };
  const shared: Shared = { runId, idPrefix, keyOf, env: Object.freeze({ ...env }) };
  return (seq: number): ScenarioContext => new Context(shared, seq);
}

interface Shared {
  runId: string;
  idPrefix: string;
  keyOf(name: string): Buffer;
  env: Readonly<Record<string, string | undefined>>;
}

/**
 * One iteration's context. Built for every request, so it costs two fields: its functions are
 * getters on the prototype that make their closure only when the scenario reads them (and work
 * destructured, `({ seq, uniqueId }) => ...`, as well as called on ctx).
 */
class Context implements ScenarioContext {
  readonly #s: Shared;
  constructor(
    s: Shared,
    readonly seq: number,
  ) {
    this.#s = s;
  }
  get runId(): string {
    return this.#s.runId;
  }
  get env(): Readonly<Record<string, string | undefined>> {
    return this.#s.env;
  }
  get uniqueId(): (format?: IdFormat) => string {
    const s = this.#s;
    const seq = this.seq;
    return (format: IdFormat = 'seq') => formatId(format, s.idPrefix, s.runId, seq);
  }
  get pick(): (keySpace?: number) => number {
    const seq = this.seq;
    return (keySpace = 100_000) => spread(seq, keySpace);
  }
  get hmacSha256(): (name: string, body: string | Uint8Array) => string {
    const keyOf = this.#s.keyOf;
    return (name, body) => createHmac('sha256', keyOf(name)).update(body).digest('hex');
  }
}

/** The id a sequence number gets; also used by preflight to find the longest id of a run. */
export function formatId(format: IdFormat, prefix: string, runId: string, seq: number): string {
  if (format === 'uuidv4') return randomUUID();
  if (format === 'uuidv7') return uuidv7();
  return `${prefix}${runId}-${seq}`;
}

/**
 * Knuth's multiplicative hash spreads consecutive sequence numbers over the key space:
 * k = ((seq x 2654435761) mod 2^32) mod keySpace. Deterministic, so reruns hit the same rows.
 */
export function spread(seq: number, keySpace: number): number {
  return (Math.imul(seq, 2654435761) >>> 0) % keySpace;
}

/** RFC 9562 UUIDv7: 48-bit Unix ms timestamp, version 7, variant 10, random rest. */
export function uuidv7(nowMs = Date.now()): string {
  const b = randomBytes(16);
  b.writeUIntBE(nowMs, 0, 6);
  b[6] = (b[6] & 0x0f) | 0x70;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
