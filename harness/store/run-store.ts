/**
 * The run store: runs/<id>/run.json (what was asked and what happened), buckets.ndjson (one line a
 * second, appended with a synchronous write so a crash loses at most the open second), and the
 * rendered reports. `plateau report <dir>` rebuilds every output from these files alone.
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type {
  AttemptRecord,
  BucketRecord,
  DecisionPolicy,
  DistributionRecord,
  PromqlWindow,
  RttFigures,
  ServerSample,
  StageOutcome,
  VuSizing,
  Rules,
  StepPlan,
  TrafficRecord,
} from '../../analysis/types.ts';
import type { Plan } from '../../analysis/plan.ts';
import { upgradeRunJson } from './upgrade.ts';
import { PlateauError, EXIT } from '../errors.ts';
import { readBuckets } from './bucket-lines.ts';
import { secretScrubber, type Scrub } from '../secret-scrub.ts';

/** The plan as run.json keeps it: what a report decides from. */
export interface StoredPlan {
  steps: StepPlan[];
  durationS: number;
  settleS: number;
  rules: Rules;
  expectedSteadySamples: number[];
}

/** The part of a plan run.json keeps (`plan`). */
export function storedPlan(p: Plan): StoredPlan {
  return {
    steps: p.steps,
    durationS: p.durationS,
    settleS: p.settleS,
    rules: p.rules,
    expectedSteadySamples: p.expectedSteadySamples,
  };
}
export interface RunMeta {
  schemaVersion: 2;
  runId: string;
  /**
   * The key of the ids the run sent (ctx.uniqueId: `${ids.prefix}${idKey}-${seq}`): its run id when
   * generated, a given one with a suffix of its own (environment.ts runIds). Absent where plateau
   * sent nothing (an import, a merge) and in runs recorded before it.
   */
  idKey?: string;
  status: 'running' | 'complete' | 'interrupted' | 'failed';
  startedAt: string;
  finishedAt: string | null;
  target: string;
  engine: string;
  /** The scenario's name (else its module's path as configured; 'default' for the built-in GET). */
  scenario: string;
  /**
   * A digest of the scenario's own code and data files (harness/scenario/digest.ts), so runs of
   * different code under one name are told apart; absent for the built-in GET, an import, a merge,
   * and in runs recorded before 12-07 (unknown: never a difference).
   */
  scenarioDigest?: string;
  /** The traffic offered: mix entries and weights (absent in runs recorded before mixes). */
  traffic?: TrafficRecord;
  /** The validated config with anything secret-looking redacted. */
  config: unknown;
  plan: StoredPlan | null;
  /** The step attempts as run, on the steps phase's clock (reruns included), each with the action taken; absent before the steps stage. */
  attempts?: AttemptRecord[] | null;
  /** The rules and bounds the steps stage decided by, so a report decides alike. */
  policy?: DecisionPolicy;
  /** Steady windows read through a Prometheus server after the steps (metrics.prometheus). */
  promqlWindows?: PromqlWindow[];
  /** The data-distribution readings (probes.distribution), before the warmup and after the last step, as taken. */
  distribution?: DistributionRecord[];
  vus: VuSizing | null;
  rtt: RttFigures | null;
  stages: StageOutcome[];
  interruptedAtStep: number | null;
  /** The run was stopped by limits.maxDurationS, this many seconds of load (not by a signal). */
  durationCapS?: number;
  environment: Record<string, string>;
}

export class RunStore {
  private readonly bucketsFd: number;
  private probesFd: number | null = null;
  meta: RunMeta;

  private constructor(
    readonly dir: string,
    meta: RunMeta,
    /** Every text the store writes passes through this; an engine scrubs files of its own with it (k6). */
    readonly scrub: Scrub,
  ) {
    this.meta = meta;
    this.bucketsFd = fs.openSync(path.join(dir, 'buckets.ndjson'), 'a');
    this.saveMeta();
  }

  /**
   * Creates runs/<id>/; refuses an id that was used before (its data would be mixed). Every text the
   * store writes is scrubbed (secret-scrub.ts): always of the secret-looking variables of this
   * process's environment and of secrets written into URLs, and also by `scrub` when the caller has
   * one (the pipeline's knows the scenario's declared secrets and the environment it was given).
   */
  static create(outDir: string, meta: RunMeta, scrub?: Scrub): RunStore {
    const base = secretScrubber([], process.env);
    const scrubAll: Scrub = scrub ? (text) => base(scrub(text)) : base;
    const dir = path.resolve(outDir, meta.runId);
    const reused = () =>
      new PlateauError(
        `run id "${meta.runId}" was used before: ${dir} exists`,
        'choose another --run-id (or leave it out for a fresh one); a run id names one run only',
        'run-id-reused',
        EXIT.preflight,
      );
    if (fs.existsSync(dir)) throw reused();
    let store: RunStore;
    try {
      // the parents as needed, the run's own directory made here or refused: two runs started at
      // once with one run id cannot both pass the check above and share a directory
      fs.mkdirSync(path.dirname(dir), { recursive: true });
      fs.mkdirSync(dir);
      store = new RunStore(dir, meta, scrubAll);
    } catch (err) {
      if ((err as { code?: string }).code === 'EEXIST') throw reused();
      // Before any load: an unwritable or full store would lose the run (ENOTDIR, EACCES, EROFS, ENOSPC).
      const code = (err as { code?: string }).code ?? (err as Error).message;
      throw new PlateauError(
        `cannot write the run store ${dir} (${code})`,
        'choose a writable directory with free space for --out / output.dir',
        'store-unwritable',
        EXIT.preflight,
      );
    }
    pointLatest(outDir, meta.runId);
    return store;
  }

