/**
 * Bundles a user's module file (a config, a scenario) whatever its folder: esbuild compiles it (and
 * its relative imports) into one ES module, with 'plateau' bound to this harness's public API.
 * Configs are imported from memory; every failure is a PlateauError naming the file, the cause and
 * the fix.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type * as esbuild from 'esbuild';
import { PlateauError, EXIT } from '../errors.ts';
import { ownLocation } from '../../bin/bundle-cache.mjs';
import { refusedWarnings } from './refused-warnings.ts';
import { where } from './esbuild-location.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** What `import ... from 'plateau'` means in a config or scenario, wherever it lives. */
const PUBLIC_API = path.resolve(HERE, '../public.ts');

export function configError(abs: string, cause: string, fix: string): PlateauError {
  return new PlateauError(`config file ${abs} ${cause}`, fix, 'config-invalid', EXIT.usage);
}

/** What a bundled file is, for its error messages. */
export interface ModuleKind {
  /** How messages name it: "config", "scenario module". */
  noun: string;
  /** What it must compile as, for the fix of a compile error. */
  languages: string;
  /** What such a file is, for the fix of one that imports k6's own modules: "defineConfig({...}) (docs/config.md)". */
  defines: string;
  /** The PlateauError for a failure: "<kind> <abs> <cause>", with the fix. */
  error(abs: string, cause: string, fix: string): PlateauError;
}

export const CONFIG_MODULE: ModuleKind = {
  noun: 'config',
  languages: 'TypeScript, JavaScript or JSON',
  defines: 'defineConfig({...}) (docs/config.md)',
  error: configError,
};

/**
 * The stat of a user's module file; `missing` is the error for a path that does not exist (it
 * says where the path was set), any other failure to stat is kind.error naming the cause.
 */
export function statModuleFile(abs: string, kind: ModuleKind, missing: () => PlateauError): fs.Stats {
  try {
    return fs.statSync(abs);
  } catch (err) {
    if ((err as NodeJS.ErrnoException)?.code === 'ENOENT') throw missing();
    throw kind.error(
      abs,
      `cannot be read: ${oneLine(err)}`,
      `pass a ${kind.noun} plateau may read (check the path and its permissions)`,
    );
  }
}

/**
 * Compiles a module file with esbuild into the code of one ES module that runs the same from memory
 * or from any file. Node alone would pick CommonJS or ESM from the nearest package.json (a .ts file
 * outside an ESM package then fails as a require() cycle) and resolve 'plateau' only inside this
 * repository; here the file's own code (and its relative imports) is bundled whatever the folder,
 * 'plateau' is this harness's public API, packages from the file's node_modules are imported from
 * where they are, and import.meta.url, __dirname and require() are those of the file itself.
 * A compile error is kind.error(...) with its line:column, and so is code that esbuild is sure does
 * other than it says (refused-warnings.ts: a repeated key, a repeated case, x === NaN ...).
 */
export async function bundleModule(abs: string, kind: ModuleKind = CONFIG_MODULE): Promise<string> {
  const out = await compile(abs, kind);
  const refused = refusedWarnings(out.warnings, abs, path.dirname(abs), kind.error);
  if (refused) throw refused;
  return out.outputFiles[0]!.text;
}

/**
 * The files of the module's own code that its bundle compiles in, absolute: the file and what it
 * imports by relative path; not 'plateau' (this harness) nor the packages, which are imported from
 * where they are. What a digest of the code reads (harness/scenario/digest.ts).
 */
export async function moduleInputs(abs: string, kind: ModuleKind): Promise<string[]> {
  const out = await compile(abs, kind, true);
  const harness = path.dirname(PUBLIC_API);
  const analysis = path.resolve(harness, '../analysis');
  return Object.keys(out.metafile?.inputs ?? {})
    .map((f) => path.resolve(path.dirname(abs), f))
    .filter((f) => ![harness, analysis].some((dir) => f.startsWith(`${dir}${path.sep}`)));
}

/** esbuild's build of the file, warnings and all; a compile error is kind.error(...) with its line:column. */
async function compile(
  abs: string,
  kind: ModuleKind,
  /** Say which files it read (moduleInputs). */
  metafile = false,
): Promise<esbuild.BuildResult & { outputFiles: esbuild.OutputFile[] }> {
  const url = pathToFileURL(abs).href;
  try {
    // loaded here, not by every module that imports this one: an engine thread with no scenario
    // never needs it (about 90 ms of CPU at its start)
    const { build } = await import('esbuild');
    return await build({
      entryPoints: [abs],
      metafile,
      absWorkingDir: path.dirname(abs),
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      logLevel: 'silent',
      sourcemap: false,
      // import.meta.* is each file's own (ownLocation); a CommonJS __dirname is the entry's.
      define: {
        __filename: JSON.stringify(abs),
        __dirname: JSON.stringify(path.dirname(abs)),
      },
      // A dynamic require() in the file resolves from the file's folder.
      banner: {
        js: `import { createRequire as __plateauCreateRequire } from 'node:module'; const require = __plateauCreateRequire(${JSON.stringify(url)});`,
      },
      plugins: [resolvePackages, ownLocation],
    });
  } catch (err) {
    const first = (err as { errors?: esbuild.Message[] })?.errors?.[0];
    const k6 = first ? k6Import(first) : null;
    if (first && k6) throw kind.error(abs, k6Cause(k6, first, abs), k6Fix(kind));
    if (first) throw kind.error(abs, `cannot be compiled: ${formatMessage(first, abs)}`, fixFor(first, kind));
    throw kind.error(
      abs,
      `cannot be compiled: ${oneLine(err)}`,
      `fix the file so that it compiles as ${kind.languages}`,
    );
  }
}

