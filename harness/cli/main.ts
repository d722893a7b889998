/**
 * The CLI entry: the one place that touches the process (argv, signals, exit codes). It maps a
 * PlateauError to its exit code with the fix; any other error is a bug and says so.
 */
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { PlateauError, EXIT } from '../errors.ts';
import { loadOptions } from './options.ts';
import { runCommand, planCommand, reportCommand } from './commands.ts';

async function main(argv: string[]): Promise<number> {
  let code = EXIT.ok as number;
  await yargs(argv)
    .scriptName('plateau')
    .usage('$0 <command> [options]\n\nStepped open-model load that stops on the throughput plateau.')
    .command('run', 'preflight, reset, RTT, warmup, stepped load, report', (y) => loadOptions(y), async (a) => { code = await runCommand(a); })
    .command('plan', 'print the plan (stages, steps, durations, expected samples) and send nothing', (y) => loadOptions(y), async (a) => { code = await planCommand(a); })
    .command('report <run-dir>', 'rebuild every output of a run from its store alone', (y) => y.positional('run-dir', { type: 'string', demandOption: true }), (a) => { code = reportCommand(a['run-dir'] as string); })
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
