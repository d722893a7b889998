import { describe, expect, it } from 'vitest';
import { mergeRecords } from './buckets.ts';
import { decodeHistogram, encodeHistogram, newHistogram, recordUs } from './histogram.ts';
import { capNames, MAX_RUN_NAMES } from './name-cap.ts';
import { analyzeRun } from './analyze.ts';
import { buildInput, buildRecords } from './testing/builders.ts';
import type { AnalysedRecord, BucketRecord, NameBucket } from './types.ts';
import { warningTexts } from '../reports/warning-text.ts';

const BASE = buildRecords({ steps: [{ ratePerSec: 10 }], rampS: 0, holdS: 1, settleS: 0 })[0];

function bucket(ms: number): NameBucket {
  const h = newHistogram();
  recordUs(h, ms * 1000);
  return { completed: 1, ok: 1, errors: {}, duration: encodeHistogram(h) };
}

/** Two threads' seconds: each thread sends the fixed names and 69 names built from data of its own (138 in all). */
function twoThreads(): BucketRecord[] {
  const out: BucketRecord[] = [];
  for (let tS = 0; tS < 3; tS++)
    for (const t of [0, 1]) {
      const byName: Record<string, NameBucket> = { read: bucket(2), write: bucket(9) };
      for (let k = 0; k < 23; k++) byName[`customer ${String.fromCharCode(97 + t)}${tS}${k}x`] = bucket(5);
      out.push({ ...BASE, source: `native/${t}`, tS, byName });
    }
  return out;
}

describe("a run's names, at most 100", () => {
  it('keeps the first 100 names shown and folds the rest into one row, counts and durations kept exactly', () => {
    const merged = mergeRecords(twoThreads());
    const { records, folded } = capNames(merged);
    const names = new Set(records.flatMap((r) => Object.keys(r.byName ?? {})));
    expect(names.size).toBe(MAX_RUN_NAMES + 1);
    expect(folded).toEqual({ count: 40, row: '(40 names past 100)', examples: expect.any(Array) });
    expect(folded!.examples).toHaveLength(3);
    // the entries' names came first: kept
    expect(names.has('read') && names.has('write')).toBe(true);
    // nothing lost: every second's completions and durations are all there
    for (const [i, r] of records.entries()) {
      const sum = (x: AnalysedRecord) => Object.values(x.byName ?? {}).reduce((a, b) => a + b.completed, 0);
      expect(sum(r)).toBe(sum(merged[i]));
      const row = r.byName?.['(40 names past 100)'];
      if (row) expect(decodeHistogram(row.duration).totalCount).toBe(row.completed);
    }
  });

  it("keeps the mix's entries and transactions whenever they first appear, before names of data", () => {
    const records = mergeRecords(twoThreads());
    // an entry of 1% first sent in the last second, and a transaction in the second before
    const late = records.map((r, i) =>
      i === records.length - 1
        ? { ...r, byName: { ...r.byName, 'rare entry': bucket(3) } }
        : i === records.length - 2
          ? { ...r, byName: { ...r.byName, checkout: { ...bucket(30), transaction: true as const } } }
          : r,
    );
    const { records: capped, folded } = capNames(late, ['read', 'write', 'rare entry', 'checkout']);
    const names = new Set(capped.flatMap((r) => Object.keys(r.byName ?? {})));
    expect(['read', 'write', 'rare entry', 'checkout'].every((n) => names.has(n))).toBe(true);
    expect(folded?.count).toBe(42);
    // the folded row is of requests only
    expect(capped.some((r) => r.byName?.[folded!.row]?.transaction)).toBe(false);
  });

  it('leaves a run of 100 names or fewer as it was', () => {
    const few = mergeRecords(twoThreads().map((r) => ({ ...r, byName: { read: bucket(2) } })));
    expect(capNames(few)).toEqual({ records: few, folded: null });
  });

  it('the analysis folds them and warns, with examples and the fix', () => {
    const input = buildInput({ steps: [{ ratePerSec: 10 }], rampS: 0, holdS: 3, settleS: 0 });
    const extra = twoThreads().map((r) => ({ ...r, byName: r.byName }));
    const run = analyzeRun({
      ...input,
      records: [...input.records.map((r) => ({ ...r, byName: undefined })), ...extra],
    });
    const w = run.warnings.find((x) => x.code === 'names-past-limit');
    expect(w?.figures).toMatchObject({ count: 40, row: '(40 names past 100)' });
    expect(warningTexts(run).join('\n')).toMatch(
      /^40 names past the run's 100 are folded into one row, "\(40 names past 100\)" \(e\.g\. "customer [^"]+", "customer [^"]+", "customer [^"]+"\): .*give each request a fixed name/m,
    );
  });
});
