import { describe, expect, it } from 'vitest';
import { MACHINE_ADDRESSES_KEY, onThisMachine, recordedAddresses } from './machine.ts';

const LAN = ['10.1.2.3', 'fe80::42:aff:fe01:203'];

describe('a target on this machine', () => {
  it.each([
    'http://127.0.0.1:8080/x',
    'http://127.1.2.3/',
    'http://localhost:1/',
    'http://localhost.:1/',
    'http://api.localhost/',
    'http://[::1]:9/',
    'http://0.0.0.0:8080/',
    'http://[::]:8080/',
    'http://[::ffff:127.0.0.1]/',
    'https://10.1.2.3/',
    'http://[FE80::42:aff:fe01:203]/',
  ])('%s is on the machine with addresses 10.1.2.3 and fe80::42:aff:fe01:203', (url) =>
    expect(onThisMachine(url, LAN)).toBe(true),
  );

  it.each([
    'http://10.1.2.4/',
    'https://example.com/',
    'http://[::2]/',
    'http://127.0.0.1.example.com/',
    'http://[::ffff:10.1.2.4]/',
    'http://notlocalhost/',
    'http://128.0.0.1/',
    'http://localhost.example.com/',
    'not a url',
  ])('%s is not', (url) => expect(onThisMachine(url, LAN)).toBe(false));

  it('knows the LAN address only from the addresses it is given: loopback alone without them', () => {
    expect(onThisMachine('http://10.1.2.3:8080/', [])).toBe(false);
    expect(onThisMachine('http://127.0.0.1:8080/', [])).toBe(true);
  });

  it('reads the addresses a run recorded, and none from a run older than the record', () => {
    expect(recordedAddresses({ [MACHINE_ADDRESSES_KEY]: '10.1.2.3 fe80::42:aff:fe01:203' })).toEqual(LAN);
    expect(recordedAddresses({ hostname: 'gen-1' })).toEqual([]);
    expect(recordedAddresses({ [MACHINE_ADDRESSES_KEY]: '' })).toEqual([]);
  });
});
