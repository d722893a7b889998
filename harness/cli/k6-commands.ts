/** The k6 commands: `plateau k6-script` and `plateau import k6 <file>`. */
import fs from 'node:fs';
import path from 'node:path';
import type { Argv } from 'yargs';
import { loadConfig } from '../config/load.ts';
import { buildPlan } from '../../analysis/plan.ts';
import { loadScenario } from '../scenario/load.ts';
import { defaultScenario } from '../scenario/default.ts';
import { runIds } from '../environment.ts';
import { renderPlateauTable } from '../../reports/table.ts';
import { EXIT, PlateauError } from '../errors.ts';
import { writeK6Script, k6Args, K6_CSV_TIME } from '../k6/engine/process.ts';
import { dataBeside, runtimeData } from '../k6/engine/bundle.ts';
import { importK6 } from '../k6/import/import.ts';
import type { ImportOptions } from '../k6/import/import-options.ts';
import { overridesOf, withFlags } from './options.ts';
import { applyOverrides } from '../config/load.ts';
import type { CliIo } from './io.ts';
import type { Plan } from '../../analysis/plan.ts';
import { Schedule } from '../../analysis/schedule.ts';
import type { Scenario } from '../scenario/types.ts';
import { sampleRowsKept, trafficOf } from '../scenario/traffic.ts';
import { loadDataSources, uniqueRowsProblem } from '../scenario/data-load.ts';
import { idTooLong } from '../pipeline/preflight.ts';
import { formatId } from '../scenario/context.ts';
import { RUN_ID_ENV } from '../k6/runtime/ids.ts';
import { TARGET_ENV } from '../k6/runtime/target.ts';
import { DEMO_CHOICE } from '../config/messages.ts';
import { secretScrubber, secretsHeldIn } from '../secret-scrub.ts';

type Args = Record<string, unknown>;

/** The step flags given to `import`, as the config's steps section they would set (the flag table maps both). */
function stepsOf(a: Args): ImportOptions['steps'] {
  return (applyOverrides({}, overridesOf(a, 'import')).steps ?? {}) as ImportOptions['steps'];
}

