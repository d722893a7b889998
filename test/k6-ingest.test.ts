/**
 * Every k6 fixture ingested and checked against a reference computed here from the raw lines with
 * JSON.parse / a plain CSV split and Date.parse (nothing shared with the fast parser): counts per
 * metric, counts per second, and percentiles within the histogram's precision; arrivals counted as
 * iterations and the per-name rows of the real votacao output; and a mix as plateau's k6 runtime
 * writes it (plateau_arrival), in JSON and in CSV.
 */
import fs from 'node:fs';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { BucketRecord } from '../analysis/types.ts';
import { aggregate } from '../analysis/buckets.ts';
import { decodeHistogram, percentileMs } from '../analysis/histogram.ts';
import { ingestLines } from '../harness/k6/output/ingest.ts';
import { readLines } from '../harness/k6/output/lines.ts';
import { parseCsvTimeMs, parseRfc3339Ms } from '../harness/k6/output/time.ts';
import type { K6Point } from '../harness/k6/output/point.ts';
import { parseJsonLine } from '../harness/k6/output/point-scan.ts';
import { HostTimeline } from '../harness/k6/output/host-timeline.ts';
import { Bucketizer } from '../harness/k6/output/bucketizer.ts';
import type { BucketizerOptions } from '../harness/k6/output/bucketizer-options.ts';

const DIR = 'test/fixtures/k6';
const text = (f: string) => {
  const b = fs.readFileSync(`${DIR}/${f}`);
  return (b[0] === 0x1f ? zlib.gunzipSync(b) : b).toString('utf8');
};

interface RefPoint {
  metric: string;
  timeMs: number;
  value: number;
  tags: Record<string, string>;
}

/** The obvious reading: JSON.parse each line, or split CSV cells by the header's names. */
function reference(f: string): RefPoint[] {
  const lines = text(f)
    .split('\n')
    .filter((l) => l.trim());
  if (lines[0].startsWith('{')) {
    return lines
      .map((l) => JSON.parse(l))
      .filter((o) => o.type === 'Point')
      .map((o) => ({ metric: o.metric, timeMs: refTime(o.data.time), value: o.data.value, tags: o.data.tags ?? {} }));
  }
  const head = lines[0].split(',');
  return lines.slice(1).map((l) => {
    const c = l.split(',');
    const tags: Record<string, string> = {};
    head.forEach((h, i) => {
      if (i > 2 && c[i]) tags[h] = c[i];
    });
    return { metric: c[0], timeMs: /^\d+$/.test(c[1]) ? Number(c[1]) : refTime(c[1]), value: Number(c[2]), tags };
  });
}

/** Date.parse keeps ms only; the nanosecond tail is added back by hand. */
function refTime(s: string): number {
  const frac = /\.(\d+)/.exec(s)?.[1] ?? '';
  return Date.parse(s.replace(/\.\d+/, '')) + (frac ? Number(`0.${frac}`) * 1000 : 0);
}

/** One ingest per fixture and options for the whole file (the tests only read it): the real outputs are large. */
const ingested = new Map<string, ReturnType<typeof ingestNow>>();
function ingest(f: string, more: Partial<BucketizerOptions> = {}) {
  const key = `${f}\u0000${JSON.stringify(more)}`;
  let r = ingested.get(key);
  if (!r) ingested.set(key, (r = ingestNow(f, more)));
  return r;
}

async function ingestNow(f: string, more: Partial<BucketizerOptions>) {
  const records: BucketRecord[] = [];
  const r = await ingestLines(readLines(`${DIR}/${f}`), {
    source: 'k6',
    phase: 'steps',
    lateS: 5,
    ...more,
    sink: (x) => records.push(x),
  });
  return { ...r, records };
}

const STEPPED = ['stepped-queue.ndjson.gz', 'stepped-queue.csv.gz', 'stepped-reject.ndjson', 'stepped-reject.csv.gz'];
const ALL = [...STEPPED, 'public-votacao-constant-vus.ndjson'];

describe('a k6 CSV cut inside its last row (a killed run)', () => {
  /** The stepped-reject CSV's first 2,000 lines, and a later http_reqs row to tear. */
  function csvRows(): { kept: string[]; last: string } {
    const lines = zlib
      .gunzipSync(fs.readFileSync(`${DIR}/stepped-reject.csv.gz`))
      .toString('utf8')
      .split('\n');
    return { kept: lines.slice(0, 2000), last: lines.slice(2000).find((l) => l.startsWith('http_reqs,'))! };
  }
  it.each([',tr', ',POST,wo'])(
    'a row ending at "%s" is one unreadable line, not a sample with made-up tags',
    async (end) => {
      const { kept, last } = csvRows();
      const torn = last.slice(0, last.indexOf(end) + end.length);
      async function* batches() {
        yield [...kept, torn];
      }
      const records: BucketRecord[] = [];
      const whole = await ingestLines(
        (async function* () {
          yield kept;
        })(),
        { source: 'k6', phase: 'steps', lateS: 5, sink: () => undefined },
      );
      const r = await ingestLines(batches(), { source: 'k6', phase: 'steps', lateS: 5, sink: (x) => records.push(x) });
      expect(r.badLines).toBe(1);
      expect(r.tornLastLine).toBe(true);
      expect(r.stats.byMetric).toEqual(whole.stats.byMetric);
      expect(records.some((x) => x.byName !== undefined && Object.keys(x.byName).length > 1)).toBe(false);
    },
  );

  it('a row cut inside a quoted field (an error message with a comma) is a torn last line too', async () => {
    const { kept, last } = csvRows();
    // Go's encoding/csv quotes a field with a comma; the record never closes: the parser waits for its quote
    const torn = `${last.slice(0, last.lastIndexOf(','))},"dial tcp 127.0.0.1:80: connect, refu`;
    const r = await ingestLines(
      (async function* () {
        yield [...kept, torn];
      })(),
      { source: 'k6', phase: 'steps', lateS: 5, sink: () => undefined },
    );
    expect(r.badLines).toBe(1);
    expect(r.tornLastLine).toBe(true);
  });
});

