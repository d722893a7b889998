/**
 * A user's k6 iterations of several requests, each request matched to its iteration by k6's `vu`
 * and `iter` (enabled in `--system-tags`; metadata since v0.41, a tag before): an iteration fails
 * exactly when one of its requests failed, by that request's kind. Without them, ok is the lower
 * bound it always was (iterations - failed requests of the second).
 *
 * No k6 can run on this machine and no public k6 output with vu and iter was found, so the lines
 * are built here in the layouts k6's source writes (internal/output/json/wrapper.go: `metadata`
 * after `tags`, its keys sorted as Go's encoding/json sorts a map; internal/output/csv/output.go: a
 * last `metadata` column of `k=v&k2=v2` in a map's random order). What they stand in for is said
 * in docs/engines.md.
 */
import { describe, expect, it } from 'vitest';
import type { BucketRecord, ErrorKind } from '../../../analysis/types.ts';
import { ingestAll } from './testing/ingest-all.ts';

const T = Date.parse('2026-11-29T16:52:41.000Z');
const NAMES = ['login', 'browse', 'buy'];

interface Sample {
  metric: string;
  atMs: number;
  value: number;
  tags: Record<string, string>;
  vu?: number;
  iter?: number;
}

interface Truth {
  iterations: number;
  ok: number;
  errors: Partial<Record<ErrorKind, number>>;
  failedRequests: number;
}

/** A small LCG, so that the run is the same every time. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/**
 * 4 VUs, each running iterations of three requests back to back for 12 s; a request fails with
 * probability 0.25 (a 503, or k6's request timeout, error_code 1050). Every failure of an
 * iteration's requests is written, so an iteration may have two or three. Also the truth per
 * second of each iteration's end.
 */
function run(seed: number): { samples: Sample[]; truth: Map<number, Truth> } {
  const r = rng(seed);
  const samples: Sample[] = [{ metric: 'vus', atMs: 1000, value: 4, tags: {} }];
  const truth = new Map<number, Truth>();
  for (let vu = 1; vu <= 4; vu++) {
    let t = 1000 + vu * 37;
    for (let iter = 0; t < 13_000; iter++) {
      const start = t;
      let first: ErrorKind | null = null;
      let failedRequests = 0;
      for (const name of NAMES) {
        const ms = 20 + r() * 400;
        t += ms;
        const u = r();
        const kind: ErrorKind | null = u < 0.15 ? 'http_5xx' : u < 0.25 ? 'timeout' : null;
        const tags: Record<string, string> =
          kind === 'http_5xx'
            ? { expected_response: 'false', name, scenario: 'default', status: '503', error_code: '1503' }
            : kind === 'timeout'
              ? { expected_response: 'false', name, scenario: 'default', status: '0', error_code: '1050' }
              : { expected_response: 'true', name, scenario: 'default', status: '200' };
        samples.push({ metric: 'http_reqs', atMs: t, value: 1, tags, vu, iter });
        samples.push({ metric: 'http_req_duration', atMs: t, value: ms, tags, vu, iter });
        if (kind !== null) {
          failedRequests++;
          first ??= kind;
        }
      }
      t += r() * 50;
      const tags = { scenario: 'default' };
      samples.push({ metric: 'iteration_duration', atMs: t, value: t - start, tags, vu, iter });
      samples.push({ metric: 'iterations', atMs: t, value: 1, tags, vu, iter });
      // t0 is the first vus point less a second: T
      const s = Math.floor(t / 1000);
      const w = truth.get(s) ?? { iterations: 0, ok: 0, errors: {}, failedRequests: 0 };
      w.iterations++;
      w.failedRequests += failedRequests;
      if (first === null) w.ok++;
      else w.errors[first] = (w.errors[first] ?? 0) + 1;
      truth.set(s, w);
    }
  }
  // k6 writes nearly in time order; each VU's samples in the order they happened
  samples.sort((a, b) => a.atMs - b.atMs);
  return { samples, truth };
}

const time = (x: Sample) => new Date(T + x.atMs).toISOString();

/** v0.41+: the VU and iteration as metadata, its keys sorted (Go's encoding/json on a map). */
const asJson = (x: Sample) =>
  `{"metric":"${x.metric}","type":"Point","data":{"time":"${time(x)}","value":${x.value},"tags":${JSON.stringify(x.tags)}${
    x.vu === undefined ? '' : `,"metadata":{"iter":"${x.iter}","vu":"${x.vu}"}`
  }}}`;
/** The same without vu and iter (k6's default system tags). */
const asJsonDefault = (x: Sample) => asJson({ ...x, vu: undefined, iter: undefined });
/** <= v0.40: vu and iter were tags. */
const asJsonOld = (x: Sample) =>
  JSON.stringify({
    type: 'Point',
    data: {
      time: time(x),
      value: x.value,
      tags: x.vu === undefined ? x.tags : { ...x.tags, iter: String(x.iter), vu: String(x.vu) },
    },
    metric: x.metric,
  });
