/**
 * The ids a run sends are its own, whatever its run id: two runs given one run id (a CI job's fixed
 * --run-id with a fresh runs directory, another machine) sent the same "ord-r2-0", "ord-r2-2"...
 * to a target whose idempotency cache answered the second run from the first's. Short runs on
 * 127.0.0.1 against a server that records the ids it was sent.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRun } from '../harness/store/run-store.ts';
import { tinyServer } from './helpers/tiny-server.ts';
import { DEMO_SCENARIO, runQuietly, tempRunsDir } from './helpers/pipeline.ts';

const env = { ...process.env, PLATEAU_DEMO_HMAC_KEY: 'run-ids-test-key' };
const runsDir = tempRunsDir();
/** The ids each POST /orders carried, in the order received. */
let received: string[] = [];
let server: Awaited<ReturnType<typeof tinyServer>>;

beforeAll(async () => {
  server = await tinyServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (req.method === 'POST') {
        const id = (JSON.parse(body) as { id: string }).id;
        received.push(id);
        res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ id }));
      } else res.writeHead(200).end('ok');
    });
  });
});
afterAll(async () => {
  await server.close();
  fs.rmSync(runsDir, { recursive: true, force: true });
});

/** One short run (a step of 1 s at 20/s, no warmup): the ids it sent and its run.json. */
async function idsOf(out: string, runId: string | undefined, workers: 1 | 2 = 1) {
  received = [];
  const r = await runQuietly(
    {
      target: { url: `${server.url}/orders` },
      scenario: DEMO_SCENARIO,
      steps: { startPerSec: 20, stepPerSec: 20, maxPerSec: 20, rampS: 0, holdS: 1, settleS: 0 },
      warmup: { enabled: false },
      rtt: { samples: 2 },
      verdicts: { confirmFailedStep: false },
      output: { dir: path.join(runsDir, out), ...(runId ? { runId } : {}) },
      workers,
    },
    { env },
  );
  expect(r.exitCode, r.lines.join('')).toBe(0);
  return { ids: [...received], meta: loadRun(r.dir).meta };
}

describe("a run's ids", () => {
  it('two runs given one run id, in two runs directories, send disjoint ids (worker threads too), each recorded in run.json', async () => {
    const a = await idsOf('runs-a', 'r2');
    const b = await idsOf('runs-b', 'r2', 2);
    for (const run of [a, b]) {
      expect(run.meta.runId).toBe('r2');
      expect(run.meta.idKey).toMatch(/^r2-[0-9a-z]{10}$/);
      expect(run.ids.length).toBeGreaterThan(10);
      // the sample arrival's (p0- after the prefix), then the load's, all of the run's key
      expect(run.ids[0]).toBe(`ord-p0-${run.meta.idKey}-0`);
      for (const id of run.ids.slice(1)) expect(id).toMatch(new RegExp(`^ord-${run.meta.idKey}-\\d+$`));
    }
    expect(a.meta.idKey).not.toBe(b.meta.idKey);
    expect(a.ids.filter((id) => b.ids.includes(id))).toEqual([]);
  });

  it('a generated run id is its own key: ids of prefix, run id and seq, as before', async () => {
    const { ids, meta } = await idsOf('runs-c', undefined);
    expect(meta.runId).toMatch(/^\d{8}-\d{6}-[0-9a-f]{4}$/);
    expect(meta.idKey).toBe(meta.runId);
    expect(ids[0]).toBe(`ord-p0-${meta.runId}-0`);
    for (const id of ids.slice(1)) expect(id).toMatch(new RegExp(`^ord-${meta.runId}-\\d+$`));
  });
});
