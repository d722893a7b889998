/** The bodies of `plateau run`, `plan` and `report`. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../config/load.ts';
import type { CliIo } from './io.ts';
import type { PlateauConfig } from '../config/schema.ts';
import { buildPlan } from '../../analysis/plan.ts';
import { planForInstance } from '../engine/create.ts';
import { runPipeline } from '../pipeline/run.ts';
import { Interrupt, installSignalHandlers } from '../pipeline/interrupt.ts';
import { startDemoProcess, ensureDemoKey, type DemoProcess } from '../demo-process.ts';
import { reportFilesLine } from '../report.ts';
import { renderPlateauTable } from '../../reports/table.ts';
import { overridesOf } from './options.ts';
import { planText, vusFromWarmup } from './plan-text.ts';
import { planJsonInput } from './plan-json-input.ts';
import { renderPlanJson, type PlanTraffic } from '../../reports/plan-json.ts';
import { EXIT, scrubbedError } from '../errors.ts';
import { secretScrubber } from '../secret-scrub.ts';
import type { Scenario } from '../scenario/types.ts';
import { loadScenario } from '../scenario/load.ts';
import { scenarioRequests } from '../scenario/requests.ts';
import { buildSampleRequests, sourceReaders } from '../pipeline/sample-offline.ts';
import { sampleRowsKept, trafficOf, trafficSummary, type Traffic } from '../scenario/traffic.ts';
import { fmtMixShare, rateUnitOf, withShares } from '../../analysis/format.ts';
import { loadDataSources, uniqueRowsProblem } from '../scenario/data-load.ts';
import { maxArrivalsWithReruns, maxPlannedArrivals, warmupRuns } from '../pipeline/warmup.ts';
import { runIdsTooLong } from '../pipeline/preflight.ts';
import { runIds } from '../environment.ts';

type Args = Record<string, unknown>;

const DEMO_SCENARIO = new URL('../../demo/scenario.ts', import.meta.url);
/** The config `make loadtest` runs the demo with: plateau's own plateau.config.ts (its steps, rules, warmup). */
const DEMO_CONFIG = new URL('../../plateau.config.ts', import.meta.url);

/**
 * The config file to load: --config, else ./plateau.config.ts; with --demo and neither, the demo's
 * own, so that `plateau run --demo` runs the pipeline from any directory as `make loadtest` does.
 */
function configFile(a: Args): string | undefined {
  if (a.config !== undefined) return a.config as string;
  if (!a.demo || fs.existsSync('plateau.config.ts')) return undefined;
  return fileURLToPath(DEMO_CONFIG);
}

function demoOverrides(a: Args, demo: DemoProcess | null) {
  const o = overridesOf(a);
  if (!demo) return o;
  return { ...o, target: o.target ?? `${demo.url}/orders` };
}

/**
 * The demo's own metrics: its Spring-named request timer and HikariCP pool gauges (the defaults of
 * the metrics section), and its SQL statements as the downstream (demo/statements.ts). Read at
 * each steady window's edges and every scrapeEveryS (5 s by default), like any target's.
 */
export const DEMO_METRICS = {
  url: '/metrics',
  downstreams: [{ name: 'sql', ops: 'demo_sql_statements_total' }],
} as const;

/** The demo target's reset endpoint, cheap RTT endpoint and metrics, unless the config names its own. */
export function withDemoDefaults(raw: Record<string, unknown>): Record<string, unknown> {
  // the demo's scenario unless --scenario or the config names one (a user's scenario against the demo)
  const scenario = raw.scenario ?? path.relative(process.cwd(), DEMO_SCENARIO.pathname);
  const target = { rttPath: '/ping', ...(raw.target as object) };
  const reset = (raw.reset as { hooks?: unknown[] } | undefined)?.hooks?.length
    ? raw.reset
    : { hooks: [{ kind: 'http', method: 'POST', url: '/admin/reset' }] };
  const metrics = raw.metrics ?? structuredClone(DEMO_METRICS);
  return { ...raw, scenario, target, reset, metrics };
}

export async function runCommand(a: Args): Promise<number> {
  const out = { write: (s: string) => process.stdout.write(s), isTTY: Boolean(process.stdout.isTTY) };
  let demo: DemoProcess | null = null;
  if (a.demo) {
    ensureDemoKey(process.env);
    demo = await startDemoProcess({ slots: Number(a['demo-slots']), holdMs: Number(a['demo-hold-ms']) }, process.env);
  }
  const interrupt = new Interrupt();
  const uninstall = installSignalHandlers(interrupt, (s) => process.stderr.write(s + '\n'));
  try {
    const config = await loadConfig(
      configFile(a),
      demoOverrides(a, demo),
      demo ? withDemoDefaults : undefined,
      overridesOf(a),
    );
    const r = await runPipeline({ config, interrupt, out });
    // a failed stage's error is said once, in full with its fix, last (below): the stage's line and the stop line point to it
    out.write('\n' + renderPlateauTable(r.result, { errorBelow: r.error !== null }) + '\n');
    out.write(`\n${reportFilesLine(r.dir)}\n`);
    if (r.error)
      process.stderr.write(
        `plateau: ${r.error.message}\n  fix: ${r.error.hint}\n${r.error.exitCode === EXIT.bug ? `${r.error.stack}\n` : ''}`,
      );
    return r.exitCode;
  } finally {
    uninstall();
    await demo?.stop();
  }
}

