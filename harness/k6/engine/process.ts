/**
 * The k6 engine: bundles the scenario, starts `k6 run` with `--out json=` (or csv), follows the
 * output file while k6 writes it and turns it into BucketRecords (same sink, same judging as the
 * native engine). stop() sends SIGINT, k6's graceful stop; SIGKILL only if it does not exit.
 * k6 runs in its own process group so a terminal Ctrl-C reaches plateau only, which then stops k6.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import type { BucketRecord } from '../../../analysis/types.ts';
import type { PlateauConfig } from '../../config/schema.ts';
import type { Plan } from '../../../analysis/plan.ts';
import type { Scenario } from '../../scenario/types.ts';
import { usableCpus, type UsableCpus } from '../../cpu-quota.ts';
import { PlateauError, EXIT } from '../../errors.ts';
import { k6ExitMeaning, requireK6, type K6Binary } from './binary.ts';
import { bundleK6Script } from './bundle.ts';
import { HostSampler } from '../../engine/host-sampler.ts';
import { Schedule } from '../../../analysis/schedule.ts';
import { HostTimeline } from '../output/host-timeline.ts';
import { ingestLines } from '../output/ingest.ts';
import { trafficOf } from '../../scenario/traffic.ts';
import { tailLines } from '../output/lines.ts';
import { K6_SCENARIO, k6Options } from './options.ts';
import { k6Vus } from './segment.ts';
import { legSeqsUsed } from '../../../analysis/segment.ts';
import type { IdsAtStart, RuntimeData } from '../runtime/config.ts';

/**
 * k6's environment: the user's, k6's CSV time format, and GOMAXPROCS from a cgroup CPU quota
 * when the user did not set it (Go before 1.25 sizes its scheduler by the host's cores, as Node
 * 20 does: docs/decisions/017).
 */
export function k6ProcessEnv(env: NodeJS.ProcessEnv, cpus: UsableCpus = usableCpus()): NodeJS.ProcessEnv {
  const quota = cpus.quota && env.GOMAXPROCS === undefined ? { GOMAXPROCS: String(cpus.count) } : {};
  return { ...env, ...K6_CSV_TIME, ...quota };
}

/** k6's CSV stamps in milliseconds: its default, whole seconds, blurs the seconds plateau judges (docs/engines.md). */
export const K6_CSV_TIME = { K6_CSV_TIME_FORMAT: 'unix_milli' } as const;

/** The CPUs Go lets k6 run on at once: GOMAXPROCS when set (by the user or from a quota), else no limit of its own. */
export function goMaxProcs(env: NodeJS.ProcessEnv): number {
  const n = Number(env.GOMAXPROCS);
  return Number.isInteger(n) && n > 0 ? n : Infinity;
}

/** Seconds a bucket waits for samples k6 writes late (its JSON output flushes every 200 ms, CSV every 1 s). */
const LIVE_LATE_S = 2;
/** After SIGINT, how long k6 gets beyond the grace time before SIGKILL. */
const KILL_AFTER_MS = 10_000;

export interface K6RunInput {
  config: PlateauConfig;
  /** The whole plan (k6 scales it to the execution segment itself). */
  plan: Pick<Plan, 'segments' | 'vus'>;
  scenario: Scenario;
  runId: string;
  /** The key of the run's ids (environment.ts runIds), written into the script beside the run id. */
  idKey: string;
  /** Where script.js, the output file, console.log and summary.json go. */
  dir: string;
  phase: string;
  seqOffset: number;
  env: NodeJS.ProcessEnv;
  sink(r: BucketRecord): void;
  note(line: string): void;
}

export interface K6Exit {
  code: number | null;
  signal: string | null;
  meaning: string;
  binary: K6Binary;
}

export interface K6EngineRun {
  stop(graceMs: number): void;
  done: Promise<{ dispatched: number; lastSeq: number; exit: K6Exit }>;
  elapsedS(): number;
}

export function k6Args(config: PlateauConfig, files: { script: string; out: string; summary: string }): string[] {
  const out = config.k6.out.startsWith('csv') ? `csv=${files.out}` : `json=${files.out}`;
  const seg = config.k6.executionSegment ? ['--execution-segment', config.k6.executionSegment] : [];
  const seq = config.k6.executionSegmentSequence
    ? ['--execution-segment-sequence', config.k6.executionSegmentSequence]
    : [];
  return [
    'run',
    '--no-color',
    '--quiet',
    '--out',
    out,
    '--summary-export',
    files.summary,
    ...seg,
    ...seq,
    files.script,
  ];
}

/**
 * Writes the script for this run; returns its path. `idKey`: plateau's run's (its k6 engine);
 * `idsAtStart` in its place: a script for the user, whose ids each k6 run derives (runtime/ids.ts).
 */
