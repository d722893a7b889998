/** A command typed without its arguments names what is missing, with the command that gives it. */
import { describe, expect, it } from 'vitest';
import { cliInProcess } from '../../test/helpers/cli.ts';
import { missingArguments } from './missing-args.ts';

describe('a command without its arguments', () => {
  it.each([
    [['compare'], 'compare: missing run A and run B', 'plateau compare runs/<before> runs/latest'],
    [['compare', 'runs/a'], 'compare: missing run B', 'plateau compare runs/<before> runs/latest'],
    [['compare', '--json'], 'compare: missing run A and run B', 'plateau compare runs/<before> runs/latest'],
    [['gate', '--baseline', 'b.json'], 'gate: missing the run to judge', 'plateau gate runs/latest --baseline'],
    [['baseline', 'save'], 'baseline: missing the run to save', 'plateau baseline save runs/latest'],
    [['baseline'], 'baseline: missing the action (save) and the run to save', 'plateau baseline save runs/latest'],
  ])('%j says what is missing (yargs said "Not enough non-option arguments: got N")', async (argv, said, fix) => {
    const r = await cliInProcess(argv);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`plateau: ${said}\n`);
    expect(r.stderr).toContain(fix);
    expect(r.stderr).not.toMatch(/non-option/);
  });

  it('counts what yargs got, not the words typed: a flag value is no argument', () => {
    const msg = 'Not enough non-option arguments: got 1, need at least 2';
    expect(missingArguments(msg, ['import', 'k6', '--max-rate', '5'])?.message).toBe(
      'import: missing the k6 output file',
    );
    expect(missingArguments('Unknown argument: x', ['compare'])).toBeNull();
    expect(missingArguments(msg, ['run'])).toBeNull();
  });
});
