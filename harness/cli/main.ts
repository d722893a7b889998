/**
 * The CLI entry: the one place that touches the process (argv, signals, exit codes). It maps a
 * PlateauError to its exit code with the fix; any other error is a bug and says so.
 */
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { PlateauError, EXIT } from '../errors.ts';
import { loadOptions } from './options.ts';
import { runCommand, planCommand } from './commands.ts';
import { baselineBuilder, baselineCommand, compareBuilder, compareCommand, gateBuilder, gateCommand } from './gate-commands.ts';
import { k6ScriptCommand, k6ScriptOptions, importCommand, importOptions } from './k6-commands.ts';
import { reportOrMergeCommand, reportOptions } from './report-command.ts';

/**
 * `--tolerance -5%` as `--tolerance=-5%`: yargs takes a value that starts with a dash for flags of
 * its own unless it reads as a number ("Unknown arguments: 5, %"); the option's check then says
 * what is wrong with the value.
 */
function attachDashValues(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const next = argv[i + 1];
    if (/^--[^=]+$/.test(a) && next !== undefined && /^-\d[\d.]*%$/.test(next)) { out.push(`${a}=${next}`); i++; } else out.push(a);
  }
  return out;
}

async function main(argv: string[]): Promise<number> {
  let code = EXIT.ok as number;
  await yargs(attachDashValues(argv))
    .scriptName('plateau')
    .usage('$0 <command> [options]\n\nStepped open-model load that stops on the throughput plateau.')
    .command('run', 'preflight, reset, RTT, warmup, stepped load, report', (y) => loadOptions(y), async (a) => { code = await runCommand(a); })
    .command('plan', 'print the plan (stages, steps, durations, expected samples) and send nothing', (y) => loadOptions(y), async (a) => { code = await planCommand(a); })
    .command('report [run-dir]', 'rebuild every output of a run from its store alone (--merge: several runs into one)', (y) => reportOptions(y), async (a) => { code = await reportOrMergeCommand(a); })
    .command('k6-script', 'write the k6 script plateau would run (scenario bundled, plan as options)', (y) => k6ScriptOptions(y), async (a) => { code = await k6ScriptCommand(a); })
    .command('import <tool> <file>', 'turn a finished k6 run (--out json/csv, .gz) into a plateau run and report', (y) => importOptions(y), async (a) => { code = await importCommand(a); })
    .command('compare <run-a> <run-b>', 'two runs side by side at equal rates, with warnings when they are not comparable', compareBuilder, async (a) => { code = await compareCommand(a); })
    .command('baseline <action> <run>', 'save a run as the baseline the gate holds later runs to (action: save)', baselineBuilder, async (a) => { code = await baselineCommand(a); })
    .command('gate <run>', 'exit 0 when capacity holds against --baseline, 1 on a regression, 3 when the run cannot be judged (2: a usage error)', gateBuilder, async (a) => { code = await gateCommand(a); })
    .demandCommand(1, 'name a command: run, plan or report')
    .strict()
    .help()
    .fail((msg, err) => { throw err ?? new PlateauError(msg, 'see plateau --help', 'usage', EXIT.usage); })
    .parseAsync();
  return code;
}

main(hideBin(process.argv)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof PlateauError) {
      process.stderr.write(`plateau: ${err.message}\n  fix: ${err.hint}\n`);
      process.exit(err.exitCode);
    }
    process.stderr.write(`plateau: internal error (a bug, please report it):\n${(err as Error)?.stack ?? String(err)}\n`);
    process.exit(EXIT.bug);
  },
);
