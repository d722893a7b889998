/**
 * Limits of the machine the generator runs on, checked before load: open files (one socket per
 * VU) and free disk for the run store. Reads the OS, so it lives in the shell.
 */
import fs from 'node:fs';
import { PlateauError, EXIT } from '../errors.ts';

/** Descriptors the process needs beside its sockets (stdio, store files, tsx, the demo's pipes). */
const FD_OVERHEAD = 64;
/** Store bytes a second of load takes (eight encoded histograms and counts), with margin. */
const STORE_BYTES_PER_S = 16 * 1024;

/** The soft open-file limit from /proc/self/limits, or null where it cannot be read. */
export function openFileLimit(): number | null {
  try {
    const line = fs
      .readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = line?.trim().split(/\s{2,}/)[1];
    return soft === undefined || soft === 'unlimited' ? null : Number(soft);
  } catch {
    return null;
  }
}

export function checkOpenFiles(maxVUs: number, limit: number | null = openFileLimit()): string {
  if (limit === null) return 'open-file limit: unknown or unlimited on this platform';
  const need = maxVUs + FD_OVERHEAD;
  if (limit < need) {
    throw new PlateauError(
      `the open-file limit is ${limit}, but up to ${maxVUs} VUs need about ${need} descriptors (one socket each)`,
      `raise it (ulimit -n ${Math.max(need * 2, 4096)}) or lower vus.max`,
      'fd-limit',
      EXIT.preflight,
    );
  }
  return `open-file limit ${limit} >= ${need} needed for ${maxVUs} VUs`;
}

export function checkDisk(dir: string, durationS: number): string {
  try {
    fs.mkdirSync(dir, { recursive: true });
    fs.accessSync(dir, fs.constants.W_OK);
  } catch (err) {
    throw new PlateauError(
      `the run store directory ${dir} is not writable (${(err as { code?: string }).code ?? (err as Error).message})`,
      'choose another --out directory or fix its permissions',
      'store-unwritable',
      EXIT.preflight,
    );
  }
  const st = fs.statfsSync(dir);
  const freeBytes = st.bavail * st.bsize;
  const needBytes = Math.max(10 * 2 ** 20, durationS * STORE_BYTES_PER_S * 2);
  if (freeBytes < needBytes) {
    throw new PlateauError(
      `only ${(freeBytes / 2 ** 20).toFixed(1)} MiB free under ${dir}; the run store needs about ${(needBytes / 2 ** 20).toFixed(1)} MiB`,
      'free disk space or choose another --out directory',
      'disk-full',
      EXIT.preflight,
    );
  }
  return `disk: ${(freeBytes / 2 ** 30).toFixed(1)} GiB free under ${dir} (run needs ~${(needBytes / 2 ** 20).toFixed(0)} MiB)`;
}
