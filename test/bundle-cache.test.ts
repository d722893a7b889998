import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: plain JavaScript, run before any TypeScript loader exists
import { bundleFor } from '../bin/bundle-cache.mjs';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'plateau-bundle-'));
const cache = path.join(root, 'cache');
const write = (rel: string, text: string) => { fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true }); fs.writeFileSync(path.join(root, rel), text); };
let loads = 0;
const load = async () => (await import(`${await bundleFor(root, 'entry.ts', cache)}?n=${++loads}`)) as { value: number; at: string };
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('bin/bundle-cache.mjs', () => {
  it("bundles an entry with each file's own import.meta.url, reuses it, and rebuilds when a source changes", async () => {
    write('entry.ts', "import { where } from './lib/where.ts';\nexport const value: number = 1;\nexport const at = where;\n");
    write('lib/where.ts', 'export const where: string = import.meta.url;\n');
    const first = await load();
    expect(first).toMatchObject({ value: 1, at: pathToFileURL(path.join(root, 'lib/where.ts')).href });
    const stamp = path.join(cache, 'entry.inputs.json');
    const builtAt = fs.statSync(stamp).mtimeMs;
    expect((await load()).value).toBe(1);
    expect(fs.statSync(stamp).mtimeMs).toBe(builtAt);
    // an edit of an imported file, not only of the entry, is seen
    write('lib/where.ts', "export const where: string = 'moved';\n");
    expect((await load()).at).toBe('moved');
    write('entry.ts', "import { where } from './lib/where.ts';\nexport const value: number = 22;\nexport const at = where;\n");
    expect((await load()).value).toBe(22);
  });

  it('throws when the bundle cannot be built or written, so the entry runs through tsx instead', async () => {
    write('broken.ts', 'export const = ;\n');
    await expect(bundleFor(root, 'broken.ts', cache)).rejects.toThrow();
    write('blocker', '');
    await expect(bundleFor(root, 'entry.ts', path.join(root, 'blocker', 'cache'))).rejects.toThrow(/ENOTDIR|EEXIST/);
  });
});
