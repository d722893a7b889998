/**
 * plateau through its real CLI: one step at a fixed rate (start = step = max) after the default warmup
 * at half of it (which opens the connections and, under `workers: auto`, sizes the threads), the
 * failed-step rerun off, VUs given, the run store in a temp directory. Figures come from the run's
 * summary.json; CPU is read from /proc while the steps' buckets are appended, so it covers the
 * steady window only (start-up, tsx's compilation and the report are left out, as for the peers).
 */
import fs from 'node:fs';
import path from 'node:path';
import { cpuRateOver, per10kOf, runMeasured, treeRssMiB, type Sample } from './proc.ts';
import type { Measure } from './table.ts';
import { fmtShare } from '../../analysis/format.ts';
import { cpuCapacity, usableCpus } from '../../harness/cpu-quota.ts';

export interface PlateauSettings {
  repo: string;
  url: string;
  tmp: string;
  rampS: number;
  holdS: number;
  settleS: number;
  vus: number;
  maxVus: number;
  /** Passed as --workers when the CLI has that flag. */
  workers: string | null;
  /** Passed as --http-client when the CLI has that flag. */
  httpClient: string | null;
  env: NodeJS.ProcessEnv;
  /** The target's process, whose CPU is read over the same window as plateau's. */
  targetPid?: number | null;
}

interface StepSummary {
  ratePerSec: number;
  steadyStartS: number;
  steadyEndS: number;
  throughputPerSec: number;
  completedPerSec: number;
  delivery: number;
  dropped: number;
  failed: number;
  latency: { q: number; valueMs: number | null }[];
  lagP99Ms?: number;
  /** Null where not measured (k6); the bench runs the native engine, which measures it. */
  loopDelayMaxMs?: number | null;
  generatorBusy?: number | null;
  /** plateau's own reading of its process's share of the CPUs it may use. */
  generatorCpu?: number | null;
  verdict: string;
  reasons?: string[];
  /** Held, but plateau marked its own generator over its bounds (lag, loop delay or drops). */
  generatorLimited?: string;
  /** Failed because the generator could not keep up (never capacity). */
  generatorBound?: boolean;
}

/** Follows buckets.ndjson as it grows: the highest `steps` second written so far. */
class BucketFollower {
  private offset = 0;
  private rest = '';
  maxStepsS = -1;
  constructor(private readonly file: string) {}
  poll(): number {
    let fd: number;
    try {
      fd = fs.openSync(this.file, 'r');
    } catch {
      return this.maxStepsS;
    }
    try {
      const size = fs.fstatSync(fd).size;
      if (size > this.offset) {
        const buf = Buffer.alloc(size - this.offset);
        fs.readSync(fd, buf, 0, buf.length, this.offset);
        this.offset = size;
        const lines = (this.rest + buf.toString('utf8')).split('\n');
        this.rest = lines.pop() ?? '';
        for (const l of lines) {
          const m = /"tS":(\d+),"phase":"steps"/.exec(l) ?? (/"phase":"steps"/.test(l) ? /"tS":(\d+)/.exec(l) : null);
          if (m) this.maxStepsS = Math.max(this.maxStepsS, Number(m[1]));
        }
      }
    } finally {
      fs.closeSync(fd);
    }
    return this.maxStepsS;
  }
}

export function cliHasFlag(repo: string, flag: string): boolean {
  try {
    const help = fs.readFileSync(path.join(repo, 'harness/cli/options.ts'), 'utf8');
    return new RegExp(`['"]${flag.replace(/^--/, '')}['"]`).test(help);
  } catch {
    return false;
  }
}

interface Probe {
  stepsS: number;
  rssMiB?: number | null;
}

export interface PlateauRun {
  measure: Measure;
  step: StepSummary;
  samples: Sample[];
  runDir: string;
}

