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

  it("refuses a unique source with fewer rows than the script's arrivals take, as plan does, and writes nothing", async () => {
    // 100 rows (96 for the load) for 3 of every 10 arrivals: k6 would fail the readers' arrivals
    // from row 97 on, mid-load, where they would read as the target's limit
    const r = await write('test/fixtures/scenarios/reader-rows.ts', 'rows.js');
    expect(r.status).toBe(3);
    expect(r.stderr).toMatch(
      /data source "accounts" \(.*reader-rows\.csv\) has order 'unique' and 100 rows \(96 for the load, 4 kept for preflight's sample arrivals\), but the plan can make 1,425 arrivals \(steps\), 428 of them of its readBy \("create", "renew"\)/,
    );
    expect(r.stderr).toContain('fix: add at least 332 rows, lower the plan');
    expect(fs.existsSync(path.join(dir, 'rows.js'))).toBe(false);
    // enough rows: written (1,201 rows, a quarter of the arrivals read them)
    expect((await write('test/fixtures/scenarios/native-mix/scenario.ts', 'mix.js')).status).toBe(0);
  });

  it('says nothing of secrets for a scenario that has none', async () => {
    const r = await write('test/fixtures/scenarios/native-mix/concurrent.ts', 'plain.js');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/secret/);
  });
});
