/**
 * The CPUs this process may use: the affinity mask (os.availableParallelism) capped by a cgroup
 * CPU quota. Node 20's libuv (1.46) reads only the affinity, so in a container limited to 2 CPUs
 * on a 32-core host it says 32, and one engine thread per "core" would be 32 threads throttled
 * into 2 CPUs' worth of time, stalling in 100 ms periods (docs/decisions/017).
 *
 * Read as Rust's std::thread::available_parallelism does: find the cgroup mounts in
 * /proc/self/mountinfo, this process's cgroup in /proc/self/cgroup, and take the lowest quota on
 * the way from that cgroup up to its mount's root (v2 `cpu.max`, v1 `cpu.cfs_quota_us` over
 * `cpu.cfs_period_us`).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Reads a file's text, or null when it cannot be read. */
export type ReadText = (file: string) => string | null;

/** The file's text from the real file system, null when it cannot be read (/proc and /sys readers). */
export const readText: ReadText = (file) => {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
};

export interface CpuQuota {
  /** Quota over period, in CPUs (may be fractional). */
  cpus: number;
  /** Where it was read, e.g. "cgroup v2 cpu.max 150000 100000 in /sys/fs/cgroup/ci". */
  source: string;
  /** The cgroup directory that sets it (its cpu.stat counts the throttling). */
  dir: string;
  v2: boolean;
}

interface Mount {
  dir: string;
  root: string;
  v2: boolean;
}

/** cgroup mounts from mountinfo: v2 (cgroup2) and v1 hierarchies that carry the cpu controller. */
function cgroupMounts(mountinfo: string): Mount[] {
  const out: Mount[] = [];
  for (const line of mountinfo.split('\n')) {
    const [pre, post] = line.split(' - ');
    if (!pre || !post) continue;
    const f = pre.split(' ');
    const [fstype, , superOpts = ''] = post.split(' ');
    const root = f[3];
    const dir = f[4];
    if (!root || !dir) continue;
    if (fstype === 'cgroup2') out.push({ dir: unescapeMount(dir), root: unescapeMount(root), v2: true });
    else if (fstype === 'cgroup' && superOpts.split(',').includes('cpu'))
      out.push({ dir: unescapeMount(dir), root: unescapeMount(root), v2: false });
  }
  return out;
}

/** mountinfo writes space, tab, newline and backslash as octal escapes. */
function unescapeMount(s: string): string {
  return s.replace(/\\([0-7]{3})/g, (_m, o: string) => String.fromCharCode(parseInt(o, 8)));
}

/** This process's cgroup path in the v2 hierarchy ("0::/x") or the v1 one carrying cpu ("4:cpu,cpuacct:/x"). */
function cgroupPath(procCgroup: string, v2: boolean): string | null {
  for (const line of procCgroup.split('\n')) {
    const m = /^(\d+):([^:]*):(.*)$/.exec(line.trim());
    if (!m) continue;
    if (v2 ? m[1] === '0' && m[2] === '' : m[2].split(',').includes('cpu')) return m[3];
  }
  return null;
}

/** The quota in one cgroup directory, in CPUs; null when unlimited or unreadable. */
function quotaIn(dir: string, v2: boolean, read: ReadText): CpuQuota | null {
  if (v2) {
    const text = read(path.join(dir, 'cpu.max'))?.trim();
    const m = text ? /^(\d+)\s+(\d+)$/.exec(text) : null;
    if (!m || Number(m[2]) <= 0) return null; // "max 100000": no quota
    return { cpus: Number(m[1]) / Number(m[2]), source: `cgroup v2 cpu.max ${m[1]} ${m[2]} in ${dir}`, dir, v2 };
  }
  const quota = Number(read(path.join(dir, 'cpu.cfs_quota_us'))?.trim());
  const period = Number(read(path.join(dir, 'cpu.cfs_period_us'))?.trim());
  if (!Number.isFinite(quota) || !Number.isFinite(period) || quota <= 0 || period <= 0) return null; // -1: no quota
  return {
    cpus: quota / period,
    source: `cgroup v1 cpu.cfs_quota_us ${quota} / cpu.cfs_period_us ${period} in ${dir}`,
    dir,
    v2,
  };
}

/** The lowest CPU quota over this process's cgroups and their ancestors; null when there is none. */
export function cgroupCpuQuota(read: ReadText = readText): CpuQuota | null {
  const mountinfo = read('/proc/self/mountinfo');
  const procCgroup = read('/proc/self/cgroup');
  if (!mountinfo || !procCgroup) return null;
  let best: CpuQuota | null = null;
  for (const mnt of cgroupMounts(mountinfo)) {
    const cg = cgroupPath(procCgroup, mnt.v2);
    if (cg === null) continue;
    // The mount shows the hierarchy from mnt.root down (a container sees its own cgroup as "/").
    const rel = path.posix.relative(mnt.root, cg);
    if (rel.startsWith('..')) continue;
    for (let dir = path.join(mnt.dir, rel); ; dir = path.dirname(dir)) {
      const q = quotaIn(dir, mnt.v2, read);
      if (q && (!best || q.cpus < best.cpus)) best = q;
      if (dir === mnt.dir || dir === path.dirname(dir)) break;
    }
  }
  return best;
}

export interface UsableCpus {
  /** Whole CPUs to size thread counts by: at least 1. */
  count: number;
  /** The affinity mask's count (os.availableParallelism). */
  affinity: number;
  /** The cgroup quota, when one caps the count or not. */
  quota: CpuQuota | null;
}

/** CPUs to size the engine by: the affinity count, capped by a cgroup quota (rounded down, at least 1). */
export function usableCpus(read: ReadText = readText, affinity = os.availableParallelism()): UsableCpus {
  const quota = cgroupCpuQuota(read);
  const count = Math.max(1, quota ? Math.min(affinity, Math.floor(quota.cpus)) : affinity);
  return { count, affinity, quota };
}

/** CPUs' worth of time a second the process may use: the affinity count, capped by a quota's fraction (not its rounded count). */
export function cpuCapacity(cpus: UsableCpus): number {
  return Math.min(cpus.affinity, cpus.quota?.cpus ?? Infinity);
}

/**
 * Milliseconds the cgroup that sets the quota has been throttled so far (cpu.stat: v2
 * `throttled_usec`, v1 `throttled_time` in ns): time its threads were ready to run and were not
 * let, the quota of the period being spent. Null when there is no quota or no such counter.
 */
export function throttledMsReader(
  read: ReadText = readText,
  quota: CpuQuota | null = cgroupCpuQuota(read),
): (() => number | null) | null {
  if (!quota) return null;
  const file = path.join(quota.dir, 'cpu.stat');
  const key = quota.v2 ? 'throttled_usec' : 'throttled_time';
  const perMs = quota.v2 ? 1e3 : 1e6;
  const now = (): number | null => {
    const m = new RegExp(`^${key} (\\d+)$`, 'm').exec(read(file) ?? '');
    return m ? Number(m[1]) / perMs : null;
  };
  return now() === null ? null : now;
}
