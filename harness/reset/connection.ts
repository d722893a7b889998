/**
 * Opens the database a reset hook or a distribution probe names: a SQLite file from the config, or
 * a server whose URL (postgres://user:password@host:5432/db, mysql://...) comes from the
 * environment variable `urlEnv`, never from the config file. The URL and its password never
 * reach an output: messages name the host, port and database only, and every message that leaves
 * this module is scrubbed of the URL, its userinfo and the password (raw, decoded and encoded), so
 * a driver's error that echoes them is harmless.
 */
import { PlateauError, EXIT } from '../errors.ts';
import { REDACTED, scrubUrlSecrets, type Scrub } from '../secret-scrub.ts';
import { connectError, exampleUrl } from './db-errors.ts';
import { openMysql } from './mysql-driver.ts';
import { openPostgres } from './pg-driver.ts';
import { sqliteDriver, type SqlDriver, type SqlDriverKind } from './sql.ts';

export interface ConnectionSpec {
  driver: SqlDriverKind;
  /** SQLite: the database file. */
  database?: string;
  /** postgres, mysql: the environment variable holding the URL. */
  urlEnv?: string;
  timeoutS: number;
}

/** What a message may say about the connection, and how to clean one that says more. */
export interface Resolved {
  driver: SqlDriverKind;
  /** The URL (postgres, mysql), or null for SQLite. */
  url: string | null;
  /** host:port/database, or the SQLite file: never credentials. */
  where: string;
  /** The host and port alone ("127.0.0.1:5432"), or the SQLite file. */
  host: string;
  user: string;
  urlEnv: string | undefined;
  scrub: Scrub;
}

const PROTOCOLS: Record<Exclude<SqlDriverKind, 'sqlite'>, { schemes: string[]; port: number; example: string }> = {
  postgres: { schemes: ['postgres:', 'postgresql:'], port: 5432, example: exampleUrl('postgres', 5432) },
  mysql: { schemes: ['mysql:', 'mariadb:'], port: 3306, example: exampleUrl('mysql', 3306) },
};

/** Resolves the URL from the environment; a missing variable or a malformed URL is refused without echoing it. */
export function resolveConnection(spec: ConnectionSpec, env: NodeJS.ProcessEnv, who: string): Resolved {
  if (spec.driver === 'sqlite') {
    const file = spec.database ?? '';
    return { driver: 'sqlite', url: null, where: file, host: file, user: '', urlEnv: undefined, scrub: (s) => s };
  }
  const proto = PROTOCOLS[spec.driver];
  const name = spec.urlEnv ?? '';
  const raw = env[name];
  const fix = `export ${name}=${proto.example} in the environment of the run (never in the config file)`;
  if (raw === undefined || raw.trim() === '') {
    throw new PlateauError(
      `${who}: the environment variable ${name} is not set`,
      fix,
      'db-url-missing',
      EXIT.preflight,
    );
  }
  const scrub = scrubberFor(raw);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new PlateauError(
      `${who}: ${name} does not hold a URL (its value is not shown: it may hold a password)`,
      fix,
      'db-url-invalid',
      EXIT.preflight,
    );
  }
  if (!proto.schemes.includes(url.protocol)) {
    throw new PlateauError(
      `${who}: ${name} is a ${url.protocol.replace(/:$/, '')}: URL, but the driver is ${spec.driver} (${proto.schemes.join(' or ')})`,
      `give ${name} a ${proto.schemes[0]}// URL, or set the hook's driver to the database it points at`,
      'db-url-scheme',
      EXIT.preflight,
    );
  }
  const host = `${url.hostname}:${url.port || proto.port}`;
  return {
    driver: spec.driver,
    url: raw,
    where: `${host}${decodeURIComponent(url.pathname) || '/'}`,
    host,
    user: decodeURIComponent(url.username),
    urlEnv: name,
    scrub,
  };
}

/** Opens the driver; a failure to connect is a PlateauError naming who, the host (no credentials) and the fix. */
export async function openConnection(
  spec: ConnectionSpec,
  env: NodeJS.ProcessEnv,
  who: string,
  o: { readOnly?: boolean } = {},
): Promise<{ driver: SqlDriver; resolved: Resolved }> {
  const resolved = resolveConnection(spec, env, who);
  if (resolved.driver === 'sqlite') return { driver: sqliteDriver(resolved.where), resolved };
  const opts = { url: resolved.url!, where: resolved.where, timeoutMs: spec.timeoutS * 1000, readOnly: o.readOnly };
  const open = resolved.driver === 'postgres' ? openPostgres : openMysql;
  const pending = open(opts);
  // a connection that opens after the deadline is closed at once, not left behind
  const drop = () =>
    void pending.then(
      (d) => d.destroy(),
      () => {},
    );
  try {
    return { driver: await within(pending, spec.timeoutS, `connecting to ${resolved.host}`, drop), resolved };
  } catch (err) {
    throw connectError(err, { who, resolved, timeoutS: spec.timeoutS });
  }
}

/** Thrown by `within` when the time runs out; `phase` says what was going on. */
export class DeadlineError extends Error {
  constructor(
    readonly phase: string,
    readonly timeoutS: number,
  ) {
    super(`no answer within ${timeoutS} s while ${phase}`);
    this.name = 'DeadlineError';
  }
}

/**
 * `p`, or a DeadlineError after leftS (calling onLate first, e.g. to drop the connection); the
 * error names timeoutS, the whole allowance of which leftS is what remains.
 */
export async function within<T>(
  p: Promise<T>,
  timeoutS: number,
  phase: string,
  onLate?: () => void,
  leftS = timeoutS,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onLate?.();
      reject(new DeadlineError(phase, timeoutS));
    }, leftS * 1000);
  });
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Removes the URL, its password (as written, decoded and re-encoded) and any URL userinfo from a
 * text. The secret scrubber of the run (secret-scrub.ts) knows only secret-looking variable names,
 * and RESET_DATABASE_URL is not one.
 */
export function scrubberFor(rawUrl: string): Scrub {
  const values = new Set<string>([rawUrl]);
  const password = /^[a-z][a-z0-9+.-]*:\/\/[^/?#@]*?:([^/?#@]*)@/i.exec(rawUrl)?.[1];
  if (password) {
    values.add(password);
    try {
      const decoded = decodeURIComponent(password);
      values.add(decoded);
      values.add(encodeURIComponent(decoded));
      values.add(JSON.stringify(decoded).slice(1, -1));
    } catch {
      // a malformed escape: the raw form is enough
    }
  }
  const sorted = [...values].filter((v) => v.length > 0).sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text;
    for (const v of sorted) if (out.includes(v)) out = out.split(v).join(REDACTED);
    return scrubUrlSecrets(out);
  };
}

/** The error with its message and hint scrubbed (a PlateauError keeps its code and exit code). */
export function scrubbed(err: PlateauError, scrub: Scrub): PlateauError {
  return new PlateauError(scrub(err.message), scrub(err.hint), err.code, err.exitCode);
}
