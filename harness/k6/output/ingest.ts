/**
 * k6 output (JSON lines or CSV, told by the first line) -> BucketRecords through a sink. Used by
 * `plateau import k6` on a finished file and by the k6 engine on the file k6 is writing.
 */
import { PlateauError, EXIT } from '../../errors.ts';
import { Bucketizer } from './bucketizer.ts';
import type { BucketizerOptions } from './bucketizer-options.ts';
import type { IngestStats } from './ingest-stats.ts';
import { CsvRows } from './csv.ts';
import { parseJsonLine } from './point-scan.ts';

/** A key of k6's end-of-test summary (--summary-export, handleSummary's data), which its output has none of. */
const SUMMARY_KEY = /^\s*\{?\s*"(root_group|metrics|options|state|setup_data)"\s*:/;
/**
 * A line of the summary k6 prints when a run ends (its console text): a metric's dotted leader
 * ("http_reqs......: 5905"), or its header's `execution:` and `scenarios: (` lines.
 */
const CONSOLE_SUMMARY_LINE = /\.{4,}: |^\s*execution: \w|^\s*scenarios: \(/;

export type K6Format = 'json' | 'csv';

export interface IngestResult {
  format: K6Format | null;
  lines: number;
  /** Lines that were neither a k6 sample nor a definition (reported, not fatal: a torn last line). */
  badLines: number;
  /** The last line was a bad one: k6 was killed while writing it (it writes whole lines otherwise). */
  tornLastLine: boolean;
  /**
   * Some line was k6's: a sample, a metric definition, or a CSV header k6 writes. False for a file
   * of other text (another tool's results), which then holds no k6 sample for another reason than
   * a k6 run that sent nothing.
   */
  k6Lines: boolean;
  stats: IngestStats;
}

/** Bad lines tolerated before the input is judged not to be k6 output at all. */
const MAX_BAD_FIRST_LINES = 20;

export async function ingestLines(
  batches: AsyncIterable<string[]>,
  o: BucketizerOptions,
  what = 'the input',
): Promise<IngestResult> {
  const b = new Bucketizer(o);
  let format: K6Format | null = null;
  let csv: CsvRows | null = null;
  let lines = 0;
  let badLines = 0;
  let lastBad = false;
  let k6Lines = false;
  for await (const batch of batches) {
    for (const line of batch) {
      if (format === null) {
        if (line.trim() === '') continue;
        format = line.startsWith('{') ? 'json' : 'csv';
        if (format === 'csv') csv = new CsvRows();
      }
      lines++;
      // direct calls (not through a function variable) that the compiler can inline
      const r = csv === null ? parseJsonLine(line) : csv.push(line);
      if (r !== 'skip') lastBad = r === 'bad';
      if (typeof r === 'object') {
        // k6 writes one time format per file: its first row says whether times are whole seconds
        if (csv?.wholeSeconds && b.stats.points === 0) b.timesAreWholeSeconds();
        b.push(r);
      } else if (r === 'bad' && lines === 1 && csv?.headerProblem) {
        throw new PlateauError(
          `${what} is not k6 CSV output as k6 writes it: ${csv.headerProblem}`,
          'pass the file k6 run --out csv=FILE wrote, whole (plain or .gz): its header first, with metric_name, timestamp and metric_value',
          'k6-output-invalid',
          EXIT.usage,
        );
      } else if (r === 'bad' && lines === 1 && csv?.foreignHeader && !notACsvHeader(line)) {
        throw new PlateauError(
          `${what} is not k6 output: it is a CSV whose header (${shownCells(csv.foreignHeader)}) has none of k6's columns (k6's header starts ${K6_CSV_HEAD},...)`,
          NOT_K6_FIX,
          'k6-output-invalid',
          EXIT.usage,
        );
      } else if (r === 'skip' && csv === null && !k6Lines && line.trim() !== '') {
        // a metric definition (the blank lines JSON reading skips are nobody's)
        k6Lines = true;
      } else if (r === 'bad' && b.stats.points === 0 && SUMMARY_KEY.test(line)) {
        throw new PlateauError(
          `${what} is k6's end-of-test summary (--summary-export or handleSummary), not its output: it holds a total for each metric over the whole run, and the steps are judged second by second`,
          'pass the file k6 run --out json=FILE (or --out csv=FILE) wrote during the same run',
          'k6-output-summary',
          EXIT.usage,
        );
      } else if (r === 'bad' && b.stats.points === 0 && CONSOLE_SUMMARY_LINE.test(line)) {
        throw new PlateauError(
          `${what} looks like k6's end-of-test summary (the text k6 prints when a run ends), not its output: it holds a total for each metric over the whole run, and the steps are judged second by second`,
          'run k6 with raw output (k6 run --out json=file.json script.js, or --out csv=file.csv) and pass that file',
          'k6-output-summary',
          EXIT.usage,
        );
      } else if (r === 'bad' && ++badLines >= MAX_BAD_FIRST_LINES && b.stats.points === 0) {
        throw new PlateauError(
          `${what} is not k6 output: its first ${badLines} lines are neither JSON samples nor CSV rows`,
          NOT_K6_FIX,
          'k6-output-invalid',
          EXIT.usage,
        );
      }
    }
  }
  // a CSV record whose quoted field never closed: the last line, torn inside that field
  if (csv?.open) {
    badLines++;
    lastBad = true;
  }
  b.end();
  k6Lines ||= b.stats.points > 0 || csv?.hasHeader === true;
  return { format, lines, badLines, tornLastLine: lastBad, k6Lines, stats: b.stats };
}

/** The first columns k6's CSV header has, in its order (FORMAT-NOTES.md 2). */
export const K6_CSV_HEAD = 'metric_name,timestamp,metric_value';

/** What to pass instead of a file that is not k6 output. */
export const NOT_K6_FIX =
  "pass a file written by k6 run --out json=FILE or --out csv=FILE (plain or .gz): plateau imports k6's output only, not another tool's results (a JMeter JTL, a Gatling simulation.log)";

/** A JSON array's line, or a line of k6's end-of-test summary (named as such below): not another tool's CSV header. */
function notACsvHeader(line: string): boolean {
  return line.startsWith('[') || SUMMARY_KEY.test(line) || CONSOLE_SUMMARY_LINE.test(line);
}

/** A header's first cells, as the user would read them. */
function shownCells(cells: readonly string[]): string {
  return `${cells.slice(0, 5).join(', ')}${cells.length > 5 ? ', ...' : ''}`;
}
