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
import path from 'node:path';
import type {
  BucketRecord,
  NameBucket,
  StageOutcome,
  StepPlan,
  RunResult,
  TrafficRecord,
} from '../../../analysis/types.ts';
import { mergeNameBuckets } from '../../../analysis/buckets.ts';
import { parseConfigOrThrow } from '../../config/validate.ts';
import type { PlateauConfig } from '../../config/schema.ts';
import { buildPlan } from '../../../analysis/plan.ts';
import { fmtInt, rateUnitOf } from '../../../analysis/format.ts';
import { RunStore, redact, storedPlan } from '../../store/run-store.ts';
import { environment, newRunId } from '../../environment.ts';
import { writeReports } from '../../report.ts';
import { PlateauError, EXIT } from '../../errors.ts';
import { deriveSteps } from './derive-steps.ts';
import { IMPORTED_TARGET } from '../../../analysis/gate/decide.ts';
import { flagMismatches, loadBeyond, mismatchText } from './plan-check.ts';
import { endedEarly, endedEarlyNote } from './ended-early.ts';
import { unnamedClause, unnamedNotes } from './unnamed-note.ts';
import { CLOSED_MODEL_FIX, closedModelOf, closedModelText, type ClosedModel } from './closed-model.ts';
import { ingestLines, type IngestResult } from '../output/ingest.ts';
import { MAX_SCENARIOS } from '../output/selection.ts';
import { T0TooEarly } from '../output/t0.ts';
import { readLines } from '../output/lines.ts';
import { FOLDED_NAME, foldedCountOf, foldedNameOf, type NamesSummary } from '../output/names.ts';
import { MAX_NAMES } from '../../scenario/names.ts';

export interface ImportOptions {
  file: string;
  outDir: string;
  runId?: string;
  /** Any of these given means the plan comes from them (all required ones then), else derived. */
  steps: {
    startPerSec?: number;
    stepPerSec?: number;
    maxPerSec?: number;
    rampS?: number;
    holdS?: number;
    settleS?: number;
  };
  /** Epoch ms of the scenario start; derived from the data when absent. */
  t0Ms?: number;
  scenarios?: string[];
  /** The user says the run was an arrival rate (--open-model): no closed-model check. */
  openModel?: boolean;
  /** Shown as the target in the report (k6 output does not say which one it loaded as a whole). */
  target?: string;
  /** Seconds a bucket waits for late samples; longer is more exact for slow iterations. */
  lateS?: number;
}

export interface ImportOutput {
  dir: string;
  result: RunResult;
  ingest: IngestResult;
  stepsFrom: 'flags' | 'derived';
  /** What the user should read about the import (names folded, arrivals counted as requests), one line each. */
  notes: string[];
}

const IMPORT_TARGET = 'http://k6-import.invalid/';

/** A --t0 this long before the first sample is refused: k6 writes its gauges from the start, every second. */
const MAX_T0_LEAD_S = 300;
/** A --t0 after requests or iterations of the run's (more than this before it): they would all be counted in its first second. */
const MAX_T0_LAG_MS = 1000;
const T0_FIX =
  "pass the scenario's start as --t0 (ISO time or epoch ms), or drop --t0: the default is the first vus point - 1 s";

