/**
 * The reset hooks of the config (reset.hooks): a command, an HTTP call, or SQL with a guard.
 */
import { z } from 'zod';
import { nonEmpty, positive, text } from './field-kinds.ts';

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
    description: "matched (new RegExp(pattern), no flags) against the database's name before any destructive statement",
    examples: ['^staging-'],
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
    z.strictObject({
      kind: z.literal('sql').describe('run SQL statements, guarded'),
      driver: z.literal('sqlite').describe('SQL driver').default('sqlite'),
      database: nonEmpty('for SQLite, the database file', './data/staging.db'),
      statements: z
        .array(z.string().min(1))
        .min(1, { error: 'give at least one statement' })
        .describe('SQL statements run in order'),
      guard: z
        .strictObject({
          tables: z
            .array(z.string().min(1))
            .min(1, { error: 'list the tables the reset may touch' })
            .describe('the only tables the statements may touch'),
          databasePattern,
        })
        .describe('what the SQL may touch'),
    }),
  ])
  .describe('one hook: a command, an HTTP call or SQL, chosen by kind');

export type ResetHook = z.output<typeof resetHook>;
