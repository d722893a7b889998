/**
 * The config of SQL reset hooks and distribution probes: the connection comes from an environment
 * variable; a URL (with its password) written in the config is refused, and never echoed.
 */
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../config/validate.ts';

const PASSWORD = 'hunter2-in-the-config';
const base = (extra: Record<string, unknown>) => ({
  target: { url: 'http://127.0.0.1:8080/x' },
  steps: { startPerSec: 10, stepPerSec: 10, maxPerSec: 20, rampS: 0, holdS: 3 },
  ...extra,
});
const hook = (h: Record<string, unknown>) =>
  base({
    reset: {
      hooks: [
        { kind: 'sql', statements: ['TRUNCATE orders'], guard: { tables: ['orders'], databasePattern: '^test' }, ...h },
      ],
    },
  });
const problems = (raw: unknown) => {
  const r = validateConfig(raw);
  return r.problems.map((p) => `${p.field}: ${p.message}`);
};

describe('where a database URL may come from', () => {
  it.each([
    [
      'urlEnv',
      { driver: 'postgres', urlEnv: `postgres://plateau:${PASSWORD}@db:5432/test` },
      /reset\.hooks\.0\.urlEnv: holds a URL \(not shown: it may carry a password\).*export RESET_DATABASE_URL=/,
    ],
    [
      'database',
      { driver: 'sqlite', database: `mysql://plateau:${PASSWORD}@db/test` },
      /reset\.hooks\.0\.database: is a URL \(not shown.*driver: 'postgres' or 'mysql'/,
    ],
    [
      'url',
      { driver: 'mysql', urlEnv: 'DB', url: `mysql://plateau:${PASSWORD}@db/test` },
      /unknown key "url": remove or correct the spelling/,
    ],
  ])('a URL with its password in %s is refused, and the password is not in the message', (_field, h, re) => {
    const out = problems(hook(h));
    expect(out.join('\n')).toMatch(re);
    expect(out.join('\n')).not.toContain(PASSWORD);
  });

  it('asks postgres and mysql for urlEnv, SQLite for its file, and keeps each field to its driver', () => {
    expect(problems(hook({ driver: 'postgres' }))).toEqual([
      expect.stringMatching(
        /^reset\.hooks\.0\.urlEnv: missing: name the environment variable that holds the postgres URL, e.g. urlEnv: "RESET_DATABASE_URL"/,
      ),
    ]);
    expect(problems(hook({}))).toEqual([
      expect.stringMatching(/^reset\.hooks\.0\.database: missing: give the SQLite file/),
    ]);
    expect(problems(hook({ driver: 'mysql', urlEnv: 'DB', database: 'x.db' }))).toEqual([
      expect.stringMatching(
        /^reset\.hooks\.0\.database: is SQLite's file; a mysql database is the one in the path of the URL/,
      ),
    ]);
    expect(problems(hook({ driver: 'postgres', urlEnv: 'RESET_DATABASE_URL' }))).toEqual([]);
  });

  it('refuses a probe query that writes, holds two statements, or a probe named twice', () => {
    const probe = (p: Record<string, unknown>) => ({
      name: 'rows',
      driver: 'postgres',
      urlEnv: 'DB',
      query: 'SELECT 1, 2',
      ...p,
    });
    const out = problems(
      base({
        probes: {
          distribution: [
            probe({ query: 'DELETE FROM orders' }),
            probe({ name: 'two', query: 'SELECT 1, 2; DELETE FROM orders' }),
            probe({ name: 'two', urlEnv: `postgres://u:${PASSWORD}@h/db` }),
            probe({ name: 'late', when: ['after'], require: 'spread' }),
            {
              name: 'gauge',
              source: 'metric',
              url: '/metrics',
              series: 'tikv_raftstore_region_count',
              nodeLabel: 'instance',
              query: 'SELECT 1',
            },
          ],
        },
      }),
    );
    expect(out).toEqual([
      expect.stringMatching(
        /^probes\.distribution\.0\.query: must be a read-only query starting with SELECT, WITH, SHOW \(got DELETE\)/,
      ),
      expect.stringMatching(/^probes\.distribution\.1\.query: holds more than one statement/),
      expect.stringMatching(/^probes\.distribution\.2\.urlEnv: holds a URL/),
      expect.stringMatching(/^probes\.distribution\.3\.require: 'spread' judges the reading before the run/),
      expect.stringMatching(/^probes\.distribution\.4\.query: is for source: 'sql'/),
      expect.stringMatching(/^probes\.distribution\.2\.name: "two" names two probes/),
    ]);
    expect(out.join('\n')).not.toContain(PASSWORD);
  });
});