describe('k6 output fixtures against a reference read from the raw lines', () => {
  it.each(ALL)('%s: every sample counted, per metric', async (f) => {
    const ref = reference(f);
    const r = await ingest(f);
    const byMetric: Record<string, number> = {};
    for (const p of ref) byMetric[p.metric] = (byMetric[p.metric] ?? 0) + 1;
    expect(r.stats.byMetric).toEqual(byMetric);
    expect(r.badLines).toBe(0);
  });

  it.each(ALL)('%s: per second, completed / ok / dropped / started / bytes match the reference', async (f) => {
    const ref = reference(f);
    const r = await ingest(f);
    const t0 = r.stats.t0Ms!;
    const inRun = (p: RefPoint) =>
      !(p.tags.group ?? '').startsWith('::setup') && !(p.tags.group ?? '').startsWith('::teardown');
    const sec = (ms: number) => Math.max(0, Math.floor((ms - t0) / 1000));
    const want = new Map<
      number,
      { completed: number; ok: number; dropped: number; started: number; bytesIn: number }
    >();
    const at = (s: number) => {
      if (!want.has(s)) want.set(s, { completed: 0, ok: 0, dropped: 0, started: 0, bytesIn: 0 });
      return want.get(s)!;
    };
    for (const p of ref.filter(inRun)) {
      if (p.metric === 'http_reqs') {
        at(sec(p.timeMs)).completed++;
        if (p.tags.expected_response === 'true') at(sec(p.timeMs)).ok++;
      }
      if (p.metric === 'dropped_iterations') at(sec(p.timeMs)).dropped += p.value;
      if (p.metric === 'iteration_duration') at(sec(p.timeMs - p.value)).started++;
      if (p.metric === 'data_received') at(sec(p.timeMs)).bytesIn += p.value;
    }
    expect(r.stats.late).toBe(0);
    for (const b of r.records) {
      const w = want.get(b.tS) ?? { completed: 0, ok: 0, dropped: 0, started: 0, bytesIn: 0 };
      expect({
        tS: b.tS,
        completed: b.completed,
        ok: b.ok,
        dropped: b.dropped,
        started: b.started,
        bytesIn: b.bytesIn,
      }).toEqual({ tS: b.tS, ...w });
    }
    expect(r.records.length).toBe(Math.max(...want.keys()) + 1);
  });

  it.each(STEPPED)(
    '%s: whole-run duration percentiles of successful requests within 0.1 percent of the exact ones',
    async (f) => {
      const ok = reference(f)
        .filter((p) => p.metric === 'http_req_duration' && p.tags.expected_response === 'true')
        .map((p) => p.value)
        .sort((a, b) => a - b);
      const r = await ingest(f);
      const agg = aggregate(r.records, 'steps', 0, 1e9);
      expect(agg.hist.duration.totalCount).toBe(ok.length);
      for (const q of [50, 90, 99, 99.9]) {
        const exact = ok[Math.ceil((q / 100) * ok.length) - 1];
        expect(Math.abs(percentileMs(agg.hist.duration, q)! - exact)).toBeLessThanOrEqual(exact * 0.001 + 0.001);
      }
    },
  );

  it.each(STEPPED)('%s: no second claims an event-loop delay (k6 measures none; it read 0)', async (f) => {
    const r = await ingest(f);
    expect(r.records.length).toBeGreaterThan(0);
    expect(r.records.filter((b) => 'loopDelayMaxMs' in b)).toEqual([]);
    expect(aggregate(r.records, 'steps', 0, 1e9).loopDelayMaxMs).toBeNull();
  });

  it('stepped-queue: totals as k6 summarised them (5,905 requests, 0 failed, 1,344 dropped)', async () => {
    const agg = aggregate((await ingest('stepped-queue.ndjson.gz')).records, 'steps', 0, 1e9);
    expect([agg.completed, agg.failed, agg.dropped, agg.started]).toEqual([5905, 0, 1344, 5905]);
  });

  it('stepped-reject: 182 503s become http_5xx with status 503; 3 drops; +05:30 times read right', async () => {
    const r = await ingest('stepped-reject.ndjson');
    const agg = aggregate(r.records, 'steps', 0, 1e9);
    expect([agg.completed, agg.failed, agg.errors.http_5xx, agg.statuses['503'], agg.dropped]).toEqual([
      2697, 182, 182, 182, 3,
    ]);
    expect(new Date(r.stats.firstMs!).toISOString()).toBe('2026-11-29T16:53:38.889Z');
    expect(r.stats.t0From).toBe('vus');
  });

  it('JSON and CSV of the same run give the same buckets (CSV ms timestamps aside)', async () => {
    for (const run of ['stepped-queue', 'stepped-reject']) {
      const j = await ingest(run === 'stepped-queue' ? 'stepped-queue.ndjson.gz' : 'stepped-reject.ndjson');
      const c = await ingest(`${run}.csv.gz`);
      const sum = (rs: BucketRecord[], k: 'completed' | 'ok' | 'dropped' | 'bytesOut') =>
        rs.reduce((a, b) => a + b[k], 0);
      for (const k of ['completed', 'ok', 'dropped', 'bytesOut'] as const)
        expect(sum(c.records, k)).toBe(sum(j.records, k));
    }
  });

  it('votacao: setup samples (no scenario tag) skipped, HTTP 400s are http_4xx', async () => {
    const r = await ingest('public-votacao-constant-vus.ndjson');
    const agg = aggregate(r.records, 'steps', 0, 1e9);
    expect(r.stats.skipped).toBeGreaterThan(0);
    expect(agg.errors.http_4xx).toBe(agg.statuses['400']);
    expect(agg.failed).toBe(agg.errors.http_4xx);
    // t0 is the end of setup() (its last sample, 00:33:08.807037-03:00), not the first vus point
    // less a second (08.563041): the first iteration started at 08.8076 (its end less its duration)
    expect(r.stats.t0From).toBe('setup-end');
    expect(new Date(r.stats.t0Ms!).toISOString()).toBe('2025-10-15T03:33:08.807Z');
  });
});

