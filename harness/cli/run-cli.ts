/**
 * The CLI on an argv, without the process: its exit code, and for an error the text main.ts
 * prints to stderr (a PlateauError's message with its fix; anything else is a bug and says so).
 * main.ts is this plus process.exit; tests run it in-process with their own CliIo.
 */
import { PlateauError, EXIT } from '../errors.ts';
import { program } from './program.ts';
import { processIo, type CliIo } from './io.ts';

export async function runCli(argv: string[], io: CliIo = processIo): Promise<number> {
  let code = EXIT.ok as number;
  try {
    await program(
      argv,
      (c) => {
        code = c;
      },
      io,
    ).parseAsync();
    return code;
  } catch (err) {
    io.err(errorText(err));
    return err instanceof PlateauError ? err.exitCode : EXIT.bug;
  }
}

/** What stderr says of an error that ended the CLI. */
export function errorText(err: unknown): string {
  if (err instanceof PlateauError) return `plateau: ${err.message}\n  fix: ${err.hint}\n`;
  return `plateau: internal error (a bug, please report it):\n${(err as Error)?.stack ?? String(err)}\n`;
}
