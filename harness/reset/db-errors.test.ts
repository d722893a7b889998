import { describe, expect, it } from 'vitest';
import { connectError } from './db-errors.ts';
import type { Resolved } from './connection.ts';

const resolved: Resolved = {
  driver: 'postgres',
  url: 'postgres://nobody@127.0.0.1:55432/shop',
  where: '127.0.0.1:55432/shop',
  host: '127.0.0.1:55432',
  user: 'nobody',
  urlEnv: 'RESET_DATABASE_URL',
  scrub: (s) => s,
};
const o = { who: 'reset hook 1 (sql, postgres)', resolved, timeoutS: 60 };

describe("a database's failure to connect, in words", () => {
  it('a URL with no password to a server that asks for one: says so, not the driver\'s "client password must be a string"', () => {
    const err = connectError(new Error('SASL: SCRAM-SERVER-FIRST-MESSAGE: client password must be a string'), o);
    expect(err.message).toBe(
      'reset hook 1 (sql, postgres): the PostgreSQL server at 127.0.0.1:55432 asks user "nobody" for a password, and $RESET_DATABASE_URL gives none',
    );
    expect(err.hint).toMatch(/^put the password in \$RESET_DATABASE_URL \(postgres:\/\/user:password@/);
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
