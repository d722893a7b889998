/**
 * buckets.ndjson read back, and refused where it was damaged after the run: plateau appends each
 * second once and never rewrites the file, so a line that parses but is no bucket (`{}`, a count
 * below zero), a second written twice byte for byte (a copied block of lines, which the analysis
 * would sum into twice the throughput), or the file missing or emptied under a run that ran its
 * steps is damage, not a crash. Refused before any output is rebuilt, so a good report is never
 * overwritten by one read from a broken store. A torn last line (the process died mid-write) is
 * skipped and counted, as before; a line before it that is not a record is damage too.
 */
import fs from 'node:fs';
import { z } from 'zod';
import type { BucketRecord } from '../../analysis/types.ts';
import { PlateauError, EXIT } from '../errors.ts';

const count = z.number().finite().nonnegative();
const bucketShape = z.looseObject({
  source: z.string(),
  tS: z.number().finite(),
  phase: z.string(),
  started: count,
  dropped: count,
  completed: count,
  ok: count,
  errors: z.record(z.string(), count),
  statuses: z.record(z.string(), count),
  hist: z.looseObject({ duration: z.string() }),
});

const damaged = (file: string, what: string) =>
  new PlateauError(
    `${file} is damaged: ${what}`,
    'restore buckets.ndjson from a copy, or re-run the test: plateau appends each second once and never rewrites the file, so the damage came after the run (the outputs beside it were left as they were)',
    'run-corrupt',
    EXIT.usage,
  );

/**
 * The bucket records of `file` and how many torn lines were skipped. `ranSteps`: run.json says
 * the run completed the attempts it records (so it wrote seconds of load): a missing or empty
 * file is then refused.
 */
export function readBuckets(file: string, ranSteps: boolean): { items: BucketRecord[]; torn: number } {
  if (!fs.existsSync(file)) {
    if (ranSteps) throw damaged(file, 'it is missing, though run.json says the run completed its steps');
    return { items: [], torn: 0 };
  }
  const items: BucketRecord[] = [];
  const firstSeen = new Map<string, number>();
  let torn = 0;
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  let last = lines.length - 1;
  while (last >= 0 && lines[last]!.trim() === '') last--;
  // only the last line can be torn by a process that died writing it: one before it is damage
  const tornAt = (i: number, what: string) => {
    if (i !== last)
      throw damaged(file, `line ${i + 1} is ${what}, and only the last line can be cut by a run that died`);
    torn++;
  };
  lines.forEach((line, i) => {
    if (!line.trim()) return;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      tornAt(i, 'not JSON');
      return;
    }
    // a line that parses but is no object (a torn line that happens to be a number) counts as torn
    if (v === null || typeof v !== 'object' || Array.isArray(v)) {
      tornAt(i, 'not a record');
      return;
    }
    const shape = bucketShape.safeParse(v);
    if (!shape.success) {
      const issue = shape.error.issues[0]!;
      throw damaged(
        file,
        `line ${i + 1} is no second of load (${issue.path.map(String).join('.') || 'the record'}: ${issue.message})`,
      );
    }
    const r = v as BucketRecord;
    if (r.started + r.dropped + r.completed > 0) {
      const before = firstSeen.get(line);
      if (before !== undefined)
        throw damaged(
          file,
          `line ${i + 1} repeats line ${before} byte for byte (${r.source}, ${r.phase} second ${r.tS}): read twice, its arrivals would count twice`,
        );
      firstSeen.set(line, i + 1);
    }
    items.push(r);
  });
  if (items.length === 0 && torn === 0 && ranSteps)
    throw damaged(file, 'it holds no second of load, though run.json says the run completed its steps');
  return { items, torn };
}
