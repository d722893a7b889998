/**
 * esbuild bundles the portable scenario and its k6 runtime into one k6 script: an ES module with
 * `k6` and `k6/*` left as imports, syntax lowered to ES2017 (k6 before v0.53 parses a script through Babel 6, which knows no
 * `?.`, `??` or object spread; async functions it runs natively from v0.43),
 * `options` from the plan, and the run's constants (run id, id prefix, origin, the data sources'
 * paths: absolute when plateau runs the script, relative to it when k6-script writes it for the user). The ids' key is plateau's own run's when plateau runs the script; a script
 * written for the user (k6-script) holds none and exports a setup() that derives one when k6
 * starts (runtime/ids.ts). Secrets are never in it: the runtime reads them from __ENV when k6 runs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { PlateauError, EXIT } from '../../errors.ts';
import { loadScenario } from '../../scenario/load.ts';
import type { Scenario } from '../../scenario/types.ts';
import { sampleRowsKept, trafficOf } from '../../scenario/traffic.ts';
import type { K6Options } from './options.ts';
import { DEFAULT_MAX_BODY_BYTES, type RuntimeConfig, type RuntimeData } from '../runtime/config.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../../..');
const RUNTIME = path.join(HERE, '../runtime/iteration.ts');
const SHIM = path.join(HERE, '../runtime/plateau-shim.ts');

/** The run's constants; bundleK6Script fills in the data sources (from the scenario) and the body limit's default. */
export type RuntimeInput = Omit<RuntimeConfig, 'data' | 'maxBodyBytes'> &
  Partial<Pick<RuntimeConfig, 'data' | 'maxBodyBytes'>>;

export interface BundleInput {
  /** Scenario module path; null for the default scenario (GET on the target URL). */
  scenarioPath: string | null;
  /** The scenario loaded from scenarioPath, for its data sources; loaded here when absent. */
  scenario?: Scenario;
  targetUrl: string;
  options: K6Options;
  runtime: RuntimeInput;
}

/**
 * The scenario's data sources as k6 opens them: each path resolved beside the scenario module and
 * made absolute, since k6's open() resolves a relative one beside the generated script. A missing
 * file is refused here, before k6 starts; its content is checked where it is parsed.
 */
export function runtimeData(scenario: Scenario, scenarioPath: string): Record<string, RuntimeData> {
  const dir = path.dirname(path.resolve(scenarioPath));
  const out: Record<string, RuntimeData> = {};
  // the rows a unique source keeps for preflight's sample arrivals, as loadDataSources counts them natively
  const keptRows = sampleRowsKept(trafficOf(scenario));
  for (const [name, src] of Object.entries(scenario.data ?? {})) {
    const kind = 'csv' in src ? 'csv' : 'json';
    const file = path.resolve(dir, 'csv' in src ? src.csv : src.json);
    if (!fs.statSync(file, { throwIfNoEntry: false })?.isFile()) {
      throw new PlateauError(
        `data source "${name}" of ${rel(path.resolve(scenarioPath))}: ${file} is not a file`,
        `create it, or set \`${kind}\` to a path relative to the scenario module's folder (${dir})`,
        'k6-data-missing',
        EXIT.preflight,
      );
    }
    const order = src.order ?? 'sequential';
    out[name] = {
      path: file,
      kind,
      order,
      keptRows,
      ...(order === 'unique' && src.readBy ? { readBy: src.readBy } : {}),
      ...(order === 'random' && src.seed !== undefined ? { seed: src.seed } : {}),
    };
  }
  return out;
}

/**
 * `data` with each path as k6 opens it from a script in `scriptDir`: relative, with forward slashes
 * (k6-script's, so that the script and its files move together; plateau's own runs keep them absolute).
 */
export function dataBeside(data: Record<string, RuntimeData>, scriptDir: string): Record<string, RuntimeData> {
  const out: Record<string, RuntimeData> = {};
  for (const [name, src] of Object.entries(data)) {
    const r = path.relative(scriptDir, src.path);
    // another drive (Windows) has no relative path: the absolute one stays
    const posix = r.split(path.sep).join('/');
    out[name] = { ...src, path: path.isAbsolute(r) ? src.path : posix.startsWith('../') ? posix : `./${posix}` };
  }
  return out;
}

