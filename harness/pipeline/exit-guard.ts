/**
 * process.exit() called while a run runs in this process (the scenario's code on one engine thread,
 * or a package it uses) ended the CLI at once, with no report and its exit code (3 read as "refused
 * before any load"; a review). No report can be written then (the 'exit' event runs no async work),
 * so the run says, on stderr, what ended it, that its data is kept and how to write its report, and
 * exits 4 rather than with the code it was given. Engine worker threads say theirs through the main
 * thread (workers.ts). A second Ctrl-C ends the process by its signal, not through here.
 */
import { EXIT } from '../errors.ts';

/** Guards the process's exit until the returned function is called (the run returned). */
export function guardExit(dir: string, write: (s: string) => void = (s) => process.stderr.write(s)): () => void {
  const onExit = (code: number) => {
    write(
      `\nplateau: the run's process was ended by process.exit(${code}) while the run ran, from code it runs (the scenario's, or a package it uses), not by plateau\n  fix: remove the process.exit() call from the scenario (a transaction ends by returning, and fails its arrival by throwing); the run's data up to here is kept in ${dir}: write its report with \`plateau report ${dir}\`\n`,
    );
    process.exitCode = EXIT.stage;
  };
  process.on('exit', onExit);
  return () => process.off('exit', onExit);
}
