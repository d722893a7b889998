import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseConfigOrThrow } from '../../harness/config/validate.ts';
import type { PlateauConfigInput } from '../../harness/config/schema.ts';
import { Interrupt } from '../../harness/pipeline/interrupt.ts';
import { runPipeline } from '../../harness/pipeline/run.ts';

/** The demo's writes alone: the pipeline tests' figures are its write capacity (the demo's own mix: test/mix-pipeline.test.ts). */
export const DEMO_SCENARIO = path.resolve('test/fixtures/scenarios/create-order.ts');

export function tempRunsDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'plateau-runs-'));
}

/** Runs the whole pipeline in-process; output lines are collected, not printed. */
export async function runQuietly(
  input: PlateauConfigInput,
  opts: { interrupt?: Interrupt; env?: NodeJS.ProcessEnv } = {},
) {
  const lines: string[] = [];
  // One engine thread unless a test asks for workers: starting workers costs ~2 s a run, and the
  // worker path has its own tests (harness/engine/workers.test.ts, test/pipeline.test.ts).
  const config = parseConfigOrThrow({ workers: 1, ...input });
  const out = await runPipeline({
    config,
    interrupt: opts.interrupt ?? new Interrupt(),
    out: {
      write: (s) => {
        lines.push(s);
      },
      isTTY: false,
    },
    env: opts.env,
  });
  return { ...out, lines };
}
