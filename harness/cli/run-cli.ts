/**
 * The CLI on an argv, without the process: its exit code, and for an error the text main.ts
 * prints to stderr (a PlateauError's message with its fix; anything else is a bug and says so).
 * main.ts is this plus process.exit; tests of usage errors run it in-process.
 */
import { PlateauError, EXIT } from '../errors.ts';
import { program } from './program.ts';

export async function runCli(argv: string[], writeErr: (s: string) => void): Promise<number> {
  let code = EXIT.ok as number;
  try {
    await program(argv, (c) => {
      code = c;
    }).parseAsync();
    return code;
  } catch (err) {
    writeErr(errorText(err));
    return err instanceof PlateauError ? err.exitCode : EXIT.bug;
  }
}

/** What stderr says of an error that ended the CLI. */
export function errorText(err: unknown): string {
  if (err instanceof PlateauError) return `plateau: ${err.message}\n  fix: ${err.hint}\n`;
  return `plateau: internal error (a bug, please report it):\n${(err as Error)?.stack ?? String(err)}\n`;
}
