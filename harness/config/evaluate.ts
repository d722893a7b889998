/**
 * Evaluates a config file whatever its folder: esbuild compiles it (and its relative imports) into
 * one ES module that is imported from memory, with 'plateau' bound to this harness's public API.
 * Every failure is a PlateauError naming the file, the cause and the fix.
 */
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { PlateauError, EXIT } from '../errors.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** What `import ... from 'plateau'` means in a config, wherever the config lives. */
const PUBLIC_API = path.resolve(HERE, '../public.ts');

export function configError(abs: string, cause: string, fix: string): PlateauError {
  return new PlateauError(`config file ${abs} ${cause}`, fix, 'config-invalid', EXIT.usage);
}

/**
 * Compiles the config with esbuild into one ES module and imports it from memory. Node alone would
 * pick CommonJS or ESM from the nearest package.json (a .ts config outside an ESM package then fails
 * as a require() cycle) and resolve 'plateau' only inside this repository; here the file's own
 * code (and its relative imports) is bundled whatever the folder, 'plateau' is this harness's
 * public API, and packages from the config's node_modules are imported from where they are.
 */
export async function evaluateConfig(abs: string): Promise<{ default?: unknown }> {
  const url = pathToFileURL(abs).href;
  let code: string;
  try {
    const out = await esbuild.build({
      entryPoints: [abs],
      absWorkingDir: path.dirname(abs),
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      logLevel: 'silent',
      sourcemap: false,
      // The config's own location, as if it ran from its file (the bundle runs from memory).
      define: {
        'import.meta.url': JSON.stringify(url),
        'import.meta.filename': JSON.stringify(abs),
        'import.meta.dirname': JSON.stringify(path.dirname(abs)),
        __filename: JSON.stringify(abs),
        __dirname: JSON.stringify(path.dirname(abs)),
      },
      // A dynamic require() in the config resolves from the config's folder.
      banner: { js: `import { createRequire as __plateauCreateRequire } from 'node:module'; const require = __plateauCreateRequire(${JSON.stringify(url)});` },
      plugins: [resolvePackages],
    });
    code = out.outputFiles[0]!.text;
  } catch (err) {
    const first = (err as { errors?: esbuild.Message[] })?.errors?.[0];
    if (first) throw configError(abs, `cannot be compiled: ${formatMessage(first, abs)}`, fixFor(first));
    throw configError(abs, `cannot be compiled: ${oneLine(err)}`, 'fix the file so that it compiles as TypeScript, JavaScript or JSON');
  }
  try {
    return (await import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`)) as { default?: unknown };
  } catch (err) {
    throw configError(abs, `threw while loading: ${oneLine(err)}`, 'fix the code at the top level of the config (or in what it imports) so that importing it succeeds');
  }
}

/** 'plateau' is bundled from this harness; any other package is imported from the node_modules it resolves to. */
const resolvePackages: esbuild.Plugin = {
  name: 'plateau-config',
  setup(build) {
    build.onResolve({ filter: /^plateau$/ }, () => ({ path: PUBLIC_API }));
    build.onResolve({ filter: /^[^./]/ }, async (a) => {
      if (a.pluginData === 'plateau-config' || a.path.startsWith('node:') || /^[a-zA-Z]:[\\/]/.test(a.path)) return undefined;
      const r = await build.resolve(a.path, { kind: a.kind, resolveDir: a.resolveDir, importer: a.importer, pluginData: 'plateau-config' });
      if (r.errors.length > 0) return { errors: r.errors };
      if (r.external || !r.path.split(path.sep).includes('node_modules')) return r;
      // From a module held in memory, only an absolute URL (import) or path (require) resolves.
      return { path: a.kind === 'require-call' || a.kind === 'require-resolve' ? r.path : pathToFileURL(r.path).href, external: true };
    });
  },
};

/** "line 3:14: <text>" in the config itself, "<path>:3:14: <text>" in a file it imports. */
function formatMessage(m: esbuild.Message, abs: string): string {
  const loc = m.location;
  if (!loc) return m.text;
  const file = path.resolve(path.dirname(abs), loc.file);
  return `${file === abs ? 'line ' : `${file}:`}${loc.line}:${loc.column + 1}: ${m.text}`;
}

function fixFor(m: esbuild.Message): string {
  const missing = /^Could not resolve "([^"]+)"/.exec(m.text);
  if (missing) {
    const spec = missing[1]!;
    return spec.startsWith('.') || spec.startsWith('/')
      ? `fix the import of "${spec}": the path is relative to the file that imports it`
      : `install "${spec}" where the config can find it (npm install ${spec} in the config's folder or a parent), or remove the import`;
  }
  return 'fix the error at that line (the config must compile as TypeScript, JavaScript or JSON)';
}

export function oneLine(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return text.split('\n')[0]!.trim();
}
