/** The facts about the generator recorded with every run (the one place that reads the OS for them). */
import os from 'node:os';
import { randomInt } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { MACHINE_ADDRESSES_KEY } from '../analysis/machine.ts';
import { cgroupCpuQuota } from './cpu-quota.ts';
import { runIdAt, runIdsAt, type RunIds } from './run-ids.ts';

export function environment(engine: string): Record<string, string> {
  const require = createRequire(import.meta.url);
  const pkg = require('../package.json') as { version: string };
  const undici = require('undici/package.json') as { version: string };
  const quota = cgroupCpuQuota();
  return {
    engine,
    plateau: pkg.version,
    node: process.version,
    undici: undici.version,
    httpParser: `llhttp (wasm build in undici ${undici.version})`,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    cpus: `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'unknown'}`,
    // A container's CPU limit: the generator had that much CPU, whatever the host's count.
    ...(quota ? { cpuQuota: `${+quota.cpus.toFixed(2)} CPU${quota.cpus === 1 ? '' : 's'} (${quota.source})` } : {}),
    memoryGiB: (os.totalmem() / 2 ** 30).toFixed(1),
    hostname: os.hostname(),
    // What a target on this machine may be called besides loopback (analysis/machine.ts): the
    // report of this run says the two shared the machine from this record, not from today's.
    [MACHINE_ADDRESSES_KEY]: machineAddresses().join(' '),
    gitCommit: gitCommit(),
    // The CA file TLS connections trusted besides Node's own (a path, not a secret).
    ...(process.env.NODE_EXTRA_CA_CERTS ? { extraCaCerts: process.env.NODE_EXTRA_CA_CERTS } : {}),
  };
}

/** This machine's own interface addresses, loopback aside (the predicate knows loopback by name). */
export function machineAddresses(
  interfaces: ReturnType<typeof os.networkInterfaces> = os.networkInterfaces(),
): string[] {
  return Object.values(interfaces).flatMap((list) => (list ?? []).filter((a) => !a.internal).map((a) => a.address));
}

function gitCommit(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  } catch {
    return 'unknown';
  }
}

/** A fresh run id: UTC timestamp plus 4 random hex digits, e.g. 20261129-172233-a1f3. */
export function newRunId(now = new Date()): string {
  return runIdAt(now, randomInt);
}

export type { RunIds } from './run-ids.ts';

/** The run id (the one given, or a fresh one) and its id key: run-ids.ts runIdsAt, at `now`, from node:crypto. */
export function runIds(given: string | undefined, now = new Date()): RunIds {
  return runIdsAt(given, now, randomInt);
}
