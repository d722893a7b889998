/**
 * What the generator's machine and container did between two samples: the ms its cgroup was
 * throttled by a CPU quota (docs/decisions/017) and the share of the machine's CPU time the
 * hypervisor stole (docs/decisions/018). Both are one counter for the whole process, so one
 * engine instance samples them, once a second, for all.
 */
import { throttledMsReader } from '../cpu-quota.ts';
import { cpuTimesReader, stealShare, type CpuTimes } from '../cpu-steal.ts';

/** Since the last sample; null where not read (no quota, not Linux) or no time passed. */
export interface HostSample { throttledMs: number | null; cpuSteal: number | null }

export class HostSampler {
  private throttledMark: number | null;
  private cpuTimesMark: CpuTimes | null;

  constructor(
    /** Cumulative ms the cgroup setting the quota was throttled. */
    private readonly throttled: (() => number | null) | null,
    /** The machine's cumulative CPU times. */
    private readonly cpuTimes: (() => CpuTimes | null) | null,
  ) {
    this.throttledMark = throttled?.() ?? null;
    this.cpuTimesMark = cpuTimes?.() ?? null;
  }

  /** This process's counters, where the system has them. */
  static ofThisProcess(): HostSampler {
    return new HostSampler(throttledMsReader(), cpuTimesReader());
  }

  sample(): HostSample {
    return { throttledMs: this.throttledSince(), cpuSteal: this.stealSince() };
  }

  /** Rounded to 0.1 ms. */
  private throttledSince(): number | null {
    const now = this.throttledMark === null ? null : this.throttled?.() ?? null;
    if (now === null || this.throttledMark === null) return null;
    const d = Math.max(0, now - this.throttledMark);
    this.throttledMark = now;
    return Math.round(d * 10) / 10;
  }

  private stealSince(): number | null {
    const now = this.cpuTimesMark === null ? null : this.cpuTimes?.() ?? null;
    if (now === null || this.cpuTimesMark === null) return null;
    const share = stealShare(this.cpuTimesMark, now);
    if (share !== null) this.cpuTimesMark = now;
    return share;
  }
}
