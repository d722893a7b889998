/**
 * Why a connection to the target (or its metrics endpoint) failed, said in the user's terms with
 * the fix. A TLS failure names the certificate problem: plateau trusts the CAs Node trusts plus the
 * PEM file in NODE_EXTRA_CA_CERTS, which Node reads when the process starts and which therefore
 * covers every connection plateau opens (preflight, RTT, the engine's worker threads, probes).
 */

export interface ConnectFailure {
  /** What went wrong, naming the URL and the low-level code. */
  problem: string;
  fix: string;
  /** 'tls' for a certificate or handshake problem, else 'connect'. */
  kind: 'tls' | 'connect';
}

/** The certificate chain does not end in a CA this process trusts. */
const UNTRUSTED = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
]);

export function explainConnectError(url: string, err: unknown, env: NodeJS.ProcessEnv = process.env): ConnectFailure {
  const e = (err ?? {}) as { code?: string; message?: string };
  const code = e.code ?? 'no code';
  const said = `${code}: ${e.message ?? String(err)}`;
  const u = new URL(url);
  const where = `${u.hostname}:${u.port || (u.protocol === 'https:' ? 443 : 80)}`;
  if (UNTRUSTED.has(code)) {
    const extra = env.NODE_EXTRA_CA_CERTS;
    return {
      kind: 'tls',
      problem: `${url}: the TLS certificate of ${where} is not trusted (${said})`,
      fix: extra
        ? `NODE_EXTRA_CA_CERTS is ${extra}, which does not hold the CA that signed this certificate (or could not be read: Node warns at start): point it at that CA's PEM file`
        : "export NODE_EXTRA_CA_CERTS=/path/to/ca.pem (the PEM certificate of the CA that signed the target's certificate) and run again; every connection plateau opens, in every thread, trusts it",
    };
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    return {
      kind: 'tls',
      problem: `${url}: the TLS certificate of ${where} does not name ${u.hostname} (${said})`,
      fix: 'put a host name or IP address the certificate lists into the URL',
    };
  }
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') {
    return {
      kind: 'tls',
      problem: `${url}: the TLS certificate of ${where} ${code === 'CERT_HAS_EXPIRED' ? 'has expired' : 'is not valid yet'} (${code})`,
      fix: "renew the target's certificate, or check the clock of this machine",
    };
  }
  if (
    u.protocol === 'https:' &&
    (code === 'ERR_SSL_WRONG_VERSION_NUMBER' || /wrong version number/i.test(e.message ?? ''))
  ) {
    return {
      kind: 'tls',
      problem: `${url}: ${where} does not speak TLS (${code})`,
      fix: `use http://${u.host} if this port serves plain HTTP, or the port where the target serves https`,
    };
  }
  if (code === 'ECONNREFUSED') {
    return {
      kind: 'connect',
      problem: `${url} is not reachable (ECONNREFUSED: nothing listens at ${where})`,
      fix: 'start the target, or point the URL at where it listens',
    };
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return {
      kind: 'connect',
      problem: `${url} is not reachable (${code}: the host name ${u.hostname} does not resolve)`,
      fix: "correct the host name in the URL, or check this machine's DNS",
    };
  }
  if (code === 'UND_ERR_SOCKET' && u.protocol === 'http:') {
    return {
      kind: 'connect',
      problem: `${url}: ${where} closed the connection without an answer (${said})`,
      fix: `if this port serves TLS, use https://${u.host}; otherwise look at the target's log for why it drops connections`,
    };
  }
  return {
    kind: 'connect',
    problem: `${url} is not reachable (${said})`,
    fix: 'start the target, or point the URL at where it listens',
  };
}
