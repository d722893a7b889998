/**
 * Config files load wherever the user keeps them (.ts, .mts, .cts, .js, .mjs, .cjs, .json; with or
 * without a package.json, CommonJS or ESM), `import ... from 'plateau'` resolves outside this
 * repository, and every failure is a PlateauError (exit 2) naming the file, the cause and the fix.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT } from '../errors.ts';
import { readConfigFile, loadConfig } from './load.ts';
import { expectRefusal, moduleFolder } from '../../test/helpers/module-files.ts';
import { cliInProcess } from '../../test/helpers/cli.ts';

/** Outside the repository, so that neither its package.json nor its node_modules are found. */
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'plateau-config-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const BODY =
  "target: { url: 'http://127.0.0.1:8080/' }, steps: { startPerSec: 50, stepPerSec: 50, maxPerSec: 100, rampS: 1, holdS: 10 }";
const README_STYLE = `import { defineConfig } from 'plateau';\n\nexport default defineConfig({ ${BODY} });\n`;
const expected = {
  target: { url: 'http://127.0.0.1:8080/' },
  steps: { startPerSec: 50, stepPerSec: 50, maxPerSec: 100, rampS: 1, holdS: 10 },
};

const folder = (name: string, files: Record<string, string>) => moduleFolder(root, name, files);

const refusal = (file: string) => expectRefusal(readConfigFile, file);

describe('a valid config loads wherever it is kept', () => {
  it.each<[string, Record<string, string>, string]>([
    ['README-style .ts in a folder without package.json', { 'plateau.config.ts': README_STYLE }, 'plateau.config.ts'],
    [
      'README-style .ts in a "type": "module" package',
      { 'package.json': '{"type":"module"}', 'plateau.config.ts': README_STYLE },
      'plateau.config.ts',
    ],
    [
      'README-style .ts in a "type": "commonjs" package',
      { 'package.json': '{"type":"commonjs"}', 'plateau.config.ts': README_STYLE },
      'plateau.config.ts',
    ],
    ['.mts', { 'c.mts': README_STYLE }, 'c.mts'],
    ['.cts', { 'c.cts': `module.exports = { ${BODY} };` }, 'c.cts'],
    ['.mjs', { 'c.mjs': README_STYLE }, 'c.mjs'],
    ['.js with ESM syntax outside an ESM package', { 'c.js': `export default { ${BODY} };` }, 'c.js'],
    ['.js with module.exports', { 'c.js': `module.exports = { ${BODY} };` }, 'c.js'],
    ['.cjs', { 'c.cjs': `module.exports = { ${BODY} };` }, 'c.cjs'],
    ['.json', { 'c.json': JSON.stringify(expected) }, 'c.json'],
    [
      '.ts importing a sibling module',
      {
        'steps.ts': `export const steps = ${JSON.stringify(expected.steps)};`,
        'c.ts': `import { steps } from './steps';\nexport default { target: { url: 'http://127.0.0.1:8080/' }, steps };`,
      },
      'c.ts',
    ],
    ['.mjs with top-level await', { 'c.mjs': `export default await Promise.resolve({ ${BODY} });` }, 'c.mjs'],
  ])('%s', async (name, files, entry) => {
    const dir = folder(`ok-${name.replace(/\W+/g, '-')}`, files);
    expect(await readConfigFile(path.join(dir, entry))).toEqual(expected);
  });

  it("packages come from the config's own node_modules, run as themselves (their own __dirname)", async () => {
    const dir = folder('ok-node-modules', {
      'node_modules/rates/package.json': '{"name":"rates","main":"index.js"}',
      'node_modules/rates/index.js':
        "const path = require('path'); module.exports = { start: 50, where: path.basename(__dirname) };",
      'node_modules/esm-only/package.json': '{"name":"esm-only","type":"module","exports":{"import":"./i.js"}}',
      'node_modules/esm-only/i.js': 'export const holdS = 10;',
      'c.ts': [
        "import rates from 'rates';",
        "import { holdS } from 'esm-only';",
        "import { defineConfig } from 'plateau';",
        "export default defineConfig({ target: { url: 'http://127.0.0.1:8080/' + rates.where }, output: { dir: import.meta.dirname + '|' + __dirname },",
        '  steps: { startPerSec: rates.start, stepPerSec: 50, maxPerSec: 100, rampS: 1, holdS } });',
      ].join('\n'),
    });
    const c = await readConfigFile(path.join(dir, 'c.ts'));
    expect(c).toMatchObject({
      target: { url: 'http://127.0.0.1:8080/rates' },
      steps: expected.steps,
      output: { dir: `${dir}|${dir}` },
    });
  });

  it('loadConfig validates what the file holds', async () => {
    const dir = folder('ok-load', { 'plateau.config.ts': README_STYLE });
    const config = await loadConfig(path.join(dir, 'plateau.config.ts'), { maxRate: 150 });
    expect(config.steps.maxPerSec).toBe(150);
  });

  it("a field's problem names the config file given, not plateau.config.ts", async () => {
    const dir = folder('typo-load', {
      'shop.config.ts': "export default { target: { url: 'http://127.0.0.1:9/' }, stepz: {} };",
    });
    await expect(loadConfig(path.join(dir, 'shop.config.ts'), {})).rejects.toMatchObject({
      message: expect.stringMatching(/unknown key "stepz": remove or correct the spelling \(did you mean "steps"\?\)/),
      hint: `fix the fields named above in ${path.join(dir, 'shop.config.ts')} or the matching CLI flags (--help)`,
    });
  });
});

