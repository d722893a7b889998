/**
 * Reads plateau.config.ts (any .ts, .js, .mjs, .cjs or .json file whose default export is the
 * config, in any folder), lays the CLI's flags over it, and validates the result.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PlateauError, EXIT } from '../errors.ts';
import { CONFIG_MODULE, configError, evaluateConfig, oneLine, statModuleFile } from './evaluate.ts';
import type { PlateauConfig } from './schema.ts';
import { parseConfigOrThrow } from './validate.ts';
import { Given } from './given.ts';
import { CONFIG_FLAGS, overrideKey, type OverrideKey } from '../cli/flags.ts';

/**
 * The flags' values laid over the config file, keyed by flag name in camelCase (`maxRate` for
 * --max-rate); which field each sets is the flag table's (cli/flags.ts) `config.path`.
 */
export type Overrides = Partial<Record<OverrideKey, unknown>>;

/** Extensions a config file may have: esbuild reads each of them, whatever the folder's package.json says. */
const CONFIG_EXTENSIONS = ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs', '.json'];

/**
 * Reads a config file and returns its default export as plain data. Any failure (missing file, a
 * directory, a syntax error, an import that does not resolve, code that throws, a value that is not
 * data) is a PlateauError naming the file, the cause and the fix.
 */
export async function readConfigFile(file: string | undefined): Promise<Record<string, unknown>> {
  const candidate = file ?? (fs.existsSync('plateau.config.ts') ? 'plateau.config.ts' : undefined);
  if (!candidate) return {};
  const abs = path.resolve(candidate);
  checkConfigPath(abs);
  const mod = await evaluateConfig(abs);
  const value = mod.default;
  if (value === undefined) {
    throw configError(
      abs,
      'has no default export',
      'end it with `export default defineConfig({ ... })` (a .json file: one object)',
    );
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw configError(
      abs,
      `default-exports ${describeValue(value)}, not an object`,
      'export the config object itself: `export default defineConfig({ target: { url }, steps: { ... } })`',
    );
  }
  const bad = firstNonData(value, '');
  if (bad) {
    throw configError(
      abs,
      `holds ${bad.what} at ${bad.at || '(config)'}; a config is data only (numbers, strings, booleans, arrays, objects)`,
      "replace it with a plain value (request-building code belongs in a scenario module: `scenario: './scenario.ts'`)",
    );
  }
  try {
    return structuredClone(value) as Record<string, unknown>;
  } catch (err) {
    throw configError(
      abs,
      `could not be copied as data: ${oneLine(err)}`,
      'keep to plain values: numbers, strings, booleans, arrays and objects',
    );
  }
}

function checkConfigPath(abs: string): void {
  const stat = statModuleFile(
    abs,
    CONFIG_MODULE,
    () =>
      new PlateauError(
        `config file ${abs} does not exist`,
        'pass --config path/to/plateau.config.ts, or run from the directory that holds it',
        'config-missing',
        EXIT.usage,
      ),
  );
  if (stat.isDirectory()) {
    const inside = ['plateau.config.ts', 'plateau.config.mjs', 'plateau.config.js', 'plateau.config.json']
      .map((f) => path.join(abs, f))
      .find((f) => fs.existsSync(f));
    throw configError(
      abs,
      'is a directory, not a file',
      inside
        ? `pass the file itself: --config ${inside}`
        : 'pass the config file itself, e.g. --config path/to/plateau.config.ts',
    );
  }
  if (!stat.isFile())
    throw configError(
      abs,
      'is not a regular file',
      'pass the config file itself, e.g. --config path/to/plateau.config.ts',
    );
  const ext = path.extname(abs).toLowerCase();
  if (!CONFIG_EXTENSIONS.includes(ext)) {
    throw configError(
      abs,
      `has the extension "${ext || '(none)'}", which plateau does not read`,
      `write the config as ${CONFIG_EXTENSIONS.join(', ')} (e.g. plateau.config.ts with \`export default defineConfig({ ... })\`)`,
    );
  }
  try {
    fs.accessSync(abs, fs.constants.R_OK);
  } catch (err) {
    throw configError(abs, `cannot be read: ${oneLine(err)}`, 'give the user running plateau read access to it');
  }
}

