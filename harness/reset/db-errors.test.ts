import { describe, expect, it } from 'vitest';
import { secretScrubber } from '../secret-scrub.ts';
import { connectError } from './db-errors.ts';
import { resolveConnection, scrubberFor, type Resolved } from './connection.ts';

const resolved: Resolved = {
  driver: 'postgres',
  url: 'postgres://nobody@127.0.0.1:55432/shop',
  where: '127.0.0.1:55432/shop',
  host: '127.0.0.1:55432',
  user: 'nobody',
  urlEnv: 'RESET_DATABASE_URL',
  // as the connection scrubs its errors: a URL's userinfo is stripped
  scrub: scrubberFor('postgres://nobody@127.0.0.1:55432/shop'),
};
const o = { who: 'reset hook 1 (sql, postgres)', resolved, timeoutS: 60 };

describe("a database's failure to connect, in words", () => {
  it('a URL with no password to a server that asks for one: says so, not the driver\'s "client password must be a string"', () => {
    const err = connectError(new Error('SASL: SCRAM-SERVER-FIRST-MESSAGE: client password must be a string'), o);
    expect(err.message).toBe(
      'reset hook 1 (sql, postgres): the PostgreSQL server at 127.0.0.1:55432 asks user "nobody" for a password, and $RESET_DATABASE_URL gives none',
    );
    // the example's userinfo survives the scrubbing (a review: it read postgres://host:port/database)
    expect(err.hint).toBe(
      'put the password in $RESET_DATABASE_URL (postgres://USER:PASSWORD@host:port/database; the password is never printed)',
    );
    expect(err.exitCode).toBe(3);
  });

  it('a port that accepts the connection but never answers as the database (an HTTP service): names that cause first', () => {
    const err = connectError(Object.assign(new Error('timeout expired'), { name: 'DeadlineError' }), o);
    expect(err.message).toBe(
      'reset hook 1 (sql, postgres): the PostgreSQL server at 127.0.0.1:55432 did not complete a login within 60 s (timeout expired)',
    );
    expect(err.hint).toMatch(
      /^check that \$RESET_DATABASE_URL names the database's own port \(a service of another kind there/,
    );
  });
});

describe('a database URL not set or malformed', () => {
  it.each([
    ['postgres', {}, 'postgres://USER:PASSWORD@host:5432/dbname'],
    ['mysql', { DB_URL: 'not a url' }, 'mysql://USER:PASSWORD@host:3306/dbname'],
  ] as const)("%s: the fix's example keeps its userinfo through the run's scrubber", (driver, env, example) => {
    let err: unknown;
    try {
      resolveConnection({ driver, urlEnv: 'DB_URL', timeoutS: 5 }, env, 'reset hook 1');
    } catch (e) {
      err = e;
    }
    expect(secretScrubber([], env)((err as Error & { hint: string }).hint)).toBe(
      `export DB_URL=${example} in the environment of the run (never in the config file)`,
    );
  });
});
