/**
 * Child processes for the bench: spawned with a hard time bound, and measured from outside through
 * /proc (CPU ticks and VmRSS of the whole process tree, threads included) so that every tool is
 * measured the same way, whatever language it is written in.
 */
import { spawn, type SpawnOptions } from 'node:child_process';
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { statFields, ticksPerSecond } from '../../harness/process-cpu.ts';

interface StatLine {
  pid: number;
  ppid: number;
  ticks: number;
  ownTicks: number;
}

function readStat(pid: number): StatLine | null {
  let s: string;
  try {
    s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  const f = statFields(s);
  // utime, stime, cutime, cstime: the last two hold the CPU of children this process has reaped.
  const ownTicks = Number(f[11]) + Number(f[12]);
  return { pid, ppid: Number(f[1]), ticks: ownTicks + Number(f[13]) + Number(f[14]), ownTicks };
}

/** The pid and every live descendant of it. */
export function processTree(root: number): StatLine[] {
  const all: StatLine[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const st = readStat(Number(name));
    if (st) all.push(st);
  }
  const byParent = new Map<number, StatLine[]>();
  for (const st of all) {
    const list = byParent.get(st.ppid) ?? [];
    list.push(st);
    byParent.set(st.ppid, list);
  }
  const rootStat = all.find((s) => s.pid === root);
  if (!rootStat) return [];
  const out: StatLine[] = [rootStat];
  for (let i = 0; i < out.length; i++) out.push(...(byParent.get(out[i].pid) ?? []));
  return out;
}

/** CPU seconds (user + system) used so far by the tree under root; null once it is gone. */
export function treeCpuS(root: number): number | null {
  const tree = processTree(root);
  if (tree.length === 0) return null;
  return tree.reduce((a, s) => a + s.ticks, 0) / ticksPerSecond();
}

/** Resident memory (MiB) of the tree under root, from VmRSS. */
export function treeRssMiB(root: number): number | null {
  const tree = processTree(root);
  if (tree.length === 0) return null;
  let kib = 0;
  for (const st of tree) {
    try {
      const m = /VmRSS:\s+(\d+)\s+kB/.exec(fs.readFileSync(`/proc/${st.pid}/status`, 'utf8'));
      if (m) kib += Number(m[1]);
    } catch {
      /* gone meanwhile */
    }
  }
  return kib / 1024;
}

/**
 * Context switches so far (voluntary and not, every thread of every process of the tree under
 * root; a thread that has exited no longer counts); null once the tree is gone. Each one is a
 * wake-up after a sleep or a preemption, and each costs the process CPU beside its requests.
 */
export function treeSwitches(root: number): number | null {
  const tree = processTree(root);
  if (tree.length === 0) return null;
  let n = 0;
  for (const st of tree) n += processSwitches(st.pid) ?? 0;
  return n;
}

/** Context switches so far of one process's threads; null once it is gone. */
export function processSwitches(pid: number): number | null {
  let tasks: string[];
  try {
    tasks = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return null;
  }
  let n = 0;
  for (const t of tasks) {
    try {
      const s = fs.readFileSync(`/proc/${pid}/task/${t}/status`, 'utf8');
      for (const m of s.matchAll(/^(?:non)?voluntary_ctxt_switches:\s+(\d+)$/gm)) n += Number(m[1]);
    } catch {
      /* gone meanwhile */
    }
  }
  return n;
}

/** CPU seconds (user + system) used so far by one process and its threads (not its children); null once it is gone. */
export function processCpuS(pid: number): number | null {
  const st = readStat(pid);
  return st ? st.ownTicks / ticksPerSecond() : null;
}

export interface Sample {
  /** Seconds since spawn. */
  tS: number;
  cpuS: number;
  /** CPU seconds of the target's process (RunOptions.targetPid) at the same moment. */
  targetCpuS?: number;
  /** Context switches of the tree (treeSwitches) and of the target's process at the same moment. */
  switches?: number;
  targetSwitches?: number;
  /** Whatever the caller's probe returned at that moment (e.g. requests counted so far). */
  extra?: unknown;
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  samples: Sample[];
  /** Seconds from spawn to exit. */
  wallS: number;
  timedOut: boolean;
}

export interface RunOptions extends SpawnOptions {
  /** Hard bound: SIGTERM at this point, SIGKILL 3 s later. */
  timeoutMs: number;
  /** How often the tree's CPU is sampled (ms); 0 for never. */
  sampleEveryMs?: number;
  /** The target's process (nginx's worker): its CPU is sampled with the tool's, over the same window. */
  targetPid?: number | null;
  /** Called at each sample with the child's pid; its result is kept in the sample. */
  probe?: (pid: number, tS: number) => unknown;
  quiet?: boolean;
}

const live = new Set<import('node:child_process').ChildProcess>();
/** Kills every child still running (used on exit and on Ctrl-C). */
export function killAll(): void {
  for (const c of live) {
    try {
      c.kill('SIGKILL');
    } catch {
      /* already gone */
    }
  }
}

export function runMeasured(cmd: string, args: string[], o: RunOptions): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(cmd, args, { ...o, stdio: ['ignore', 'pipe', 'pipe'] });
    live.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    const samples: Sample[] = [];
    let timedOut = false;
    const sample = () => {
      if (child.pid === undefined || child.exitCode !== null) return;
      const cpuS = treeCpuS(child.pid);
      if (cpuS === null) return;
      const tS = (performance.now() - t0) / 1000;
      const targetCpuS = o.targetPid ? processCpuS(o.targetPid) : null;
      const switches = treeSwitches(child.pid);
      const targetSwitches = o.targetPid ? processSwitches(o.targetPid) : null;
      samples.push({
        tS,
        cpuS,
        ...(targetCpuS !== null ? { targetCpuS } : {}),
        ...(switches !== null ? { switches } : {}),
        ...(targetSwitches !== null ? { targetSwitches } : {}),
        extra: o.probe?.(child.pid, tS),
      });
    };
    const sampler = o.sampleEveryMs ? setInterval(sample, o.sampleEveryMs) : null;
    let killer: NodeJS.Timeout | null = null;
    const bound = setTimeout(() => {
      timedOut = true;
      child.kill('SIGTERM');
      killer = setTimeout(() => child.kill('SIGKILL'), 3000);
    }, o.timeoutMs);
    child.on('error', (err) => {
      clearTimeout(bound);
      if (sampler) clearInterval(sampler);
      live.delete(child);
      reject(err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(bound);
      if (killer) clearTimeout(killer);
      if (sampler) clearInterval(sampler);
      live.delete(child);
      resolve({ code, signal, stdout, stderr, samples, wallS: (performance.now() - t0) / 1000, timedOut });
    });
  });
}

