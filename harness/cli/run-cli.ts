/**
 * The CLI on an argv, without the process: its exit code, and for an error the text main.ts
 * prints to stderr (a PlateauError's message with its fix; anything else is a bug and says so).
 * main.ts is this plus process.exit; tests run it in-process with their own CliIo.
 */
import { PlateauError, EXIT, scrubbedError } from '../errors.ts';
import { secretScrubber, type Scrub } from '../secret-scrub.ts';
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
    io.err(errorText(err, secretScrubber([], io.env)));
    return err instanceof PlateauError ? err.exitCode : EXIT.bug;
  }
}

/**
 * What stderr says of an error that ended the CLI, scrubbed of the environment's secret-looking
 * values: a scenario module that failed to load may quote one (Node's JSON.parse quotes what it
 * could not parse), and no scenario's `secrets` are known yet there. A command that knows them
 * scrubs its errors with them first (plan).
 */
export function errorText(err: unknown, scrub: Scrub): string {
  const e = scrubbedError(err, scrub);
  if (e instanceof PlateauError) return `plateau: ${e.message}\n  fix: ${e.hint}\n`;
  return `plateau: internal error (a bug, please report it):\n${(e as Error)?.stack ?? String(e)}\n`;
}
