/**
 * The CLI entry: the one place that touches the process (argv, signals, exit codes). It maps a
 * PlateauError to its exit code with the fix; any other error is a bug and says so.
 */
import { hideBin } from 'yargs/helpers';
import { PlateauError, EXIT } from '../errors.ts';
import { program } from './program.ts';

async function main(argv: string[]): Promise<number> {
  let code = EXIT.ok as number;
  await program(argv, (c) => {
    code = c;
  }).parseAsync();
  return code;
}

main(hideBin(process.argv)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof PlateauError) {
      process.stderr.write(`plateau: ${err.message}\n  fix: ${err.hint}\n`);
      process.exit(err.exitCode);
    }
    process.stderr.write(
      `plateau: internal error (a bug, please report it):\n${(err as Error)?.stack ?? String(err)}\n`,
    );
    process.exit(EXIT.bug);
  },
);
