import { describe, expect, it } from 'vitest';
import { explainConnectError } from './connect-errors.ts';

const err = (code: string, message = 'low-level message') => Object.assign(new Error(message), { code });

describe("explainConnectError: the problem in the user's terms, and the fix", () => {
  it.each<[string, string, unknown, RegExp, RegExp, 'tls' | 'connect']>([
    [
      'a self-signed chain',
      'https://10.0.0.5:8443/health',
      err('SELF_SIGNED_CERT_IN_CHAIN'),
      /TLS certificate of 10\.0\.0\.5:8443 is not trusted \(SELF_SIGNED_CERT_IN_CHAIN/,
      /export NODE_EXTRA_CA_CERTS=/,
      'tls',
    ],
    [
      'a certificate for another name',
      'https://api.internal/health',
      err('ERR_TLS_CERT_ALTNAME_INVALID'),
      /api\.internal:443 does not name api\.internal/,
      /host name or IP address the certificate lists/,
      'tls',
    ],
    [
      'an expired certificate',
      'https://api.internal/',
      err('CERT_HAS_EXPIRED'),
      /has expired/,
      /renew the target's certificate/,
      'tls',
    ],
    [
      'a certificate not valid yet',
      'https://api.internal/',
      err('CERT_NOT_YET_VALID'),
      /is not valid yet/,
      /clock/,
      'tls',
    ],
    [
      'https to a plain port',
      'https://127.0.0.1:8080/',
      err('ERR_SSL_WRONG_VERSION_NUMBER'),
      /127\.0\.0\.1:8080 does not speak TLS/,
      /use http:\/\/127\.0\.0\.1:8080/,
      'tls',
    ],
    [
      'refused',
      'http://127.0.0.1:9/health',
      err('ECONNREFUSED'),
      /is not reachable \(ECONNREFUSED: nothing listens at 127\.0\.0\.1:9\)/,
      /start the target/,
      'connect',
    ],
    [
      'a name that does not resolve',
      'http://no-such-host.invalid/',
      err('ENOTFOUND'),
      /host name no-such-host\.invalid does not resolve/,
      /correct the host name/,
      'connect',
    ],
    [
      'http to a TLS port',
      'http://127.0.0.1:8443/',
      err('UND_ERR_SOCKET', 'other side closed'),
      /closed the connection without an answer/,
      /use https:\/\/127\.0\.0\.1:8443/,
      'connect',
    ],
    [
      'anything else',
      'http://127.0.0.1:8080/',
      err('ETIMEDOUT'),
      /is not reachable \(ETIMEDOUT: low-level message\)/,
      /start the target/,
      'connect',
    ],
  ])('%s', (_name, url, e, problem, fix, kind) => {
    const f = explainConnectError(url, e, {});
    expect(f.problem).toMatch(problem);
    expect(f.fix).toMatch(fix);
    expect(f.kind).toBe(kind);
  });

  it('an untrusted certificate while NODE_EXTRA_CA_CERTS is set names that file', () => {
    const f = explainConnectError('https://127.0.0.1:8443/', err('UNABLE_TO_VERIFY_LEAF_SIGNATURE'), {
      NODE_EXTRA_CA_CERTS: '/etc/ssl/wrong.pem',
    });
    expect(f.fix).toMatch(/NODE_EXTRA_CA_CERTS is \/etc\/ssl\/wrong\.pem, which does not hold the CA/);
  });

  it('an error without a code still says something', () => {
    expect(explainConnectError('http://127.0.0.1:1/', 'boom', {}).problem).toMatch(/not reachable \(no code: boom\)/);
  });
});
