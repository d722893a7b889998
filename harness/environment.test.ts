import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { MACHINE_ADDRESSES_KEY, onThisMachine, recordedAddresses } from '../analysis/machine.ts';
import { environment, machineAddresses, newRunId, runIds } from './environment.ts';

describe("the run's environment record", () => {
  it("records this machine's own interface addresses, so the report later answers as the threads stage did", () => {
    const env = environment('native');
    const own = Object.values(os.networkInterfaces()).flatMap((l) =>
      (l ?? []).filter((a) => !a.internal).map((a) => a.address),
    );
    expect(env[MACHINE_ADDRESSES_KEY]).toBe(own.join(' '));
    // every recorded address names this machine; a target there is on it for the report too
    for (const a of recordedAddresses(env))
      expect(onThisMachine(`http://${a.includes(':') ? `[${a}]` : a}:8080/`, recordedAddresses(env)), a).toBe(true);
    expect(recordedAddresses(env)).toEqual(machineAddresses());
  });
});

describe("a run's ids", () => {
  const at = new Date('2026-11-29T17:22:33.456Z');

  it('a generated run id is its own id key: time to the second and 4 random hex digits, as before', () => {
    const { runId, idKey } = runIds(undefined, at);
    expect(runId).toMatch(/^20261129-172233-[0-9a-f]{4}$/);
    expect(idKey).toBe(runId);
    expect(newRunId(at)).toMatch(/^20261129-172233-[0-9a-f]{4}$/);
  });

  it('a given run id keeps its name, and its id key adds the start second and 4 random characters in base 36', () => {
    const { runId, idKey } = runIds('r2', at);
    expect(runId).toBe('r2');
    const second = Math.floor(at.getTime() / 1000).toString(36);
    expect(idKey).toMatch(new RegExp(`^r2-${second}[0-9a-z]{4}$`));
    // 10 characters after the dash (6 of the second until 2038, then 7)
    expect(idKey.length).toBe('r2-'.length + 10);
  });

  it('two runs given one run id get different id keys: at another second always, in the same second by their random part', () => {
    const later = new Date(at.getTime() + 1000);
    expect(runIds('r2', at).idKey.slice(0, -4)).not.toBe(runIds('r2', later).idKey.slice(0, -4));
    // 5 runs started in the same second: two keys alike by chance once in about 168,000 such draws (36^4 / 10 pairs)
    const keys = new Set(Array.from({ length: 5 }, () => runIds('r2', at).idKey));
    expect(keys.size).toBe(5);
  });
});
