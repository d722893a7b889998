/**
 * The CLI in this process (harness/cli/run-cli.ts; bin/plateau.js adds only process.exit), with its
 * own stdout, stderr and environment: a CLI start costs about 0.8 s of CPU, and the tests make many.
 */
import { runCli } from '../../harness/cli/run-cli.ts';

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
