/**
 * Reading what gate and compare judge: a run directory (re-analysed from its store, nothing
 * rewritten), a summary.json, or a baseline.json; and the cost settings of a run's config.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { CostSettings } from '../../analysis/models/cost.ts';
import type { RunResult } from '../../analysis/types.ts';
import { PlateauError, EXIT } from '../errors.ts';
import { analyzeStore } from '../report.ts';
import { byNameProblem, currentRunResult, isBaseline, isRunResult } from './baseline.ts';

export interface LoadedRun {
  result: RunResult;
  /** The run's `cost` config section, when it was run from a directory whose config had one. */
  cost: CostSettings | null;
  /** A directory to write gate outputs beside (the run dir, or the file's directory). */
  dir: string;
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new PlateauError(
      `cannot read ${file}: ${(err as Error).message}`,
      'pass a run directory (runs/<id>), its summary.json or a baseline.json',
      'run-unreadable',
      EXIT.usage,
    );
  }
}

/** The run, unless its per-name results are malformed (a hand-edited or foreign file): then a usage error naming the field. */
function wellFormed(p: string, run: RunResult): RunResult {
  const problem = byNameProblem(run);
  if (problem === null) return run;
  throw new PlateauError(
    `${p}: ${problem}`,
    "rebuild the summary from its run with `plateau report runs/<id>` (or save the baseline again), or delete the steps' byName fields to compare whole steps only",
    'run-malformed',
    EXIT.usage,
  );
}

/** A run from a directory, a summary.json or a baseline.json. */
export function loadRunResult(p: string): LoadedRun {
  const abs = path.resolve(p);
  if (!fs.existsSync(abs))
    throw new PlateauError(
      `${p} does not exist`,
      'pass a run directory such as runs/latest, or a summary.json / baseline.json file',
      'run-missing',
      EXIT.usage,
    );
  if (fs.statSync(abs).isDirectory()) {
    const { result, meta } = analyzeStore(abs);
    const cost = (meta.config as { cost?: CostSettings } | null)?.cost ?? null;
    return { result, cost, dir: abs };
  }
  const json = readJson(abs);
  if (isBaseline(json))
    return { result: wellFormed(p, currentRunResult(json.run)), cost: null, dir: path.dirname(abs) };
  if (isRunResult(json)) return { result: wellFormed(p, currentRunResult(json)), cost: null, dir: path.dirname(abs) };
  throw new PlateauError(
    `${p} is neither a plateau run nor a baseline`,
    'pass a run directory, its summary.json, or a file written by `plateau baseline save`',
    'not-a-run',
    EXIT.usage,
  );
}

/** A baseline file; a plain summary.json is accepted too. */
export function loadBaseline(p: string): RunResult {
  const abs = path.resolve(p);
  if (!fs.existsSync(abs)) {
    throw new PlateauError(
      `baseline ${p} does not exist`,
      'save one from a good run: plateau baseline save runs/<id> --out baseline.json',
      'baseline-missing',
      EXIT.usage,
    );
  }
  return loadRunResult(abs).result;
}
