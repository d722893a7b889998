/**
 * The CLI in this process (harness/cli/run-cli.ts; bin/plateau.js adds only process.exit), with its
 * own stdout, stderr and environment: a CLI start costs about 0.8 s of CPU, and the tests make many.
 * cliBinary is the real binary, for what only a process shows (its exit code, its working directory).
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../harness/cli/run-cli.ts';

const BIN = fileURLToPath(new URL('../../bin/plateau.js', import.meta.url));

export interface CliResult {
  status: number;
  stdout: string;
  stderr: string;
}

export async function cliInProcess(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const status = await runCli(args, {
    out: (s) => {
      stdout += s;
    },
    err: (s) => {
      stderr += s;
    },
    env,
  });
  return { status, stdout, stderr };
}

/** bin/plateau.js in a child process; status -1 when it ended by a signal or its time ran out. */
export function cliBinary(args: string[], o: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: o.env ?? process.env, cwd: o.cwd, encoding: 'utf8', timeout: 60_000 },
      (err, stdout, stderr) =>
        resolve({ status: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}
