/** What a Bucketizer is told: where its records go, which samples it keeps, how it reads them. */
import type { BucketRecord } from '../../../analysis/types.ts';
import type { HostTimeline } from './host-timeline.ts';
import type { ArrivalsFrom } from './second.ts';

export interface BucketizerOptions {
  source: string;
  phase: string;
  /** Seconds a bucket stays open after the newest sample passed its end. */
  lateS: number;
  /** Epoch ms of t = 0; derived from the data when absent. */
  t0Ms?: number;
  /**
   * With t0Ms: the most seconds the first sample may come after it. Past this the ingest stops with
   * T0TooEarly before it fills the seconds between them (a --t0 years off would fill memory).
   */
  maxLeadS?: number;
  /** Scenario names to keep; all when absent. */
  scenarios?: readonly string[];
  /** The host's figures sampled while k6 ran (the k6 engine; not an imported file). */
  host?: HostTimeline;
  /**
   * What an arrival is: 'requests' (default) or 'iterations' until a plateau_arrival sample is
   * seen; 'plateau_arrival' from the first second (a mix: its seconds that close before the
   * first arrival ends, a transaction with think time, are not counted as requests).
   */
  arrivals?: ArrivalsFrom;
  /** When seconds carry byName: 'auto' (default) or 'always' (see the top of bucketizer.ts). */
  byName?: 'auto' | 'always';
  sink(r: BucketRecord): void;
}