describe('host figures sampled beside k6 (the k6 engine)', () => {
  /** A timeline of 1 s samples over [fromMs, toMs), each 40 ms throttled, 6% steal, k6 at 25% of its CPUs. */
  function timeline(fromMs: number, toMs: number): HostTimeline {
    let now = fromMs;
    const t = new HostTimeline({ sample: () => ({ throttledMs: 40, cpuSteal: 0.06, processCpu: 0.25 }) }, () => now);
    for (now = fromMs + 1000; now <= toMs; now += 1000) t.take();
    return t;
  }
  const withHost = async (f: string, host: HostTimeline) => {
    const records: BucketRecord[] = [];
    await ingestLines(readLines(`${DIR}/${f}`), {
      source: 'k6',
      phase: 'steps',
      lateS: 2,
      host,
      sink: (x) => records.push(x),
    });
    return records;
  };

  it('land on the seconds of a real k6 output they overlap', async () => {
    const { stats } = await ingest('stepped-reject.ndjson');
    const records = await withHost('stepped-reject.ndjson', timeline(stats.firstMs! - 2000, stats.lastMs! + 3000));
    expect(records.length).toBeGreaterThan(20);
    for (const r of records) expect([r.tS, r.throttledMs, r.cpuSteal, r.processCpu]).toEqual([r.tS, 40, 0.06, 0.25]);
    const agg = aggregate(records, 'steps', 10, 20);
    expect(agg.throttledMs).toBe(400);
    expect(agg.cpuSteal).toBeCloseTo(0.06, 6);
    expect(agg.processCpu).toBeCloseTo(0.25, 6);
  });

  it('a timeline of another time leaves them unread, as in an imported file', async () => {
    const { stats } = await ingest('stepped-reject.ndjson');
    const records = await withHost('stepped-reject.ndjson', timeline(stats.lastMs! + 60_000, stats.lastMs! + 90_000));
    expect(
      records.some((r) => r.throttledMs !== undefined || r.cpuSteal !== undefined || r.processCpu !== undefined),
    ).toBe(false);
  });
});