export async function planCommand(a: Args, io: CliIo): Promise<number> {
  const fake = a.demo ? { url: 'http://127.0.0.1:0', capacityPerSec: 0, stop: async () => undefined } : null;
  const config = await loadConfig(
    configFile(a),
    demoOverrides(a, fake),
    fake ? withDemoDefaults : undefined,
    overridesOf(a),
  );
  // loaded as a run would load it, so a scenario that cannot load is refused here, before any run
  const scenario = config.scenario ? await loadScenario(config.scenario) : null;
  // its request(ctx) may quote a secret it read from ctx.env (in what it throws), a config may build
  // target.url from one: what the plan prints is scrubbed as a run's lines are
  const scrub = secretScrubber(scenario?.secrets ?? [], io.env);
  try {
    return await printPlan(a, { ...io, out: (s) => io.out(scrub(s)) }, config, scenario);
  } catch (err) {
    throw scrubbedError(err, scrub);
  }
}

async function printPlan(a: Args, io: CliIo, config: PlateauConfig, scenario: Scenario | null): Promise<number> {
  const traffic = scenario ? trafficOf(scenario) : null;
  const plan = planForInstance(buildPlan(config, null, rateUnitOf(traffic && trafficSummary(traffic))), config);
  const data =
    scenario && traffic ? loadDataSources(path.resolve(config.scenario!), traffic.data, sampleRowsKept(traffic)) : {};
  // the scenario's requests, built offline as preflight builds its samples (nothing is sent; a
  // declared secret need not be set for a plan: its requests are built, never sent nor shown)
  const requests =
    scenario && config.scenario
      ? await scenarioRequests(path.resolve(config.scenario), config.target.url, 'plan', {
          env: {
            ...io.env,
            ...Object.fromEntries((scenario.secrets ?? []).map((k) => [k, io.env[k] ?? 'not read by plan'])),
          },
        })
      : null;
  const fewRows = uniqueRowsProblem(
    data,
    maxArrivalsWithReruns(config, plan),
    warmupRuns(config),
    traffic ?? { entries: [] },
    true,
    // the fix's readBy names the entries whose sample request read the source
    requests ? () => sourceReaders(requests) : undefined,
  );
  if (fewRows) throw fewRows;
  // ids longer than the scenario's ids.maxLength: preflight's refusal (and k6-script's), said here
  // since nothing needs sending to see it; the key is of a run id of the length run would make
  if (scenario && traffic) {
    const { idKey } = runIds(config.output.runId);
    const tooLong = runIdsTooLong(scenario, idKey, maxPlannedArrivals(config, plan), traffic.entries.length);
    if (tooLong) throw tooLong;
  }
  // a declared secret need not be set for a plan (it may be made on another machine than the run):
  // one not set here is warned of, as preflight would refuse a run here without it; --demo's key is
  // the one run --demo makes when none is set
  const runEnv = { ...io.env };
  if (a.demo) ensureDemoKey(runEnv);
  const secretsNotSet = (scenario?.secrets ?? []).filter((k) => !runEnv[k]);
  // each request entry built offline: a misspelt field, an unknown data source or a request(ctx)
  // that throws is refused here, before any run
  if (requests) buildSampleRequests(requests);
  if (a.json) {
    io.out(
      renderPlanJson({
        ...planJsonInput(
          config,
          plan,
          scenario && config.scenario ? { name: scenario.name ?? 'unnamed', module: config.scenario } : null,
          data,
          traffic && planTraffic(traffic, config),
          traffic ?? undefined,
        ),
        secretsNotSet,
      }),
    );
    return EXIT.ok;
  }
  io.out(
    planText(
      config,
      plan,
      scenario && traffic ? `${scenario.name ?? 'unnamed'} (${config.scenario})${mixText(traffic, config)}` : undefined,
      data,
      (traffic && planTraffic(traffic, config)?.entries) ?? undefined,
      traffic ?? undefined,
      secretsNotSet,
    ) + '\n',
  );
  return EXIT.ok;
}

/** The mix as the plan shows it (each entry's share, transactions marked); null for one request per arrival. */
function planTraffic(t: Traffic, config: PlateauConfig): PlanTraffic | null {
  if (t.entries.length === 1 && !t.entries[0].run) return null;
  const entries = withShares(trafficSummary(t).entries);
  return { entries, vusFromWarmup: vusFromWarmup(config) };
}

/** The plan text's words for the mix: "; mix: read 70%, ..." or nothing. */
function mixText(t: Traffic, config: PlateauConfig): string {
  const p = planTraffic(t, config);
  if (!p) return '';
  const parts = p.entries.map(
    // whole percents where the share is one, else a tenth: 3.61% read as 4%
    (e) => `${e.name} ${fmtMixShare(e.share)}${e.transaction ? ' (transaction)' : ''}`,
  );
  return `; mix: ${parts.join(', ')}`;
}
