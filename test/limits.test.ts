/**
 * Safety caps (issue 8): limits.maxRatePerSec, maxDurationS and maxInFlight refuse a plan over them
 * before any load and bound what the engine does; the open-file limit is checked against maxVUs.
 */
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { BucketRecord } from '../analysis/types.ts';
import { readConfigFile } from '../harness/config/load.ts';
import { validateConfig, parseConfigOrThrow } from '../harness/config/validate.ts';
import { plannedLoadS } from '../harness/limits.ts';
import { buildPlan } from '../analysis/plan.ts';
import { checkOpenFiles } from '../harness/pipeline/generator-limits.ts';
import { PlateauError } from '../harness/errors.ts';
import { startFaultServer } from './helpers/fault-server.ts';
import { tinyServer } from './helpers/tiny-server.ts';
import { runQuietly, tempRunsDir } from './helpers/pipeline.ts';

const runsDir = tempRunsDir();
afterAll(() => fs.rmSync(runsDir, { recursive: true, force: true }));

const base = {
  target: { url: 'http://127.0.0.1:8080/orders' },
  steps: { startPerSec: 50, stepPerSec: 50, maxPerSec: 500, rampS: 2, holdS: 10 },
};
type Obj = Record<string, unknown>;

describe('a plan over a limit is refused before load, naming the field', () => {
  it.each<[string, Obj, string, RegExp]>([
    [
      'rate over maxRatePerSec',
      { ...base, limits: { maxRatePerSec: 400 } },
      'steps.maxPerSec',
      /500 arrivals\/s exceeds limits\.maxRatePerSec 400: lower steps\.maxPerSec/,
    ],
    [
      'warmup over maxRatePerSec',
      { ...base, warmup: { ratePerSec: 900 }, limits: { maxRatePerSec: 600 } },
      'warmup.ratePerSec',
      /900 arrivals\/s exceeds limits\.maxRatePerSec 600/,
    ],
    [
      'duration over maxDurationS',
      { ...base, limits: { maxDurationS: 60 } },
      'steps',
      /offers load for up to 151 s \(10 steps x \(2 s ramp \+ 10 s hold\) \+ 31 s warmup\), over limits\.maxDurationS 60/,
    ],
    [
      'a billion steps',
      { ...base, steps: { ...base.steps, startPerSec: 1e-9, stepPerSec: 1e-9, maxPerSec: 1 } },
      'steps',
      /more than a million/,
    ],
    [
      'vus.max over maxInFlight',
      { ...base, vus: { max: 500 }, limits: { maxInFlight: 100 } },
      'vus.max',
      /500 VUs exceeds limits\.maxInFlight 100/,
    ],
    [
      'vus.preAllocated over maxInFlight',
      { ...base, vus: { preAllocated: 200 }, limits: { maxInFlight: 100 } },
      'vus.preAllocated',
      /200 VUs exceeds limits\.maxInFlight 100/,
    ],
    ['a limit that is not positive', { ...base, limits: { maxInFlight: 0 } }, 'limits.maxInFlight', /must be > 0/],
  ])('%s', (_name, raw, field, message) => {
    const r = validateConfig(raw);
    const p = r.problems.find((x) => x.field === field);
    expect(p, JSON.stringify(r.problems)).toBeDefined();
    expect(p!.message).toMatch(message);
  });

  it("the defaults do not bite the repository's own config (make loadtest)", async () => {
    const config = parseConfigOrThrow(await readConfigFile('plateau.config.ts'));
    expect(config.limits).toEqual({ maxRatePerSec: 100_000, maxDurationS: 3600, maxInFlight: 10_000 });
    expect(plannedLoadS(config)).toBeLessThan(config.limits.maxDurationS);
    expect(buildPlan(config, 1).vus.maxVUs).toBeLessThan(config.limits.maxInFlight);
  });

  it("maxInFlight caps the VUs Little's law would size", () => {
    const config = parseConfigOrThrow({ ...base, limits: { maxInFlight: 8 } });
    const vus = buildPlan(config, 20).vus;
    expect(vus.preAllocatedVUs).toBeLessThanOrEqual(8);
    expect(vus.maxVUs).toBe(8);
    expect(vus.reason).toMatch(/capped at limits\.maxInFlight 8/);
  });

  it('a run over a limit never starts: the pipeline is refused at validation', async () => {
    expect(() => parseConfigOrThrow({ ...base, limits: { maxRatePerSec: 100 } })).toThrow(PlateauError);
  });
});