describe('a config that cannot be loaded is refused with the file, the cause and the fix', () => {
  it.each<[string, Record<string, string>, string, string, RegExp, RegExp]>([
    [
      'a TypeScript syntax error',
      { 'c.ts': 'export default { target: {' },
      'c.ts',
      'config-invalid',
      /cannot be compiled: line 1:\d+: .*end of file/,
      /fix the error at that line/,
    ],
    [
      'a JSON syntax error',
      { 'c.json': '{ "target": ' },
      'c.json',
      'config-invalid',
      /cannot be compiled: line 1:\d+: Unexpected end of file in JSON/,
      /fix the error at that line/,
    ],
    [
      'a syntax error in an imported file',
      { 'h.ts': 'let = ;', 'c.ts': "import './h';\nexport default {};" },
      'c.ts',
      'config-invalid',
      /cannot be compiled: .*h\.ts:1:\d+: /,
      /fix the error/,
    ],
    [
      'a package that is not installed',
      { 'c.ts': "import x from 'not-installed-anywhere';\nexport default x;" },
      'c.ts',
      'config-invalid',
      /Could not resolve "not-installed-anywhere"/,
      /npm install not-installed-anywhere/,
    ],
    [
      'a relative import that does not exist',
      { 'c.ts': "import x from './nope';\nexport default x;" },
      'c.ts',
      'config-invalid',
      /Could not resolve "\.\/nope"/,
      /relative to the file that imports it/,
    ],
    [
      'a section given twice: the later would replace the earlier',
      { 'c.ts': `export default {\n  ${BODY},\n  steps: { holdS: 5 },\n};\n` },
      'c.ts',
      'config-invalid',
      /is refused: line 3:3: Duplicate key "steps" in object literal \(the first at line 2:\d+\); only the last one counts$/,
      /^remove or rename one of the two/,
    ],
    [
      'a JSON key given twice',
      {
        'c.json':
          '{\n  "target": { "url": "http://127.0.0.1:8080/" },\n  "target": { "url": "http://127.0.0.1:8081/" }\n}\n',
      },
      'c.json',
      'config-invalid',
      /is refused: line 3:3: Duplicate key "target" in object literal \(the first at line 2:3\)/,
      /^remove or rename one of the two/,
    ],
    [
      'code that throws',
      { 'c.ts': "throw new Error('boom');\nexport default {};" },
      'c.ts',
      'config-invalid',
      /threw while loading: Error: boom$/,
      /top level of the config/,
    ],
    [
      'a function value',
      { 'c.ts': `export default { ${BODY}, hooks: { before: () => 1 } };` },
      'c.ts',
      'config-invalid',
      /holds a function at hooks\.before; a config is data only/,
      /plain value/,
    ],
    [
      'no default export',
      { 'c.ts': 'export const config = {};' },
      'c.ts',
      'config-invalid',
      /has no default export/,
      /export default defineConfig/,
    ],
    ['an empty file', { 'c.ts': '' }, 'c.ts', 'config-invalid', /has no default export/, /export default defineConfig/],
    [
      'a default export that is not an object',
      { 'c.ts': 'export default () => ({});' },
      'c.ts',
      'config-invalid',
      /default-exports a function, not an object/,
      /export the config object itself/,
    ],
    [
      'an extension plateau does not read',
      { 'c.yaml': 'target: {}' },
      'c.yaml',
      'config-invalid',
      /extension "\.yaml", which plateau does not read/,
      /\.ts, .*\.json/,
    ],
  ])('%s', async (name, files, entry, code, message, hint) => {
    const dir = folder(`bad-${name.replace(/\W+/g, '-')}`, files);
    const err = await refusal(path.join(dir, entry));
    expect(err.code).toBe(code);
    expect(err.message).toMatch(message);
    expect(err.hint).toMatch(hint);
  });

  it('a directory names the config inside it', async () => {
    const dir = folder('bad-dir', { 'plateau.config.ts': README_STYLE });
    const err = await refusal(dir);
    expect(err.message).toMatch(/is a directory, not a file/);
    expect(err.hint).toBe(`pass the file itself: --config ${path.join(dir, 'plateau.config.ts')}`);
  });

  it('a missing file', async () => {
    const err = await refusal(path.join(root, 'absent.ts'));
    expect(err.code).toBe('config-missing');
  });
});