/** `plateau k6-script --out-file plateau-k6.js [run flags]`: the bundle k6 would run, for reading or running by hand. */
export async function k6ScriptCommand(a: Args, io: CliIo): Promise<number> {
  if (a.demo) {
    throw new PlateauError(
      'k6-script --demo: the demo target lives only as long as a `plateau run --demo`, so a script written for it would point at nothing',
      'run k6 against the demo with `plateau run --demo --engine k6`, or start your target and pass --target (and --scenario)',
      'k6-script-demo',
      EXIT.usage,
    );
  }
  // --out (run stores) is accepted as on `plateau run` and unused here; a script's path given to it is a slip
  if (typeof a.out === 'string' && /\.[cm]?js$/i.test(a.out)) {
    throw new PlateauError(
      `k6-script --out ${a.out}: --out names the directory of run stores, which k6-script does not write`,
      `write the script there with --out-file ${a.out}`,
      'k6-script-out',
      EXIT.usage,
    );
  }
  refuseNativeFlags(a);
  const config = await loadConfig(a.config as string | undefined, { ...overridesOf(a), out: undefined }).catch(
    (err: unknown) => {
      throw withoutDemo(err);
    },
  );
  const scenario = config.scenario ? await loadScenario(config.scenario) : defaultScenario(config.target.url);
  // the whole plan: k6 itself gives an --execution-segment its share of every rate
  const plan = buildPlan(config, null);
  if (config.scenario) checkData(config.scenario, scenario, plan);
  // each k6 run of the script derives its ids when it starts (runtime/ids.ts); a key drawn now has
  // their length, so the longest id the plan reaches is checked against ids.maxLength here
  const given = config.output.runId;
  const { runId, idKey } = runIds(given);
  const maxSeq = new Schedule(plan.segments).totalArrivals;
  const tooLong = idTooLong(formatId('seq', scenario.ids?.prefix ?? '', idKey, maxSeq), scenario.ids?.maxLength);
  if (tooLong) throw tooLong;
  const idsAtStart = { ...(given === undefined ? {} : { runId: given }), maxSeq, maxLength: scenario.ids?.maxLength };
  const file = path.resolve(a['out-file'] as string);
  // the data files as the script opens them: beside itself, so that the two move together
  const data = config.scenario ? dataBeside(runtimeData(scenario, config.scenario), path.dirname(file)) : {};
  let dir: string;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    dir = fs.mkdtempSync(path.join(path.dirname(file), '.plateau-k6-'));
  } catch (err) {
    throw new PlateauError(
      `cannot write ${file} (--out-file): ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      'give --out-file a path in a writable directory',
      'output-unwritable',
      EXIT.usage,
    );
  }
  try {
    const written = await writeK6Script({
      config,
      plan,
      scenario,
      runId,
      idsAtStart,
      dir,
      seqOffset: 0,
      data,
    });
    refuseHeldSecrets(fs.readFileSync(written, 'utf8'), scenario.secrets ?? [], io.env, `--out-file ${file}`);
    fs.renameSync(written, file);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const out = path.relative(process.cwd(), file);
  const secrets = scenario.secrets ?? [];
  const opens = Object.values(data).map((d) => d.path);
  // named by --k6-out's format: k6 gzips an output file whose name ends in .gz, and the import reads it so
  const k6Out = `k6-out.${config.k6.out}`;
  // k6's default CSV stamps whole seconds, which blur the steps the import derives and move its
  // windows up to a second (docs/engines.md): milliseconds, as plateau runs k6 itself
  const csvTime = config.k6.out.startsWith('csv') ? `${Object.entries(K6_CSV_TIME)[0].join('=')} ` : '';
  // the import command it prints names target.url, which a config may build from a secret
  const scrub = secretScrubber(secrets, io.env);
  io.out(
    scrub(
      `wrote ${out} (each k6 run of it sends ids of its own; ${RUN_ID_ENV}=<name> names one); run it with:\n  ${csvTime}k6 ${k6Args(config, { script: out, out: k6Out, summary: 'k6-summary.json' }).map(shellWord).join(' ')}\nthen: plateau import k6 ${k6Out} --target ${shellWord(config.target.url)}\n` +
        `(it loads ${new URL(config.target.url).origin}; k6 run -e ${TARGET_ENV}=<url> points it at another address of the service, then import with that --target)\n` +
        (secrets.length
          ? `(k6 reads the scenario's secrets, ${secrets.join(', ')}, from its environment: export them before k6 run)\n`
          : '') +
        (opens.length
          ? `(the script opens its data files relative to itself: ${opens.join(', ')}; to run it on another machine, copy them with it to the same relative paths, or pack it and them into one file with: k6 archive ${shellWord(out)})\n`
          : ''),
    ),
  );
  return EXIT.ok;
}

/**
 * A k6 script (and a manifest holding one) must hold its target as given to work, so it cannot be
 * scrubbed: one that would hold the value of a secret of the environment is refused.
 */
export function refuseHeldSecrets(
  text: string,
  declared: readonly string[],
  env: NodeJS.ProcessEnv,
  into: string,
): void {
  const held = secretsHeldIn(text, declared, env);
  if (held.length === 0) return;
  throw new PlateauError(
    `the k6 script would hold the value of ${held.join(', ')} (a secret of the environment: in target.url or --run-id), written in clear into ${into}`,
    `keep secrets out of target.url and --run-id: send the secret from the scenario (list it in \`secrets\`, read ctx.env.${held[0]}), which k6 reads from its own environment when it runs`,
    'k6-script-secret',
    EXIT.usage,
  );
}

