/**
 * `plateau import k6 <file>`: a finished k6 run (JSON lines or CSV, plain or .gz) becomes a full
 * plateau run store (run.json, buckets.ndjson) and every report, judged on the plan given by the
 * step flags or derived from the data (derive-steps.ts).
 *
 * A k6 run of the user's own script: its arrivals are k6 iterations (an iteration may send any
 * number of requests; output/second.ts says how ok is counted), its requests are in
 * `requests`, and each second is broken down by the `name` tag when the run has several names.
 * Names built from data (URLs with ids, as k6 names a request it was not given a name for) or past
 * the limit are folded into one "(unnamed: N URLs)" row, and the import says so, with the fix.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { BucketRecord, StepPlan, TrafficRecord } from '../../../analysis/types.ts';
import { parseConfigOrThrow } from '../../config/validate.ts';
import type { PlateauConfig } from '../../config/schema.ts';
import { buildPlan } from '../../../analysis/plan.ts';
import { fmtInt, rateUnitOf } from '../../../analysis/format.ts';
import { RunStore, redact, storedPlan } from '../../store/run-store.ts';
import { environment, newRunId } from '../../environment.ts';
import { writeReports } from '../../report.ts';
import { PlateauError, EXIT } from '../../errors.ts';
import { IMPORTED_TARGET } from '../../../analysis/compare/differences.ts';
import { flagsRefusal, loadBeyond } from './plan-check.ts';
import { endedEarly, endedEarlyNote } from './ended-early.ts';
import { unnamedNotes } from './unnamed-note.ts';
import { outsideNote, outsideScenarios } from './outside-note.ts';
import { closedModelOf, type ClosedModel } from './closed-model.ts';
import type { ImportOptions, ImportOutput } from './import-options.ts';
import { outcomeCheck, scenariosCheck } from './input-checks.ts';
import { MAX_T0_LEAD_S, T0_FIX, t0Check } from './t0-check.ts';
import { nameNotes } from './name-notes.ts';
import { planSteps } from './plan-steps.ts';
import { exactOutcomes, importStage } from './import-stage.ts';
import { scenariosNote, summedScenarios } from './scenarios-note.ts';
import { unexplainedChecks } from './unexplained-checks.ts';
import { shedNote } from './shed-note.ts';
import { K6_CSV_HEAD, NOT_K6_FIX, ingestLines, type IngestResult } from '../output/ingest.ts';
import { T0TooEarly } from '../output/t0.ts';
import { readLines } from '../output/lines.ts';

const IMPORT_TARGET = 'http://k6-import.invalid/';

export async function importK6(o: ImportOptions): Promise<ImportOutput> {
  const t0 = performance.now();
  let { records, ingest, cut } = await ingestFile(o, 'iterations');
  if (ingest.stats.points === 0 && cut)
    throw new PlateauError(
      `${o.file} is a gzip stream cut short after ${fmtInt(fs.statSync(o.file).size)} bytes, before any k6 sample in it decoded: a copy or download cut short, or k6 killed as it began writing?`,
      'copy the file whole again (gzip -t FILE says whether a .gz is whole), or pass the plain file k6 wrote',
      'k6-output-cut',
      EXIT.usage,
    );
  if (ingest.stats.points === 0 && ingest.format !== null && !ingest.k6Lines)
    throw new PlateauError(
      `${o.file} is not k6 output: ${ingest.lines === 1 ? 'its one line is' : `its ${fmtInt(ingest.lines)} lines are`} neither k6's JSON lines (k6 run --out json: one {"metric":...,"type":"Point",...} a line) nor its CSV (--out csv: a header that starts ${K6_CSV_HEAD})`,
      NOT_K6_FIX,
      'k6-output-invalid',
      EXIT.usage,
    );
  if (ingest.stats.points === 0) {
    throw new PlateauError(
      `${o.file} holds no k6 samples`,
      'pass the output of a k6 run that sent requests (k6 run --out json=FILE)',
      'k6-output-empty',
      EXIT.usage,
    );
  }
  t0Check(o, ingest);
  scenariosCheck(o, ingest);
  outcomeCheck(o, ingest);
  const notes: string[] = [];
  // no iteration ever ended (each outlived the run, or the file lacks the metric): requests are all there is
  if (
    !ingest.stats.byMetric.iterations &&
    ingest.stats.byMetric.http_reqs &&
    ingest.stats.arrivalsFrom === 'iterations'
  ) {
    ({ records, ingest, cut } = await ingestFile(o, 'requests'));
    notes.push(
      `${path.basename(o.file)} has no \`iterations\` samples (no iteration ended): each request is counted as an arrival`,
    );
  }
  // k6 writes whole lines and ends its gzip stream: a file without either was cut while k6 ran
  const killed = cut || ingest.tornLastLine;
  if (killed) {
    // the second the cut fell in holds only the samples written before it: read whole, it would
    // pass for a collapse of the step it is in; the analysis leaves an interrupted run's last
    // second of load out (analysis/analyze.ts beforeInterrupt), and the store keeps it
    const cutS = cutSecond(ingest);
    notes.push(
      `${path.basename(o.file)} ${cut ? 'ends mid-stream (gzip cut short' : 'ends in a torn line (its last line cut mid-sample'}: k6 killed while writing it?): the samples before the cut are imported${cutS === null ? '' : ` (the second it fell in, ${cutS}-${cutS + 1} s, holds only part of its samples: the last second of load is not judged)`}, the run's last seconds are missing, and the run is judged as interrupted: what its steps held is a lower bound, and a capacity needs a failure past the knee that a later complete step confirmed by failing too (an import has no rerun)`,
    );
  }
  const shed = shedNote(o.file, ingest.stats.expectedShed);
  if (shed) notes.push(shed);
  const outside = outsideScenarios(ingest.stats, records);
  notes.push(
    ...nameNotes(records, ingest.stats.names, outside?.alone.length),
    ...unnamedNotes(path.basename(o.file), ingest.stats),
    ...(outside ? [outsideNote(path.basename(o.file), outside)] : []),
  );
  const several = o.scenarios?.length
    ? null
    : scenariosNote(o.file, ingest.stats.scenarioIterations, ingest.stats.scenarioStartsMs, ingest.stats.t0Ms ?? 0);
  if (several) notes.push(several.note);
  // scenarios that ran at once: their sum is judged, and said so; ones that ran in turn are one run's steps
  const mixed = several && 'fix' in several ? several : null;
  // the gauges count every scenario's VUs: with some scenarios kept, or several run, they say nothing of one
  const closed =
    ingest.stats.arrivalsFrom === 'iterations' && !o.openModel && !o.scenarios?.length && !mixed
      ? closedModelOf(ingest.stats.vusReadings, records)
      : null;
  const unread = unreadNote(o.file, ingest);
  if (unread) notes.push(unread);
  const {
    steps,
    stepsFrom,
    notes: planNotes,
    afterNote,
  } = withUnread(unread, () =>
    planSteps(
      o,
      records,
      ingest.stats.offeredPerS,
      ingest.stats.wholeSeconds === true,
      closed,
      mixed?.fix,
      ingest.stats.offeredPhases,
    ),
  );
  notes.push(...planNotes);
  const config = parseConfigOrThrow(
    {
      target: { url: o.target ?? IMPORT_TARGET },
      steps,
      warmup: { enabled: false },
      output: { dir: o.outDir, ...(o.runId ? { runId: o.runId } : {}) },
    },
    {
      fix: 'fix the flags of the fields named above (steps: --start-rate, --step-rate and --max-rate as rates, --ramp and --hold as whole seconds, plain numbers; target.url: --target; output: --out, --run-id), or drop the step flags to derive the plan from the file (plateau import k6 --help)',
    },
  );
  const traffic = iterationsTraffic(records, ingest, closed, outside?.requests ?? 0);
  const plan = buildPlan(config, null, rateUnitOf(traffic));
  // flags are the plan as k6 ran it: checked against what the file offered (a closed model was offered nothing)
  const checked = stepsFrom === 'flags' && !closed && ingest.stats.offeredPerS.some((x) => x > 0);
  const refusal = checked
    ? flagsRefusal(path.basename(o.file), config.steps, plan.steps, ingest.stats, rateUnitOf(traffic))
    : null;
  if (refusal)
    throw new PlateauError(
      refusal.why,
      `${mixed ? `${mixed.fix}; or ` : ''}${refusal.fix}`,
      'k6-steps-mismatch',
      EXIT.usage,
    );
  const beyond = checked ? loadBeyond(plan.steps, ingest.stats.offeredPerS) : null;
  if (beyond)
    throw new PlateauError(
      `${path.basename(o.file)} offered ${fmtInt(beyond.arrivals)} more arrivals over ${beyond.seconds} s after the flags' last step (${fmtInt(plan.steps.at(-1)!.ratePerSec)}/s) ended, up to ${fmtInt(Math.round(beyond.maxPerSec))}/s: the flags stop short of the run k6 made, and its steps above them would go unjudged`,
      "give the plan k6 ran, its top rate included (--max-rate as its last stage's target), or drop the step flags to derive the plan from the file",
      'k6-steps-mismatch',
      EXIT.usage,
    );
  // whole lines that end mid-step: k6 stopped early (Ctrl-C, abortOnFail), judged as a cut file is
  const early =
    killed || closed ? null : endedEarly(ingest.stats.offeredPerS, plan.steps, ingest.stats.wholeSeconds === true);
  if (early) notes.unshift(endedEarlyNote(path.basename(o.file), early, rateUnitOf(traffic), stepsFrom === 'derived'));
  // the arrivals after the last derived hold: said as a ramp cut (above), else as a step not judged
  if (afterNote && early?.in !== 'ramp-beyond') notes.push(afterNote);
  const interrupted = killed || early !== null;
  const checks = unexplainedChecks(ingest.stats.checkTally, plan.steps);
  const runId = config.output.runId ?? newRunId();
  const vusMax = Math.max(0, ...records.map((r) => r.vusAllocated));
  const store = RunStore.create(config.output.dir, {
    schemaVersion: 2,
    runId,
    status: 'running',
    startedAt: new Date(ingest.stats.t0Ms ?? 0).toISOString(),
    finishedAt: null,
    target: o.target ?? `${IMPORTED_TARGET}${path.basename(o.file)}`,
    engine: 'k6',
    scenario: o.scenarios?.join(',') ?? 'k6 (all scenarios)',
    ...(traffic ? { traffic } : {}),
    config: redact({
      ...config,
      import: {
        file: path.resolve(o.file),
        stepsFrom,
        scenarios: o.scenarios ?? null,
        t0Ms: o.t0Ms ?? null,
        // several scenarios imported whole: their iterations, summed into the arrivals (a warning of the report)
        ...(mixed ? { summed: summedScenarios(ingest.stats.scenarioIterations) } : {}),
        // checks that failed on responses counted as successes (k6 ties none to its request): a warning of the report
        ...(checks.length > 0 ? { checks } : {}),
      },
    }) as PlateauConfig,
    plan: storedPlan(plan),
    vus: {
      preAllocatedVUs: records[0]?.vusAllocated ?? 0,
      maxVUs: vusMax,
      reason: `as k6 ran it: vus_max ${records[0]?.vusAllocated ?? 0} at the start, ${vusMax} at most`,
    },
    rtt: null,
    stages: [],
    interruptedAtStep: null,
    environment: {
      // k6 output names neither its host nor its CPUs: what follows is the importing machine's
      describes: 'the machine that imported the k6 output, not the one k6 ran on (k6 output does not record it)',
      ...environment('k6'),
      k6Output: path.basename(o.file),
      k6Format: ingest.format ?? 'unknown',
      k6T0: new Date(ingest.stats.t0Ms ?? 0).toISOString(),
      k6T0From: ingest.stats.t0From ?? 'unknown',
    },
  });
  for (const r of records) store.appendBucket(r);
  store.addStage({
    ...importStage(o, ingest, stepsFrom, plan.steps.length, Math.round(performance.now() - t0), notes, outside),
    // a file cut short or ended mid-step: its steps stage was cut, as a live run's is
    ...(interrupted ? { status: 'interrupted' as const } : {}),
  });
  store.update({
    status: interrupted ? 'interrupted' : 'complete',
    ...(interrupted ? { interruptedAtStep: stepAt(plan.steps, records.at(-1)?.tS ?? 0) } : {}),
    finishedAt: new Date(ingest.stats.lastMs ?? 0).toISOString(),
  });
  store.close();
  return { dir: store.dir, result: await writeReports(store.dir), ingest, stepsFrom, notes };
}

/** Lines neither samples nor rows, past a torn last line (a file cut or damaged in its middle); null when none. */
function unreadNote(file: string, ingest: IngestResult): string | null {
  const n = ingest.badLines - (ingest.tornLastLine ? 1 : 0);
  if (n <= 0) return null;
  return `${path.basename(file)} has ${fmtInt(n)} line${n === 1 ? '' : 's'} that ${n === 1 ? 'is' : 'are'} neither a k6 sample nor a row, left out (damaged, or other text mixed in?): where ${n === 1 ? 'it was a sample' : 'they were samples'}, the seconds ${n === 1 ? 'it belongs' : 'they belong'} to read low`;
}

