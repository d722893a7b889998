import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { buildPlan, buildRecords, type FakeRunSpec } from '../../analysis/testing/builders.ts';
import { PlateauError } from '../errors.ts';
import { RunStore, loadRun, type RunMeta } from './run-store.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'plateau-store-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const SPEC: FakeRunSpec = { steps: [{ ratePerSec: 50 }, { ratePerSec: 100 }], rampS: 1, holdS: 4, settleS: 1 };
const TOKEN_VAR = 'PLATEAU_STORE_TEST_TOKEN';
afterEach(() => {
  delete process.env[TOKEN_VAR];
});

let n = 0;
function meta(over: Partial<RunMeta> = {}): RunMeta {
  return {
    schemaVersion: 2,
    runId: `store-${n++}`,
    status: 'complete',
    startedAt: '2026-01-01T00:00:00.000Z',
    finishedAt: '2026-01-01T00:01:00.000Z',
    target: 'http://127.0.0.1:8080/orders',
    engine: 'native',
    scenario: 'default',
    config: { target: { url: 'http://127.0.0.1:8080/orders' } },
    plan: {
      steps: buildPlan(SPEC),
      durationS: 10,
      settleS: 1,
      rules: { deliveryMin: 0.9, captureMin: 0.6, minTailSamples: 30 },
      expectedSteadySamples: [150, 300],
    },
    vus: { preAllocatedVUs: 5, maxVUs: 10, reason: 'test' },
    rtt: null,
    stages: [{ name: 'steps', status: 'pass', durationMs: 1, detail: 'test', evidence: [] }],
    interruptedAtStep: null,
    environment: { hostname: 'test' },
    ...over,
  };
}

/** Every file of a run directory, read whole. */
function everyText(dir: string): string {
  return fs
    .readdirSync(dir)
    .map((f) => fs.readFileSync(path.join(dir, f), 'utf8'))
    .join('\n');
}

describe('RunStore scrubs what it writes, whoever creates it', () => {
  it('without a scrubber given: a secret of the environment in an error sample, the target or the config', () => {
    const token = `tok_${process.pid}_Zq9secret`;
    process.env[TOKEN_VAR] = token;
    const store = RunStore.create(
      root,
      meta({ target: `http://127.0.0.1:8080/orders#${token}`, config: { note: `Bearer ${token}` } }),
    );
    const [r] = buildRecords(SPEC);
    store.appendBucket({ ...r, samples: [`other: Authorization Bearer ${token} rejected`] });
    store.appendBucket({ ...r, source: `run-${token}` }); // no samples: scrubbed all the same
    store.appendProbe({ tMs: 0, ok: false, error: `GET /metrics?x=${token}` } as never);
    store.close();
    const text = everyText(store.dir);
    expect(text).not.toContain(token);
    expect(fs.readFileSync(path.join(store.dir, 'buckets.ndjson'), 'utf8')).toContain(
      'Authorization Bearer [redacted] rejected',
    );
    expect(loadRun(store.dir).meta.config).toEqual({ note: 'Bearer [redacted]' });
  });

  it('strips URL credentials and redacts secret-looking URL parameters in run.json', () => {
    const url = 'https://admin:hunter2pass@shop.example/orders?access_token=at-9f8e7d6c&page=2&api_key=ak-1a2b3c4d';
    const store = RunStore.create(
      root,
      meta({ target: url, config: { target: { url }, metrics: { url: '/metrics?X-Amz-Signature=sig-5e6f7a8b' } } }),
    );
    store.close();
    const text = everyText(store.dir);
    for (const secret of ['hunter2pass', 'admin:', 'at-9f8e7d6c', 'ak-1a2b3c4d', 'sig-5e6f7a8b'])
      expect(text).not.toContain(secret);
    const { meta: saved } = loadRun(store.dir);
    expect(saved.target).toBe('https://shop.example/orders?access_token=[redacted]&page=2&api_key=[redacted]');
    expect(new URL(saved.target).hostname).toBe('shop.example'); // still a URL the reports can read
    expect(saved.config).toEqual({
      target: { url: saved.target },
      metrics: { url: '/metrics?X-Amz-Signature=[redacted]' },
    });
  });
});

