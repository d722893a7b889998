/**
 * The one error type the harness throws on purpose. The CLI entry maps it to an exit code and
 * prints `message` and `hint`; any other error is a bug and is reported as one.
 */
export class PlateauError extends Error {
  constructor(
    message: string,
    /** What the user can do about it. */
    readonly hint: string,
    /** Stable machine-readable code, e.g. "config-invalid". */
    readonly code: string,
    readonly exitCode: number = EXIT.usage,
  ) {
    super(message);
    this.name = 'PlateauError';
  }
}

export const EXIT = {
  ok: 0,
  /** Reserved for `plateau gate`: capacity regressed. */
  regression: 1,
  usage: 2,
  preflight: 3,
  stage: 4,
  bug: 70,
  interrupted: 130,
} as const;

/**
 * The error as it may be printed: its message, fix and stack passed through `scrub` (secret-scrub.ts).
 * A PlateauError keeps its code and exit code; another error is scrubbed in place (it stays the bug it was).
 */
export function scrubbedError(err: unknown, scrub: (text: string) => string): unknown {
  if (err instanceof PlateauError) {
    const e = new PlateauError(scrub(err.message), scrub(err.hint), err.code, err.exitCode);
    if (err.stack) e.stack = scrub(err.stack);
    return e;
  }
  if (err instanceof Error) {
    err.message = scrub(err.message);
    if (err.stack) err.stack = scrub(err.stack);
    return err;
  }
  return typeof err === 'string' ? scrub(err) : err;
}