async function runtimeOf(b: BundleInput): Promise<RuntimeConfig> {
  const maxBodyBytes = b.runtime.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (b.runtime.data || !b.scenarioPath) return { ...b.runtime, maxBodyBytes, data: b.runtime.data ?? {} };
  const scenario = b.scenario ?? (await loadScenario(b.scenarioPath));
  return { ...b.runtime, maxBodyBytes, data: runtimeData(scenario, b.scenarioPath) };
}

/** Repo-relative import specifier, so the bundle's path comments do not depend on the machine. */
function rel(p: string): string {
  const r = path.relative(ROOT, p).split(path.sep).join('/');
  return r.startsWith('.') ? r : `./${r}`;
}

/** A URL's path and query ("/orders?x=1"): what the default scenario asks of the origin. */
function pathOf(url: string): string {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
}

function entry(b: BundleInput, runtime: RuntimeConfig): string {
  const scenario = b.scenarioPath
    ? `import scenario from ${JSON.stringify(rel(path.resolve(b.scenarioPath)))};`
    : // the target's path and query, sent to the run's origin (a written script's may be PLATEAU_TARGET's: runtime/target.ts)
      `const scenario = { name: 'default', request: () => ({ method: 'GET', url: ${JSON.stringify(pathOf(b.targetUrl))} }) };`;
  // a script written for the user derives its ids in setup(), once per k6 run (runtime/ids.ts)
  const atStart = runtime.idsAtStart !== undefined;
  return [
    scenario,
    `import { iteration${atStart ? ', setupIds' : ''} } from ${JSON.stringify(rel(RUNTIME))};`,
    `export const options = ${JSON.stringify(b.options, null, 2)};`,
    `const config = ${JSON.stringify(runtime, null, 2)};`,
    ...(atStart ? ['export function setup() { return setupIds(config); }'] : []),
    'export default iteration(scenario, config);',
    '',
  ].join('\n');
}

/** Resolves 'plateau' to the shim and refuses Node built-ins with the fix. */
const k6Safe: esbuild.Plugin = {
  name: 'plateau-k6',
  setup(build) {
    build.onResolve({ filter: /^plateau$/ }, () => ({ path: SHIM }));
    build.onResolve(
      { filter: /^node:|^(fs|path|crypto|os|http|https|net|child_process|util|buffer|stream|url)$/ },
      (a) => ({
        errors: [
          {
            text: `${a.importer} imports ${a.path}; k6 runs no Node APIs: build requests from ctx only (ctx.hmacSha256, ctx.uniqueId, ctx.env)`,
          },
        ],
      }),
    );
  },
};

export async function bundleK6Script(b: BundleInput): Promise<string> {
  const runtime = await runtimeOf(b);
  let out: esbuild.BuildResult & { outputFiles: esbuild.OutputFile[] };
  try {
    out = await esbuild.build({
      stdin: { contents: entry(b, runtime), resolveDir: ROOT, sourcefile: 'plateau-k6-entry.js', loader: 'js' },
      absWorkingDir: ROOT,
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'neutral',
      mainFields: ['module', 'main'],
      target: 'es2017',
      external: ['k6', 'k6/*'],
      plugins: [k6Safe],
      legalComments: 'none',
      logLevel: 'silent',
      banner: {
        js: `// k6 script generated by plateau from ${b.scenarioPath ? rel(path.resolve(b.scenarioPath)) : 'the default scenario'}; ${b.runtime.idsAtStart ? `ids of each k6 run its own (setup(); PLATEAU_RUN_ID names the run${b.runtime.idsAtStart.runId === undefined ? '' : `, else ${b.runtime.idsAtStart.runId}`})` : `run id ${b.runtime.runId}`}.\n// Secrets are read from the environment (__ENV) when k6 runs; none is written here.`,
      },
    });
  } catch (err) {
    const msgs = ((err as esbuild.BuildFailure).errors ?? []).map((e) => e.text).join('; ');
    throw new PlateauError(
      `cannot bundle the scenario for k6: ${msgs || (err as Error).message}`,
      'fix the scenario module so that it imports only plateau (defineScenario) and plain TypeScript/JavaScript',
      'k6-bundle-failed',
      EXIT.preflight,
    );
  }
  return out.outputFiles[0].text;
}
