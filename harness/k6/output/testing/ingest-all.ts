/**
 * For tests: k6 output lines through the import's ingest (arrivals are iterations, lateS 2) in one
 * batch, with every bucket it wrote.
 */
import type { BucketRecord } from '../../../../analysis/types.ts';
import { ingestLines, type IngestResult } from '../ingest.ts';
import type { BucketizerOptions } from '../bucketizer-options.ts';

export async function ingestAll(
  lines: string[],
  more: Partial<Pick<BucketizerOptions, 'lateS' | 'scenarios'>> = {},
): Promise<{ stats: IngestResult['stats']; records: BucketRecord[] }> {
  const records: BucketRecord[] = [];
  async function* batches() {
    yield lines;
  }
  const r = await ingestLines(batches(), {
    source: 'k6',
    phase: 'steps',
    lateS: 2,
    arrivals: 'iterations',
    sink: (x) => records.push(x),
    ...more,
  });
  return { stats: r.stats, records };
}