function describeValue(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'function') return 'a function';
  return `a ${typeof v}`;
}

/** The first value structuredClone would refuse or zod could never accept, with its path. */
function firstNonData(v: unknown, at: string, seen = new Set<object>()): { what: string; at: string } | undefined {
  if (typeof v === 'function') return { what: 'a function', at };
  if (typeof v === 'symbol') return { what: 'a symbol', at };
  if (v === null || typeof v !== 'object' || seen.has(v)) return undefined;
  seen.add(v);
  const proto = Object.getPrototypeOf(v) as unknown;
  if (Array.isArray(v) || proto === Object.prototype || proto === null) {
    for (const [k, x] of Object.entries(v)) {
      const bad = firstNonData(x, Array.isArray(v) ? `${at}[${k}]` : at ? `${at}.${k}` : k, seen);
      if (bad) return bad;
    }
    return undefined;
  }
  try {
    structuredClone(v);
    return undefined;
  } catch {
    return { what: `a ${(v as object).constructor?.name ?? 'non-plain'} object`, at };
  }
}

type Obj = Record<string, unknown>;
const sub = (o: Obj, k: string): Obj => (o[k] ??= {}) as Obj;

/** Sets only the flags that were given, each at its field in the flag table; the rest of the file stays as it is. */
export function applyOverrides(raw: Obj, o: Overrides): Obj {
  const c: Obj = structuredClone(raw);
  for (const f of CONFIG_FLAGS) {
    const v = (o as Record<string, unknown>)[overrideKey(f.name)];
    if (v === undefined) continue;
    const keys = f.config.path.split('.');
    const last = keys.pop()!;
    keys.reduce(sub, c)[last] = v;
  }
  return c;
}

/**
 * The config file with the flags laid over it, validated. `typed`: the overrides the user typed
 * (all of `overrides` by default; not the demo's own target): a problem in a field one of them set
 * is said in the flag's words (config/given.ts).
 */
export async function loadConfig(
  file: string | undefined,
  overrides: Overrides,
  adjust: (raw: Obj) => Obj = (r) => r,
  typed: Overrides = overrides,
): Promise<PlateauConfig> {
  const raw = await readConfigFile(file);
  const config = parseConfigOrThrow(adjust(applyOverrides(raw, overrides)), {
    file: file ?? 'plateau.config.ts',
    given: Given.of(typed),
  });
  if (overrides.scenario === undefined) refuseScenarioBesideConfig(file, config.scenario);
  return config;
}

/**
 * A config's relative `scenario` is resolved from the working directory, as every path plateau is
 * given (docs/config.md). Where that finds nothing but the same path beside a config file in
 * another folder does, the user meant that one: said at once, with both paths, not as a missing file.
 */
export function refuseScenarioBesideConfig(file: string | undefined, scenario: string | undefined): void {
  if (file === undefined || scenario === undefined || path.isAbsolute(scenario)) return;
  const fromCwd = path.resolve(scenario);
  const besideConfig = path.resolve(path.dirname(path.resolve(file)), scenario);
  if (fromCwd === besideConfig || fs.existsSync(fromCwd) || !fs.existsSync(besideConfig)) return;
  throw new PlateauError(
    `scenario ${JSON.stringify(scenario)} of ${file} is resolved from the working directory (${process.cwd()}), to ${fromCwd}, which does not exist; ${besideConfig}, beside the config, does`,
    `run plateau from ${path.dirname(path.resolve(file))}, or set \`scenario\` in ${file} to a path from the working directory (${path.relative(process.cwd(), besideConfig)}) or an absolute one`,
    'scenario-missing',
    EXIT.usage,
  );
}
