/**
 * The portable scenario: a module that builds requests; the engine sends them. The same file is
 * meant to run on every engine, so it sees only this context, never the engine.
 */

export interface RequestSpec {
  method?: string;
  /** Absolute, or a path resolved against the target's origin. */
  url: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
}

export interface ResponseInfo {
  status: number;
  headers: Record<string, string | string[] | undefined>;
}

export type IdFormat = 'seq' | 'uuidv4' | 'uuidv7';

export interface ScenarioContext {
  /** Fresh for every run: ids built from it never collide with an earlier run's. */
  readonly runId: string;
  /** Global iteration number, 1-based, unique across workers. */
  readonly seq: number;
  /** `${ids.prefix}${runId}-${seq}` by default; a UUID when asked. */
  uniqueId(format?: IdFormat): string;
  /** A business object index in [0, keySpace): spreads load over many rows (default 100,000). */
  pick(keySpace?: number): number;
  /** Hex HMAC-SHA256 of the exact bytes given, keyed by the named environment variable. */
  hmacSha256(secretEnvName: string, body: string | Uint8Array): string;
  /** Environment values (read from the process environment; never written to any output). */
  readonly env: Readonly<Record<string, string | undefined>>;
}

export interface Scenario {
  name?: string;
  ids?: {
    prefix?: string;
    /** Length of the target's strictest id column: preflight refuses a run whose ids would exceed it. */
    maxLength?: number;
  };
  /** Environment variables the scenario needs (secrets): preflight fails when one is missing. */
  secrets?: string[];
  request(ctx: ScenarioContext): RequestSpec;
  /** Return true to accept, false or a message to count the response as a failed check. */
  check?(response: ResponseInfo): boolean | string;
}

export function defineScenario(s: Scenario): Scenario {
  return s;
}
