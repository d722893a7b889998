/**
 * `plateau import k6 <file>`: a finished k6 run (JSON lines or CSV, plain or .gz) becomes a full
 * plateau run store (run.json, buckets.ndjson) and every report, judged on the plan given by the
 * step flags or derived from the data (derive-steps.ts).
 */
import path from 'node:path';
import type { BucketRecord, StageOutcome, RunResult } from '../../../analysis/types.ts';
import { parseConfigOrThrow } from '../../config/validate.ts';
import type { PlateauConfig } from '../../config/schema.ts';
import { buildPlan } from '../../../analysis/plan.ts';
import { RunStore, redact } from '../../store/run-store.ts';
import { environment, newRunId } from '../../environment.ts';
import { writeReports } from '../../report.ts';
import { PlateauError, EXIT } from '../../errors.ts';
import { deriveSteps } from './derive-steps.ts';
import { ingestLines, type IngestResult } from '../output/ingest.ts';
import { readLines } from '../output/lines.ts';

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
}

const IMPORT_TARGET = 'http://k6-import.invalid/';

export async function importK6(o: ImportOptions): Promise<ImportOutput> {
  const t0 = performance.now();
  const records: BucketRecord[] = [];
  const ingest = await ingestLines(
    readLines(o.file),
    {
      source: 'k6',
      phase: 'steps',
      lateS: o.lateS ?? 5,
      t0Ms: o.t0Ms,
      scenarios: o.scenarios,
      sink: (r) => records.push(r),
    },
    o.file,
  );
  if (ingest.stats.points === 0) {
    throw new PlateauError(
      `${o.file} holds no k6 samples`,
      'pass the output of a k6 run that sent requests (k6 run --out json=FILE)',
      'k6-output-empty',
      EXIT.usage,
    );
  }
  const { steps, stepsFrom } = planSteps(o, records);
  const config = parseConfigOrThrow({
    target: { url: o.target ?? IMPORT_TARGET },
    steps,
    warmup: { enabled: false },
    output: { dir: o.outDir, ...(o.runId ? { runId: o.runId } : {}) },
  });
  const plan = buildPlan(config, null);
  const runId = config.output.runId ?? newRunId();
  const vusMax = Math.max(0, ...records.map((r) => r.vusAllocated));
  const store = RunStore.create(config.output.dir, {
    schemaVersion: 2,
    runId,
    status: 'running',
    startedAt: new Date(ingest.stats.t0Ms ?? 0).toISOString(),
    finishedAt: null,
    target: o.target ?? `k6 run imported from ${path.basename(o.file)}`,
    engine: 'k6',
    scenario: o.scenarios?.join(',') ?? 'k6 (all scenarios)',
    config: redact({
      ...config,
      import: { file: path.resolve(o.file), stepsFrom, scenarios: o.scenarios ?? null, t0Ms: o.t0Ms ?? null },
    }) as PlateauConfig,
    plan: {
      steps: plan.steps,
      durationS: plan.durationS,
      settleS: plan.settleS,
      rules: plan.rules,
      expectedSteadySamples: plan.expectedSteadySamples,
    },
    vus: {
      preAllocatedVUs: records[0]?.vusAllocated ?? 0,
      maxVUs: vusMax,
      reason: `as k6 ran it: vus_max ${records[0]?.vusAllocated ?? 0} at the start, ${vusMax} at most`,
    },
    rtt: null,
    stages: [],
    interruptedAtStep: null,
    environment: {
      ...environment('k6'),
      k6Output: path.basename(o.file),
      k6Format: ingest.format ?? 'unknown',
      k6T0: new Date(ingest.stats.t0Ms ?? 0).toISOString(),
      k6T0From: ingest.stats.t0From ?? 'unknown',
    },
  });
  for (const r of records) store.appendBucket(r);
  store.addStage(importStage(o, ingest, stepsFrom, plan.steps.length, Math.round(performance.now() - t0)));
  store.update({ status: 'complete', finishedAt: new Date(ingest.stats.lastMs ?? 0).toISOString() });
  store.close();
  return { dir: store.dir, result: await writeReports(store.dir), ingest, stepsFrom };
}

function planSteps(
  o: ImportOptions,
  records: readonly BucketRecord[],
): { steps: Record<string, number | undefined>; stepsFrom: ImportOutput['stepsFrom'] } {
  const s = o.steps;
  const given = [s.startPerSec, s.stepPerSec, s.maxPerSec, s.rampS, s.holdS].some((v) => v !== undefined);
  if (given) return { steps: { ...s }, stepsFrom: 'flags' };
  const d = deriveSteps(records);
  if (!d.steps) {
    throw new PlateauError(
      `cannot derive the steps of ${o.file}: ${d.why}`,
      'give the plan: --start-rate, --step-rate, --max-rate, --ramp and --hold (seconds), as the k6 script ran it',
      'k6-steps-unknown',
      EXIT.usage,
    );
  }
  return { steps: { ...d.steps, settleS: s.settleS }, stepsFrom: 'derived' };
}

function importStage(
  o: ImportOptions,
  ing: IngestResult,
  stepsFrom: string,
  nSteps: number,
  durationMs: number,
): StageOutcome {
  const st = ing.stats;
  const spanS = ((st.lastMs ?? 0) - (st.firstMs ?? 0)) / 1000;
  return {
    name: 'steps',
    status: 'pass',
    durationMs,
    detail: `imported ${path.basename(o.file)} (${ing.format}): ${st.points.toLocaleString('en-US')} samples over ${spanS.toFixed(1)} s into ${st.buckets} one-second buckets; ${nSteps} steps ${stepsFrom === 'derived' ? 'derived from the offered rate' : 'from the flags'}`,
    evidence: [
      `t0 ${new Date(st.t0Ms ?? 0).toISOString()} (${st.t0From === 'vus' ? 'first vus point - 1 s' : st.t0From === 'setup-end' ? "setup()'s last sample, after the first vus point - 1 s" : st.t0From === 'option' ? 'given with --t0' : 'earliest iteration start: no vus points'})`,
      `samples by metric: ${Object.entries(st.byMetric)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
      `${st.skipped} samples skipped (setup/teardown or other scenarios), ${st.late} arrived after their second closed, ${st.beforeT0} before t0`,
      `${ing.badLines} unreadable lines${ing.badLines ? ' (a torn last line is normal for a killed run)' : ''}; ${st.checksFailed} failed checks`,
    ],
  };
}