  /**
   * The first append the run directory refused during the run (a full disk, a mount gone
   * read-only): the later ones are dropped, and `onWriteFailure` (the run stopping its load) is
   * called once. An append runs in an engine's callback, where a throw stopped nothing and hung the run.
   */
  writeFailure: Error | null = null;
  onWriteFailure: (() => void) | null = null;

  private appending(write: () => void): void {
    if (this.writeFailure !== null) return;
    try {
      write();
    } catch (err) {
      if (!isWriteFailure(err)) throw err;
      this.writeFailure = err as Error;
      this.onWriteFailure?.();
    }
  }

  appendBucket(r: BucketRecord): void {
    // Samples carry a target's error messages, `source` a merged run's name: scrub every line (one a second).
    this.appending(() => fs.writeSync(this.bucketsFd, this.scrub(JSON.stringify(r)) + '\n'));
  }

  /** Server readings go to probes.ndjson, opened on first use. */
  appendProbe(s: ServerSample): void {
    this.appending(() => {
      this.probesFd ??= fs.openSync(path.join(this.dir, 'probes.ndjson'), 'a');
      fs.writeSync(this.probesFd, this.scrub(JSON.stringify(s)) + '\n');
    });
  }

  update(patch: Partial<RunMeta>): void {
    this.meta = { ...this.meta, ...patch };
    this.saveMeta();
  }

  addStage(s: StageOutcome): void {
    this.update({ stages: [...this.meta.stages.filter((x) => x.name !== s.name), s] });
  }

  /** Atomic: write a temporary file, then rename over run.json. */
  private saveMeta(): void {
    const tmp = path.join(this.dir, 'run.json.tmp');
    fs.writeFileSync(tmp, this.scrub(JSON.stringify(this.meta, null, 2)) + '\n');
    fs.renameSync(tmp, path.join(this.dir, 'run.json'));
  }

  close(): void {
    fs.closeSync(this.bucketsFd);
    if (this.probesFd !== null) fs.closeSync(this.probesFd);
  }
}

/** The errors of a write the file system refused (permissions, a read-only mount, a full disk). */
const WRITE_FAILURES = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'EDQUOT', 'EIO']);

export function isWriteFailure(err: unknown): boolean {
  return WRITE_FAILURES.has((err as NodeJS.ErrnoException)?.code ?? '');
}

function pointLatest(outDir: string, runId: string): void {
  const link = path.resolve(outDir, 'latest');
  try {
    fs.rmSync(link, { force: true });
    fs.symlinkSync(runId, link);
  } catch {
    /* a missing latest link loses nothing */
  }
}

/**
 * Reads a run back. A torn last line (the process died mid-write) is skipped, not fatal; a damaged
 * run.json or buckets.ndjson (bucket-lines.ts) is refused.
 */
export function loadRun(dir: string): {
  meta: RunMeta;
  records: BucketRecord[];
  samples: ServerSample[];
  tornLines: number;
} {
  const metaPath = path.join(dir, 'run.json');
  if (!fs.existsSync(metaPath)) {
    throw new PlateauError(
      `${dir} is not a plateau run: run.json is missing`,
      'pass a directory under runs/ such as runs/latest',
      'not-a-run',
      EXIT.usage,
    );
  }
  const meta = readMeta(metaPath);
  const ranSteps = meta.status === 'complete' && (meta.attempts?.length ?? 0) > 0;
  const buckets = readBuckets(path.join(dir, 'buckets.ndjson'), ranSteps);
  const probes = readNdjson<ServerSample>(path.join(dir, 'probes.ndjson'));
  const records = withoutUnmeasuredLoopDelay(meta.engine, buckets.items);
  return { meta, records, samples: probes.items, tornLines: buckets.torn + probes.torn };
}

/** Engines that measure no event-loop delay of plateau's: k6 runs the load in its own process. */
const NO_LOOP_DELAY = new Set(['k6', 'k6-operator']);