export async function importK6(o: ImportOptions): Promise<ImportOutput> {
  const t0 = performance.now();
  let { records, ingest, cut } = await ingestFile(o, 'iterations');
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
  notes.push(...nameNotes(records, ingest.stats.names), ...unnamedNotes(path.basename(o.file), ingest.stats));
  const mixed = o.scenarios?.length ? null : scenariosNote(o.file, ingest.stats.scenarioIterations);
  if (mixed) notes.push(mixed.note);
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
    planSteps(o, records, ingest.stats.offeredPerS, ingest.stats.wholeSeconds === true, closed, mixed?.fix),
  );
  notes.push(...planNotes);
  const config = parseConfigOrThrow(
    {
      target: { url: o.target ?? IMPORT_TARGET },
      steps,
      warmup: { enabled: false },
      output: { dir: o.outDir, ...(o.runId ? { runId: o.runId } : {}) },
    },
    'fix the flags of the fields named above (steps: --start-rate, --step-rate and --max-rate as rates, --ramp and --hold as whole seconds, plain numbers; target.url: --target; output: --out, --run-id), or drop the step flags to derive the plan from the file (plateau import k6 --help)',
  );
  const traffic = iterationsTraffic(records, ingest, closed);
  const plan = buildPlan(config, null, rateUnitOf(traffic));
  // flags are the plan as k6 ran it: checked against what the file offered (a closed model was offered nothing)
  const mismatches =
    stepsFrom === 'flags' && !closed && ingest.stats.offeredPerS.some((x) => x > 0)
      ? flagMismatches(plan.steps, ingest.stats.offeredPerS)
      : [];
  const beyond =
    stepsFrom === 'flags' && !closed && mismatches.length === 0
      ? loadBeyond(plan.steps, ingest.stats.offeredPerS)
      : null;
  if (beyond)
    throw new PlateauError(
      `${path.basename(o.file)} offered ${fmtInt(beyond.arrivals)} more arrivals over ${beyond.seconds} s after the flags' last step (${fmtInt(plan.steps.at(-1)!.ratePerSec)}/s) ended, up to ${fmtInt(Math.round(beyond.maxPerSec))}/s: the flags stop short of the run k6 made, and its steps above them would go unjudged`,
      "give the plan k6 ran, its top rate included (--max-rate as its last stage's target), or drop the step flags to derive the plan from the file",
      'k6-steps-mismatch',
      EXIT.usage,
    );
  if (mismatches.length > 0)
    throw new PlateauError(
      mismatchText(path.basename(o.file), mismatches, rateUnitOf(traffic)),
      `${mixed ? `${mixed.fix}; or ` : ''}give the rates and times k6 ran (its ramping-arrival-rate stages: --start-rate, --step-rate, --max-rate, --ramp, --hold), or drop the step flags to derive the plan from the file`,
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
    ...importStage(o, ingest, stepsFrom, plan.steps.length, Math.round(performance.now() - t0), notes),
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

/** Refuses a --scenario that kept no iteration of the file, naming the scenarios it has. */
function scenariosCheck(o: ImportOptions, ingest: IngestResult): void {
  const { scenarioIterations, otherScenarios, requestsCounted } = ingest.stats;
  if (!o.scenarios?.length || Object.keys(scenarioIterations).length > 0 || requestsCounted > 0) return;
  const has = otherScenarios.filter((n) => n !== '');
  throw new PlateauError(
    `--scenario ${o.scenarios.join(',')} matches no iteration of ${path.basename(o.file)}${has.length ? ` (its scenarios: ${has.join(', ')})` : ' (its iterations carry no scenario tag)'}`,
    has.length ? `give one of them: --scenario ${has[0]}` : 'drop --scenario: the whole file is one run',
    'k6-scenario-unknown',
    EXIT.usage,
  );
}

/**
 * Refuses requests that carry neither `status` nor `expected_response`: counted, each would read
 * as failed (a run whose every request succeeded read 100% errors and failed its first step).
 */
function outcomeCheck(o: ImportOptions, ingest: IngestResult): void {
  const { requestsWithoutOutcome: without, requestsCounted: all } = ingest.stats;
  if (without === 0) return;
  throw new PlateauError(
    `${fmtInt(without)} of the ${fmtInt(all)} http_reqs samples of ${path.basename(o.file)} carry neither a \`status\` nor an \`expected_response\` tag, so nothing tells a success from a failure (k6 run with --system-tags that left both out?)`,
    'rerun k6 with its default system tags, or with status and expected_response in --system-tags (e.g. --system-tags status,expected_response,method,name,scenario,url,error_code)',
    'k6-no-outcome',
    EXIT.usage,
  );
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
): TrafficRecord | null {
  const from = ingest.stats.arrivalsFrom;
  if (from !== 'iterations' && from !== 'plateau_arrival') return null;
  let arrivals = 0;
  let requests = 0;
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

/** A --t0 given with the run's samples well after it, or some well before it: refused with the numbers. */
function t0Check(o: ImportOptions, ingest: IngestResult): void {
  const st = ingest.stats;
  if (o.t0Ms === undefined || st.loadBeforeT0Ms <= MAX_T0_LAG_MS) return;
  throw new PlateauError(
    `--t0 ${new Date(o.t0Ms).toISOString()} is ${(st.loadBeforeT0Ms / 1000).toFixed(1)} s after the first of ${st.loadBeforeT0.toLocaleString('en-US')} requests and iterations of ${path.basename(o.file)} that came before it: they would all be counted in its first second`,
    T0_FIX,
    'k6-t0-late',
    EXIT.usage,
  );
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

/** Merges a second's rows of names folded late (their family grew past the limit) into its folded row. */
function foldLate(by: Record<string, NameBucket>, late: ReadonlySet<string>): void {
  const parts = Object.keys(by)
    .filter((n) => late.has(n))
    .map((n) => {
      const b = by[n];
      delete by[n];
      return b;
    });
  if (parts.length === 0) return;
  if (Object.hasOwn(by, FOLDED_NAME)) parts.push(by[FOLDED_NAME]);
  by[FOLDED_NAME] = mergeNameBuckets(parts);
}

/**
 * The names' last word, once the whole file is read (records are changed in place): one name and
 * no transaction means no breakdown (the step's figures are that name's); folded names get their
 * count in their row's name; and the user is told what was folded and how to name requests.
 */
function nameNotes(records: BucketRecord[], names: NamesSummary): string[] {
  const anyFolded = names.folded > 0 || names.foldedMore;
  const keys = names.kept.length + (anyFolded ? 1 : 0);
  const transactions = records.some((r) => r.byName && Object.values(r.byName).some((n) => n.transaction));
  const single = keys <= 1 && !transactions;
  const folded = foldedNameOf(names);
  const late = new Set(names.foldedLate);
  for (const r of records) {
    const by = r.byName;
    if (by && late.size > 0) foldLate(by, late);
    if (single) delete r.byName;
    else if (by && Object.hasOwn(by, FOLDED_NAME)) {
      const bucket = by[FOLDED_NAME];
      delete by[FOLDED_NAME];
      Object.defineProperty(by, folded, { value: bucket, enumerable: true, writable: true, configurable: true });
    }
  }
  if (!anyFolded) return [];
  const why = `e.g. ${names.examples[0]}`;
  return [
    single
      ? `no breakdown by name: the requests' ${foldedCountOf(names)} look built from data (${why})`
      : `${foldedCountOf(names)} folded into one row, "${folded}", rather than one row each (${why})`,
    `fix: give each request a fixed name, as k6's docs recommend for grouping URLs: http.get(\`\${base}/orders/\${id}\`, { tags: { name: 'read order' } }) (or the http.url\`...\` template); at most ${MAX_NAMES} names per run`,
  ];
}

/** The step flags an import takes all of, or none: the plan as k6 ran it. */
const STEP_FLAGS = [
  ['startPerSec', '--start-rate'],
  ['stepPerSec', '--step-rate'],
  ['maxPerSec', '--max-rate'],
  ['rampS', '--ramp'],
  ['holdS', '--hold'],
] as const;

function planSteps(
  o: ImportOptions,
  records: readonly BucketRecord[],
  offered: readonly number[],
  wholeSeconds: boolean,
  closed: ClosedModel | null,
  /** With several scenarios: how to keep one (their sum may be what no plan fits). */
  oneScenario: string | undefined,
): {
  steps: Record<string, number | undefined>;
  stepsFrom: ImportOutput['stepsFrom'];
  notes: string[];
  /** Arrivals offered after the last derived step's hold, not judged. */
  afterNote?: string;
} {
  const s = o.steps;
  const given = [s.startPerSec, s.stepPerSec, s.maxPerSec, s.rampS, s.holdS].some((v) => v !== undefined);
  const file = path.basename(o.file);
  const missing = STEP_FLAGS.filter(([k]) => s[k] === undefined).map(([, flag]) => flag);
  if (given && missing.length > 0)
    throw new PlateauError(
      `the import takes the whole plan or none: ${STEP_FLAGS.filter(([k]) => s[k] !== undefined)
        .map(([, flag]) => flag)
        .join(', ')} given without ${missing.join(', ')}`,
      `give ${missing.join(', ')} too, as the k6 script ran (its ramping-arrival-rate stages), or drop the step flags to derive the plan from the file`,
      'k6-steps-partial',
      EXIT.usage,
    );
  if (given)
    return {
      steps: { ...s },
      stepsFrom: 'flags',
      notes: closed
        ? [
            `${closedModelText(file, closed)}: the steps are the flags' rates, which the run was never offered; its capacity is not established`,
          ]
        : [],
    };
  if (closed) throw new PlateauError(closedModelText(file, closed), CLOSED_MODEL_FIX, 'k6-closed-model', EXIT.usage);
  const d = deriveSteps(records, offered, wholeSeconds);
  if (!d.steps) {
    throw new PlateauError(
      `cannot derive the steps of ${o.file}: ${d.why}`,
      d.flat
        ? `${oneScenario ? `${oneScenario}; ` : ''}plateau judges a run of rising steps: run k6 again with a ramping-arrival-rate scenario whose stages rise in steps (plateau k6-script writes one from a plateau config); or, if this run was one step of such a plan, give it with the step flags (--start-rate, --step-rate, --max-rate, --ramp, --hold) to judge that step`
        : `${oneScenario ? `${oneScenario}; or ` : ''}give the plan: --start-rate, --step-rate, --max-rate, --ramp and --hold (seconds), as the k6 script ran it${
            d.uneven
              ? ". plateau judges steps of one size, each with its ramp and hold (its capture compares each step's gain with the same rate added); a run of steps of other sizes cannot be judged as steps: run the load again in even steps (plateau k6-script writes such a script from a plateau config)"
              : ''
          }`,
      'k6-steps-unknown',
      EXIT.usage,
    );
  }
  const afterNote =
    d.after.seconds > 2
      ? `${path.basename(o.file)} offered ${d.after.arrivals.toLocaleString('en-US')} arrivals over ${d.after.seconds} s after the last derived step's hold ended (at ${d.after.fromS} s): a step cut before 3 s of its hold, or a ramp down, not judged; give the step flags (--start-rate ... --hold) to judge a plan of your own`
      : undefined;
  return { steps: { ...d.steps, settleS: s.settleS }, stepsFrom: 'derived', notes: [], afterNote };
}

function importStage(
  o: ImportOptions,
  ing: IngestResult,
  stepsFrom: string,
  nSteps: number,
  durationMs: number,
  notes: readonly string[],
): StageOutcome {
  const st = ing.stats;
  const spanS = ((st.lastMs ?? 0) - (st.firstMs ?? 0)) / 1000;
  return {
    name: 'steps',
    status: 'pass',
    durationMs,
    detail: `imported ${path.basename(o.file)} (${ing.format}): ${st.points.toLocaleString('en-US')} samples over ${spanS.toFixed(1)} s into ${st.buckets} one-second buckets; ${nSteps} step${nSteps === 1 ? '' : 's'} ${stepsFrom === 'derived' ? 'derived from the offered rate' : 'from the flags'}${namesClause(st.names)}${unnamedClause(st)}`,
    evidence: [
      `t0 ${new Date(st.t0Ms ?? 0).toISOString()} (${st.t0From === 'vus' ? 'first vus point - 1 s' : st.t0From === 'setup-end' ? "setup()'s last sample, after the first vus point - 1 s" : st.t0From === 'option' ? 'given with --t0' : 'earliest iteration start: no vus points'})`,
      `samples by metric: ${Object.entries(st.byMetric)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
      `${st.skipped} samples skipped (setup/teardown or other scenarios), ${st.late} arrived after their second closed, ${st.beforeT0} before t0`,
      `${ing.badLines} unreadable lines${ing.badLines ? ' (a torn last line is normal for a killed run)' : ''}; ${st.checksFailed} failed checks`,
      arrivalsLine(st),
      ...(st.wholeSeconds
        ? [
            'timestamps in whole seconds (CSV timeFormat unix or rfc3339): each second is +-1 s; an iteration is counted started at its end second + 0.5 s - its duration, and offered shared between the two seconds where it may have started',
          ]
        : []),
      ...notes,
    ],
  };
}

/**
 * A run of several scenarios imported whole: its arrivals are every scenario's iterations together,
 * the steps derived from (and judged on) their sum, which a background scenario beside the stepped
 * one shifts or blurs. Says which scenarios, their iterations, and the flag that keeps one; null
 * for one scenario.
 */
function scenariosNote(file: string, by: Readonly<Record<string, number>>): { note: string; fix: string } | null {
  const all = summedScenarios(by);
  if (all.length < 2) return null;
  const named = all.filter((x) => x.name !== '');
  const list = all
    .map(
      ({ name, iterations: k }) =>
        `${name === '' ? '(no scenario tag)' : name}: ${k.toLocaleString('en-US')} iteration${k === 1 ? '' : 's'}`,
    )
    .join(', ');
  const more = all.length >= MAX_SCENARIOS ? ` (the first ${MAX_SCENARIOS} scenarios seen)` : '';
  const fix = `pass --scenario ${named[0]?.name ?? 'NAME'} to import one scenario alone (its iterations, requests and drops; --scenario again for more)`;
  return {
    note: `${path.basename(file)} ran ${all.length} scenarios${more} (${list}): its arrivals are all their iterations together, and its steps are judged on their sum; ${fix}`,
    fix,
  };
}

/** The scenarios a run imported whole sums, most iterations first (scenariosNote's order). */
function summedScenarios(by: Readonly<Record<string, number>>): { name: string; iterations: number }[] {
  return Object.entries(by)
    .sort((a, b) => b[1] - a[1])
    .map(([name, iterations]) => ({ name, iterations }));
}

/** Every iteration named its VU and iteration, so each iteration's outcome is its own requests' (second.ts). */
function exactOutcomes(st: IngestResult['stats']): boolean {
  return st.iterationsCounted > 0 && st.iterationsKnown === st.iterationsCounted;
}

/** k6's default system tags (v0.41 and later) with the VU and its iteration added. */
const SYSTEM_TAGS_WITH_ITERATIONS =
  'proto,subproto,status,method,url,name,group,check,error,error_code,tls_version,scenario,service,expected_response,vu,iter';

function arrivalsLine(st: IngestResult['stats']): string {
  const names = st.names.kept.length + (st.names.folded > 0 || st.names.foldedMore ? 1 : 0);
  const byName = names > 1 ? `; by the name tag: ${names} names` : '';
  switch (st.arrivalsFrom) {
    case 'plateau_arrival':
      return `arrivals from plateau_arrival samples (a mix), requests from http_reqs${byName}`;
    case 'iterations': {
      const iterations = st.iterationsCounted;
      const requests = st.requestsCounted;
      const ok = exactOutcomes(st)
        ? "ok = iterations none of whose requests failed (each request matched to its iteration by k6's vu and iter)"
        : `ok = iterations - failed requests of the same second (at least 0; those beyond it carried to the next)${requests > iterations ? `: a lower bound at several requests an iteration; for an exact count run k6 with --system-tags=${SYSTEM_TAGS_WITH_ITERATIONS}` : ''}`;
      return `arrivals are k6 iterations (${iterations.toLocaleString('en-US')}), ${ok}, requests from http_reqs (${requests.toLocaleString('en-US')})${byName}`;
    }
    default:
      return `arrivals are requests (http_reqs)${byName}`;
  }
}

/** The names in the stage's one line: how many, and what was folded (the evidence has the fix). */
function namesClause(n: NamesSummary): string {
  const folded = n.folded > 0 || n.foldedMore;
  const keys = n.kept.length + (folded ? 1 : 0);
  return `${keys > 1 ? `; ${keys} names` : ''}${folded ? `; ${foldedCountOf(n)} built from data folded into one name: give requests a fixed name tag` : ''}`;
}
