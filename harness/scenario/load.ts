/**
 * Loads a scenario module and turns it into the engine's request builder: scenario.request(ctx)
 * -> a checked, origin-bound PreparedRequest.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Scenario, RequestSpec } from './types.ts';
import type { PreparedRequest } from '../engine/http.ts';
import type { ContextFactory } from './context.ts';
import { PlateauError, EXIT } from '../errors.ts';
import { verbatimPath } from './url-path.ts';

export async function loadScenario(file: string): Promise<Scenario> {
  const abs = path.resolve(file);
  if (!fs.existsSync(abs)) {
    throw new PlateauError(`scenario module ${abs} does not exist`, 'set `scenario` in the config (or --scenario) to a .ts file that default-exports defineScenario({...})', 'scenario-missing', EXIT.usage);
  }
  let mod: { default?: Scenario; scenario?: Scenario };
  try {
    mod = (await import(pathToFileURL(abs).href)) as typeof mod;
  } catch (err) {
    throw new PlateauError(`scenario module ${abs} failed to load: ${(err as Error)?.message ?? String(err)}`, 'fix the module so that importing it succeeds (a syntax error, or code at its top level that throws)', 'scenario-invalid', EXIT.usage);
  }
  const s = mod.default ?? mod.scenario;
  if (!s || typeof s.request !== 'function') {
    throw new PlateauError(`scenario module ${abs} exports no scenario with a request(ctx) function`, 'default-export defineScenario({ request(ctx) { return { method, url, headers, body } } })', 'scenario-invalid', EXIT.usage);
  }
  return s;
}

export type RequestBuilder = (seq: number) => PreparedRequest;

export function requestBuilder(scenario: Scenario, contexts: ContextFactory, targetUrl: string): RequestBuilder {
  const origin = new URL(targetUrl).origin;
  return (seq) => prepare(scenario.request(contexts(seq)), origin);
}

/** Checks what the scenario returned; a malformed request is the scenario's bug, named as such. */
export function prepare(spec: RequestSpec, origin: string): PreparedRequest {
  if (!spec || typeof spec !== 'object' || typeof spec.url !== 'string') {
    throw new Error(`request(ctx) must return { method?, url, headers?, body? }; got ${shapeOf(spec)}`);
  }
  const method = spec.method === undefined || spec.method === 'GET' ? 'GET' : checkedMethod(spec.method);
  const body = spec.body === undefined || spec.body === null ? null : Buffer.from(spec.body as string | Uint8Array);
  return { method, path: verbatimPath(spec.url, origin) ?? parsedPath(spec.url, origin), headers: { ...(spec.headers ?? {}) }, body };
}

function parsedPath(spec: string, origin: string): string {
  const url = new URL(spec, origin);
  if (url.origin !== origin) {
    throw new Error(`request(ctx) returned ${url.origin}, but the target is ${origin}: a run loads one origin`);
  }
  return url.pathname + url.search;
}

function checkedMethod(m: unknown): string {
  const method = String(m).toUpperCase();
  if (!/^[A-Z]+$/.test(method)) throw new Error(`request(ctx) returned method ${JSON.stringify(m)}`);
  return method;
}

/** What a malformed spec looked like, by its keys only: its values may hold secrets (a token header). */
function shapeOf(spec: unknown): string {
  if (spec === null || typeof spec !== 'object') return spec === null ? 'null' : typeof spec;
  const keys = Object.keys(spec);
  return `an object with ${keys.length ? `keys ${keys.slice(0, 8).join(', ')}` : 'no keys'} (url is ${typeof (spec as { url?: unknown }).url})`;
}