/** Runs the plan's derivation; a refusal of it also names the unread lines, which may be why. */
function withUnread<T>(unread: string | null, f: () => T): T {
  try {
    return f();
  } catch (err) {
    if (!unread || !(err instanceof PlateauError)) throw err;
    throw new PlateauError(`${err.message}; and ${unread}`, err.hint, err.code, err.exitCode);
  }
}

/** The second (from t0) of a cut file's last sample: the one the cut fell in; null without samples. */
function cutSecond(ingest: IngestResult): number | null {
  const { lastMs, t0Ms } = ingest.stats;
  return lastMs === null || t0Ms === null ? null : Math.floor((lastMs - t0Ms) / 1000);
}

/**
 * What an arrival was: an iteration of the user's script, or an entry of plateau's own script's
 * mix (plateau_arrival), and how many requests it sent on average (from the buckets); null where
 * each request was the arrival.
 */
function iterationsTraffic(
  records: readonly BucketRecord[],
  ingest: IngestResult,
  closed: ClosedModel | null,
  /** Requests outside any scenario (setup(), teardown()): sent by no iteration. */
  outsideRequests: number,
): TrafficRecord | null {
  const from = ingest.stats.arrivalsFrom;
  if (from !== 'iterations' && from !== 'plateau_arrival') return null;
  let arrivals = 0;
  let requests = -outsideRequests;
  for (const r of records) {
    arrivals += r.completed;
    requests += r.requests ?? r.completed;
  }
  if (arrivals === 0) return null;
  const requestsPerArrival = Math.round((requests / arrivals) * 1000) / 1000;
  return {
    entries: [],
    iterations: {
      requestsPerArrival,
      ...(from === 'plateau_arrival' ? { of: 'plateau-mix' as const } : {}),
      ...(from === 'iterations' && exactOutcomes(ingest.stats) ? { exactOutcomes: true as const } : {}),
      ...(closed ? { closedModel: closed } : {}),
    },
  };
}

