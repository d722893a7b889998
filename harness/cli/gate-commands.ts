/**
 * `plateau compare`, `plateau baseline save` and `plateau gate`: the CLI shell around the pure
 * decisions in harness/gate and harness/compare. Exit codes of gate: 0 capacity holds, 1
 * regression, 3 the run cannot be judged (interrupted before its limit was confirmed, generator-bound, contaminated, another
 * engine, rules or target than the baseline's; on `--on slo`, either run without a capacity
 * within its latency objective, or other objectives); 2 is a usage error, as for every command. A name
 * whose p99 or error rate regressed while capacity held is a warning in the gate's outputs (and a
 * section of compare's), never its exit code.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Argv } from 'yargs';
import { costPerRequest, type CostSettings } from '../../analysis/models/cost.ts';
import { costAtSloCapacity } from '../../analysis/slo.ts';
import type { RunResult } from '../../analysis/types.ts';
import { fmtRate, rateUnitOf } from '../../analysis/format.ts';
import { compareRows, renderCompare } from '../../reports/compare.ts';
import { settingDifferences } from '../../analysis/compare/differences.ts';
import { renderCompareJson } from '../../reports/compare-json.ts';
import { renderGateJson } from '../../reports/gate-json.ts';
import { PlateauError, EXIT } from '../errors.ts';
import { baselineOf } from '../gate/baseline.ts';
import { decideGate, gateCapacity, GATE_EXIT, type GateOn } from '../../analysis/gate/decide.ts';
import { NAME_REGRESSION_THRESHOLDS } from '../../analysis/compare/by-name.ts';
import { loadBaseline, loadRunResult } from '../gate/io.ts';
import { unjudgeableReasons } from '../../analysis/gate/judgeable.ts';
import { whereCutAfterLimit, establishedCapacity } from '../../analysis/interrupted-stop.ts';
import { pairUnit } from '../../reports/cells.ts';
import { renderJunit } from '../../reports/gate-junit.ts';
import { renderGateSummary } from '../../reports/gate-summary.ts';
import { withFlags } from './options.ts';
import type { CliIo } from './io.ts';

type Args = Record<string, unknown>;

/** Writes an output file, its directory created; a path that cannot be written is a usage error naming the flag. */
function writeOutput(file: string, text: string, flag: string, append = false): void {
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    if (append) fs.appendFileSync(file, text);
    else fs.writeFileSync(file, text);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new PlateauError(
      `cannot write ${file} (${flag}): ${code ?? (err as Error).message}${code === 'EISDIR' ? ': it is a directory' : ''}`,
      code === 'EISDIR'
        ? `give ${flag} the path of a file (in that directory, say), not of the directory`
        : `give ${flag} a path in a writable directory`,
      'output-unwritable',
      EXIT.usage,
    );
  }
}

