/**
 * The run's constants the bundle writes into the k6 script (bundle.ts) and the runtime reads in
 * k6's init context. Plain JSON: nothing secret (secrets come from __ENV when k6 runs).
 */
import type { DataOrder } from '../../scenario/types.ts';

/** What a response keeps of its body when a check or a transaction reads it (http.maxBodyBytes' default). */
export const DEFAULT_MAX_BODY_BYTES = 65_536;

/**
 * A data source as k6 opens it: its path (resolved beside the scenario module; absolute, or relative
 * to a script k6-script wrote, which k6's open() resolves beside the script), its format and order.
 */
export interface RuntimeData {
  path: string;
  kind: 'csv' | 'json';
  order: DataOrder;
  /** The last rows a unique source keeps for preflight's sample arrivals (traffic.ts sampleRowsKept, usableRows). */
  keptRows: number;
  /** A unique source's readBy: the mix entries whose arrivals alone take its rows. */
  readBy?: string[];
  /** A random source's seed, as given (data-rows.ts drawSeed); absent: the run id's draws. */
  seed?: string | number;
}

/** A script written for the user (k6-script): its ids are derived when k6 starts (ids.ts), within the plan's bounds. */
export interface IdsAtStart {
  /** The run id k6-script was given (--run-id), a k6 run's name unless PLATEAU_RUN_ID names it; absent: a fresh one each run. */
  runId?: string;
  /** The plan's arrivals: the largest sequence number, whose id is the longest. */
  maxSeq: number;
  /** The scenario's ids.maxLength, which the ids of a run named by PLATEAU_RUN_ID must fit too. */
  maxLength?: number;
}

export interface RuntimeConfig {
  /** The run id; in a script written for the user, the one it was written with (it seeds the random data sources without a seed of their own only: ctx.runId is the k6 run's, ids.ts). */
  runId: string;
  /**
   * The key of the run's ids (ctx.uniqueId: `${idPrefix}${idKey}-${seq}`; environment.ts runIds),
   * when plateau drives k6: the run's own, which it records. Absent with idsAtStart.
   */
  idKey?: string;
  /** Set in a script written for the user instead of idKey: setup() derives the ids when k6 starts (ids.ts). */
  idsAtStart?: IdsAtStart;
  idPrefix: string;
  /** Relative request URLs resolve against it; a request elsewhere is the scenario's bug. */
  origin: string;
  seqOffset: number;
  timeoutMs: number;
  /**
   * http.transactionTimeoutMs: a transaction not ended by then fails its arrival (kind timeout),
   * where k6 has global timers (setTimeout: global from k6 v0.51); absent or without them, no deadline.
   */
  transactionTimeoutMs?: number;
  /**
   * k6 `name` tag of the requests of a scenario without a mix (one name keeps k6's URL cardinality
   * at one); its entry's name when absent. A mix names each request by its entry or http.send name.
   */
  requestName?: string;
  /** k6 check name of that scenario's check; `${name}: check` when absent. */
  checkName?: string;
  /** Body bytes kept of a response a check or a transaction reads (the rest is dropped). */
  maxBodyBytes: number;
  /** The scenario's data sources by name, for ctx.row(name). */
  data: Record<string, RuntimeData>;
}