/**
 * CPU seconds per second of the tree between fromS and toS after spawn (from the first and last
 * samples inside that window); null when fewer than two samples fall in it.
 */
export function cpuRateBetween(samples: Sample[], fromS: number, toS: number): Rates | null {
  const inside = samples.filter((s) => s.tS >= fromS && s.tS <= toS);
  if (inside.length < 2) return null;
  return cpuRateOver(inside[0], inside[inside.length - 1]);
}

export interface Rates {
  /** CPU seconds per second of the tool, and of the target. */
  tool: number;
  target: number | null;
  /** Context switches per second of the tool, and of the target. */
  toolSwitches: number | null;
  targetSwitches: number | null;
}

/** Per-second rates of the tool, and of the target where both samples have it, from a to b. */
export function cpuRateOver(a: Sample, b: Sample): Rates | null {
  if (b.tS <= a.tS) return null;
  const dt = b.tS - a.tS;
  const rate = (x: number | undefined, y: number | undefined) =>
    x !== undefined && y !== undefined ? (y - x) / dt : null;
  return {
    tool: (b.cpuS - a.cpuS) / dt,
    target: rate(a.targetCpuS, b.targetCpuS),
    toolSwitches: rate(a.switches, b.switches),
    targetSwitches: rate(a.targetSwitches, b.targetSwitches),
  };
}

/** CPU seconds (or switches) per 10,000 answers at perSec answers a second; null without a rate. */
export function per10k(cpuPerS: number | null | undefined, perSec: number): number | null {
  return cpuPerS != null && perSec > 0 ? (cpuPerS / perSec) * 1e4 : null;
}

/** The figures per 10,000 answers a Measure carries, from the rates over its steady window. */
export function per10kOf(
  r: Rates | null | undefined,
  perSec: number,
): {
  cpuPer10k: number | null;
  targetCpuPer10k: number | null;
  switchesPer10k: number | null;
  targetSwitchesPer10k: number | null;
} {
  return {
    cpuPer10k: per10k(r?.tool, perSec),
    targetCpuPer10k: per10k(r?.target, perSec),
    switchesPer10k: per10k(r?.toolSwitches, perSec),
    targetSwitchesPer10k: per10k(r?.targetSwitches, perSec),
  };
}

export function which(bin: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    const p = `${dir}/${bin}`;
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return p;
    } catch {
      /* next */
    }
  }
  return null;
}
