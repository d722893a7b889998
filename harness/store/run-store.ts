/**
 * The run store: runs/<id>/run.json (what was asked and what happened), buckets.ndjson (one line a
 * second, appended with a synchronous write so a crash loses at most the open second), and the
 * rendered reports. `plateau report <dir>` rebuilds every output from these files alone.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { BucketRecord, PromqlWindow, RttFigures, ServerSample, StageOutcome, VuSizing, Rules, StepPlan } from '../../analysis/types.ts';
import { PlateauError, EXIT } from '../errors.ts';

export interface RunMeta {
  schemaVersion: 1;
  runId: string;
  status: 'running' | 'complete' | 'interrupted' | 'failed';
  startedAt: string;
  finishedAt: string | null;
  target: string;
  engine: string;
  scenario: string;
  /** The validated config with anything secret-looking redacted. */
  config: unknown;
  plan: { steps: StepPlan[]; durationS: number; settleS: number; rules: Rules; expectedSteadySamples: number[] } | null;
  /** The step attempts as run, on the steps phase's clock (reruns included); null before the steps stage. */
  executed?: StepPlan[] | null;
  /** Steady windows read through a Prometheus server after the steps (metrics.prometheus). */
  promqlWindows?: PromqlWindow[];
  vus: VuSizing | null;
  rtt: RttFigures | null;
  stages: StageOutcome[];
  interruptedAtStep: number | null;
  environment: Record<string, string>;
}

export class RunStore {
  private readonly bucketsFd: number;
  private probesFd: number | null = null;
  meta: RunMeta;

  private constructor(readonly dir: string, meta: RunMeta, private readonly scrub: (text: string) => string) {
    this.meta = meta;
    this.bucketsFd = fs.openSync(path.join(dir, 'buckets.ndjson'), 'a');
    this.saveMeta();
  }

  /** Creates runs/<id>/; refuses an id that was used before (its data would be mixed). */
  static create(outDir: string, meta: RunMeta, scrub: (text: string) => string = (t) => t): RunStore {
    const dir = path.resolve(outDir, meta.runId);
    if (fs.existsSync(dir)) {
      throw new PlateauError(`run id "${meta.runId}" was used before: ${dir} exists`, 'choose another --run-id (or leave it out for a fresh one); a run id names one run only', 'run-id-reused', EXIT.preflight);
    }
    let store: RunStore;
    try {
      fs.mkdirSync(dir, { recursive: true });
      store = new RunStore(dir, meta, scrub);
    } catch (err) {
      // Before any load: an unwritable or full store would lose the run (ENOTDIR, EACCES, EROFS, ENOSPC).
      const code = (err as { code?: string }).code ?? (err as Error).message;
      throw new PlateauError(`cannot write the run store ${dir} (${code})`, 'choose a writable directory with free space for --out / output.dir', 'store-unwritable', EXIT.preflight);
    }
    pointLatest(outDir, meta.runId);
    return store;
  }

  appendBucket(r: BucketRecord): void {
    // Only samples carry free text (a target's error messages): scrub secrets out of those lines.
    const line = JSON.stringify(r);
    fs.writeSync(this.bucketsFd, (r.samples ? this.scrub(line) : line) + '\n');
  }

  /** Server readings go to probes.ndjson, opened on first use. */
  appendProbe(s: ServerSample): void {
    this.probesFd ??= fs.openSync(path.join(this.dir, 'probes.ndjson'), 'a');
    fs.writeSync(this.probesFd, JSON.stringify(s) + '\n');
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

function pointLatest(outDir: string, runId: string): void {
  const link = path.resolve(outDir, 'latest');
  try { fs.rmSync(link, { force: true }); fs.symlinkSync(runId, link); } catch { /* a missing latest link loses nothing */ }
}

/** Reads a run back. A torn last line (the process died mid-write) is skipped, not fatal. */
export function loadRun(dir: string): { meta: RunMeta; records: BucketRecord[]; samples: ServerSample[]; tornLines: number } {
  const metaPath = path.join(dir, 'run.json');
  if (!fs.existsSync(metaPath)) {
    throw new PlateauError(`${dir} is not a plateau run: run.json is missing`, 'pass a directory under runs/ such as runs/latest', 'not-a-run', EXIT.usage);
  }
  const meta = JSON.parse(fs.readFileSync(metaPath, 'utf8')) as RunMeta;
  const text = fs.existsSync(path.join(dir, 'buckets.ndjson')) ? fs.readFileSync(path.join(dir, 'buckets.ndjson'), 'utf8') : '';
  const records: BucketRecord[] = [];
  let tornLines = 0;
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try { records.push(JSON.parse(line) as BucketRecord); } catch { tornLines++; }
  }
  const probes = readNdjson<ServerSample>(path.join(dir, 'probes.ndjson'));
  return { meta, records, samples: probes.items, tornLines: tornLines + probes.torn };
}

function readNdjson<T>(file: string): { items: T[]; torn: number } {
  const items: T[] = [];
  let torn = 0;
  if (!fs.existsSync(file)) return { items, torn };
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    try { items.push(JSON.parse(line) as T); } catch { torn++; }
  }
  return { items, torn };
}

const SECRETISH = /secret|token|password|passwd|apikey|api_key|authorization|hmac|key$/i;

/** Redacts values whose key looks secret. Secrets belong in the environment; this is a backstop. */
export function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, SECRETISH.test(k) && typeof v === 'string' ? '[redacted]' : redact(v)]));
  }
  return value;
}