describe('the engine stays under the limits', () => {
  it('never more requests in flight than maxInFlight, and never more arrivals than maxRatePerSec', async () => {
    // Every load request hangs until the 1 s deadline: in-flight work piles up to the cap, the rest is dropped.
    const server = await startFaultServer({ mode: 'hang', every: 1 });
    try {
      const r = await runQuietly({
        target: { url: `${server.url}/load` },
        steps: { startPerSec: 20, stepPerSec: 20, maxPerSec: 20, rampS: 0, holdS: 3, settleS: 1 },
        warmup: { enabled: false },
        rtt: { samples: 2 },
        http: { timeoutMs: 1000 },
        verdicts: { confirmFailedStep: false },
        limits: { maxInFlight: 4, maxRatePerSec: 20 },
        workers: 1,
        output: { dir: runsDir, runId: 'in-flight-cap' },
      });
      expect(r.exitCode, r.lines.join('')).toBe(0);
      const recs = fs
        .readFileSync(`${r.dir}/buckets.ndjson`, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as BucketRecord)
        .filter((b) => b.phase === 'steps');
      expect(Math.max(...recs.map((b) => b.vusActiveMax))).toBeLessThanOrEqual(4);
      expect(Math.max(...recs.map((b) => b.vusAllocated))).toBeLessThanOrEqual(4);
      expect(server.stats.maxOpen).toBeLessThanOrEqual(4);
      expect(recs.reduce((a, b) => a + b.dropped, 0)).toBeGreaterThan(20);
      for (const b of recs) expect(b.started + b.dropped).toBeLessThanOrEqual(21); // 20 arrivals a second, one more at a boundary
      expect(recs.reduce((a, b) => a + b.started + b.dropped, 0)).toBeLessThanOrEqual(60);
    } finally {
      await server.close();
    }
  });

  it('a run whose reruns would outlast maxDurationS is stopped when it reaches it', async () => {
    // Every load request answers 503: the step fails, and its confirmation rerun would run past the cap.
    const server = await startFaultServer({ mode: 'burst-5xx', burstFrom: 1 });
    try {
      const started = Date.now();
      const r = await runQuietly({
        target: { url: `${server.url}/load` },
        steps: { startPerSec: 10, stepPerSec: 10, maxPerSec: 10, rampS: 0, holdS: 3, settleS: 1 },
        warmup: { enabled: false },
        rtt: { samples: 2 },
        limits: { maxDurationS: 5 },
        output: { dir: runsDir, runId: 'duration-cap' },
      });
      expect(r.lines.join('')).toMatch(/limits\.maxDurationS: 5 s of load reached/);
      expect(r.result.interrupted).toBe(true);
      expect(r.exitCode).toBe(130);
      // the report says it was the cap, not a signal, and how to let the run reach its limit
      expect(r.result.stopDetail).toMatch(
        /^limits\.maxDurationS \(5 s of load\) was reached: interrupted .*; raise limits\.maxDurationS to let the run reach its limit$/,
      );
      expect(fs.readFileSync(`${r.dir}/report.md`, 'utf8')).toContain('limits.maxDurationS (5 s of load) was reached');
      const recs = fs
        .readFileSync(`${r.dir}/buckets.ndjson`, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as BucketRecord)
        .filter((b) => b.phase === 'steps' && b.started > 0);
      // 5 s of load at 10/s: the step's 3 s (30 arrivals), then 2 s of its rerun (the one on the
      // cap's last instant at most besides); the gap before the rerun is no load
      const arrivals = recs.reduce((a, b) => a + b.started, 0);
      expect(arrivals).toBeGreaterThan(30);
      expect(arrivals).toBeLessThanOrEqual(51);
      expect(Date.now() - started).toBeLessThan(15_000);
    } finally {
      await server.close();
    }
  });

  it('a plan whose load fills maxDurationS exactly runs whole: the RTT, thread start and connecting are no load', async () => {
    const server = await tinyServer((_req, res) => res.end('ok'));
    try {
      const r = await runQuietly({
        target: { url: `${server.url}/load` },
        steps: { startPerSec: 10, stepPerSec: 10, maxPerSec: 10, rampS: 1, holdS: 3, settleS: 1 },
        warmup: { enabled: false },
        // the time the engine's two threads take to start counted against the cap before
        workers: 2,
        limits: { maxDurationS: 4 },
        output: { dir: runsDir, runId: 'duration-cap-filled' },
      });
      expect(r.exitCode, r.lines.join('')).toBe(0);
      expect(r.lines.join('')).not.toMatch(/maxDurationS/);
      expect(r.result.interrupted).toBe(false);
      expect(r.result.steps.map((s) => s.verdict)).toEqual(['holds']);
    } finally {
      await server.close();
    }
  });
});

describe('open files vs VUs', () => {
  it.each<[number, number | null, RegExp | null]>([
    [
      100,
      50,
      /the open-file limit is 50, but up to 100 VUs need about 164 descriptors .* raise it \(ulimit -n 4096\) or lower vus\.max/,
    ],
    [1000, 1024, /the open-file limit is 1024, but up to 1000 VUs need about 1064/],
    [10, 1024, null],
    [10_000, null, null],
  ])('maxVUs %s with an open-file limit of %s', (maxVUs, limit, error) => {
    if (error) {
      const err = (() => {
        try {
          checkOpenFiles(maxVUs, limit);
          return null;
        } catch (e) {
          return e as PlateauError;
        }
      })();
      expect(err).toBeInstanceOf(PlateauError);
      expect(`${err!.message} ${err!.hint}`).toMatch(error);
      expect(err!.exitCode).toBe(3);
    } else {
      expect(checkOpenFiles(maxVUs, limit)).toMatch(
        limit === null ? /unknown or unlimited/ : /open-file limit 1024 >= 74 needed for 10 VUs/,
      );
    }
  });
});
