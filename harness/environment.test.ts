import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { MACHINE_ADDRESSES_KEY, onThisMachine, recordedAddresses } from '../analysis/machine.ts';
import { environment, machineAddresses } from './environment.ts';

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
