/** Messages between the main thread and engine workers (structured-clone safe). */
import type { BucketRecord } from '../../analysis/types.ts';
import type { Segment } from '../../analysis/schedule.ts';
import type { HttpOptions } from './vu-connection.ts';

export interface WorkerInit {
  index: number;
  count: number;
  origin: string;
  targetUrl: string;
  http: HttpOptions;
  preAllocatedVUs: number;
  maxVUs: number;
  /** Absolute path of the scenario module; null for the default GET on the target. */
  scenarioPath: string | null;
  runId: string;
  /** The key of the run's ids (environment.ts runIds). */
  idKey: string;
  /** http.maxBodyBytes: the most of a body a check or transaction sees. */
  maxBodyBytes: number;
  /** http.transactionTimeoutMs: a transaction not ended by then fails its arrival (default 30 s). */
  transactionTimeoutMs?: number;
}

export type ToWorker =
  | {
      type: 'run';
      segments: Segment[];
      phase: string;
      seqOffset: number;
      t0EpochMs: number;
      offsetS: number;
      gracefulStopMs: number;
    }
  | { type: 'stop'; graceMs: number }
  | { type: 'maxVUs'; maxVUs: number }
  /** Allocate VUs up to this many over all workers, each its share (within its share of maxVUs). */
  | { type: 'reserve'; vus: number }
  /** The engine runs on fewer workers from now on: the first `count` stay and stripe by it. */
  | { type: 'resize'; count: number }
  | { type: 'preconnect' }
  | { type: 'close' };

export type FromWorker =
  | { type: 'ready' }
  /** The thread could not load what it runs (the scenario, a data file): plateau's own words for it, with the fix. */
  | { type: 'start-failed'; message: string; hint: string; code: string; exitCode: number }
  | { type: 'bucket'; record: BucketRecord }
  | { type: 'done'; dispatched: number; lastSeq: number }
  | { type: 'closed' }
  | { type: 'preconnected'; ready: number; failed: number }
  /** An error the scenario's code left unhandled while no engine instance of the thread listened (its message as BucketRecord.unhandled keeps it). */
  | { type: 'late'; message: string }
  /** The engine instance failed (its error's stack, for the bug report of an exception plateau did not expect). */
  | { type: 'error'; message: string; stack?: string; said?: { hint: string; code: string; exitCode: number } };