/** "5%" -> 0.05, "0.05" -> 0.05; anything else is a usage error naming the flag. */
export function parseTolerance(s: string): number {
  const m = /^\s*((?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?)\s*(%?)\s*$/i.exec(s);
  const v = m ? Number(m[1]) / (m[2] ? 100 : 1) : NaN;
  if (!(v >= 0 && v < 1))
    throw new PlateauError(
      `--tolerance ${s} is not a share of at least 0 and below 100%${v >= 1 ? ': at 100% or more any drop of capacity, to 0, would pass' : ''}`,
      'write it as 5% or 0.05',
      'tolerance-invalid',
      EXIT.usage,
    );
  return v;
}

/** Cost settings from flags, else the run's `cost` config section; null when neither asks for one. */
function costSettings(a: Args, fromConfig: CostSettings | null): CostSettings | null {
  const flags: CostSettings = {
    monthlyCost: a['monthly-cost'] as number | undefined,
    usageSeries: a['usage-series'] as string | undefined,
    unitPrice: a['unit-price'] as number | undefined,
    currency: a.currency as string | undefined,
  };
  const merged = {
    ...(fromConfig ?? {}),
    ...Object.fromEntries(Object.entries(flags).filter(([, v]) => v !== undefined)),
  } as CostSettings;
  return merged.monthlyCost === undefined && merged.usageSeries === undefined ? null : merged;
}

export const compareBuilder = (y: Argv) =>
  withFlags(
    y
      .positional('run-a', {
        type: 'string',
        demandOption: true,
        describe: 'run directory, summary.json or baseline.json (A)',
      })
      .positional('run-b', { type: 'string', demandOption: true, describe: 'the same for B' }),
    'compare',
  );

export async function compareCommand(a: Args, io: CliIo): Promise<number> {
  const A = loadRunResult(a['run-a'] as string),
    B = loadRunResult(a['run-b'] as string);
  const ca = costSettings(a, A.cost),
    cb = costSettings(a, B.cost);
  // and at the capacity within the latency objective, when either run has one
  const atSlo =
    ca && cb && (A.result.slo || B.result.slo)
      ? { a: costAtSloCapacity(A.result, ca), b: costAtSloCapacity(B.result, cb) }
      : null;
  const cost =
    ca && cb
      ? { a: costPerRequest(A.result, ca), b: costPerRequest(B.result, cb), ...(atSlo ? { slo: atSlo } : {}) }
      : null;
  const md = renderCompare(A.result, B.result, cost);
  // --json replaces the text on stdout only: --out still gets the Markdown it asks for
  io.out(
    a.json
      ? renderCompareJson({
          a: A.result,
          b: B.result,
          rows: compareRows(A.result, B.result),
          warnings: settingDifferences(A.result, B.result),
          cost,
        })
      : md,
  );
  if (a.out) writeOutput(path.resolve(a.out as string), md, '--out');
  return EXIT.ok;
}

export const baselineBuilder = (y: Argv) =>
  withFlags(
    y
      .positional('action', { choices: ['save'] as const, demandOption: true })
      .positional('run', { type: 'string', demandOption: true, describe: 'run directory (or its summary.json)' }),
    'baseline',
  );

export async function baselineCommand(a: Args, io: CliIo): Promise<number> {
  const { result } = loadRunResult(a.run as string);
  const reasons = unjudgeableReasons(result);
  if (gateCapacity(result) === null)
    reasons.push(
      result.heldAtLeastPerSec === null
        ? 'no step held, so the run has no capacity to hold later runs to'
        : 'it established no capacity to hold later runs to',
    );
  if (reasons.length > 0 && !a.force) {
    throw new PlateauError(
      `run ${result.runId} cannot be a baseline: ${reasons.join('; ')}`,
      'save a baseline from a complete run that found its capacity (or pass --force)',
      'baseline-unjudgeable',
      GATE_EXIT.invalid,
    );
  }
  const out = path.resolve(a.out as string);
  writeOutput(
    out,
    `${JSON.stringify(baselineOf(result, new Date().toISOString(), runFrom(a.run as string)), null, 2)}\n`,
    '--out',
  );
  const unit = rateUnitOf(result.traffic);
  const rate = (x: number | null | undefined) => (x == null ? 'none' : `${fmtRate(x)} ${unit}`);
  io.out(
    `baseline saved: ${path.relative(process.cwd(), out)} (run ${result.runId}, capacity ${establishedCapacity(result) === null && gateCapacity(result) !== null ? 'at least ' : ''}${rate(gateCapacity(result))}${result.slo ? `, within SLO ${result.slo.atLeast ? 'at least ' : ''}${rate(result.slo.capacityPerSec)}` : ''}${whereCutAfterLimit(result) === null ? '' : `; cut short after its limit was confirmed (${whereCutAfterLimit(result)})`})\n`,
  );
  return EXIT.ok;
}

export const gateBuilder = (y: Argv) =>
  withFlags(
    y.positional('run', { type: 'string', demandOption: true, describe: 'run directory (or its summary.json)' }),
    'gate',
  );

/** Writes the JUnit XML and the Markdown summary (and appends it to GITHUB_STEP_SUMMARY); says where on stderr, leaving stdout the decision. */
function writeGateOutputs(a: Args, dir: string, junit: string, md: string, io: CliIo): void {
  const junitFile = path.resolve((a.junit as string | undefined) ?? path.join(dir, 'gate-junit.xml'));
  const summaryFile = path.resolve((a.summary as string | undefined) ?? path.join(dir, 'gate-summary.md'));
  writeOutput(junitFile, junit, '--junit');
  writeOutput(summaryFile, md, '--summary');
  const step = io.env.GITHUB_STEP_SUMMARY;
  if (step) writeOutput(step, `${md}\n`, 'GITHUB_STEP_SUMMARY', true);
  const shown = (f: string) => path.relative(process.cwd(), f) || f;
  io.err(
    `gate: wrote ${shown(junitFile)} (JUnit) and ${shown(summaryFile)} (Markdown)${step ? `; appended the summary to GITHUB_STEP_SUMMARY` : ''}\n`,
  );
}

export async function gateCommand(a: Args, io: CliIo): Promise<number> {
  const tolerance = parseTolerance(String(a.tolerance ?? '5%'));
  // yargs refuses any other --on (its choices): a usage error listing them
  const on: GateOn = a.on === 'slo' ? 'slo' : 'capacity';
  const baseline: RunResult = loadBaseline(a.baseline as string);
  const run = loadRunResult(a.run as string);
  const decision = decideGate(run.result, baseline, tolerance, NAME_REGRESSION_THRESHOLDS, on);
  const costCfg = costSettings(a, run.cost);
  // the cost per request at the capacity judged
  const cost = costCfg
    ? on === 'slo'
      ? costAtSloCapacity(run.result, costCfg)
      : costPerRequest(run.result, costCfg)
    : null;
  const md = renderGateSummary(decision, run.result, baseline, cost);
  // the decision first: an output that cannot be written must not hide it (--json: the same decision as one document)
  io.out(a.json ? renderGateJson(decision, run.result, baseline, cost) : md);
  writeGateOutputs(a, run.dir, renderJunit(decision, run.result.runId, pairUnit(run.result, baseline)), md, io);
  return decision.exitCode;
}

/** The run a baseline came from, as a path from here: runs/latest resolved to the run it points at (it moves). */
function runFrom(given: string): string {
  const abs = path.resolve(given);
  return path.relative(process.cwd(), fs.existsSync(abs) ? fs.realpathSync(abs) : abs);
}
