/** `plateau import k6`'s terminal text: what a missing file says, and how a note's fix is printed. */
import { describe, expect, it } from 'vitest';
import { cliInProcess } from '../../test/helpers/cli.ts';
import { noteLines } from './k6-commands.ts';

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

  it("prints a note's fix under it, as an error's fix, not as `note: fix: ...`", () => {
    expect(
      noteLines([
        'k6-out.json: its 12 requests carry no `name` tag',
        'fix: run k6 again with name in --system-tags',
        'one more note',
      ]),
    ).toBe(
      'note: k6-out.json: its 12 requests carry no `name` tag\n  fix: run k6 again with name in --system-tags\nnote: one more note\n',
    );
  });
});
