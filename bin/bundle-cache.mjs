/**
 * Starts one of plateau's own TypeScript entries (the CLI, an engine worker) from a bundle that
 * esbuild keeps in node_modules/.cache/plateau, rebuilt whenever one of the files it was built
 * from changed (their sizes and mtimes are kept beside it). tsx compiles module by module through
 * a loader thread: about 0.7 s of every start here (docs/decisions/021). When the bundle cannot be
 * built or written (a read-only install), the entry runs through tsx as before: the same code.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CACHE = path.join(ROOT, 'node_modules', '.cache', 'plateau');
/** The stamp's format: a stamp of another format (an older builder's) is stale. */
const STAMP_FORMAT = 3;

/** Imports root/rel, from its bundle in cache when one is or can be made, else through tsx. */
export async function startEntry(rel, root = ROOT, cache = CACHE) {
  let url = null;
  try {
    url = await bundleFor(root, rel, cache);
  } catch {
    url = null;
  }
  if (url) {
    // stack traces of a bug point into the TypeScript sources (the bundle's linked source map)
    process.setSourceMapsEnabled(true);
    return import(url);
  }
  const { register } = await import('tsx/esm/api');
  register();
  return import(pathToFileURL(path.join(root, rel)).href);
}

/**
 * Builds root/rel's bundle now when it is stale, so that the engine's worker threads, started
 * together after an edit, find it fresh instead of each building it at once. Never throws: a
 * worker that finds no bundle runs through tsx.
 */
export async function prepareEntry(rel, root = ROOT, cache = CACHE) {
  try {
    await bundleFor(root, rel, cache);
  } catch {
    /* the entry falls back to tsx */
  }
}

/** The file URL of root/rel's bundle in cache, built first when missing or stale; throws when it cannot be. */
export async function bundleFor(root, rel, cache) {
  const name = rel.replace(/\.ts$/, '').replace(/[\\/]/g, '_');
  const out = path.join(cache, `${name}.mjs`);
  const stamp = path.join(cache, `${name}.inputs.json`);
  if (!fresh(stamp, out, root)) await build(root, path.join(root, rel), out, stamp);
  return pathToFileURL(out).href;
}

/**
 * The bundle exists, was built from this root (a node_modules shared by two checkouts holds one
 * cache for both), and every file it was built from has the size and mtime it had then.
 */
function fresh(stamp, out, root) {
  let inputs;
  try {
    inputs = JSON.parse(fs.readFileSync(stamp, 'utf8'));
    if (
      inputs.format !== STAMP_FORMAT ||
      inputs.node !== process.version ||
      inputs.root !== path.resolve(root) ||
      !fs.existsSync(out)
    )
      return false;
  } catch {
    return false;
  }
  for (const [file, size, mtimeMs] of inputs.files) {
    let st;
    try {
      st = fs.statSync(file);
    } catch {
      return false;
    }
    if (st.size !== size || st.mtimeMs !== mtimeMs) return false;
  }
  return true;
}

async function build(root, entry, out, stamp) {
  const esbuild = await import('esbuild');
  // A file edited while the build runs makes the next start rebuild (its stamp reads -1).
  const startedMs = Date.now() - 1;
  const r = await esbuild.build({
    entryPoints: [entry],
    absWorkingDir: root,
    outfile: out,
    bundle: true,
    write: false,
    metafile: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    sourcemap: 'linked',
    logLevel: 'silent',
    plugins: [ownLocation],
  });
  // besides the sources: this builder, esbuild's version, the compiler options and package.json
  const how = [
    fileURLToPath(import.meta.url),
    createRequire(import.meta.url).resolve('esbuild/package.json'),
    path.join(root, 'tsconfig.json'),
    path.join(root, 'package.json'),
  ];
  const read = new Set([
    ...Object.keys(r.metafile.inputs).map((f) => path.resolve(root, f)),
    ...how.filter((f) => fs.existsSync(f)),
  ]);
  const files = [...read].map((abs) => {
    const st = fs.statSync(abs);
    // a file saved while esbuild ran may be newer than what it read: stamp it stale
    return [abs, st.size, st.mtimeMs >= startedMs ? -1 : st.mtimeMs];
  });
  fs.mkdirSync(path.dirname(out), { recursive: true });
  // map, then code, then the stamp, each renamed into place whole: a start never reads half a file
  const byPath = new Map(r.outputFiles.map((f) => [f.path, f.contents]));
  for (const p of [`${out}.map`, out]) if (byPath.has(p)) writeWhole(p, byPath.get(p));
  writeWhole(stamp, JSON.stringify({ format: STAMP_FORMAT, node: process.version, root: path.resolve(root), files }));
}

function writeWhole(file, data) {
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  fs.writeFileSync(tmp, data);
  fs.renameSync(tmp, file);
}

const LOADERS = { '.ts': 'ts', '.mts': 'ts', '.cts': 'ts', '.tsx': 'tsx', '.jsx': 'jsx' };

/**
 * An esbuild plugin: import.meta.url, .filename and .dirname of every bundled source file (not
 * packages) stay that file's own, though the code runs from the cache or from memory. So workers.ts
 * finds worker-entry.mjs, the CLI finds the demo, and a scenario's helper in a subfolder that reads
 * new URL('./data.json', import.meta.url) finds its file. Shared with harness/config/evaluate.ts.
 */
export const ownLocation = {
  name: 'plateau-own-location',
  setup(b) {
    b.onLoad({ filter: /\.[cm]?[jt]sx?$/ }, async (a) => {
      if (a.namespace !== 'file' || a.path.split(path.sep).includes('node_modules')) return undefined;
      const text = await fs.promises.readFile(a.path, 'utf8');
      if (!/\bimport\.meta\.(url|filename|dirname)\b/.test(text)) return undefined;
      const own = { url: pathToFileURL(a.path).href, filename: a.path, dirname: path.dirname(a.path) };
      const contents = text.replace(/\bimport\.meta\.(url|filename|dirname)\b/g, (_m, k) => JSON.stringify(own[k]));
      return { contents, loader: LOADERS[path.extname(a.path)] ?? 'js' };
    });
  },
};
