/** The k6 commands: `plateau k6-script` and `plateau import k6 <file>`. */
import fs from 'node:fs';
import path from 'node:path';
import type { Argv } from 'yargs';
import { loadConfig } from '../config/load.ts';
import { buildPlan } from '../../analysis/plan.ts';
import { loadScenario } from '../scenario/load.ts';
import { defaultScenario } from '../scenario/default.ts';
import { newRunId } from '../environment.ts';
import { renderPlateauTable } from '../../reports/table.ts';
import { EXIT, PlateauError } from '../errors.ts';
import { writeK6Script, k6Args } from '../k6/engine/process.ts';
import { importK6 } from '../k6/import/import.ts';
import { loadOptions, overridesOf } from './options.ts';

type Args = Record<string, unknown>;
const num = (a: Args, k: string) => (a[k] === undefined ? undefined : Number(a[k]));

/** `plateau k6-script --out-file plateau-k6.js [run flags]`: the bundle k6 would run, for reading or running by hand. */
export async function k6ScriptCommand(a: Args): Promise<number> {
  if (a.demo) {
    throw new PlateauError('k6-script --demo: the demo target lives only as long as a `plateau run --demo`, so a script written for it would point at nothing',
      'run k6 against the demo with `plateau run --demo --engine k6`, or start your target and pass --target (and --scenario)', 'k6-script-demo', EXIT.usage);
  }
  const config = await loadConfig(a.config as string | undefined, { ...overridesOf(a), out: undefined });
  const scenario = config.scenario ? await loadScenario(config.scenario) : defaultScenario(config.target.url);
  const runId = config.output.runId ?? newRunId();
  const file = path.resolve(a['out-file'] as string);
  let dir: string;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    dir = fs.mkdtempSync(path.join(path.dirname(file), '.plateau-k6-'));
  } catch (err) {
    throw new PlateauError(`cannot write ${file} (--out-file): ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, 'give --out-file a path in a writable directory', 'output-unwritable', EXIT.usage);
  }
  try {
    // the whole plan: k6 itself gives an --execution-segment its share of every rate
    const plan = buildPlan(config, null);
    const written = await writeK6Script({ config, plan, scenario, runId, dir, seqOffset: 0 });
    fs.renameSync(written, file);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const out = path.relative(process.cwd(), file);
  process.stdout.write(`wrote ${out} (run id ${runId}); run it with:\n  k6 ${k6Args(config, { script: out, out: 'k6-out.json', summary: 'k6-summary.json' }).join(' ')}\nthen: plateau import k6 k6-out.json\n(secrets such as ${(scenario.secrets ?? ['THE_KEY']).join(', ')} are read from the environment by k6)\n`);
  return EXIT.ok;
}

export function k6ScriptOptions<T>(y: Argv<T>) {
  return loadOptions(y).option('out-file', { type: 'string', default: 'plateau-k6.js', describe: 'where to write the k6 script' });
}

export function importOptions<T>(y: Argv<T>) {
  return y
    .positional('tool', { choices: ['k6'] as const, demandOption: true, describe: 'the tool whose output to import' })
    .positional('file', { type: 'string', demandOption: true, describe: 'k6 --out json or csv file (.gz accepted)' })
    .option('start-rate', { type: 'number', describe: 'first step, req/s (with the other step flags; else derived from the data)' })
    .option('step-rate', { type: 'number', describe: 'rate added per step, req/s' })
    .option('max-rate', { type: 'number', describe: 'last step, req/s' })
    .option('ramp', { type: 'number', describe: 'seconds of ramp before each hold' })
    .option('hold', { type: 'number', describe: 'seconds each step holds its rate' })
    .option('settle', { type: 'number', describe: 'seconds at the start of each hold left out of judging' })
    .option('t0', { type: 'string', describe: 'scenario start (ISO time or epoch ms); default: first vus point - 1 s' })
    .option('scenario', { type: 'string', array: true, describe: 'k6 scenario name(s) to keep (default: all)' })
    .option('target', { type: 'string', describe: 'what was loaded, shown in the report' })
    .option('run-id', { type: 'string', describe: 'name of the run (default: timestamp + random)' })
    .option('out', { type: 'string', default: 'runs', describe: 'directory of run stores' });
}

function t0Of(text: unknown): number | undefined {
  if (text === undefined) return undefined;
  const s = String(text);
  const ms = /^\d+(\.\d+)?$/.test(s) ? Number(s) : Date.parse(s);
  if (Number.isNaN(ms)) throw new PlateauError(`--t0 ${s} is neither an ISO time nor epoch ms`, 'e.g. --t0 2026-11-29T16:52:40.712Z or --t0 1795971160712', 'usage', EXIT.usage);
  return ms;
}

export async function importCommand(a: Args): Promise<number> {
  const r = await importK6({
    file: a.file as string, outDir: a.out as string, runId: a['run-id'] as string | undefined,
    steps: { startPerSec: num(a, 'start-rate'), stepPerSec: num(a, 'step-rate'), maxPerSec: num(a, 'max-rate'), rampS: num(a, 'ramp'), holdS: num(a, 'hold'), settleS: num(a, 'settle') },
    t0Ms: t0Of(a.t0), scenarios: a.scenario as string[] | undefined, target: a.target as string | undefined,
  });
  process.stdout.write(`${renderPlateauTable(r.result)}\n\nimported ${r.ingest.stats.points.toLocaleString('en-US')} k6 samples (${r.ingest.format}); steps ${r.stepsFrom}\nreport: ${path.relative(process.cwd(), r.dir)}/report.md\n`);
  return EXIT.ok;
}
