/**
 * A --t0 given to an import that does not fit the file: its samples come too long after it, or
 * some of its requests and iterations before it. Refused with the numbers.
 */
import path from 'node:path';
import { PlateauError, EXIT } from '../../errors.ts';
import type { IngestResult } from '../output/ingest.ts';
import type { ImportOptions } from './import-options.ts';

/** A --t0 this long before the first sample is refused: k6 writes its gauges from the start, every second. */
export const MAX_T0_LEAD_S = 300;
/** A --t0 after requests or iterations of the run's (more than this before it): they would all be counted in its first second. */
const MAX_T0_LAG_MS = 1000;
export const T0_FIX =
  "pass the scenario's start as --t0 (ISO time or epoch ms), or drop --t0: the default is the first vus point - 1 s";

/** A --t0 given with the run's samples well after it, or some well before it: refused with the numbers. */
export function t0Check(o: ImportOptions, ingest: IngestResult): void {
  const st = ingest.stats;
  if (o.t0Ms === undefined || st.loadBeforeT0Ms <= MAX_T0_LAG_MS) return;
  throw new PlateauError(
    `--t0 ${new Date(o.t0Ms).toISOString()} is ${(st.loadBeforeT0Ms / 1000).toFixed(1)} s after the first of ${st.loadBeforeT0.toLocaleString('en-US')} requests and iterations of ${path.basename(o.file)} that came before it: they would all be counted in its first second`,
    T0_FIX,
    'k6-t0-late',
    EXIT.usage,
  );
}
