/**
 * CPU time a whole process has used (user + system, every thread): this process through
 * process.cpuUsage(), another (the k6 engine's k6) through /proc/<pid>/stat on Linux. The
 * generator's share of the CPUs it may use is this over the wall time and usableCpus().
 */
import { execFileSync } from 'node:child_process';
import { readText, type ReadText } from './cpu-quota.ts';

let clkTck = 0;
/** Clock ticks per second of /proc/<pid>/stat's utime and stime (almost always 100). */
export function ticksPerSecond(): number {
  if (!clkTck) {
    try {
      clkTck = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clkTck = 100;
    }
  }
  return clkTck;
}

/**
 * The fields of a /proc/<pid>/stat line after the command name (which may hold spaces and
 * parentheses): state is [0], ppid [1], utime [11], stime [12], cutime [13], cstime [14].
 */
export function statFields(line: string): string[] {
  return line.slice(line.lastIndexOf(')') + 2).split(' ');
}

/** Milliseconds of CPU the process has used so far; null once it is gone or where it cannot be read. */
export function processCpuMsReader(pid: number = process.pid, read: ReadText = readText): () => number | null {
  if (pid === process.pid)
    return () => {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1000;
    };
  return () => {
    const line = read(`/proc/${pid}/stat`);
    if (line === null) return null;
    const f = statFields(line);
    const ticks = Number(f[11]) + Number(f[12]);
    return Number.isFinite(ticks) ? (ticks * 1000) / ticksPerSecond() : null;
  };
}
