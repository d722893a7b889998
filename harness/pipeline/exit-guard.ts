/**
 * process.exit() called while a run runs in this process (the scenario's code on one engine thread,
 * or a package it uses) ended the CLI at once, with no report and its exit code (3 read as "refused
 * before any load"; a review). While the run runs, process.exit is replaced (decision 081): a call
 * stops the run as a fault would (the engine instance listening, else the run's fallback:
 * engine/unhandled.ts), which ends with exit 4 and its report, as an engine worker thread that
 * exited already did (workers.ts), and the call throws so the code after it does not run. Where
 * nothing listens (no leg or fallback yet) the call goes through, and the 'exit' listener says on
 * stderr what ended the run, that its data is kept and how to write its report (the 'exit' event
 * runs no async work), and exits 4 rather than with the code given. A second Ctrl-C ends the
 * process by its signal, not through here.
 */
import { EXIT, PlateauError } from '../errors.ts';
import { RAISED, raiseFault } from '../engine/unhandled.ts';
import { EXIT_CALLED_FIX } from '../engine/thrown-by.ts';

/** Guards the process's exit until the returned function is called (the run returned). */
export function guardExit(dir: string, write: (s: string) => void = (s) => process.stderr.write(s)): () => void {
  const onExit = (code: number) => {
    write(
      `\nplateau: the run's process was ended by process.exit(${code}) while the run ran, from code it runs (the scenario's, or a package it uses), not by plateau\n  fix: remove the process.exit() call from the scenario (a transaction ends by returning, and fails its arrival by throwing); the run's data up to here is kept in ${dir}: write its report with \`plateau report ${dir}\`\n`,
    );
    process.exitCode = EXIT.stage;
  };
  const exit = process.exit;
  const guarded = function exitDuringRun(code?: number | string | null): never {
    if (!raiseFault(exitCalled(code))) return exit.call(process, code);
    // unwinds the code after the call; not counted again where nobody catches it
    throw Object.assign(
      new Error(
        `process.exit(${code ?? ''}) was called during the run: plateau stops the run here rather than end its process (remove the call)`,
      ),
      { [RAISED]: true },
    );
  };
  process.exit = guarded;
  process.on('exit', onExit);
  return () => {
    process.off('exit', onExit);
    if (process.exit === guarded) process.exit = exit;
  };
}

/** The run's error for a process.exit() in code it runs. */
export function exitCalled(code: number | string | null | undefined): PlateauError {
  return new PlateauError(
    `the scenario's code (or a package it uses) called process.exit(${code ?? ''}) during the run: the run stopped there`,
    EXIT_CALLED_FIX,
    'process-exit',
    EXIT.stage,
  );
}