/** The step whose ramp had begun by second tS (the last such), or null before the first. */
function stepAt(steps: readonly StepPlan[], tS: number): number | null {
  let at: number | null = null;
  for (const s of steps) if (s.rampStartS <= tS) at = s.index;
  return at;
}

/**
 * Iterations are the arrivals unless the output has plateau_arrival samples (a mix run by
 * plateau's k6 runtime), which then count: a second written before the first of them ended held
 * no iteration's end either, so both readings agree on it.
 */
async function ingestFile(
  o: ImportOptions,
  arrivals: 'iterations' | 'requests',
): Promise<{ records: BucketRecord[]; ingest: IngestResult; cut: boolean }> {
  const records: BucketRecord[] = [];
  let cut = false;
  const ingest = await ingestLines(
    readLines(o.file, () => (cut = true)),
    {
      source: 'k6',
      phase: 'steps',
      lateS: o.lateS ?? 5,
      t0Ms: o.t0Ms,
      maxLeadS: MAX_T0_LEAD_S,
      scenarios: o.scenarios,
      arrivals,
      byName: 'always',
      sink: (r) => records.push(r),
    },
    o.file,
  ).catch((err: unknown) => {
    if (!(err instanceof T0TooEarly)) throw err;
    throw new PlateauError(
      `--t0 ${new Date(o.t0Ms ?? 0).toISOString()} is ${Math.round(err.leadS).toLocaleString('en-US')} s before the first sample of ${path.basename(o.file)} (${new Date(err.firstMs).toISOString()}); k6 writes its gauges from the start, so a run's first sample comes within seconds of it (at most ${MAX_T0_LEAD_S} s taken)`,
      T0_FIX,
      'k6-t0-early',
      EXIT.usage,
    );
  });
  return { records, ingest, cut };
}
