/**
 * Secrets and the CLI's own lines: what plateau prints or writes outside a run's store (an error
 * that ended a command, `plan`, `k6-script`, `k8s manifest`, a run's directory name) holds no value
 * of a secret of the environment either (test/secrets.test.ts holds the run's store and lines).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliBinary, cliInProcess, type CliResult } from './helpers/cli.ts';
import { tinyServer } from './helpers/tiny-server.ts';
import { tempRunsDir } from './helpers/pipeline.ts';

const dir = tempRunsDir();
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Under 21 characters: Node's JSON.parse quotes a longer text only in part (its first 10 characters), a shorter one whole. */
const unique = (what: string) => `${what}-${Math.random().toString(36).slice(2, 10)}-Zq9`;
const fixture = (name: string) => path.resolve(`test/fixtures/scenarios/${name}.ts`);
const rates = ['--start-rate', '20', '--step-rate', '20', '--max-rate', '20'];

function expectNotIn(secret: string, r: CliResult): void {
  expect(r.stdout.includes(secret), `stdout holds the secret: ${r.stdout}`).toBe(false);
  expect(r.stderr.includes(secret), `stderr holds the secret: ${r.stderr}`).toBe(false);
}

/**
 * The CLI in this process with `vars` set in process.env for the call (a config or scenario module
 * reads process.env, the CLI its io's env): a child CLI costs a second or more of the suite each.
 * The modules that fail at their top level run in a child (cliBinary): a module that failed to
 * load would fail again from the cache with the first token, not the one set for the call.
 */
async function cliWith(args: string[], vars: Record<string, string>): Promise<CliResult> {
  const before = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  try {
    return await cliInProcess(args, { ...process.env });
  } finally {
    for (const [k, v] of Object.entries(before)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

/** Every file under `root`, read whole. */
function filesHolding(secret: string, root: string): string[] {
  return fs
    .readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name))
    .filter((f) => f.includes(secret) || fs.readFileSync(f, 'latin1').includes(secret));
}

describe('secrets never reach a line the CLI prints', () => {
  it.each(['plan', 'k6-script', 'run'])(
    '%s: a scenario module whose top level fails with a token of the environment in its message',
    async (command) => {
      const token = unique('tok');
      const r = await cliBinary(
        [
          command,
          '--target',
          'http://127.0.0.1:9/',
          '--scenario',
          fixture('secret-json-on-import'),
          ...rates,
          ...(command === 'k6-script' ? ['--out-file', path.join(dir, 'never.js')] : []),
          ...(command === 'run' ? ['--out', dir] : []),
        ],
        { env: { ...process.env, PLATEAU_TEST_TOKEN: token } },
      );
      expect(r.status).toBe(2);
      // the message is kept (what failed, and Node's reason), the token is not
      expect(r.stderr).toMatch(/secret-json-on-import\.ts failed to load: .*"\[redacted\]" is not valid JSON/);
      expectNotIn(token, r);
    },
  );

  it('plan: request(ctx) fails with the value of a declared secret whose name does not look secret, in the message', async () => {
    const value = unique('auth');
    const r = await cliWith(
      ['plan', '--target', 'http://127.0.0.1:9/', '--scenario', fixture('secret-json-in-request'), ...rates],
      { PLATEAU_TEST_AUTH: value },
    );
    expect(r.status).toBe(3);
    expect(r.stderr).toMatch(
      /the scenario failed in request\(ctx\) for the sample request: .*"\[redacted\]" is not valid JSON/,
    );
    expectNotIn(value, r);
  });

  it('plan and k6-script: a target URL the config builds from a token of the environment', async () => {
    const token = unique('tok');
    const config = path.join(dir, 'token-in-path.config.ts');
    fs.writeFileSync(
      config,
      `import { defineConfig } from 'plateau';\n` +
        `export default defineConfig({ target: { url: \`http://127.0.0.1:9/hooks/\${process.env.PLATEAU_TEST_TOKEN}/\` }, ` +
        `scenario: ${JSON.stringify(fixture('expect-200'))}, ` +
        `steps: { startPerSec: 20, stepPerSec: 20, maxPerSec: 20, rampS: 1, holdS: 5 } });\n`,
    );
    for (const args of [
      ['plan'],
      ['plan', '--json'],
      ['k6-script', '--out-file', path.join(dir, 'token-in-path.js')],
    ]) {
      const r = await cliWith([...args, '--config', config], { PLATEAU_TEST_TOKEN: token });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toContain('http://127.0.0.1:9/hooks/[redacted]/');
      expectNotIn(token, r);
    }
  });
});

describe('secrets never reach a file the CLI writes outside a run', () => {
  it('k8s manifest: a --prometheus URL with credentials is refused, naming the flag, and nothing is written', async () => {
    const password = unique('pw');
    const out = path.join(dir, 'k8s-credentials');
    const r = await cliWith(
      [
        'k8s',
        'manifest',
        '--target',
        'http://127.0.0.1:9/',
        ...rates,
        '--parallelism',
        '2',
        '--prometheus',
        `http://plateau:${password}@prometheus.monitoring:9090`,
        '--out',
        out,
      ],
      { PROMETHEUS_PASSWORD: password },
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--prometheus: the URL carries credentials \(user:password@\)/);
    expectNotIn(password, r);
    expect(fs.existsSync(out)).toBe(false);
  });

  it('k6-script: a script that would hold a token of the environment (in the target it GETs) is refused, and not written', async () => {
    const token = unique('tok');
    const file = path.join(dir, 'token-in-target.js');
    const r = await cliWith(
      ['k6-script', '--target', `http://127.0.0.1:9/hooks/${token}/`, ...rates, '--out-file', file],
      { PLATEAU_TEST_TOKEN: token },
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('the k6 script would hold the value of PLATEAU_TEST_TOKEN');
    expectNotIn(token, r);
    expect(fs.existsSync(file)).toBe(false);
    expect(filesHolding(token, dir)).toEqual([]);
  });

  it("run: a --run-id holding a secret's value is refused before load: it would name the run's directory", async () => {
    const token = unique('tok');
    let requests = 0;
    const target = await tinyServer((_req, res) => {
      requests++;
      res.end('ok');
    });
    try {
      const out = path.join(dir, 'run-id-secret');
      const r = await cliWith(
        [
          'run',
          '--target',
          `${target.url}/`,
          ...rates,
          '--hold',
          '1',
          '--no-warmup',
          '--out',
          out,
          '--run-id',
          `nightly-${token}`,
        ],
        { PLATEAU_TEST_TOKEN: token },
      );
      expect(r.status).toBe(2);
      expect(r.stderr).toContain(
        '--run-id (output.runId) holds the value of a secret of the environment (PLATEAU_TEST_TOKEN)',
      );
      expectNotIn(token, r);
      expect(requests).toBe(0);
      expect(fs.existsSync(out) ? filesHolding(token, out) : []).toEqual([]);
    } finally {
      await target.close();
    }
  });
});
