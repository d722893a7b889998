/**
 * Where the CLI writes and what environment it reads, so that tests run commands in-process (a
 * CLI start costs about 0.8 s of CPU). plan, k6-script, gate, compare and baseline save write their
 * output through it, and the gate reads GITHUB_STEP_SUMMARY from its env; run, report, import and
 * k8s still write to the process's own streams, and config loading reads process.env.
 */
export interface CliIo {
  out(s: string): void;
  err(s: string): void;
  env: NodeJS.ProcessEnv;
}

/** The process's own streams and environment. */
export const processIo: CliIo = {
  out: (s) => process.stdout.write(s),
  err: (s) => process.stderr.write(s),
  env: process.env,
};