const CSV_TAGS = ['error_code', 'expected_response', 'name', 'scenario', 'status'];
const CSV_HEAD = ['metric_name', 'timestamp', 'metric_value', ...CSV_TAGS, 'extra_tags', 'metadata'].join(',');
/** unix_milli timestamps; the metadata column's pairs in either order (a Go map's). */
const asCsv = (x: Sample, i: number) =>
  [
    x.metric,
    String(T + Math.round(x.atMs)),
    x.value.toFixed(6),
    ...CSV_TAGS.map((k) => x.tags[k] ?? ''),
    '',
    x.vu === undefined ? '' : i % 2 ? `vu=${x.vu}&iter=${x.iter}` : `iter=${x.iter}&vu=${x.vu}`,
  ].join(',');

/** <= v0.40 CSV: vu and iter were system tags with columns of their own, and no metadata column. */
const CSV_HEAD_OLD = ['metric_name', 'timestamp', 'metric_value', ...CSV_TAGS, 'iter', 'vu', 'extra_tags'].join(',');
const asCsvOld = (x: Sample) =>
  [
    x.metric,
    String(T + Math.round(x.atMs)),
    x.value.toFixed(6),
    ...CSV_TAGS.map((k) => x.tags[k] ?? ''),
    x.iter ?? '',
    x.vu ?? '',
    '',
  ].join(',');

/** Each second's samples grouped by VU (the VU-less ones first), each VU's in the order they happened. */
const vuByVu = (xs: Sample[]) =>
  xs
    .map((x, i) => ({ x, i }))
    .sort(
      (a, b) => Math.floor(a.x.atMs / 1000) - Math.floor(b.x.atMs / 1000) || (a.x.vu ?? 0) - (b.x.vu ?? 0) || a.i - b.i,
    )
    .map((e) => e.x);

const ingest = ingestAll;

const sumErrors = (e: Partial<Record<ErrorKind, number>>) => Object.values(e).reduce((a, n) => a + (n ?? 0), 0);

