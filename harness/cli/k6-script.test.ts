/** `plateau k6-script`: the script written, and how to run it, naming the secrets k6 must be given. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliInProcess } from '../../test/helpers/cli.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plateau-k6-script-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const STEPS = ['--start-rate', '50', '--step-rate', '50', '--max-rate', '150', '--hold', '4', '--ramp', '1'];
const write = (scenario: string, name: string) =>
  cliInProcess([
    'k6-script',
    '--target',
    'http://127.0.0.1:9/orders',
    '--scenario',
    path.resolve(scenario),
    ...STEPS,
    '--out-file',
    path.join(dir, name),
  ]);

describe('plateau k6-script', () => {
  it("writes the script and names the scenario's secrets, which k6 reads from its environment", async () => {
    const r = await write('demo/scenario.ts', 'shop.js');
    expect(r.status, r.stderr).toBe(0);
    expect(fs.readFileSync(path.join(dir, 'shop.js'), 'utf8')).toContain('plateau_arrival');
    expect(r.stdout).toMatch(/^wrote .*shop\.js \(run id [\w-]+\); run it with:\n {2}k6 run .*shop\.js\n/);
    expect(r.stdout).toContain('then: plateau import k6 k6-out.json\n');
    expect(r.stdout).toContain(
      "(k6 reads the scenario's secrets, PLATEAU_DEMO_HMAC_KEY, from its environment: export them before k6 run)\n",
    );
  });

  it("refuses a script's path given to --out (the run stores' directory), naming --out-file", async () => {
    const r = await cliInProcess(['k6-script', '--target', 'http://127.0.0.1:9/', ...STEPS, '--out', 'page.js']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--out names the directory of run stores, which k6-script does not write');
    expect(r.stderr).toContain('fix: write the script there with --out-file page.js');
    expect(fs.existsSync('page.js')).toBe(false);
  });

  it('without step flags, names every one it needs at once: the rates, --ramp and --hold', async () => {
    // a config of its own: the repository's plateau.config.ts gives steps
    const config = path.join(dir, 'target-only.config.ts');
    fs.writeFileSync(config, "export default { target: { url: 'http://127.0.0.1:9/' } };\n");
    const r = await cliInProcess(['k6-script', '--config', config, '--out-file', path.join(dir, 'no.js')]);
    expect(r.status, r.stdout).toBe(2);
    expect(r.stderr).toContain('--start-rate, --step-rate and --max-rate, and its timing, --ramp and --hold');
    expect(r.stderr).toContain('steps: { startPerSec, stepPerSec, maxPerSec, rampS, holdS }');
  });

  it('says nothing of secrets for a scenario that has none', async () => {
    const r = await write('test/fixtures/scenarios/native-mix/concurrent.ts', 'plain.js');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/secret/);
  });
});