describe('the CLI: exit 2 with the fix, never an internal error', () => {
  /** `plateau plan --config` in this process (test/helpers/cli.ts). */
  async function plan(config: string): Promise<{ code: number; stdout: string; stderr: string }> {
    const r = await cliInProcess(['plan', '--config', config]);
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  }

  it.concurrent('a README-style config outside any package plans', async () => {
    const dir = folder('cli-ok', { 'plateau.config.ts': README_STYLE });
    const r = await plan(path.join(dir, 'plateau.config.ts'));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/target\s+http:\/\/127\.0\.0\.1:8080\//);
  });

  it.concurrent.each<[string, Record<string, string> | null, RegExp]>([
    ['a config that throws', { 'c.ts': "throw new Error('boom');" }, /threw while loading: Error: boom/],
    ['a syntax error', { 'c.ts': 'export default {' }, /cannot be compiled: line 1:/],
    ['a directory', null, /is a directory, not a file/],
  ])('%s', async (name, files, message) => {
    const dir = folder(`cli-${name.replace(/\W+/g, '-')}`, files ?? { 'x.txt': '' });
    const r = await plan(files ? path.join(dir, 'c.ts') : dir);
    expect(r.code).toBe(EXIT.usage);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toMatch(/\n {2}fix: /);
    expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
  });
});

describe("a config's scenario beside it, run from another folder", () => {
  const cfg = `import { defineConfig } from 'plateau';\nexport default defineConfig({ ${BODY}, scenario: './beside-only.ts' });\n`;

  it('is refused with both paths and the fix, not as a missing file; the --scenario flag is left to the flag', async () => {
    const dir = folder('beside', { 'plateau.config.ts': cfg, 'beside-only.ts': 'export default {};\n' });
    const file = path.join(dir, 'plateau.config.ts');
    const err = (await loadConfig(file, {}).catch((e: unknown) => e)) as Error & { hint: string; exitCode: number };
    expect(err.message).toBe(
      `scenario "./beside-only.ts" of ${file} is resolved from the working directory (${process.cwd()}), to ${path.resolve('beside-only.ts')}, which does not exist; ${path.join(dir, 'beside-only.ts')}, beside the config, does`,
    );
    expect(err.hint).toMatch(
      new RegExp(`^run plateau from ${dir}, or set \`scenario\` in .* to a path from the working directory`),
    );
    expect(err.exitCode).toBe(EXIT.usage);
    // a scenario in a folder beside the config: run from the config's folder, not the scenario's
    const nested = folder('beside-nested', {
      'plateau.config.ts': cfg.replace("'./beside-only.ts'", "'scenarios/nested-only.ts'"),
      'scenarios/nested-only.ts': 'export default {};\n',
    });
    const nestedErr = (await loadConfig(path.join(nested, 'plateau.config.ts'), {}).catch((e: unknown) => e)) as {
      hint: string;
    };
    expect(nestedErr.hint).toMatch(new RegExp(`^run plateau from ${nested}, or set`));
    // given as a flag, the path is the flag's, resolved from the working directory as before
    await expect(loadConfig(file, { scenario: './beside-only.ts' })).resolves.toMatchObject({
      scenario: './beside-only.ts',
    });
  });
});
