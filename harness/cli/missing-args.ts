/**
 * A command typed without its arguments: yargs' "Not enough non-option arguments: got 1, need at
 * least 2" (which counts `baseline` and `import`'s tool among them) said as what is missing, with
 * the command that gives it.
 */
import { PlateauError, EXIT } from '../errors.ts';

interface Wanted {
  /** Each positional after the command's name, in order, as the message names it. */
  args: readonly string[];
  fix: string;
}

const WANTED: Record<string, Wanted> = {
  import: {
    args: ['the tool (k6)', 'the k6 output file'],
    fix: 'give the file k6 wrote, e.g. plateau import k6 k6-out.json (from k6 run --out json=k6-out.json; csv and .gz are read too)',
  },
  compare: {
    args: ['run A', 'run B'],
    fix: 'give two run directories, e.g. plateau compare runs/<before> runs/latest',
  },
  baseline: {
    args: ['the action (save)', 'the run to save'],
    fix: 'give the run, e.g. plateau baseline save runs/latest (writes baseline.json; --out names another file)',
  },
  gate: {
    args: ['the run to judge'],
    fix: 'give the run, e.g. plateau gate runs/latest --baseline baseline.json',
  },
};

/** The error for a command missing its positional arguments; null for any other usage error. */
export function missingArguments(msg: string, argv: readonly string[]): PlateauError | null {
  const command = argv[0];
  const wanted = command === undefined ? undefined : WANTED[command];
  const got = /^Not enough non-option arguments: got (\d+)/.exec(msg);
  if (!wanted || !got) return null;
  const given = Number(got[1]);
  const missing = wanted.args.slice(Math.min(given, wanted.args.length));
  if (missing.length === 0) return null;
  const what = missing.length === 1 ? missing[0] : `${missing.slice(0, -1).join(', ')} and ${missing.at(-1)}`;
  const code = command === 'import' ? 'import-file-missing' : `${command}-arguments-missing`;
  return new PlateauError(`${command}: missing ${what}`, wanted.fix, code, EXIT.usage);
}