/** `word` as one shell word: as is where it holds nothing a shell reads, else single-quoted (the commands k6-script prints). */
function shellWord(word: string): string {
  return /^[\w:/.@%+=,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Why each native engine's flag means nothing to a k6 script: k6 sends the load, with its own client and goroutines. */
const NATIVE_ONLY: Record<string, string> = {
  'http-client': "the native engine's HTTP client (k6 sends with its own)",
  workers: "the native engine's threads (k6 schedules its own goroutines)",
  warmup:
    "the native engine's warmup stage (a k6 script has none: k6's stages are fixed when it starts, and the first step's ramp opens its connections)",
  engine: 'who sends the load (a k6 script is sent by k6)',
};

/** The native engine's flags given to k6-script, refused with the reason (--engine k6 says what the script is, and passes). */
function refuseNativeFlags(a: Args): void {
  const given = Object.keys(NATIVE_ONLY).filter((f) => a[f] !== undefined && !(f === 'engine' && a[f] === 'k6'));
  if (given.length === 0) return;
  // --no-warmup as typed
  const typed = (f: string) => (a[f] === false ? `--no-${f}` : `--${f}`);
  throw new PlateauError(
    `k6-script takes no flag of the native engine's: ${given.map((f) => `${typed(f)} is ${NATIVE_ONLY[f]}`).join('; ')}`,
    `leave ${given.map(typed).join(' and ')} out (plateau run takes them, for the native engine)`,
    'k6-script-native-flag',
    EXIT.usage,
  );
}

/** A missing target's error without the demo, which k6-script refuses: what works instead. */
function withoutDemo(err: unknown): unknown {
  if (!(err instanceof PlateauError) || !err.message.includes(DEMO_CHOICE)) return err;
  return new PlateauError(
    err.message.replace(
      DEMO_CHOICE,
      ': a script needs a target that outlives plateau (for the demo, run k6 through plateau run --demo --engine k6)',
    ),
    err.hint,
    err.code,
    err.exitCode,
  );
}

/**
 * The data checks of `plateau plan`, for a script k6 runs once by hand (no warmup, no reruns): a
 * file that cannot be read as rows, and a unique source with fewer rows than the steps' arrivals
 * take, whose last arrivals would otherwise fail mid-load and read as the target's limit.
 */
function checkData(scenarioPath: string, scenario: Scenario, plan: Plan): void {
  const traffic = trafficOf(scenario);
  const data = loadDataSources(path.resolve(scenarioPath), traffic.data, sampleRowsKept(traffic));
  const fewRows = uniqueRowsProblem(data, new Schedule(plan.segments).totalArrivals, false, traffic, false);
  if (fewRows) throw fewRows;
}

export function k6ScriptOptions<T>(y: Argv<T>) {
  return withFlags(y, 'k6-script');
}

export function importOptions<T>(y: Argv<T>) {
  return withFlags(
    y
      .positional('tool', { choices: ['k6'] as const, demandOption: true, describe: 'the tool whose output to import' })
      .positional('file', { type: 'string', demandOption: true, describe: 'k6 --out json or csv file (.gz accepted)' }),
    'import',
  );
}

function t0Of(text: unknown): number | undefined {
  if (text === undefined) return undefined;
  const s = String(text);
  const ms = /^\d+(\.\d+)?$/.test(s) ? Number(s) : Date.parse(s);
  if (Number.isNaN(ms))
    throw new PlateauError(
      `--t0 ${s} is neither an ISO time nor epoch ms`,
      'e.g. --t0 2026-11-29T16:52:40.712Z or --t0 1795971160712',
      'usage',
      EXIT.usage,
    );
  return ms;
}

/**
 * The import's notes on the terminal: each `note: ...`, and a note's fix (a line of its own that
 * starts `fix: `, as the notes keep it for the stage's evidence) under it, as an error's fix is
 * printed, never as `note: fix: ...`.
 */
export function noteLines(notes: readonly string[]): string {
  return notes.map((n) => (n.startsWith('fix: ') ? `  ${n}\n` : `note: ${n}\n`)).join('');
}

export async function importCommand(a: Args): Promise<number> {
  const r = await importK6({
    file: a.file as string,
    outDir: a.out as string,
    runId: a['run-id'] as string | undefined,
    steps: stepsOf(a),
    t0Ms: t0Of(a.t0),
    scenarios: a.scenario as string[] | undefined,
    target: a.target as string | undefined,
    openModel: a['open-model'] === true,
  });
  process.stdout.write(
    `${renderPlateauTable(r.result)}\n\nimported ${r.ingest.stats.points.toLocaleString('en-US')} k6 samples (${r.ingest.format}); steps ${r.stepsFrom}\n${noteLines(r.notes)}report: ${path.relative(process.cwd(), r.dir)}/report.md\n`,
  );
  return EXIT.ok;
}