export async function runPlateau(
  s: PlateauSettings,
  rate: number,
  runId: string,
  o: { sampleEveryMs?: number; withRss?: boolean; timeoutS?: number } = {},
): Promise<PlateauRun> {
  const out = path.join(s.tmp, 'runs');
  const cfg = path.join(s.tmp, 'plateau.bench.config.mjs');
  fs.writeFileSync(
    cfg,
    `// written by scripts/bench/plateau-case.ts
export default {
  target: { url: ${JSON.stringify(s.url)}, healthPath: '/' },
  steps: { startPerSec: 1000, stepPerSec: 1000, maxPerSec: 1000, rampS: 1, holdS: 12, settleS: 2 },
  http: { timeoutMs: 10000 },
  // the default warmup, as a user's run has it: connections opened and the threads sized
  // (workers: auto) before the step
  verdicts: { confirmFailedStep: false },
  rtt: { samples: 5 },
};
`,
  );
  const args = [
    path.join(s.repo, 'bin/plateau.js'),
    'run',
    '--config',
    cfg,
    '--target',
    s.url,
    '--start-rate',
    String(rate),
    '--step-rate',
    String(rate),
    '--max-rate',
    String(rate),
    '--hold',
    String(s.holdS),
    '--ramp',
    String(s.rampS),
    '--settle',
    String(s.settleS),
    '--vus',
    String(s.vus),
    '--max-vus',
    String(s.maxVus),
    '--run-id',
    runId,
    '--out',
    out,
  ];
  if (s.workers !== null && cliHasFlag(s.repo, '--workers')) args.push('--workers', s.workers);
  if (s.httpClient !== null && cliHasFlag(s.repo, '--http-client')) args.push('--http-client', s.httpClient);
  const follower = new BucketFollower(path.join(out, runId, 'buckets.ndjson'));
  const r = await runMeasured(process.execPath, args, {
    cwd: s.repo,
    env: s.env,
    timeoutMs: (o.timeoutS ?? s.rampS + s.holdS + 90) * 1000,
    sampleEveryMs: o.sampleEveryMs ?? 250,
    targetPid: s.targetPid,
    probe: (pid): Probe => ({ stepsS: follower.poll(), rssMiB: o.withRss ? treeRssMiB(pid) : undefined }),
  });
  const runDir = path.join(out, runId);
  const summaryFile = path.join(runDir, 'summary.json');
  if (!fs.existsSync(summaryFile))
    throw new Error(
      `plateau exited ${r.code ?? r.signal} without ${summaryFile}: ${(r.stderr || r.stdout).slice(-3000)}`,
    );
  const summary = JSON.parse(fs.readFileSync(summaryFile, 'utf8')) as {
    steps: StepSummary[];
    stopReason?: string;
    stopDetail?: string;
  };
  const step = summary.steps[0];
  if (!step)
    throw new Error(
      `plateau ran no step (exit ${r.code}): ${summary.stopDetail ?? ''} ${(r.stderr || r.stdout).slice(-2000)}`,
    );
  // The steady window in the samples: from the first sample after bucket steadyStartS was written
  // to the last one before bucket steadyEndS - 1 was (buckets are appended about a second late).
  const probeOf = (x: Sample) => x.extra as Probe;
  const a = r.samples.find((x) => probeOf(x).stepsS >= step.steadyStartS);
  const before = r.samples.filter((x) => probeOf(x).stepsS >= 0 && probeOf(x).stepsS <= step.steadyEndS - 2);
  const b = before[before.length - 1];
  const cpuRate = a && b ? cpuRateOver(a, b) : null;
  const q = (p: number) => step.latency.find((l) => l.q === p)?.valueMs ?? null;
  const threads = stepThreads(runDir);
  // The verdict and the first clause of each reason (the full text is in the run's report).
  const notes = [
    step.verdict !== 'holds'
      ? `${step.verdict}${step.reasons?.length ? ` (${step.reasons.map((x) => x.split(/[:;]/)[0]).join(', ')})` : ''}`
      : '',
    step.generatorLimited ? 'holds, generator-limited' : '',
    threads ?? '',
    step.lagP99Ms !== undefined ? `lag p99 ${step.lagP99Ms.toFixed(1)} ms` : '',
    step.loopDelayMaxMs != null ? `loop delay max ${step.loopDelayMaxMs.toFixed(0)} ms` : '',
    step.generatorBusy != null ? `busiest thread busy ${fmtShare(step.generatorBusy)}` : '',
    // its self-measurement beside the bench's: the same process's CPU over the same window
    step.generatorCpu != null && cpuRate
      ? `own CPU figure ${fmtShare(step.generatorCpu)} of its CPUs (bench: ${fmtShare(cpuRate.tool / cpuCapacity(usableCpus()))})`
      : '',
  ].filter(Boolean);
  return {
    measure: {
      tool: 'plateau',
      model: 'open',
      settings: `CLI, vus ${s.vus}/${s.maxVus}${s.workers ? `, workers ${s.workers}` : ''}${s.httpClient ? `, ${s.httpClient} client` : ''}`,
      targetRate: rate,
      achievedPerSec: step.throughputPerSec,
      ...per10kOf(cpuRate, step.completedPerSec),
      p50Ms: q(50),
      p99Ms: q(99),
      dropped: step.dropped,
      errors: step.failed,
      note: notes.join(', ') || undefined,
      ...(step.generatorLimited
        ? { generator: 'limited' as const }
        : step.generatorBound
          ? { generator: 'bound' as const }
          : {}),
    },
    step,
    samples: r.samples,
    runDir,
  };
}

/** The threads the step ran on, from run.json's engine name: "1 of 2 threads", "2 threads". */
function stepThreads(runDir: string): string | null {
  try {
    const run = JSON.parse(fs.readFileSync(path.join(runDir, 'run.json'), 'utf8')) as {
      environment?: { engine?: string };
    };
    const m = /native \((\d+(?: of \d+)?) (?:worker )?threads?\)/.exec(run.environment?.engine ?? '');
    return m ? `${m[1]} thread${m[1] === '1' ? '' : 's'}` : null;
  } catch {
    return null;
  }
}

/** RSS of the plateau process at about 1 minute into the load and at the end of the load. */
export function rssAt(
  samples: Sample[],
  endS: number,
): { firstMinute: number | null; end: number | null; series: { stepsS: number; rssMiB: number }[] } {
  const series = samples
    .map((x) => x.extra as Probe)
    .filter(
      (p): p is { stepsS: number; rssMiB: number } => typeof p.rssMiB === 'number' && p.stepsS >= 0 && p.stepsS < endS,
    );
  const at1 = series.find((p) => p.stepsS >= 60) ?? null;
  const last = series.length ? series[series.length - 1] : null;
  return { firstMinute: at1?.rssMiB ?? null, end: last?.rssMiB ?? null, series };
}
