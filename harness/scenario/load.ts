/**
 * Loads a scenario module and turns it into the engine's request builder: scenario.request(ctx)
 * -> a checked, origin-bound PreparedRequest.
 */
import path from 'node:path';
import type { Scenario, RequestSpec } from './types.ts';
import type { PreparedRequest } from '../engine/vu-connection.ts';
import { PlateauError, EXIT } from '../errors.ts';
import { bundleModule, dataUrl, statModuleFile, type ModuleKind } from '../config/evaluate.ts';
import { verbatimPath } from './url-path.ts';
import { scenarioProblems } from './traffic.ts';
import { ScenarioMistake } from './mistake.ts';
import { bodyProblem } from './body-kind.ts';
import { sentHeaders } from './header-values.ts';
import { isThenable } from './verdict.ts';
import { SCENARIO_SOURCE, scenarioBundleLoaded } from '../engine/thrown-by.ts';

function scenarioError(abs: string, cause: string, fix: string): PlateauError {
  return new PlateauError(`scenario module ${abs} ${cause}`, fix, 'scenario-invalid', EXIT.usage);
}

export const SCENARIO_MODULE: ModuleKind = {
  noun: 'scenario module',
  languages: 'TypeScript or JavaScript',
  defines: 'defineScenario({...}) (README, Scenarios)',
  error: scenarioError,
};

/**
 * Imports a scenario module wherever it is kept (with or without a package.json, CommonJS or ESM):
 * bundled like a config (bundleModule: 'plateau' is this harness, relative imports are compiled in,
 * packages come from the module's own node_modules), then imported as a module, since a scenario
 * holds functions. The main thread and every engine worker load it this way. Any failure is a
 * PlateauError (exit 2) naming the file, the cause in one line, and the fix.
 */
export async function loadScenario(file: string): Promise<Scenario> {
  const abs = path.resolve(file);
  checkScenarioPath(abs);
  const code = await bundleModule(abs, SCENARIO_MODULE);
  let mod: { default?: Scenario; scenario?: Scenario };
  try {
    // its frames read plateau-scenario:<path>:<the bundle's line>, which tell its errors from plateau's (thrown-by.ts)
    const url = dataUrl(code, SCENARIO_SOURCE + abs);
    scenarioBundleLoaded(url);
    mod = (await import(url)) as typeof mod;
  } catch (err) {
    throw scenarioError(
      abs,
      `failed to load: ${firstLine(err)}`,
      'fix the code at the top level of the scenario module (or in what it imports) so that importing it succeeds',
    );
  }
  const s = mod.default ?? mod.scenario;
  const problems = s && typeof s === 'object' ? scenarioProblems(s) : [];
  // The generic line only when it is the one problem: a misspelt `mixx` or `requets` is named first, with its fix
  if (
    !s ||
    typeof s !== 'object' ||
    (problems.length === 1 && typeof s.request !== 'function' && s.mix === undefined)
  ) {
    throw scenarioError(
      abs,
      'exports no scenario with a request(ctx) function or a mix',
      'default-export defineScenario({ request(ctx) { return { method, url, headers, body } } }) or defineScenario({ mix: { ... } })',
    );
  }
  if (problems.length > 0) {
    throw new PlateauError(
      `scenario module ${abs} has ${problems.length === 1 ? 'a problem' : `${problems.length} problems`}:\n  - ${problems.join('\n  - ')}`,
      'fix each of them in the scenario module; nothing was sent',
      'scenario-invalid',
      EXIT.usage,
    );
  }
  return s;
}

function checkScenarioPath(abs: string): void {
  const stat = statModuleFile(
    abs,
    SCENARIO_MODULE,
    () =>
      new PlateauError(
        `scenario module ${abs} does not exist`,
        'set `scenario` in the config (or --scenario) to a .ts file that default-exports defineScenario({...})',
        'scenario-missing',
        EXIT.usage,
      ),
  );
  if (!stat.isFile()) {
    throw scenarioError(
      abs,
      stat.isDirectory() ? 'is a directory, not a file' : 'is not a regular file',
      'set `scenario` (or --scenario) to the module itself, e.g. ./scenario.ts',
    );
  }
}

/** The first line of what was thrown: its message (what the scenario's author wrote), else the value. */
function firstLine(err: unknown): string {
  const text = err instanceof Error ? err.message || err.name : String(err);
  return text.split('\n')[0]!.trim();
}

/** Checks what the scenario returned; a malformed request is the scenario's bug, named as such. */
export function prepare(spec: RequestSpec, origin: string, what = 'request(ctx)'): PreparedRequest {
  if (isThenable(spec))
    throw new Error(
      `${what} returned a Promise: it runs synchronously and returns { method?, url, headers?, body? }; drop async, or make the entry a transaction, run(ctx, http), which may await`,
    );
  if (!spec || typeof spec !== 'object' || typeof spec.url !== 'string') {
    throw new Error(`${what} must return { method?, url, headers?, body? }; got ${shapeOf(spec)}`);
  }
  const method = spec.method === undefined || spec.method === 'GET' ? 'GET' : checkedMethod(spec.method);
  const body = spec.body === undefined || spec.body === null ? null : bodyBytes(spec.body, what);
  return {
    method,
    path: verbatimPath(spec.url, origin) ?? parsedPath(spec.url, origin, what),
    headers: sentHeaders(spec.headers, what),
    body,
    // one shape for every request (the engine's hot path): the builders set what they keep
    keepBodyBytes: 0,
    keepHeaders: undefined,
  };
}

/**
 * A body as the bytes sent: a string (UTF-8) or a Uint8Array (a Buffer) as RequestSpec has it.
 * Anything else is refused with the fix: Buffer.from would throw Node's own words for an object,
 * and make zeros of an array of objects.
 */
function bodyBytes(body: unknown, what: string): Buffer {
  const bad = bodyProblem(body, what);
  if (bad !== null) throw new Error(bad);
  return Buffer.from(body as string | Uint8Array);
}

function parsedPath(spec: string, origin: string, what: string): string {
  const url = new URL(spec, origin);
  if (url.origin !== origin) {
    throw new ScenarioMistake(
      `${what} returned ${url.origin}, but the target is ${origin}: a run loads one origin`,
      `give the request a path ('/orders', resolved against the target) or a URL of ${origin}; to load ${url.origin}, make it the target (target.url or --target)`,
    );
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