export async function writeK6Script(
  o: Pick<K6RunInput, 'config' | 'plan' | 'scenario' | 'runId' | 'dir' | 'seqOffset'> &
    ({ idKey: string } | { idsAtStart: IdsAtStart }) & { data?: Record<string, RuntimeData> },
): Promise<string> {
  const text = await bundleK6Script({
    scenarioPath: o.config.scenario ?? null,
    targetUrl: o.config.target.url,
    options: k6Options({ ...o.plan, vus: k6Vus(o.plan.vus, o.config) }, o.config.gracefulStopS),
    runtime: {
      runId: o.runId,
      ...('idKey' in o ? { idKey: o.idKey } : { idsAtStart: o.idsAtStart }),
      idPrefix: o.scenario.ids?.prefix ?? '',
      origin: new URL(o.config.target.url).origin,
      seqOffset: o.seqOffset,
      timeoutMs: o.config.http.timeoutMs,
      transactionTimeoutMs: o.config.http.transactionTimeoutMs,
      maxBodyBytes: o.config.http.maxBodyBytes,
      requestName: o.scenario.name ?? 'request',
      // the data sources as the caller opens them (k6-script: beside the script); else from the scenario
      ...(o.data ? { data: o.data } : {}),
      checkName: `${o.scenario.name ?? 'request'}: check`,
    },
  });
  fs.mkdirSync(o.dir, { recursive: true });
  const file = path.join(o.dir, 'script.js');
  fs.writeFileSync(file, text);
  return file;
}

export function startK6(o: K6RunInput): K6EngineRun {
  let child: ChildProcess | null = null;
  let exited = false;
  let stopRequested = false;
  let elapsedS = 0;
  let started = 0;
  let killTimer: NodeJS.Timeout | null = null;
  const killOnExit = () => {
    if (child && !exited) child.kill('SIGKILL');
  };

  const stop = (graceMs: number) => {
    stopRequested = true;
    if (!child || exited) return;
    child.kill('SIGINT');
    killTimer ??= setTimeout(() => {
      if (!exited) child?.kill('SIGKILL');
    }, graceMs + KILL_AFTER_MS);
  };

  const run = async () => {
    const binary = requireK6(o.env);
    const script = await writeK6Script(o);
    const ext = o.config.k6.out;
    const files = { script, out: path.join(o.dir, `out.${ext}`), summary: path.join(o.dir, 'summary.json') };
    fs.rmSync(files.out, { force: true });
    const consoleFd = fs.openSync(path.join(o.dir, 'console.log'), 'w');
    o.note(`k6 ${binary.version}: ${binary.path} ${k6Args(o.config, files).join(' ')}`);
    const env = k6ProcessEnv(o.env);
    child = spawn(binary.path, k6Args(o.config, files), {
      env,
      stdio: ['ignore', consoleFd, consoleFd],
      detached: true,
    });
    // The quota's throttled time, CPU steal and k6's CPU while it runs, put on its seconds as they close.
    const host = new HostTimeline(HostSampler.withCpuOf(child.pid, goMaxProcs(env)));
    const hostTimer = setInterval(() => host.take(), 1000);
    process.on('exit', killOnExit);
    const exit = new Promise<{ code: number | null; signal: string | null }>((resolve) => {
      child!.on('error', (err) => {
        exited = true;
        resolve({ code: null, signal: `spawn error: ${err.message}` });
      });
      child!.on('exit', (code, signal) => {
        exited = true;
        host.take();
        resolve({ code, signal });
      });
    });
    if (stopRequested) stop(0);
    const ingest = await ingestLines(
      tailLines(files.out, () => exited),
      {
        source: 'k6',
        phase: o.phase,
        lateS: LIVE_LATE_S,
        scenarios: [K6_SCENARIO],
        // a mix counts its plateau_arrival samples from the first second, before any has ended
        ...(trafficOf(o.scenario).byName ? { arrivals: 'plateau_arrival' as const } : {}),
        host,
        sink: (r) => {
          started += r.started;
          elapsedS = r.tS + 1;
          o.sink(r);
        },
      },
      files.out,
    ).finally(() => clearInterval(hostTimer));
    const { code, signal } = await exit;
    if (killTimer) clearTimeout(killTimer);
    process.off('exit', killOnExit);
    fs.closeSync(consoleFd);
    const meaning = k6ExitMeaning(code, signal);
    o.note(`${meaning}; ${ingest.stats.points} samples read from ${path.basename(files.out)}`);
    const expected = code === 0 || code === 99 || (stopRequested && (code === 105 || signal !== null));
    if (!expected && ingest.stats.points === 0) {
      const tail = fs.readFileSync(path.join(o.dir, 'console.log'), 'utf8').trim().split('\n').slice(-5).join(' | ');
      throw new PlateauError(
        `k6 failed before sending load: ${meaning}: ${tail}`,
        `read ${path.join(o.dir, 'console.log')}; run k6 by hand on ${script} to see the error`,
        'k6-failed',
        EXIT.stage,
      );
    }
    const used = legSeqsUsed({
      segmented: Boolean(o.config.k6.executionSegment),
      scheduled: new Schedule(o.plan.segments).totalArrivals,
      ended: started,
      maxVUs: k6Vus(o.plan.vus, o.config).maxVUs,
    });
    return { dispatched: started, lastSeq: o.seqOffset + used, exit: { code, signal, meaning, binary } };
  };

  return { stop, done: run(), elapsedS: () => elapsedS };
}
