/**
 * `plateau report <dir>`: every output of a run rebuilt from its store alone; `plateau report
 * --merge a b ... --out dir`: several runs that loaded one target at once (k6 instances with
 * execution segments, native processes on several machines) merged into one run and report.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Argv } from 'yargs';
import { reportFilesLine, writeReports } from '../report.ts';
import { mergeRuns } from '../merge.ts';
import { renderPlateauTable } from '../../reports/table.ts';
import { EXIT, PlateauError } from '../errors.ts';
import { withFlags } from './options.ts';
import { secretScrubber } from '../secret-scrub.ts';

type Args = Record<string, unknown>;

export function reportOptions<T>(y: Argv<T>) {
  return withFlags(y.positional('run-dir', { type: 'string', describe: 'the run to rebuild' }), 'report');
}

/** `plateau report <dir>` as before, or `plateau report --merge a b ... --out dir`. */
export async function reportOrMergeCommand(a: Args): Promise<number> {
  const merge = a.merge as string[] | undefined;
  if (!merge?.length) {
    if (!a['run-dir'])
      throw new PlateauError(
        'name a run directory, or --merge several',
        'plateau report runs/latest, or plateau report --merge runs/a runs/b --out runs',
        'usage',
        EXIT.usage,
      );
    // --out and --run-id name the merged run: a run rebuilt alone is rebuilt where it is
    const merging = (['out', 'run-id'] as const).filter((f) => a[f] !== undefined);
    if (merging.length > 0)
      throw new PlateauError(
        `--${merging[0]} is for --merge: plateau report rebuilds a run's outputs in its own directory`,
        `leave out --${merging[0]}, or copy the run directory where you want it and report on the copy`,
        'usage',
        EXIT.usage,
      );
    const dir = path.resolve(a['run-dir'] as string);
    const scrub = secretScrubber([], process.env);
    const result = await writeReports(dir, scrub);
    // the line a run ends with: where its outputs are
    process.stdout.write(scrub(`${renderPlateauTable(result)}\n${reportFilesLine(dir)}\n${stillRunningNote(dir)}`));
    return EXIT.ok;
  }
  const dirs = a['run-dir'] ? [a['run-dir'] as string, ...merge] : merge;
  const r = await mergeRuns({
    dirs,
    outDir: (a.out as string | undefined) ?? 'runs',
    runId: a['run-id'] as string | undefined,
  });
  process.stdout.write(
    `${renderPlateauTable(r.result)}\n\nmerged ${dirs.length} runs into ${path.relative(process.cwd(), r.dir)}/report.md\n`,
  );
  return EXIT.ok;
}

/**
 * A run whose run.json still says running is read as interrupted: either its process was killed, or
 * it is still going, and then it rewrites these outputs when it ends (a review read a live run's
 * report as a cut one). Said where that is so.
 */
export function stillRunningNote(dir: string): string {
  let status: unknown;
  try {
    status = (JSON.parse(fs.readFileSync(path.join(dir, 'run.json'), 'utf8')) as { status?: unknown }).status;
  } catch {
    return '';
  }
  return status === 'running'
    ? 'note: run.json still says running, so this report reads the run as interrupted where its data ends: if its process was killed, that is so; if the run is still going, it rewrites these outputs when it ends\n'
    : '';
}
