/**
 * What `plateau import k6` is given (the CLI's flags) and what it returns.
 */
import type { RunResult } from '../../../analysis/types.ts';
import type { IngestResult } from '../output/ingest.ts';

export interface ImportOptions {
  file: string;
  outDir: string;
  runId?: string;
  /** Any of these given means the plan comes from them (all required ones then), else derived. */
  steps: {
    startPerSec?: number;
    stepPerSec?: number;
    maxPerSec?: number;
    rampS?: number;
    holdS?: number;
    settleS?: number;
  };
  /** Epoch ms of the scenario start; derived from the data when absent. */
  t0Ms?: number;
  scenarios?: string[];
  /** The user says the run was an arrival rate (--open-model): no closed-model check. */
  openModel?: boolean;
  /** Shown as the target in the report (k6 output does not say which one it loaded as a whole). */
  target?: string;
  /** Seconds a bucket waits for late samples; longer is more exact for slow iterations. */
  lateS?: number;
}

export interface ImportOutput {
  dir: string;
  result: RunResult;
  ingest: IngestResult;
  stepsFrom: 'flags' | 'derived';
  /** What the user should read about the import (names folded, arrivals counted as requests), one line each. */
  notes: string[];
}
