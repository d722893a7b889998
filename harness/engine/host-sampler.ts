/**
 * What the generator's machine and container did between two samples: the ms its cgroup was
 * throttled by a CPU quota (docs/decisions/017), the share of the machine's CPU time the
 * hypervisor stole (docs/decisions/018), and the share of the CPUs the generator may use that its
 * process used (all its threads; with the k6 engine, k6's). All are one counter for the whole
 * process, so one engine instance (or the k6 engine's parent) samples them, once a second.
 */
import { performance } from 'node:perf_hooks';
import { cpuCapacity, readText, throttledMsReader, usableCpus } from '../cpu-quota.ts';
import { cpuTimesReader, stealShare, type CpuTimes } from '../cpu-steal.ts';
import { processCpuMsReader } from '../process-cpu.ts';

/** Since the last sample; null where not read (no quota, not Linux) or no time passed. */
export interface HostSample {
  throttledMs: number | null;
  cpuSteal: number | null;
  processCpu: number | null;
}

export interface HostCounters {
  /** Cumulative ms the cgroup setting the quota was throttled. */
  throttled?: (() => number | null) | null;
  /** The machine's cumulative CPU times. */
  cpuTimes?: (() => CpuTimes | null) | null;
  /** Cumulative CPU ms of the generator's process, and the CPUs it may use (a quota's fraction kept). */
  process?: { cpuMs: () => number | null; cpus: number } | null;
  /** Wall clock (ms). */
  nowMs?: () => number;
}

export class HostSampler {
  private throttledMark: number | null;
  private cpuTimesMark: CpuTimes | null;
  private processMark: { cpuMs: number; atMs: number } | null;
  private readonly nowMs: () => number;

  constructor(private readonly c: HostCounters) {
    this.nowMs = c.nowMs ?? (() => performance.now());
    this.throttledMark = c.throttled?.() ?? null;
    this.cpuTimesMark = c.cpuTimes?.() ?? null;
    const cpuMs = c.process?.cpuMs() ?? null;
    this.processMark = cpuMs === null ? null : { cpuMs, atMs: this.nowMs() };
  }

  /** The counters of this process, where the system has them. */
  static ofThisProcess(): HostSampler {
    return HostSampler.withCpuOf(process.pid);
  }

  /**
   * The same, with the CPU of another process (the k6 engine's k6; none when it has no pid: it did
   * not start), which may be held to fewer CPUs than this one (k6's GOMAXPROCS).
   */
  static withCpuOf(pid: number | undefined, maxCpus = Infinity): HostSampler {
    const cpus = usableCpus(); // the cgroup files read once, for the quota's throttling and the CPU count
    return new HostSampler({
      throttled: throttledMsReader(readText, cpus.quota),
      cpuTimes: cpuTimesReader(),
      process:
        pid === undefined ? null : { cpuMs: processCpuMsReader(pid), cpus: Math.min(cpuCapacity(cpus), maxCpus) },
    });
  }

  sample(): HostSample {
    return { throttledMs: this.throttledSince(), cpuSteal: this.stealSince(), processCpu: this.processCpuSince() };
  }

  /** Rounded to 0.1 ms. */
  private throttledSince(): number | null {
    const now = this.throttledMark === null ? null : (this.c.throttled?.() ?? null);
    if (now === null || this.throttledMark === null) return null;
    const d = Math.max(0, now - this.throttledMark);
    this.throttledMark = now;
    return Math.round(d * 10) / 10;
  }

  private stealSince(): number | null {
    const now = this.cpuTimesMark === null ? null : (this.c.cpuTimes?.() ?? null);
    if (now === null || this.cpuTimesMark === null) return null;
    const share = stealShare(this.cpuTimesMark, now);
    if (share !== null) this.cpuTimesMark = now;
    return share;
  }

  /** CPU time over wall time and CPUs, 0..1 to 0.001. */
  private processCpuSince(): number | null {
    const mark = this.processMark;
    const p = this.c.process;
    if (!mark || !p) return null;
    const cpuMs = p.cpuMs();
    const atMs = this.nowMs();
    if (cpuMs === null || atMs <= mark.atMs) return null;
    this.processMark = { cpuMs, atMs };
    const share = (cpuMs - mark.cpuMs) / ((atMs - mark.atMs) * p.cpus);
    return Math.round(Math.min(1, Math.max(0, share)) * 1000) / 1000;
  }
}