describe("a user's iterations of several requests, matched by k6's vu and iter", () => {
  const { samples, truth } = run(7);
  const iterations = [...truth.values()].reduce((a, w) => a + w.iterations, 0);

  it.each([
    ['JSON, metadata (v0.41+)', () => samples.map(asJson)],
    ['JSON, tags (<= v0.40)', () => samples.map(asJsonOld)],
    ['CSV, the metadata column', () => [CSV_HEAD, ...samples.map(asCsv)]],
    ['CSV, vu and iter columns (<= v0.40)', () => [CSV_HEAD_OLD, ...samples.map(asCsvOld)]],
    // k6 flushes its samples in batches: a second's samples VU by VU, each VU's in order
    ['JSON, each second written VU by VU', () => vuByVu(samples).map(asJson)],
  ])('%s: every second exact (ok, errors by the first failed request)', async (_f, lines) => {
    const r = await ingest(lines());
    expect(r.stats.iterationsKnown).toBe(iterations);
    // the run is a test of something: seconds where the lower bound is below the truth
    let below = 0;
    for (const b of r.records) {
      const w = truth.get(b.tS) ?? { iterations: 0, ok: 0, errors: {}, failedRequests: 0 };
      expect([b.tS, b.completed, b.ok, b.errors]).toEqual([b.tS, w.iterations, w.ok, w.errors]);
      expect(b.requests).toBeGreaterThanOrEqual(w.iterations);
      if (Math.max(0, w.iterations - w.failedRequests) < w.ok) below++;
    }
    expect(below).toBeGreaterThan(3);
  });

  it("without vu and iter (k6's default tags): the lower bound over the run, below the truth where an iteration failed twice", async () => {
    const r = await ingest(samples.map(asJsonDefault));
    expect(r.stats.iterationsKnown).toBe(0);
    let below = 0;
    for (const b of r.records) {
      const w = truth.get(b.tS) ?? { iterations: 0, ok: 0, errors: {}, failedRequests: 0 };
      expect(b.completed).toBe(w.iterations);
      expect(sumErrors(b.errors)).toBe(b.completed - b.ok);
      if (b.ok < w.ok) below++;
    }
    expect(below).toBeGreaterThan(3);
    // a request is counted in the second it ended, its iteration in the second that ended: a
    // second may read above its truth, the run never does
    const okOf = (bs: { ok: number }[]) => bs.reduce((a, b) => a + b.ok, 0);
    expect(okOf(r.records)).toBeLessThan(okOf([...truth.values()]));
  });

  it('samples counted in a later second than their own (lateS 0, VU by VU): the run is exact, its seconds shift', async () => {
    const r = await ingest(vuByVu(samples).map(asJson), { lateS: 0 });
    expect(r.stats.late).toBeGreaterThan(0);
    const totals = (
      xs: { completed?: number; iterations?: number; ok: number; errors: Partial<Record<ErrorKind, number>> }[],
    ) => {
      const errors: Partial<Record<ErrorKind, number>> = {};
      for (const x of xs)
        for (const [k, n] of Object.entries(x.errors) as [ErrorKind, number][]) errors[k] = (errors[k] ?? 0) + n;
      return { ok: xs.reduce((a, x) => a + x.ok, 0), errors };
    };
    expect(totals(r.records)).toEqual(totals([...truth.values()]));
    expect(r.records.reduce((a, b) => a + b.completed, 0)).toBe(iterations);
  });

  it('a second with an iteration that did not name its VU takes the lower bound; the others stay exact', async () => {
    // the first iteration ending in second 5 lost its vu and iter
    const i = samples.findIndex((x) => x.metric === 'iterations' && Math.floor(x.atMs / 1000) === 5);
    const lines = samples.map((x, k) => asJson(k === i ? { ...x, vu: undefined, iter: undefined } : x));
    const r = await ingest(lines);
    // requests are counted in the second they ended
    const failedIn = (tS: number) =>
      samples.filter(
        (x) => x.metric === 'http_reqs' && x.tags.expected_response === 'false' && Math.floor(x.atMs / 1000) === tS,
      ).length;
    expect(failedIn(5)).toBeGreaterThan(0);
    expect(r.stats.iterationsKnown).toBe(iterations - 1);
    for (const b of r.records) {
      const w = truth.get(b.tS)!;
      // the lower bound reads 0 there, the truth 1
      if (b.tS === 5) expect([b.ok, w.ok]).toEqual([Math.max(0, w.iterations - failedIn(5)), 1]);
      else if (w) expect([b.tS, b.ok, b.errors]).toEqual([b.tS, w.ok, w.errors]);
    }
  });

  it('another scenario left out (--scenario): its iterations are not counted, and the rest are exact', async () => {
    const other = samples.map((x) => ({ ...x, vu: x.vu && x.vu + 10, tags: { ...x.tags, scenario: 'other' } }));
    const lines = [...samples, ...other].sort((a, b) => a.atMs - b.atMs).map(asJson);
    const r = await ingest(lines, { scenarios: ['default'] });
    expect([r.stats.iterationsCounted, r.stats.iterationsKnown]).toEqual([iterations, iterations]);
    for (const b of r.records) {
      const w = truth.get(b.tS) ?? { iterations: 0, ok: 0, errors: {}, failedRequests: 0 };
      expect([b.tS, b.completed, b.ok, b.errors]).toEqual([b.tS, w.iterations, w.ok, w.errors]);
    }
  });

  it('a VU whose iteration k6 cut short (no iterations sample): its failure does not fail the next iteration', async () => {
    const tags = { expected_response: 'false', name: 'buy', scenario: 'default', status: '503' };
    const okTags = { expected_response: 'true', name: 'buy', scenario: 'default', status: '200' };
    const it = { scenario: 'default' };
    const lines = [
      { metric: 'vus', atMs: 1000, value: 1, tags: {} },
      // iteration 0: a failed request, then k6 stopped it (no iterations sample)
      { metric: 'http_reqs', atMs: 1100, value: 1, tags, vu: 1, iter: 0 },
      // iteration 1: one successful request, then its end
      { metric: 'http_reqs', atMs: 1300, value: 1, tags: okTags, vu: 1, iter: 1 },
      { metric: 'iterations', atMs: 1310, value: 1, tags: it, vu: 1, iter: 1 },
      // iteration 2: two failures, the first a timeout
      { metric: 'http_reqs', atMs: 1400, value: 1, tags: { ...tags, status: '0', error_code: '1050' }, vu: 1, iter: 2 },
      { metric: 'http_reqs', atMs: 1500, value: 1, tags, vu: 1, iter: 2 },
      { metric: 'iterations', atMs: 1510, value: 1, tags: it, vu: 1, iter: 2 },
      { metric: 'vus', atMs: 4000, value: 1, tags: {} },
    ].map((x: Sample) => asJson(x.metric === 'vus' ? { ...x, vu: undefined } : x));
    const r = await ingest(lines);
    const b = r.records.find((x) => x.tS === 1)!;
    expect([b.completed, b.ok, b.errors, b.requests]).toEqual([2, 1, { timeout: 1 }, 4]);
    expect(r.records.reduce((a, x) => a + x.completed, 0)).toBe(2);
  });
});
