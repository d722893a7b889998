/**
 * The reset hooks of the config (reset.hooks): a command, an HTTP call, or SQL with a guard.
 */
import { z } from 'zod';
import { about, flag, nonEmpty, positive, text } from './field-kinds.ts';

/** Why `new RegExp(pattern)` would throw, or undefined when it compiles. */
function regExpProblem(pattern: string): string | undefined {
  try {
    new RegExp(pattern);
    return undefined;
  } catch (err) {
    // "Invalid regular expression: /(/: Unterminated group" -> "Unterminated group"
    return ((err as Error).message.split(': ').pop() ?? String(err)).trim();
  }
}

const databasePattern = z
  .string({ error: 'must be a regular expression as a string, e.g. "^staging-"' })
  .min(1, { error: 'must not be empty (it would match every database): give a pattern such as "^staging-"' })
  .superRefine((pattern, ctx) => {
    const why = regExpProblem(pattern);
    if (why !== undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `${JSON.stringify(pattern)} is not a valid regular expression (${why}): escape special characters with a backslash, e.g. "^staging\\(eu\\)$", or anchor a plain name, e.g. "^staging-"`,
      });
    }
  })
  .meta({
    description:
      "matched (new RegExp(pattern), no flags) against the database's name as the server reports it for the connection (SQLite: the file's name): no statement runs on a database it does not match",
    examples: ['^staging-'],
  });

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The name of the environment variable that holds a database URL. A URL written here instead is
 * refused without being echoed: the config is recorded in run.json, and the URL carries a password.
 */
export function envVarName(what: string, example: string) {
  return z
    .string({ error: `must be the name of an environment variable, e.g. "${example}"` })
    .superRefine((name, ctx) => {
      if (/:\/\/|@/.test(name)) {
        ctx.addIssue({
          code: 'custom',
          message: `holds a URL (not shown: it may carry a password), but it names the environment variable that holds the URL: a URL in the config file would be recorded with its password; export ${example}=<the URL> in the run's environment and set this to "${example}"`,
        });
      } else if (!ENV_NAME.test(name)) {
        ctx.addIssue({
          code: 'custom',
          message: `${JSON.stringify(name)} is not the name of an environment variable (letters, digits and underscores, not starting with a digit): give one such as "${example}"`,
        });
      }
    })
    .meta(about(what, example));
}

/** The SQLite file; a server's URL written here is refused without being echoed. */
const sqliteFile = z
  .string()
  .min(1)
  .superRefine((file, ctx) => {
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(file))
      ctx.addIssue({
        code: 'custom',
        message:
          "is a URL (not shown: it may carry a password), but database is SQLite's file: for a server set driver: 'postgres' or 'mysql' and put the URL in an environment variable named by urlEnv",
      });
  })
  .meta(
    about("SQLite's database file (postgres and mysql take the database from the URL in urlEnv)", './data/staging.db'),
  );

export const sqlDriver = z
  .enum(['sqlite', 'postgres', 'mysql'])
  .describe("the database: SQLite's file, PostgreSQL, or the MySQL protocol (MySQL, MariaDB, TiDB, OceanBase)");

/** Which connection fields a driver takes: SQLite a file, a server a URL from the environment. */
export function connectionProblems(
  c: { driver: string; database?: string; urlEnv?: string },
  example: string,
): { path: string; message: string }[] {
  if (c.driver === 'sqlite') {
    return [
      ...(c.database === undefined
        ? [{ path: 'database', message: 'missing: give the SQLite file, e.g. database: "./data/staging.db"' }]
        : []),
      ...(c.urlEnv !== undefined
        ? [{ path: 'urlEnv', message: "is for driver 'postgres' or 'mysql': SQLite reads the file in database" }]
        : []),
    ];
  }
  return [
    ...(c.urlEnv === undefined
      ? [
          {
            path: 'urlEnv',
            message: `missing: name the environment variable that holds the ${c.driver} URL, e.g. urlEnv: "${example}" (the URL never goes in the config file)`,
          },
        ]
      : []),
    ...(c.database !== undefined
      ? [
          {
            path: 'database',
            message: `is SQLite's file; a ${c.driver} database is the one in the path of the URL in urlEnv (the guard matches the name the server reports): remove database`,
          },
        ]
      : []),
  ];
}

const sqlHook = z
  .strictObject({
    kind: z.literal('sql').describe('run SQL statements, guarded'),
    driver: sqlDriver.default('sqlite'),
    database: sqliteFile.optional(),
    urlEnv: envVarName(
      'postgres and mysql: the environment variable holding the URL, e.g. postgres://user:password@host:5432/db',
      'RESET_DATABASE_URL',
    ).optional(),
    statements: z
      .array(z.string().min(1))
      .min(1, { error: 'give at least one statement' })
      .describe('SQL statements run in order, in one transaction where the database allows it'),
    guard: z
      .strictObject({
        tables: z
          .array(z.string().min(1))
          .min(1, { error: 'list the tables the reset may touch' })
          .describe('the only tables the statements may touch'),
        databasePattern,
        allowAdmin: flag(
          'let admin statements that name no guarded table run (OceanBase ALTER TENANT ... primary_zone)',
        ).default(false),
      })
      .describe('what the SQL may touch'),
    timeoutS: positive('seconds the hook may take, connecting and running included').default(60),
  })
  .superRefine((hook, ctx) => {
    for (const p of connectionProblems(hook, 'RESET_DATABASE_URL'))
      ctx.addIssue({ code: 'custom', path: [p.path], message: p.message });
  });

export const resetHook = z
  .discriminatedUnion('kind', [
    z.strictObject({
      kind: z.literal('command').describe('run a shell command'),
      run: nonEmpty('the shell command that puts the data back', './scripts/reset-db.sh'),
      timeoutS: positive('seconds the command may take').default(60),
    }),
    z.strictObject({
      kind: z.literal('http').describe('send one HTTP request'),
      method: text('HTTP method of the reset call').default('POST'),
      url: nonEmpty("absolute, or a path on the target's origin", '/admin/reset'),
      body: text('request body of the reset call').optional(),
      expectStatus: z.number().int().meta({ description: 'HTTP status the reset call must answer' }).default(200),
      timeoutS: positive('seconds the call may take').default(60),
    }),
    sqlHook,
  ])
  .describe('one hook: a command, an HTTP call or SQL, chosen by kind');

export type ResetHook = z.output<typeof resetHook>;
