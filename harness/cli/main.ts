/**
 * The CLI entry: the one place that touches the process (argv, exit codes); run-cli.ts maps a
 * PlateauError to its exit code with the fix, and says any other error is a bug.
 */
import { hideBin } from 'yargs/helpers';
import { EXIT } from '../errors.ts';
import { errorText, runCli } from './run-cli.ts';
import { exitWhenFlushed } from './exit.ts';
import { secretScrubber } from '../secret-scrub.ts';

runCli(hideBin(process.argv)).then(
  (code) => exitWhenFlushed(code),
  (err: unknown) => {
    process.stderr.write(errorText(err, secretScrubber([], process.env)));
    exitWhenFlushed(EXIT.bug);
  },
);