/** A URL that imports the bundle's code from memory; with `sourceUrl`, the name its stack frames carry. */
export function dataUrl(code: string, sourceUrl?: string): string {
  const named = sourceUrl === undefined ? code : `${code}\n//# sourceURL=${sourceUrl}`;
  return `data:text/javascript;base64,${Buffer.from(named).toString('base64')}`;
}

/** Compiles the config (bundleModule) and imports it from memory. */
export async function evaluateConfig(abs: string): Promise<{ default?: unknown }> {
  const code = await bundleModule(abs, CONFIG_MODULE);
  try {
    return (await import(dataUrl(code))) as { default?: unknown };
  } catch (err) {
    throw configError(
      abs,
      `threw while loading: ${oneLine(err)}`,
      'fix the code at the top level of the config (or in what it imports) so that importing it succeeds',
    );
  }
}

/** 'plateau' is bundled from this harness; any other package is imported from the node_modules it resolves to. */
const resolvePackages: esbuild.Plugin = {
  name: 'plateau-module',
  setup(build) {
    build.onResolve({ filter: /^plateau$/ }, () => ({ path: PUBLIC_API }));
    build.onResolve({ filter: /^[^./]/ }, async (a) => {
      if (a.pluginData === 'plateau-module' || a.path.startsWith('node:') || /^[a-zA-Z]:[\\/]/.test(a.path))
        return undefined;
      const r = await build.resolve(a.path, {
        kind: a.kind,
        resolveDir: a.resolveDir,
        importer: a.importer,
        pluginData: 'plateau-module',
      });
      if (r.errors.length > 0) return { errors: r.errors };
      if (r.external || !r.path.split(path.sep).includes('node_modules')) return r;
      // From a module held in memory, only an absolute URL (import) or path (require) resolves.
      return {
        path: a.kind === 'require-call' || a.kind === 'require-resolve' ? r.path : pathToFileURL(r.path).href,
        external: true,
      };
    });
  },
};

/** "line 3:14: <text>" in the file itself, "<path>:3:14: <text>" in a file it imports. */
function formatMessage(m: esbuild.Message, abs: string): string {
  return m.location ? `${where(m.location, abs, path.dirname(abs))}: ${m.text}` : m.text;
}

/**
 * The module an unresolved import names when it is one of k6's own (k6, k6/http, k6/metrics ...,
 * or a jslib.k6.io URL): a k6 script given as a scenario. The generic fix had said to npm install
 * k6/http, which exists only inside k6.
 */
function k6Import(m: esbuild.Message): string | null {
  const spec = /^Could not resolve "([^"]+)"/.exec(m.text)?.[1];
  return spec !== undefined && /^(k6(\/|$)|https?:\/\/jslib\.k6\.io\/)/.test(spec) ? spec : null;
}

function k6Cause(spec: string, m: esbuild.Message, abs: string): string {
  const at = m.location ? ` (${where(m.location, abs, path.dirname(abs))})` : '';
  return `imports "${spec}"${at}: ${spec} is k6's own module, which runs only inside k6`;
}

function k6Fix(kind: ModuleKind): string {
  return `a plateau ${kind.noun === 'config' ? 'config' : 'scenario'} is ${kind.defines}, which imports no k6 module; to get plateau's reports from an existing k6 script, run it with k6 (--out json=out.json) and use plateau import k6 out.json`;
}

function fixFor(m: esbuild.Message, kind: ModuleKind): string {
  const missing = /^Could not resolve "([^"]+)"/.exec(m.text);
  if (missing) {
    const spec = missing[1]!;
    return spec.startsWith('.') || spec.startsWith('/')
      ? `fix the import of "${spec}": the path is relative to the file that imports it`
      : `install "${spec}" where the ${kind.noun} can find it (npm install ${spec} in the ${kind.noun}'s folder or a parent), or remove the import`;
  }
  return `fix the error at that line (the ${kind.noun} must compile as ${kind.languages})`;
}

export function oneLine(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return text.split('\n')[0]!.trim();
}