describe('loadRun refuses a damaged run.json with the file, the problem and the fix', () => {
  function runWith(runJson: string): string {
    const store = RunStore.create(root, meta());
    for (const r of buildRecords(SPEC)) store.appendBucket(r);
    store.close();
    fs.writeFileSync(path.join(store.dir, 'run.json'), runJson);
    return store.dir;
  }
  const good = JSON.stringify(meta(), null, 2);
  const without = (key: keyof RunMeta) => JSON.stringify({ ...meta(), [key]: undefined });

  it.each<[string, string, RegExp]>([
    ['truncated', good.slice(0, good.length / 2), /is damaged: not valid JSON/],
    ['empty file', '', /is damaged: not valid JSON/],
    ['{}', '{}', /is damaged: schemaVersion: missing; runId: missing; .*; and \d+ more/],
    ['null', 'null', /is damaged: it holds null, not a run's record/],
    ['an array', '[]', /is damaged: it holds an array/],
    ['no stages', without('stages'), /is damaged: stages: missing$/],
    ['no environment', without('environment'), /is damaged: environment: missing$/],
    [
      'a step rate that is no number',
      good.replace('"ratePerSec": 50', '"ratePerSec": "fast"'),
      /is damaged: plan\.steps\.0\.ratePerSec: expected number/,
    ],
  ])('%s', (_name, runJson, message) => {
    const dir = runWith(runJson);
    let err: unknown;
    try {
      loadRun(dir);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(PlateauError);
    const e = err as PlateauError;
    expect(e.code).toBe('run-corrupt');
    expect(e.exitCode).toBe(2);
    expect(e.message).toContain(path.join(dir, 'run.json'));
    expect(e.message).toMatch(message);
    expect(e.hint).toMatch(/restore run\.json .* re-run .*buckets\.ndjson/);
  });

  it('refuses a schema version it does not know, naming it and the versions it reads', () => {
    const dir = runWith(good.replace('"schemaVersion": 2', '"schemaVersion": 7'));
    expect(() => loadRun(dir)).toThrow(
      expect.objectContaining({
        code: 'run-version',
        exitCode: 2,
        message: expect.stringMatching(/schemaVersion 7; this plateau reads versions 1 and 2/),
        hint: expect.stringMatching(/newer plateau/),
      }),
    );
  });

  it('upgrades a version-1 run.json: its executed plans become attempts, the flags written on them are dropped, the policy comes from its config', () => {
    const v1 = JSON.parse(good) as Record<string, unknown>;
    const plan = (v1.plan as { steps: Record<string, unknown>[] }).steps[0];
    const dir = runWith(
      JSON.stringify({
        ...v1,
        schemaVersion: 1,
        config: {
          verdicts: { lagP99MaxMs: 35, confirmFailedStep: false, maxVUsBound: 800 },
          topology: { rerun: true },
        },
        executed: [
          { ...plan, transient: true, note: 'a sentence' },
          { ...plan, attempt: 2, generatorLimited: 'generator-limited while holding: x' },
        ],
      }),
    );
    const { meta } = loadRun(dir);
    expect(meta.schemaVersion).toBe(2);
    expect(meta.attempts!.map((a) => [a.index, a.attempt])).toEqual([
      [0, 1],
      [0, 2],
    ]);
    expect(
      meta.attempts!.every(
        (a) => !('transient' in a) && !('generatorLimited' in a) && !('note' in a) && a.action === undefined,
      ),
    ).toBe(true);
    expect(meta.policy).toMatchObject({
      confirmFailedStep: false,
      rerunContaminated: true,
      bounds: { lagP99MaxMs: 35, loopDelayMaxMs: 100, tailFactor: 3 },
    });
    expect('executed' in meta).toBe(false);
  });

  it('reads a sound run back, skipping and counting a torn last line, even one that parses but is no record', () => {
    for (const tail of ['{"tS":', '17', 'null']) {
      const dir = runWith(good);
      fs.appendFileSync(path.join(dir, 'buckets.ndjson'), tail);
      const r = loadRun(dir);
      expect(r.meta).toEqual(JSON.parse(good));
      expect(r.records).toHaveLength(buildRecords(SPEC).length);
      expect(r.tornLines).toBe(1);
    }
    // a line before the last that is no record is damage, not a run that died writing it
    const dir = runWith(good);
    fs.appendFileSync(path.join(dir, 'buckets.ndjson'), '17\n{"tS":');
    expect(() => loadRun(dir)).toThrow(
      /line \d+ is not a record, and only the last line can be cut by a run that died/,
    );
  });
});

describe("loadRun: a k6 run's event-loop delay is not measured, whenever it was stored", () => {
  // k6 runs stored before 2026-12-06 wrote loopDelayMaxMs 0 in every second: a perfect generator nobody measured
  it.each([
    ['k6', false],
    ['k6-operator', false],
    ['k6+k6-operator', false],
    ['native', true],
    ['native+k6', true],
  ])('engine %s: the stored 0s kept: %s', (engine, kept) => {
    const store = RunStore.create(root, meta({ engine }));
    for (const r of buildRecords(SPEC)) store.appendBucket({ ...r, loopDelayMaxMs: 0 });
    store.close();
    const { records } = loadRun(store.dir);
    expect(records.length).toBeGreaterThan(0);
    expect(records.every((r) => ('loopDelayMaxMs' in r ? r.loopDelayMaxMs === 0 : false) === kept)).toBe(true);
  });
});

describe('loadRun refuses a buckets.ndjson damaged after the run, naming the line', () => {
  /** A run with its seconds, run.json with `over`; `edit` rewrites buckets.ndjson's lines. */
  function runEdited(edit: (lines: string[]) => string[] | null, over: Partial<RunMeta> = {}): string {
    const attempts = buildPlan(SPEC).map((s) => ({ ...s, attempt: 1, maxVUs: 10 }));
    const store = RunStore.create(root, meta({ attempts, ...over }));
    for (const r of buildRecords(SPEC)) store.appendBucket(r);
    store.close();
    const file = path.join(store.dir, 'buckets.ndjson');
    const lines = edit(fs.readFileSync(file, 'utf8').trim().split('\n'));
    if (lines === null) fs.rmSync(file);
    else fs.writeFileSync(file, lines.map((l) => `${l}\n`).join(''));
    return store.dir;
  }
  const refused = (dir: string) => {
    try {
      loadRun(dir);
    } catch (err) {
      expect(err).toBeInstanceOf(PlateauError);
      expect((err as PlateauError).hint).toMatch(/restore buckets\.ndjson from a copy, or re-run the test/);
      return (err as PlateauError).message;
    }
    throw new Error('loadRun read a damaged buckets.ndjson');
  };

  it.each<[string, (l: string[]) => string[] | null, RegExp]>([
    [
      'an object that is no second (`{}`)',
      (l) => [...l.slice(0, 3), '{}', ...l.slice(3)],
      /line 4 is no second of load \(source: /,
    ],
    [
      'a count below zero',
      (l) => l.map((x, i) => (i === 2 ? x.replace(/"ok":\d+/, '"ok":-500') : x)),
      /line 3 is no second of load \(ok: /,
    ],
    [
      'a block of lines copied (twice the throughput)',
      (l) => [...l.slice(0, 6), ...l.slice(2, 4), ...l.slice(6)],
      /line 7 repeats line 3 byte for byte \(fake\/0, steps second 2\): read twice, its arrivals would count twice/,
    ],
    ['the file removed', () => null, /is missing, though run\.json says the run completed its steps/],
    ['the file emptied', () => [], /holds no second of load, though run\.json says the run completed its steps/],
  ])('%s', (_name, edit, message) => {
    expect(refused(runEdited(edit))).toMatch(message);
  });

  it('reads an interrupted run with no second of load (it died before its first), and two records of one second that differ', () => {
    expect(loadRun(runEdited(() => null, { status: 'interrupted' })).records).toEqual([]);
    // a second split across an engine's legs is two records that differ: summed by the analysis, as before
    const dir = runEdited((l) => [...l, l[2].replace(/"started":(\d+)/, '"started":1')]);
    expect(loadRun(dir).records).toHaveLength(buildRecords(SPEC).length + 1);
  });
});

describe('a run id names one run', () => {
  it('two runs started at once with one run id: the second is refused, even past the existence check', () => {
    const first = RunStore.create(root, meta({ runId: 'twin' }));
    first.close();
    // the second run checked before the first made its directory: its mkdir must still refuse
    const exists = vi.spyOn(fs, 'existsSync').mockReturnValueOnce(false);
    try {
      expect(() => RunStore.create(root, meta({ runId: 'twin' }))).toThrow(/run id "twin" was used before: .* exists/);
    } finally {
      exists.mockRestore();
    }
  });
});
