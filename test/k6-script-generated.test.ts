/**
 * The k6 script plateau generates: kept as a snapshot, type-checked against @types/k6 (checkJs),
 * and its options as k6 reads them. It bundles with esbuild (a process) and loads nothing but
 * code: a file of the unit project (vitest.config.ts UNIT_FIRST), run before the integration set.
 * The script run by the k6 engine in the pipeline: test/k6-engine.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleK6Script } from '../harness/k6/engine/bundle.ts';
import { k6Options } from '../harness/k6/engine/options.ts';
import { buildPlan } from '../analysis/plan.ts';
import { parseConfigOrThrow } from '../harness/config/validate.ts';
import { k6ScriptDiagnostics } from './helpers/k6-script-check.ts';
import { tempRunsDir } from './helpers/pipeline.ts';

const runsDir = tempRunsDir();
afterAll(() => fs.rmSync(runsDir, { recursive: true, force: true }));

async function demoScript(): Promise<string> {
  const config = parseConfigOrThrow({
    target: { url: 'http://127.0.0.1:8080/orders' },
    scenario: 'demo/scenario.ts',
    steps: { startPerSec: 50, stepPerSec: 50, maxPerSec: 150, rampS: 2, holdS: 8 },
    vus: { preAllocated: 10, max: 40 },
  });
  return bundleK6Script({
    scenarioPath: 'demo/scenario.ts',
    targetUrl: config.target.url,
    options: k6Options(buildPlan(config, null), 2),
    runtime: {
      runId: 'snapshot-run',
      idKey: 'snapshot-run',
      idPrefix: 'ord-',
      origin: 'http://127.0.0.1:8080',
      seqOffset: 0,
      timeoutMs: 10_000,
      requestName: 'create order',
      checkName: 'create order: check',
    },
  });
}

describe('the generated k6 script', () => {
  it("is kept as a snapshot (the data files' absolute paths written from <repo>)", async () => {
    const script = (await demoScript()).split(path.resolve('.')).join('<repo>');
    await expect(script).toMatchFileSnapshot('__snapshots__/k6-demo-script.js');
  });

  it("type-checks against @types/k6 (checkJs, the script's k6 side: the runtime and the entry)", async () => {
    expect(k6ScriptDiagnostics(await demoScript())).toEqual([]);
  });

  it('holds one ramping-arrival-rate scenario reproducing the plan, p(99.9), and no secret', async () => {
    const s = await demoScript();
    expect(s).toContain('"executor": "ramping-arrival-rate"');
    expect(s).toContain('"p(99.9)"');
    expect(s).toMatch(/^import .* from "k6\/http";$/m);
    expect(s).not.toMatch(/require\(|node:/);
    expect(s).toContain('__ENV[name]');
  });

  it('jumps where the plan jumps (rampS 0: a 0 s stage, since k6 ramps every stage from the previous target)', () => {
    const plan = buildPlan(
      parseConfigOrThrow({
        target: { url: 'http://x/' },
        steps: { startPerSec: 50, stepPerSec: 50, maxPerSec: 150, rampS: 0, holdS: 10 },
      }),
      null,
    );
    const o = k6Options(plan, 2).scenarios.plateau;
    expect(o.startRate).toBe(50);
    expect(o.stages).toEqual([
      { duration: '10s', target: 50 },
      { duration: '0s', target: 100 },
      { duration: '10s', target: 100 },
      { duration: '0s', target: 150 },
      { duration: '10s', target: 150 },
    ]);
    // with a ramp, no 0 s stage
    const ramped = buildPlan(
      parseConfigOrThrow({
        target: { url: 'http://x/' },
        steps: { startPerSec: 50, stepPerSec: 50, maxPerSec: 100, rampS: 2, holdS: 10 },
      }),
      null,
    );
    expect(k6Options(ramped, 2).scenarios.plateau.stages.some((st) => st.duration === '0s')).toBe(false);
  });

  it('writes a fractional rate per 1,000 s, since k6 reads whole arrivals per timeUnit', () => {
    const plan = buildPlan(
      parseConfigOrThrow({
        target: { url: 'http://x/' },
        steps: { startPerSec: 2.5, stepPerSec: 2.5, maxPerSec: 5, rampS: 2, holdS: 10 },
      }),
      null,
    );
    const o = k6Options(plan, 2).scenarios.plateau;
    expect(o.timeUnit).toBe('1000s');
    expect([o.startRate, ...o.stages.map((st) => st.target)].every(Number.isInteger)).toBe(true);
    expect(o.stages.at(-1)!.target).toBe(5000);
    expect(
      k6Options(
        buildPlan(
          parseConfigOrThrow({
            target: { url: 'http://x/' },
            steps: { startPerSec: 50, stepPerSec: 50, maxPerSec: 100, rampS: 2, holdS: 10 },
          }),
          null,
        ),
        2,
      ).scenarios.plateau.timeUnit,
    ).toBe('1s');
  });

  it("the script plateau runs itself holds its run's id key and no setup() (the run's ids match the run id it records)", async () => {
    const s = await demoScript();
    expect(s).toContain('"idKey": "snapshot-run"');
    expect(s).not.toMatch(/\bfunction setup\(|\bsetup\b.*\} from|export \{[^}]*\bsetup\b/);
  });

  it("never follows a redirect (each hop would be a request of its own in k6's output)", async () => {
    expect(await demoScript()).toMatch(/redirects: 0/);
  });

  it('refuses a scenario importing Node APIs, naming the fix', async () => {
    const bad = path.join(runsDir, 'bad-scenario.ts');
    fs.writeFileSync(
      bad,
      "import { createHmac } from 'node:crypto';\nexport default { request: () => ({ url: '/' + createHmac('sha256', 'k').digest('hex') }) };\n",
    );
    await expect(
      bundleK6Script({
        scenarioPath: bad,
        targetUrl: 'http://x/',
        options: k6Options({ segments: [], vus: { preAllocatedVUs: 1, maxVUs: 1, reason: '' } }, 1),
        runtime: {
          runId: 'r',
          idKey: 'r',
          idPrefix: '',
          origin: 'http://x',
          seqOffset: 0,
          timeoutMs: 1,
          requestName: 'r',
          checkName: 'c',
        },
      }),
    ).rejects.toThrow(/k6 runs no Node APIs/);
  });
});
