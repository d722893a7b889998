import { describe, expect, it } from 'vitest';
import { parseConfigOrThrow } from '../config/validate.ts';
import { machineAddresses } from '../environment.ts';
import { keepAllReason } from './threads.ts';
import { NATIVE_CAPABILITIES } from '../engine/load-engine.ts';
import { engineKind } from '../engine/create.ts';

const nics = {
  lo: [
    {
      address: '127.0.0.1',
      netmask: '255.0.0.0',
      family: 'IPv4',
      mac: '00:00:00:00:00:00',
      internal: true,
      cidr: '127.0.0.1/8',
    },
  ],
  eth0: [
    {
      address: '10.1.2.3',
      netmask: '255.255.255.0',
      family: 'IPv4',
      mac: '02:42:0a:01:02:03',
      internal: false,
      cidr: '10.1.2.3/24',
    },
    {
      address: 'fe80::42:aff:fe01:203',
      netmask: 'ffff:ffff:ffff:ffff::',
      family: 'IPv6',
      mac: '02:42:0a:01:02:03',
      internal: false,
      cidr: 'fe80::42:aff:fe01:203/64',
      scopeid: 2,
    },
  ],
} as const;

describe('the threads stage', () => {
  it("reads this machine's own addresses from its interfaces, loopback aside (the predicate knows loopback by name)", () => {
    expect(machineAddresses(nics as never)).toEqual(['10.1.2.3', 'fe80::42:aff:fe01:203']);
  });

  it("sizes threads for a target at the machine's LAN address, and keeps them all for a neighbour's", () => {
    const lan = machineAddresses(nics as never);
    const two = { instances: 2, capabilities: NATIVE_CAPABILITIES, whyNot: {} };
    const at = (url: string) => ({
      config: parseConfigOrThrow({
        target: { url },
        steps: { startPerSec: 10, stepPerSec: 10, maxPerSec: 10, rampS: 1, holdS: 5 },
        workers: 'auto',
      }),
    });
    expect(keepAllReason(at('http://10.1.2.3:8080/'), two, { stable: true }, lan)).toBeNull();
    expect(keepAllReason(at('http://[fe80::42:aff:fe01:203]:8080/'), two, { stable: true }, lan)).toBeNull();
    expect(keepAllReason(at('http://10.1.2.4:8080/'), two, { stable: true }, lan)).toMatch(
      /^the target is not on this machine/,
    );
  });

  it('sizes threads only for workers: auto, an engine that can be sized on several threads, a target here and a settled warmup', () => {
    const cfg = (over: Record<string, unknown> = {}) => ({
      config: parseConfigOrThrow({
        target: { url: 'http://127.0.0.1:8080/' },
        steps: { startPerSec: 10, stepPerSec: 10, maxPerSec: 10, rampS: 1, holdS: 5 },
        workers: 'auto',
        ...over,
      }),
    });
    const native = { capabilities: NATIVE_CAPABILITIES, whyNot: {} };
    const two = { instances: 2, ...native };
    expect(keepAllReason(cfg(), two, { stable: true })).toBeNull();
    expect(keepAllReason(cfg({ workers: 2 }), two, { stable: true })).toBe(
      'workers set to 2 (config or --workers): all 2 threads run the steps',
    );
    expect(keepAllReason(cfg(), { instances: 1, ...native }, { stable: true })).toBe('the engine runs on one thread');
    expect(keepAllReason(cfg({ target: { url: 'https://example.com/' } }), two, { stable: true })).toMatch(
      /^the target is not on this machine/,
    );
    expect(keepAllReason(cfg(), two, null)).toMatch(/^no warmup measured/);
    expect(keepAllReason(cfg(), two, { stable: false })).toMatch(/^the warmup did not settle/);
    // the capability decides, whatever the count: an engine that cannot be sized says why in its own words
    const k6 = cfg({ engine: 'k6' });
    expect(keepAllReason(k6, { instances: 1, ...engineKind(k6.config) }, { stable: true })).toBe(
      'k6 schedules its own goroutines',
    );
    expect(
      keepAllReason(cfg(), { ...two, capabilities: { ...NATIVE_CAPABILITIES, threadSizing: false } }, { stable: true }),
    ).toBe('the engine has no threadSizing capability');
  });
});
