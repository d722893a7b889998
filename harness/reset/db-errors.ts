/**
 * A database's failure in words: an unreachable server, a refused login, a missing database, a
 * timeout, each naming who met it (the hook or the probe), the host and port (never credentials)
 * and the fix. Messages are scrubbed by the caller's connection (connection.ts) before they leave.
 */
import { PlateauError, EXIT } from '../errors.ts';
import type { Resolved } from './connection.ts';
import { PLACEHOLDER_USERINFO } from '../secret-scrub.ts';

/** The error's code: a SQLSTATE (pg), a MySQL code name (mysql2) or a system code (ECONNREFUSED). */
export function codeOf(err: unknown): string {
  const e = err as { code?: unknown; errors?: unknown[] } | null;
  if (typeof e?.code === 'string' && e.code) return e.code;
  // Node's connect to a name with several addresses fails with an AggregateError of each attempt
  const inner = e?.errors?.find((x) => typeof (x as { code?: unknown })?.code === 'string');
  return inner ? String((inner as { code: string }).code) : '';
}

const UNREACHABLE = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNRESET']);
/** pg: invalid_password, invalid_authorization_specification; mysql2: access denied, auth plugin. */
const LOGIN = new Set([
  '28P01',
  '28000',
  'ER_ACCESS_DENIED_ERROR',
  'ER_NOT_SUPPORTED_AUTH_MODE',
  'ER_ACCESS_DENIED_NO_PASSWORD_ERROR',
]);
/** pg: invalid_catalog_name; mysql2: unknown database, no access to it. */
const NO_DATABASE = new Set(['3D000', 'ER_BAD_DB_ERROR', 'ER_DBACCESS_DENIED_ERROR']);

/** pg: read_only_sql_transaction; mysql2: a statement refused by a READ ONLY session. */
export const READ_ONLY_REFUSED = new Set(['25006', 'ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION']);

const NAMES = { postgres: 'PostgreSQL', mysql: 'MySQL-protocol', sqlite: 'SQLite' } as const;

/** A fix's example URL: its userinfo the placeholder the scrubber keeps, so the fix still says where the password goes. */
export function exampleUrl(scheme: string, port: number | 'port', database = 'dbname'): string {
  return `${scheme}://${PLACEHOLDER_USERINFO}@host:${port}/${database}`;
}

/** A failure to connect (or to finish connecting within the timeout) as a PlateauError. */
export function connectError(err: unknown, o: { who: string; resolved: Resolved; timeoutS: number }): PlateauError {
  const { who, resolved: r } = o;
  const scrub = r.scrub;
  if (err instanceof PlateauError) return new PlateauError(scrub(err.message), scrub(err.hint), err.code, err.exitCode);
  const code = codeOf(err);
  const text = scrub((err as Error)?.message ?? String(err)).trim();
  const server = `the ${NAMES[r.driver]} server at ${r.host}`;
  const env = r.urlEnv ? `$${r.urlEnv}` : 'the URL';
  const make = (message: string, hint: string, c: string) =>
    new PlateauError(`${who}: ${scrub(message)}`, scrub(hint), c, EXIT.preflight);
  if (UNREACHABLE.has(code))
    return make(
      `cannot reach ${server} (${code}${code === 'ECONNREFUSED' ? ': nothing listens there' : ''})`,
      `start the server, or correct the host and port in ${env}`,
      'db-unreachable',
    );
  // pg asked for a SCRAM password by a URL with none: its own words ("client password must be a string") name no fix
  if (/client password must be a string/i.test(text))
    return make(
      `${server} asks user "${r.user}" for a password, and ${env} gives none`,
      `put the password in ${env} (${exampleUrl('postgres', 'port', 'database')}; the password is never printed)`,
      'db-login-refused',
    );
  if (LOGIN.has(code))
    return make(
      `${server} refused the login of user "${r.user}" (${text})`,
      `check the user and the password in ${env} (the password is never printed)`,
      'db-login-refused',
    );
  if (NO_DATABASE.has(code))
    return make(
      `${server} has no database ${JSON.stringify(r.where.slice(r.host.length + 1))} for user "${r.user}" (${text})`,
      `create the database (or grant the user access to it), or correct the database name in the path of ${env}`,
      'db-missing',
    );
  if (isTimeout(err, code))
    return make(
      `${server} did not complete a login within ${o.timeoutS} s (${text})`,
      `check that ${env} names the database's own port (a service of another kind there, such as HTTP, accepts the connection and never answers as the database), that the server is up and reachable from this machine, or raise the timeoutS of ${who}`,
      'db-timeout',
    );
  return make(
    `could not connect to ${server}${code ? ` (${code})` : ''}: ${text}`,
    `check ${env} and the server`,
    'db-connect',
  );
}

function isTimeout(err: unknown, code: string): boolean {
  if (code === 'ETIMEDOUT') return true;
  const m = (err as Error)?.message ?? '';
  return (err as Error)?.name === 'DeadlineError' || /timeout|timed out/i.test(m);
}

/** A failure once connected (a count, the guard's name query, a statement): who, where, what. */
export function sessionError(
  err: unknown,
  o: { who: string; resolved: Resolved; phase: string; fix?: string },
): PlateauError {
  const scrub = o.resolved.scrub;
  if (err instanceof PlateauError)
    return new PlateauError(`${o.who}: ${scrub(err.message)}`, scrub(err.hint), err.code, err.exitCode);
  const code = codeOf(err);
  const text = scrub((err as Error)?.message ?? String(err)).trim();
  const deadline = (err as Error)?.name === 'DeadlineError';
  const timeout = deadline || /timeout/i.test(text);
  return new PlateauError(
    deadline
      ? `${o.who}: ${o.resolved.where} gave ${text}`
      : `${o.who}: ${o.phase} failed on ${o.resolved.where}${code ? ` (${code})` : ''}: ${text}`,
    timeout
      ? `raise the timeoutS of ${o.who}, or find what holds the tables (a long transaction, a lock)`
      : (o.fix ?? `check that the guarded tables exist on ${o.resolved.where} and that the user may read them`),
    timeout ? 'db-timeout' : 'db-query',
    EXIT.preflight,
  );
}
