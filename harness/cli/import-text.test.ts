/** `plateau import k6`'s terminal text: what a missing file says. */
import { describe, expect, it } from 'vitest';
import { cliInProcess } from '../../test/helpers/cli.ts';

describe('plateau import k6', () => {
  it.each([
    [['import', 'k6'], 'plateau: import: missing the k6 output file\n'],
    [['import', 'k6', '--max-rate', '5'], 'plateau: import: missing the k6 output file\n'],
    [['import'], 'plateau: import: missing the tool (k6) and the k6 output file\n'],
  ])(
    '%j names the file it is missing, with the command that gives it (it said "Not enough non-option arguments")',
    async (argv, said) => {
      const r = await cliInProcess(argv);
      expect(r.status).toBe(2);
      expect(r.stderr).toBe(
        `${said}  fix: give the file k6 wrote, e.g. plateau import k6 k6-out.json (from k6 run --out json=k6-out.json; csv and .gz are read too)\n`,
      );
    },
  );
});