/**
 * The records of a run on an engine that measures no event-loop delay (k6, k6-operator, a merge of
 * their runs only) without one: such runs stored before 2026-12-06 wrote 0, a perfect generator
 * nobody measured. A merge with a native run keeps the native seconds' figures.
 */
export function withoutUnmeasuredLoopDelay(engine: string, records: BucketRecord[]): BucketRecord[] {
  if (!engine.split('+').every((e) => NO_LOOP_DELAY.has(e))) return records;
  if (!records.some((r) => r.loopDelayMaxMs !== undefined)) return records;
  return records.map(({ loopDelayMaxMs: _, ...r }) => r);
}

const num = z.number();
const stepPlanShape = z.looseObject({
  index: num,
  ratePerSec: num,
  rampStartS: num,
  holdStartS: num,
  holdEndS: num,
  steadyStartS: num,
  steadyEndS: num,
});
/** What the analysis, the reports, gate, compare and merge read from run.json; other fields pass through. */
const runMetaShape = z.looseObject({
  schemaVersion: z.literal(2),
  runId: z.string().min(1),
  status: z.enum(['running', 'complete', 'interrupted', 'failed']),
  startedAt: z.string(),
  finishedAt: z.string().nullable().optional(),
  target: z.string(),
  engine: z.string(),
  plan: z
    .looseObject({
      steps: z.array(stepPlanShape),
      rules: z.looseObject({ deliveryMin: num, captureMin: num, minTailSamples: num }),
    })
    .nullable(),
  attempts: z
    .array(stepPlanShape.extend({ attempt: num, maxVUs: num }))
    .nullable()
    .optional(),
  promqlWindows: z.array(z.looseObject({})).optional(),
  distribution: z
    .array(
      z.looseObject({
        name: z.string(),
        when: z.enum(['before', 'after']),
        counts: z.record(z.string(), num),
        maxSkew: num,
      }),
    )
    .optional(),
  vus: z.looseObject({ preAllocatedVUs: num, maxVUs: num, reason: z.string() }).nullable(),
  rtt: z.looseObject({ connectMedianMs: num, httpMedianMs: num, httpP90Ms: num, samples: num }).nullable(),
  stages: z.array(
    z.looseObject({
      name: z.string(),
      status: z.string(),
      durationMs: num,
      detail: z.string(),
      evidence: z.array(z.string()),
    }),
  ),
  environment: z.record(z.string(), z.unknown()),
});

/** run.json, checked for what the readers rely on: a damaged file is a PlateauError naming it, never a crash later. */
function readMeta(metaPath: string): RunMeta {
  const corrupt = (what: string) =>
    new PlateauError(
      `${metaPath} is damaged: ${what}`,
      'restore run.json from a copy or re-run the test: buckets.ndjson beside it holds the per-second data, but run.json holds the plan and stages it is judged by (plateau replaces it atomically, so the damage came after the run)',
      'run-corrupt',
      EXIT.usage,
    );
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(metaPath, 'utf8'));
  } catch (err) {
    const code = (err as { code?: string }).code;
    throw code
      ? new PlateauError(
          `cannot read ${metaPath} (${code})`,
          "check the file's permissions, or pass another run directory",
          'run-unreadable',
          EXIT.usage,
        )
      : corrupt(`not valid JSON (${(err as Error).message})`);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw corrupt(
      `it holds ${raw === null ? 'null' : Array.isArray(raw) ? 'an array' : `a ${typeof raw}`}, not a run's record (an object with runId, status, plan, stages, ...)`,
    );
  }
  raw = upgradeRunJson(raw as Record<string, unknown>, metaPath);
  const parsed = runMetaShape.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues;
    const at = (p: PropertyKey[]) =>
      p.reduce<unknown>(
        (v, k) => (v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined),
        raw,
      );
    const shown = issues
      .slice(0, 5)
      .map(
        (i) =>
          `${i.path.map(String).join('.')}: ${at(i.path) === undefined ? 'missing' : i.message.replace(/^Invalid (input|option): /, '')}`,
      );
    throw corrupt(
      `${shown.join('; ')}${issues.length > shown.length ? `; and ${issues.length - shown.length} more` : ''}`,
    );
  }
  return raw as RunMeta;
}

function readNdjson<T>(file: string): { items: T[]; torn: number } {
  const items: T[] = [];
  let torn = 0;
  if (!fs.existsSync(file)) return { items, torn };
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      torn++;
      continue;
    }
    // A line that parses but is no record (a torn line that happens to be a number) counts as torn.
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) items.push(v as T);
    else torn++;
  }
  return { items, torn };
}

const SECRETISH = /secret|token|password|passwd|apikey|api_key|authorization|hmac|key$/i;

/** Redacts values whose key looks secret. Secrets belong in the environment; this is a backstop. */
export function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, SECRETISH.test(k) && typeof v === 'string' ? '[redacted]' : redact(v)]),
    );
  }
  return value;
}
