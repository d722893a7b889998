/**
 * CPU steal: time the hypervisor gave the machine's virtual CPUs to someone else while they had
 * work (/proc/stat, 8th field of the "cpu" line). On a VM, steal is a stall the generator cannot
 * see from inside its threads: its event loop looks idle while arrivals leave late. Burstable
 * instances out of CPU credit show it first.
 */
import { readText, type ReadText } from './cpu-quota.ts';

/** Cumulative CPU time of all CPUs (clock ticks): stolen, and in all. */
export interface CpuTimes {
  steal: number;
  total: number;
}

/** The aggregate "cpu" line: user nice system idle iowait irq softirq steal [guest guest_nice]. */
export function parseCpuTimes(stat: string): CpuTimes | null {
  const line = /^cpu\s+(.+)$/m.exec(stat);
  if (!line) return null;
  const f = line[1].trim().split(/\s+/).map(Number);
  if (f.length < 8 || f.slice(0, 8).some((x) => !Number.isFinite(x))) return null;
  // guest and guest_nice are already counted in user and nice.
  return { steal: f[7], total: f.slice(0, 8).reduce((a, x) => a + x, 0) };
}

/** A reader of the machine's CPU times; null where /proc/stat has no steal column (not Linux). */
export function cpuTimesReader(read: ReadText = readText): (() => CpuTimes | null) | null {
  const now = () => parseCpuTimes(read('/proc/stat') ?? '');
  return now() === null ? null : now;
}

/** Share of all CPUs' time stolen between two readings, rounded to 0.001; null without time passing. */
export function stealShare(a: CpuTimes, b: CpuTimes): number | null {
  const total = b.total - a.total;
  if (total <= 0) return null;
  return Math.round(Math.min(1, Math.max(0, (b.steal - a.steal) / total)) * 1000) / 1000;
}