describe('metric names', () => {
  async function* batches(lines: string[]) {
    yield lines;
  }
  const point = (metric: string, s: number, tags = '{"scenario":"steps"}') =>
    `{"metric":${JSON.stringify(metric)},"type":"Point","data":{"time":"2026-11-29T16:52:${String(41 + s).padStart(2, '0')}.5Z","value":2,"tags":${tags}}}`;

  it('custom metrics named like Object.prototype members (or empty) are counted, not taken for phases', async () => {
    const names = ['constructor', 'toString', '__proto__', 'hasOwnProperty', '', 'http_req_duration'];
    const lines = [
      point('vus', 0, '{}'),
      ...[0, 1, 2].flatMap((s) => names.map((n) => point(n, s, '{"expected_response":"true","scenario":"steps"}'))),
    ];
    const records: BucketRecord[] = [];
    const r = await ingestLines(batches(lines), {
      source: 'k6',
      phase: 'steps',
      lateS: 5,
      sink: (x) => records.push(x),
    });
    expect(Object.entries(r.stats.byMetric)).toEqual([['vus', 1], ...names.map((n) => [n, 3])]);
    expect(r.stats.points).toBe(1 + 3 * names.length);
    expect(aggregate(records, 'steps', 0, 1e9).hist.duration.totalCount).toBe(3);
  });

  it("leaves out k6's setup() and teardown() groups, not a user's group named setupCart, teardownSession or even setup", async () => {
    // k6's setup() and teardown() run outside any scenario: their samples carry no scenario tag
    const req = (group: string, scenario: string | null = 'steps') =>
      point(
        'http_reqs',
        1,
        `{"expected_response":"true",${scenario === null ? '' : `"scenario":"${scenario}",`}"group":${JSON.stringify(group)}}`,
      );
    const lines = [
      point('vus', 0, '{}'),
      req(''),
      req('::setupCart'),
      req('::teardownSession'),
      req('::setup', null),
      req('::teardown', null),
      req('::setup::inner', null),
      // a user's own group('setup') in the default function: k6 tags it "::setup", with its scenario
      req('::setup'),
    ];
    const records: BucketRecord[] = [];
    const r = await ingestLines(batches(lines), {
      source: 'k6',
      phase: 'steps',
      lateS: 5,
      sink: (x) => records.push(x),
    });
    expect(r.stats.points).toBe(lines.length);
    expect(aggregate(records, 'steps', 0, 1e9).ok).toBe(8); // '', setupCart, teardownSession, the user's setup: 4 samples of value 2
  });

  it("a long setup() moves t0 to its end: the scenario's first second is second 0, not second 13", async () => {
    const setupReq = (s: number) => point('http_reqs', s, '{"expected_response":"true","group":"::setup"}');
    const lines = [
      ...Array.from({ length: 13 }, (_, s) => [point('vus', s, '{}'), setupReq(s)]).flat(),
      ...[13, 14].flatMap((s) => [
        point('vus', s, '{}'),
        point('http_reqs', s, '{"expected_response":"true","scenario":"steps","group":""}'),
      ]),
    ];
    const records: BucketRecord[] = [];
    const r = await ingestLines(batches(lines), {
      source: 'k6',
      phase: 'steps',
      lateS: 5,
      sink: (x) => records.push(x),
    });
    expect(r.stats.t0From).toBe('setup-end');
    expect(new Date(r.stats.t0Ms!).toISOString()).toBe('2026-11-29T16:52:53.500Z');
    expect(r.stats.skipped).toBe(13);
    const counted = records.filter((x) => x.ok > 0).map((x) => [x.tS, x.ok]);
    expect(counted).toEqual([
      [1, 2],
      [2, 2],
    ]);
  });

  // seconds past 16:52:41.5Z, any number of them
  const at = (metric: string, s: number, tags: string, value = 2) =>
    parseJsonLine(
      `{"metric":${JSON.stringify(metric)},"type":"Point","data":{"time":"${new Date(Date.parse('2026-11-29T16:52:41.500Z') + s * 1000).toISOString()}","value":${value},"tags":${tags}}}`,
    ) as K6Point;

  it('with --scenario naming a scenario that starts late, seconds are written while the run goes on, not held to the end', () => {
    const sunk: number[] = [];
    const b = new Bucketizer({
      source: 'k6',
      phase: 'steps',
      lateS: 2,
      scenarios: ['late'],
      sink: (x) => sunk.push(x.tS),
    });
    const feed = (from: number, to: number) => {
      for (let s = from; s < to; s++) {
        b.push(at('vus', s, '{}'));
        b.push(at('http_reqs', s, `{"expected_response":"true","scenario":"${s < 20 ? 'early' : 'late'}","group":""}`));
      }
    };
    // 20 s of the other scenario only: its seconds are closed as they pass (open 2 s after their
    // end), not held until the named scenario's first sample
    feed(0, 20);
    expect(sunk.length).toBeGreaterThanOrEqual(15);
    feed(20, 30);
    expect(Math.max(...sunk)).toBeGreaterThanOrEqual(25);
    b.end();
    expect(b.stats.t0From).toBe('vus');
    expect(b.stats.skipped).toBe(20);
  });

  it('without vus points, t0 is the first iteration after setup(), not the first setup() sample', () => {
    const sunk: BucketRecord[] = [];
    const b = new Bucketizer({ source: 'k6', phase: 'steps', lateS: 2, sink: (x) => sunk.push(x) });
    for (let s = 0; s < 10; s++) b.push(at('http_reqs', s, '{"expected_response":"true","group":"::setup"}'));
    for (let s = 10; s < 16; s++) {
      b.push(at('http_reqs', s, '{"expected_response":"true","scenario":"steps","group":""}'));
      b.push(at('iteration_duration', s, '{"scenario":"steps","group":""}', 300));
    }
    b.end();
    expect(new Date(b.stats.t0Ms!).toISOString()).toBe('2026-11-29T16:52:51.200Z');
    expect(b.stats.t0From).toBe('first-iteration');
    expect(sunk.filter((x) => x.ok > 0).map((x) => x.tS)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('counts per metric stay exact when the order of metrics changes from one sample to the next', async () => {
    const order = ['', 'a', 'b', 'c', 'a', 'c', 'b', 'b', 'a', 'a', 'c', 'vus', 'b', ''];
    const r = await ingestLines(batches(order.map((m, i) => point(m, i % 3))), {
      source: 'k6',
      phase: 'steps',
      lateS: 5,
      sink: () => undefined,
    });
    expect(r.stats.byMetric).toEqual({ '': 2, a: 4, b: 4, c: 3, vus: 1 });
  });
});

describe('format variants (FORMAT-NOTES.md)', () => {
  const base = { metric: 'http_reqs', value: 1 };
  it.each([
    [
      'v0.41+ key order',
      '{"metric":"http_reqs","type":"Point","data":{"time":"2026-11-29T16:52:41.5Z","value":1,"tags":{"status":"200"}}}',
    ],
    [
      '<= v0.40 key order',
      '{"type":"Point","data":{"time":"2026-11-29T16:52:41.5Z","value":1,"tags":{"status":"200"}},"metric":"http_reqs"}',
    ],
    [
      'random tag order + metadata',
      '{"metric":"http_reqs","type":"Point","data":{"time":"2026-11-29T16:52:41.5Z","value":1,"tags":{"url":"x","status":"200","a":"b"},"metadata":{"vu":"3"}}}',
    ],
    [
      'escaped url (slow path)',
      '{"metric":"http_reqs","type":"Point","data":{"time":"2026-11-29T16:52:41.5Z","value":1,"tags":{"url":"a\\"b","status":"200"}}}',
    ],
    [
      '-03:00 offset',
      '{"metric":"http_reqs","type":"Point","data":{"time":"2026-11-29T13:52:41.500-03:00","value":1,"tags":{"status":"200"}}}',
    ],
    [
      '+05:30 offset, 9 digits',
      '{"metric":"http_reqs","type":"Point","data":{"time":"2026-11-29T22:22:41.500000000+05:30","value":1,"tags":{"status":"200"}}}',
    ],
    [
      'exponent value',
      '{"metric":"http_reqs","type":"Point","data":{"time":"2026-11-29T16:52:41.5Z","value":1e+00,"tags":{"status":"200"}}}',
    ],
  ])('%s', (_name, line) => {
    expect(parseJsonLine(line)).toEqual({
      ...base,
      timeMs: Date.parse('2026-11-29T16:52:41.500Z'),
      // the VU (and iteration), when k6 wrote them, name the iteration a request belongs to; the
      // url is kept (an import says when requests of several URLs had no name)
      tags: {
        status: '200',
        ...(line.includes('"url":"x"') ? { url: 'x' } : line.includes('"url":"a') ? { url: 'a"b' } : {}),
        ...(line.includes('"metadata":{"vu":"3"}') ? { vu: '3' } : {}),
      },
    });
  });

  it('null tags (<= v0.37) and exponent values', () => {
    expect(
      parseJsonLine(
        '{"type":"Point","data":{"time":"2026-11-29T16:52:41Z","value":1.234567e+06,"tags":null},"metric":"vus"}',
      ),
    ).toMatchObject({ value: 1234567, tags: {} });
    expect(parseJsonLine('{"type":"Metric","data":{"name":"vus"},"metric":"vus"}')).toBe('skip');
    expect(parseJsonLine('{"metric":"x","type":"Point","data":{"time":"2026-11')).toBe('bad');
  });

  it.each([
    ['unix', '1795971161', 1795971161000],
    ['unix_milli', '1795971161014', 1795971161014],
    ['unix_micro', '1795971161014598', 1795971161014.598],
    ['unix_nano', '1795971161014598502', 1795971161014.5985],
    ['rfc3339', '2026-11-29T16:52:41Z', 1795971161000],
    ['rfc3339_nano +05:30', '2026-11-29T22:22:41.014598502+05:30', 1795971161014.5985],
  ])('CSV time %s', (_n, cell, ms) => {
    expect(parseCsvTimeMs(cell)).toBeCloseTo(ms, 3);
  });

  it('RFC 3339 fraction digits from 0 to 9', () => {
    for (const frac of ['', '.9', '.95593', '.955930000'])
      expect(parseRfc3339Ms(`2025-10-15T00:33:08${frac}-03:00`)).toBeCloseTo(
        Date.parse('2025-10-15T03:33:08Z') + Number(`0${frac || '.0'}`) * 1000,
        6,
      );
  });
});

describe('arrivals and names', () => {
  const inRun = (p: RefPoint) => !(p.tags.group ?? '').startsWith('::setup');

  it('votacao as a user script (arrivals = iterations): per second, iterations, requests and ok = max(0, iterations - failed requests, those beyond the second before carried) as the raw lines say', async () => {
    const ref = reference('public-votacao-constant-vus.ndjson').filter(inRun);
    const r = await ingest('public-votacao-constant-vus.ndjson', { arrivals: 'iterations' });
    const t0 = r.stats.t0Ms!;
    const sec = (ms: number) => Math.max(0, Math.floor((ms - t0) / 1000));
    const want = new Map<number, { iterations: number; requests: number; failed: number }>();
    const at = (s: number) => want.get(s) ?? want.set(s, { iterations: 0, requests: 0, failed: 0 }).get(s)!;
    for (const p of ref) {
      if (p.metric === 'iterations') at(sec(p.timeMs)).iterations += p.value;
      if (p.metric === 'http_reqs') {
        at(sec(p.timeMs)).requests++;
        if (p.tags.expected_response !== 'true') at(sec(p.timeMs)).failed++;
      }
    }
    expect(r.stats.arrivalsFrom).toBe('iterations');
    // failed requests beyond a second's iterations belong to iterations that end later: carried on
    let carried = 0;
    let clamped = 0;
    for (const b of r.records) {
      const w = want.get(b.tS) ?? { iterations: 0, requests: 0, failed: 0 };
      const ok = Math.max(0, w.iterations - w.failed - carried);
      carried = Math.max(0, w.failed + carried - w.iterations);
      if (carried > 0) clamped++;
      const errors = Object.values(b.errors).reduce((a, n) => a + n, 0);
      expect([b.tS, b.completed, b.requests, b.requestsFailed, b.ok, errors]).toEqual([
        b.tS,
        w.iterations,
        w.requests,
        w.failed,
        ok,
        w.iterations - ok,
      ]);
    }
    // the real run has seconds whose failed requests outnumber the iterations that ended in them
    expect(clamped).toBeGreaterThan(0);
    // 107 iterations sent 558 requests (the file was cut while 5 VUs were inside their iteration)
    const agg = aggregate(r.records, 'steps', 0, 1e9);
    expect([agg.completed, r.records.reduce((a, b) => a + (b.requests ?? 0), 0)]).toEqual([107, 558]);
  });

  it.each(['stepped-reject.ndjson', 'stepped-reject.csv.gz'])(
    '%s as a user script: each second counts its failed requests apart from its failed iterations, as the raw lines say',
    async (f) => {
      const ref = reference(f);
      const r = await ingest(f, { arrivals: 'iterations' });
      const t0 = r.stats.t0Ms!;
      const failed = new Map<number, number>();
      for (const p of ref)
        if (p.metric === 'http_reqs' && p.tags.expected_response !== 'true') {
          const tS = Math.max(0, Math.floor((p.timeMs - t0) / 1000));
          failed.set(tS, (failed.get(tS) ?? 0) + p.value);
        }
      expect(r.records.map((b) => [b.tS, b.requestsFailed])).toEqual(
        r.records.map((b) => [b.tS, failed.get(b.tS) ?? 0]),
      );
      const agg = aggregate(r.records, 'steps', 0, 1e9);
      expect([agg.requestsFailed, agg.failed]).toEqual([182, 182]);
    },
  );

  it("votacao: one row per name tag, each second's counts, 400s and successful durations as the raw lines say", async () => {
    const ref = reference('public-votacao-constant-vus.ndjson').filter(inRun);
    const r = await ingest('public-votacao-constant-vus.ndjson', { arrivals: 'iterations' });
    const t0 = r.stats.t0Ms!;
    const sec = (ms: number) => Math.max(0, Math.floor((ms - t0) / 1000));
    const key = (s: number, name: string) => `${s} ${name}`;
    const want = new Map<
      string,
      { completed: number; ok: number; http_4xx: number; s400: number; durations: number }
    >();
    const at = (k: string) =>
      want.get(k) ?? want.set(k, { completed: 0, ok: 0, http_4xx: 0, s400: 0, durations: 0 }).get(k)!;
    for (const p of ref) {
      const ok = p.tags.expected_response === 'true';
      if (p.metric === 'http_reqs') {
        const w = at(key(sec(p.timeMs), p.tags.name));
        w.completed++;
        if (ok) w.ok++;
        else {
          w.http_4xx++;
          if (p.tags.status === '400') w.s400++;
        }
      }
      if (p.metric === 'http_req_duration' && ok) at(key(sec(p.timeMs), p.tags.name)).durations++;
    }
    expect(r.stats.names.kept).toEqual(['create_agenda', 'open_voting_session', 'submit_vote', 'get_results']);
    const got = new Map<string, unknown>();
    for (const b of r.records)
      for (const [name, n] of Object.entries(b.byName ?? {}))
        got.set(key(b.tS, name), {
          completed: n.completed,
          ok: n.ok,
          http_4xx: n.errors.http_4xx ?? 0,
          s400: n.statuses?.['400'] ?? 0,
          durations: decodeHistogram(n.duration).totalCount,
        });
    expect(Object.fromEntries(got)).toEqual(Object.fromEntries(want));
    expect(r.records.every((b) => !b.byName || Object.values(b.byName).every((n) => !n.transaction))).toBe(true);
  });

  it("plateau's own one-request runs keep today's buckets: one name, arrivals = requests, no requests or byName", async () => {
    for (const f of STEPPED) {
      const r = await ingest(f);
      expect(r.stats.arrivalsFrom).toBe('requests');
      expect(r.records.some((b) => 'requests' in b || 'byName' in b)).toBe(false);
    }
    // several names in the output: byName, even without plateau_arrival
    const v = await ingest('public-votacao-constant-vus.ndjson');
    expect(v.records.filter((b) => b.byName).length).toBeGreaterThan(30);
    expect(v.records.some((b) => 'requests' in b)).toBe(false);
  });

  /**
   * A mix as plateau's k6 runtime writes it (the contract: one plateau_arrival per arrival, tags
   * name, outcome, transaction): per second one 'read' (a request), one 'checkout' transaction whose
   * confirm got a 503, and one that passed; in second 2 the read's check rejected its 200.
   */
  interface Sample {
    metric: string;
    atS: number;
    value: number;
    tags: Record<string, string>;
  }
  const T = Date.parse('2026-11-29T16:52:41.000Z');
  function mixSamples(): Sample[] {
    const out: Sample[] = [];
    const req = (atS: number, name: string, ok: boolean, ms: number) => {
      const tags = { expected_response: String(ok), group: '', name, scenario: 'steps', status: ok ? '200' : '503' };
      out.push({ metric: 'http_reqs', atS, value: 1, tags }, { metric: 'http_req_duration', atS, value: ms, tags });
    };
    const arrival = (atS: number, name: string, outcome: string, transaction: boolean, ms: number) => {
      out.push({
        metric: 'plateau_arrival',
        atS,
        value: ms,
        tags: { group: '', name, outcome, scenario: 'steps', transaction: String(transaction) },
      });
      out.push({ metric: 'iteration_duration', atS, value: ms + 1, tags: { group: '', scenario: 'steps' } });
    };
    for (let s = 0; s < 5; s++) {
      // k6's once-a-second vus point: the first one, a second in, is t0's mark
      if (s < 4) out.push({ metric: 'vus', atS: s + 1, value: 3, tags: {} });
      req(s + 0.1, 'read', true, 10);
      if (s === 2)
        out.push({ metric: 'plateau_check_failed', atS: s + 0.1, value: 1, tags: { name: 'read', check: 'read' } });
      arrival(s + 0.11, 'read', s === 2 ? 'check' : 'ok', false, 10);
      req(s + 0.2, 'checkout: create', true, 20);
      req(s + 0.3, 'checkout: confirm', false, 5);
      arrival(s + 0.31, 'checkout', 'http_5xx', true, 45);
      req(s + 0.4, 'checkout: create', true, 20);
      req(s + 0.5, 'checkout: confirm', true, 30);
      arrival(s + 0.51, 'checkout', 'ok', true, 50);
    }
    return out;
  }
  const asJson = (x: Sample) =>
    JSON.stringify({
      metric: x.metric,
      type: 'Point',
      data: { time: new Date(T + x.atS * 1000).toISOString(), value: x.value, tags: x.tags },
    });
  const CSV_HEAD =
    'metric_name,timestamp,metric_value,check,error,error_code,expected_response,group,method,name,proto,scenario,service,status,subproto,tls_version,url,extra_tags,metadata';
  const asCsv = (x: Sample) => {
    const t = x.tags;
    const extra = ['outcome', 'transaction'].flatMap((k) => (t[k] ? [`${k}=${t[k]}`] : [])).join('&');
    return [
      x.metric,
      String(Math.round(T + x.atS * 1000)),
      x.value.toFixed(6),
      t.check ?? '',
      '',
      '',
      t.expected_response ?? '',
      t.group ?? '',
      '',
      t.name ?? '',
      '',
      t.scenario ?? '',
      '',
      t.status ?? '',
      '',
      '',
      '',
      extra,
      '',
    ].join(',');
  };
  async function* batches(lines: string[]) {
    yield lines;
  }
  async function ingestMix(lines: string[]) {
    const records: BucketRecord[] = [];
    const r = await ingestLines(batches(lines), {
      source: 'k6',
      phase: 'steps',
      lateS: 2,
      sink: (x) => records.push(x),
    });
    return { ...r, records };
  }
  const countOf = (b64: string) => decodeHistogram(b64).totalCount;

  it.each([
    ['JSON', () => mixSamples().map(asJson)],
    ['CSV (outcome and transaction in extra_tags)', () => [CSV_HEAD, ...mixSamples().map(asCsv)]],
  ])(
    'a mix (%s): arrivals from plateau_arrival, requests from http_reqs, transactions and request names in byName',
    async (_f, lines) => {
      const r = await ingestMix(lines());
      expect(r.stats.arrivalsFrom).toBe('plateau_arrival');
      expect(r.records.map((b) => b.tS)).toEqual([0, 1, 2, 3, 4]);
      for (const b of r.records) {
        const checkFailed = b.tS === 2;
        expect([b.completed, b.ok, b.errors, b.requests, b.started]).toEqual([
          3,
          checkFailed ? 1 : 2,
          checkFailed ? { http_5xx: 1, check: 1 } : { http_5xx: 1 },
          5,
          3,
        ]);
        const n = b.byName!;
        expect(Object.keys(n).sort()).toEqual(['checkout', 'checkout: confirm', 'checkout: create', 'read']);
        expect(n.checkout).toMatchObject({ transaction: true, completed: 2, ok: 1, errors: { http_5xx: 1 } });
        expect(countOf(n.checkout.duration)).toBe(1);
        expect(n['checkout: confirm']).toMatchObject({
          completed: 2,
          ok: 1,
          errors: { http_5xx: 1 },
          statuses: { 503: 1 },
        });
        expect(n['checkout: confirm'].transaction).toBeUndefined();
        expect(countOf(n['checkout: confirm'].duration)).toBe(1);
        expect(n['checkout: create']).toMatchObject({ completed: 2, ok: 2, errors: {} });
        expect(n.read).toMatchObject(
          checkFailed ? { completed: 1, ok: 0, errors: { check: 1 } } : { completed: 1, ok: 1, errors: {} },
        );
        // the phases are of every successful request: 1 read + 2 creates + 1 confirm
        expect(countOf(b.hist.duration)).toBe(4);
      }
    },
  );
  it("a check's sample just past a second's end fails the request of the second before", async () => {
    // second 2's read ends at 1.9995 s and its check's sample comes at 2.0005 s: a second began between them
    const lines = mixSamples().map((x) =>
      x.atS === 2.1 && (x.metric === 'http_reqs' || x.metric === 'http_req_duration')
        ? asJson({ ...x, atS: 1.9995 })
        : x.metric === 'plateau_check_failed'
          ? asJson({ ...x, atS: 2.0005 })
          : asJson(x),
    );
    const r = await ingestMix(lines);
    const [b1, b2] = [1, 2].map((t) => r.records.find((x) => x.tS === t)!);
    expect(b1.byName!.read).toMatchObject({ completed: 2, ok: 1, errors: { check: 1 } });
    expect([b1.requests, b1.errors]).toEqual([6, { http_5xx: 1 }]);
    expect(b2.byName!.read).toBeUndefined();
    // the arrivals are plateau_arrival's: the read arrival whose check failed ended in second 2
    expect([b2.completed, b2.ok, b2.errors, b2.requests]).toEqual([3, 1, { http_5xx: 1, check: 1 }, 4]);
  });
  it('a check failure tagged kind other (the check could not be given what it read) counts as other, as natively', async () => {
    // the runtime tags the check's sample and its arrival's outcome alike (send.ts)
    const lines = mixSamples().map((x) =>
      asJson(
        x.metric === 'plateau_check_failed'
          ? { ...x, tags: { ...x.tags, kind: 'other' } }
          : x.tags.outcome === 'check'
            ? { ...x, tags: { ...x.tags, outcome: 'other' } }
            : x,
      ),
    );
    const b2 = (await ingestMix(lines)).records.find((x) => x.tS === 2)!;
    expect(b2.byName!.read).toMatchObject({ completed: 1, ok: 0, errors: { other: 1 } });
    expect(b2.errors).toEqual({ http_5xx: 1, other: 1 });
    expect(b2.samples).toContain('other: read: read');
  });

  it("a mix's error samples name the request, as the native engine's do", async () => {
    const r = await ingestMix(mixSamples().map(asJson));
    const samples = r.records.flatMap((x) => x.samples ?? []);
    expect(samples).toContain('http_5xx: checkout: confirm: HTTP 503');
    expect(samples).toContain('check: read: read');
    expect(samples.every((m) => /^(http_5xx: checkout: confirm|check: read): /.test(m))).toBe(true);
  });

  it("a send made after its transaction ended (transaction 'late') is its name's failed request, no arrival", async () => {
    const lines = mixSamples().map(asJson);
    lines.push(
      asJson({
        metric: 'plateau_arrival',
        atS: 3.7,
        value: 0,
        tags: { group: '', name: 'checkout: late', outcome: 'other', scenario: 'steps', transaction: 'late' },
      }),
    );
    const r = await ingestMix(lines);
    const b = r.records.find((x) => x.tS === 3)!;
    // the second's arrivals and requests as without it
    expect([b.completed, b.ok, b.requests]).toEqual([3, 2, 5]);
    expect(b.byName!['checkout: late']).toMatchObject({ completed: 1, ok: 0, errors: { other: 1 } });
    expect(b.samples).toContain(
      'other: checkout: late: http.send after the transaction ended: await every send inside run(ctx, http)',
    );
  });

  it('a one-request entry that failed before sending (its rows used up) is counted under its name', async () => {
    const lines = mixSamples().map(asJson);
    // second 3: a 'write' arrival whose request was never sent (the runtime tags it transaction=unsent)
    lines.push(
      asJson({
        metric: 'plateau_arrival',
        atS: 3.6,
        value: 0,
        tags: { group: '', name: 'write', outcome: 'other', scenario: 'steps', transaction: 'unsent' },
      }),
    );
    const r = await ingestMix(lines);
    const b = r.records.find((x) => x.tS === 3)!;
    expect([b.completed, b.ok, b.requests]).toEqual([4, 2, 5]);
    expect(b.byName!.write).toMatchObject({ completed: 1, ok: 0, errors: { other: 1 } });
    expect(b.byName!.write.transaction).toBeUndefined();
  });
});

/** A k6 JSON output line at `atS` seconds after a fixed start. */
const AT_0 = Date.parse('2026-11-29T16:52:41.000Z');
const pointLine = (metric: string, atS: number, value: number, tags: Record<string, string>) =>
  JSON.stringify({ metric, type: 'Point', data: { time: new Date(AT_0 + atS * 1000).toISOString(), value, tags } });

describe('a mix whose first arrival ends seconds after its first request', () => {
  // one transaction a second, its request at once, then 6 s of think time before it ends
  const line = pointLine;
  const lines: string[] = [];
  for (let s = 0; s < 12; s++) {
    lines.push(line('vus', s + 1, 1, {}));
    const tags = { expected_response: 'true', group: '', name: 'pay: create', scenario: 'steps', status: '200' };
    lines.push(line('http_reqs', s + 0.1, 1, tags), line('http_req_duration', s + 0.1, 10, tags));
  }
  const arrivals = Array.from({ length: 12 }, (_, s) =>
    line('plateau_arrival', s + 6.2, 6100, {
      group: '',
      name: 'pay',
      outcome: 'ok',
      scenario: 'steps',
      transaction: 'true',
    }),
  );
  const all = [...lines, ...arrivals].sort((a, b) => timeOf(a) - timeOf(b));
  function timeOf(l: string): number {
    return Date.parse((JSON.parse(l) as { data: { time: string } }).data.time);
  }
  async function* once(ls: string[]) {
    yield ls;
  }
  const run = async (arrivalsFrom?: 'plateau_arrival') => {
    const records: BucketRecord[] = [];
    const r = await ingestLines(once(all), {
      source: 'k6',
      phase: 'steps',
      lateS: 2,
      ...(arrivalsFrom ? { arrivals: arrivalsFrom } : {}),
      sink: (x) => records.push(x),
    });
    return { stats: r.stats, records };
  };

  it('found on the way: the seconds written before it are counted, and says how many', async () => {
    const { stats, records } = await run();
    expect(stats.arrivalsFrom).toBe('plateau_arrival');
    expect(stats.closedBeforeArrivals).toBeGreaterThan(0);
    expect(records[0]).toMatchObject({ tS: 0, completed: 1 });
    expect(records[0].requests).toBeUndefined();
  });

  it("told (arrivals: 'plateau_arrival'): every second counts arrivals, from the first", async () => {
    const { stats, records } = await run('plateau_arrival');
    expect(stats.closedBeforeArrivals).toBe(0);
    expect(records.slice(0, 6).map((b) => [b.completed, b.requests])).toEqual(Array.from({ length: 6 }, () => [0, 1]));
    expect(records.reduce((a, b) => a + b.completed, 0)).toBe(12);
    expect(records.every((b) => b.byName !== undefined)).toBe(true);
    expect(records[7].byName).toMatchObject({ pay: { transaction: true, completed: 1, ok: 1 } });
  });
});

describe('a send refused for its name (plateau_refused_name)', () => {
  const line = pointLine;
  it("is counted apart in its second, with the first refusal's message, beside the arrival it failed", async () => {
    const lines: string[] = [];
    const ok = { expected_response: 'true', group: '', name: 'GET /', scenario: 'steps', status: '200' };
    for (let s = 0; s < 3; s++) {
      lines.push(line('vus', s + 1, 2, {}));
      lines.push(line('http_reqs', s + 0.1, 1, ok), line('http_req_duration', s + 0.1, 5, ok));
    }
    const first = 'http.send: name "page lima tan" is one past 100 names in the run';
    lines.push(line('plateau_refused_name', 1.5, 1, { error: first, group: '', scenario: 'steps' }));
    lines.push(line('plateau_refused_name', 1.6, 1, { error: 'another', group: '', scenario: 'steps' }));
    const records: BucketRecord[] = [];
    await ingestLines(
      (async function* () {
        yield lines;
      })(),
      { source: 'k6', phase: 'steps', lateS: 2, sink: (x) => records.push(x) },
    );
    expect(records.find((x) => x.tS === 1)!.refusedNames).toEqual({ count: 2, first });
    expect(records.filter((x) => x.refusedNames !== undefined).map((x) => x.tS)).toEqual([1]);
  });
});

describe("a one-request script's arrival whose request(ctx) threw (plateau_unsent)", () => {
  const line = pointLine;
  it('is a failed arrival of kind other that sent no request: completed counts it, requests do not', async () => {
    const lines: string[] = [];
    const tags = { expected_response: 'true', group: '', name: 'GET /', scenario: 'steps', status: '200' };
    for (let s = 0; s < 4; s++) {
      lines.push(line('vus', s + 1, 2, {}));
      for (const at of [0.1, 0.4])
        lines.push(line('http_reqs', s + at, 1, tags), line('http_req_duration', s + at, 5, tags));
    }
    lines.push(line('plateau_unsent', 2.7, 1, { group: '', scenario: 'steps' }));
    const records: BucketRecord[] = [];
    const r = await ingestLines(
      (async function* () {
        yield lines;
      })(),
      { source: 'k6', phase: 'steps', lateS: 2, sink: (x) => records.push(x) },
    );
    expect(r.stats.arrivalsFrom).toBe('requests');
    const b = records.find((x) => x.tS === 2)!;
    expect([b.completed, b.ok, b.errors, b.requests]).toEqual([3, 2, { other: 1 }, 2]);
    expect(b.samples).toContain('other: the scenario threw before sending its request (k6 printed why on its console)');
    // the other seconds: requests are the arrivals, as before
    expect(records.filter((x) => x.tS !== 2).map((x) => [x.tS, x.completed, x.requests])).toEqual([
      [0, 2, undefined],
      [1, 2, undefined],
      [3, 2, undefined],
      [4, 0, undefined], // the closing second k6's last vus point opened
    ]);
  });
});
