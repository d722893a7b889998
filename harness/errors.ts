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
