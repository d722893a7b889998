import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleFor, prepareEntry } from '../bin/bundle-cache.mjs';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'plateau-bundle-'));
const cache = path.join(root, 'cache');
let written = 0;
const write = (rel: string, text: string) => {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), text);
  // dated before the build that reads it (each write a second apart, so an edit always shows): a
  // source as new as the build's start is stamped stale, which a fast run (the same millisecond) hits
  const at = new Date(Date.now() - 600_000 + ++written * 1000);
  fs.utimesSync(path.join(root, rel), at, at);
};
let loads = 0;
const load = async () =>
  (await import(`${await bundleFor(root, 'entry.ts', cache)}?n=${++loads}`)) as { value: number; at: string };
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('bin/bundle-cache.mjs', () => {
  it("bundles an entry with each file's own import.meta.url, reuses it, and rebuilds when a source changes", async () => {
    write(
      'entry.ts',
      "import { where } from './lib/where.ts';\nexport const value: number = 1;\nexport const at = where;\n",
    );
    write('lib/where.ts', 'export const where: string = import.meta.url;\n');
    const first = await load();
    expect(first).toMatchObject({ value: 1, at: pathToFileURL(path.join(root, 'lib/where.ts')).href });
    const stamp = path.join(cache, 'entry.inputs.json');
    // the stamp's own mtime is not what staleness reads (its inputs' are): backdate it, so a rebuild within the same millisecond still shows
    const backdate = () => {
      const past = new Date(Date.now() - 60_000);
      fs.utimesSync(stamp, past, past);
    };
    backdate();
    const builtAt = fs.statSync(stamp).mtimeMs;
    expect((await load()).value).toBe(1);
    expect(fs.statSync(stamp).mtimeMs).toBe(builtAt);
    // an edit of an imported file, not only of the entry, is seen
    write('lib/where.ts', "export const where: string = 'moved';\n");
    expect((await load()).at).toBe('moved');
    write(
      'entry.ts',
      "import { where } from './lib/where.ts';\nexport const value: number = 22;\nexport const at = where;\n",
    );
    expect((await load()).value).toBe(22);
  });

  it('keeps import.meta.filename and .dirname their own too, and compiles .mts as TypeScript', async () => {
    write(
      'meta.ts',
      "import { dir } from './lib/dir.mts';\nexport const value: number = 3;\nexport const at = `${dir}|${import.meta.filename}`;\n",
    );
    write('lib/dir.mts', 'export const dir: string = import.meta.dirname;\n');
    const m = (await import(`${await bundleFor(root, 'meta.ts', cache)}?n=${++loads}`)) as { at: string };
    expect(m.at).toBe(`${path.join(root, 'lib')}|${path.join(root, 'meta.ts')}`);
  });

  it("stamps the builder, esbuild's package.json and tsconfig.json once each, and rebuilds when tsconfig.json or the stamp's format changed", async () => {
    write('tsconfig.json', '{}\n');
    write('entry.ts', 'export const value: number = 5;\nexport const at = "";\n');
    await load();
    const stamp = path.join(cache, 'entry.inputs.json');
    const files = (JSON.parse(fs.readFileSync(stamp, 'utf8')) as { files: [string][] }).files.map((f) => f[0]);
    expect(files).toEqual(
      expect.arrayContaining([
        path.resolve('bin/bundle-cache.mjs'),
        path.join(root, 'tsconfig.json'),
        expect.stringMatching(/esbuild[\\/]package\.json$/),
      ]),
    );
    expect(new Set(files).size).toBe(files.length);
    // the stamp's own mtime is not what staleness reads (its inputs' are): backdate it, so a rebuild within the same millisecond still shows
    const backdate = () => {
      const past = new Date(Date.now() - 60_000);
      fs.utimesSync(stamp, past, past);
    };
    backdate();
    const builtAt = fs.statSync(stamp).mtimeMs;
    write('tsconfig.json', '{ "compilerOptions": {} }\n');
    await load();
    const rebuiltAt = fs.statSync(stamp).mtimeMs;
    expect(rebuiltAt).toBeGreaterThan(builtAt);
    // a stamp an older builder wrote (no format) is stale, though every file it names is unchanged
    const { format: _format, ...old } = JSON.parse(fs.readFileSync(stamp, 'utf8')) as Record<string, unknown>;
    fs.writeFileSync(stamp, JSON.stringify(old));
    backdate();
    const oldAt = fs.statSync(stamp).mtimeMs;
    await load();
    expect(fs.statSync(stamp).mtimeMs).toBeGreaterThan(oldAt);
    expect(JSON.parse(fs.readFileSync(stamp, 'utf8'))).toHaveProperty('format');
  });

  it("a cache shared by two checkouts (one node_modules) never serves one checkout the other's bundle", async () => {
    const other = fs.mkdtempSync(path.join(os.tmpdir(), 'plateau-bundle-other-'));
    try {
      write('same.ts', 'export const value: number = 1;\n');
      fs.writeFileSync(path.join(other, 'same.ts'), 'export const value: number = 2;\n');
      const mine = (await import(`${await bundleFor(root, 'same.ts', cache)}?n=${++loads}`)) as { value: number };
      const theirs = (await import(`${await bundleFor(other, 'same.ts', cache)}?n=${++loads}`)) as { value: number };
      expect([mine.value, theirs.value]).toEqual([1, 2]);
      expect(JSON.parse(fs.readFileSync(path.join(cache, 'same.inputs.json'), 'utf8')).root).toBe(path.resolve(other));
    } finally {
      fs.rmSync(other, { recursive: true, force: true });
    }
  });

  it('prepareEntry builds a stale bundle ahead of its users and swallows a failure (they fall back to tsx)', async () => {
    write('ahead.ts', 'export const value: number = 7;\n');
    await prepareEntry('ahead.ts', root, cache);
    expect(fs.existsSync(path.join(cache, 'ahead.mjs'))).toBe(true);
    write('broken2.ts', 'export const = ;\n');
    await expect(prepareEntry('broken2.ts', root, cache)).resolves.toBeUndefined();
  });

  it('throws when the bundle cannot be built or written, so the entry runs through tsx instead', async () => {
    write('broken.ts', 'export const = ;\n');
    await expect(bundleFor(root, 'broken.ts', cache)).rejects.toThrow();
    write('blocker', '');
    await expect(bundleFor(root, 'entry.ts', path.join(root, 'blocker', 'cache'))).rejects.toThrow(/ENOTDIR|EEXIST/);
  });
});
