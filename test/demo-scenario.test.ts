/**
 * demo/scenario.ts against the demo it is written for, without plateau's runtime: a minimal driver
 * here gives each entry a context (ids, pick, HMAC, the accounts.csv row, sleep) and a transaction
 * its http.send over fetch, so the scenario's requests, checks and transaction are tried against
 * the real server on 127.0.0.1. The scenario's shape is checked by plateau's own rules.
 */
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import scenario from '../demo/scenario.ts';
import { demoMixEntries } from '../demo/capacity.ts';
import { SEED_ORDERS } from '../demo/mix.ts';
import { startDemo, type DemoHandle } from '../demo/server.ts';
import { rowIndex } from '../harness/scenario/data-rows.ts';
import { parseCsv } from '../harness/scenario/csv-rows.ts';
import { scenarioProblems, trafficOf } from '../harness/scenario/traffic.ts';
import type {
  Check,
  RequestEntry,
  RequestSpec,
  ResponseInfo,
  Row,
  ScenarioContext,
  SentResponse,
  TransactionEntry,
} from '../harness/scenario/types.ts';

const KEY = 'test-scenario-key';
const KEY_ENV = 'PLATEAU_DEMO_HMAC_KEY';
const accounts = parseCsv(readFileSync(new URL('../demo/accounts.csv', import.meta.url), 'utf8'));

function contextFor(seq: number, key: string): ScenarioContext {
  const env: Record<string, string> = { [KEY_ENV]: key };
  return {
    runId: 'scn',
    seq,
    env,
    uniqueId: () => `ord-scn-${seq}`,
    pick: (keySpace = 100_000) => (Math.imul(seq, 2654435761) >>> 0) % keySpace,
    hmacSha256: (name, body) => createHmac('sha256', env[name]!).update(body).digest('hex'),
    row: (name: string): Row => {
      if (name !== 'accounts') throw new Error(`no data source ${name}`);
      return accounts[rowIndex('sequential', seq, accounts.length, 0)!]!;
    },
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
  };
}

async function send(demo: DemoHandle, spec: RequestSpec): Promise<ResponseInfo> {
  const res = await fetch(new URL(spec.url, demo.url), {
    method: spec.method ?? 'GET',
    // a number is sent as its digits, as plateau's engines send it
    headers: Object.fromEntries(Object.entries(spec.headers ?? {}).map(([k, v]) => [k, String(v)])),
    body: typeof spec.body === 'string' || spec.body === undefined ? spec.body : Buffer.from(spec.body),
  });
  const body = await res.text();
  return {
    status: res.status,
    headers: Object.fromEntries(res.headers),
    body,
    truncated: false,
    json: () => JSON.parse(body),
    text: () => body,
  };
}

/** true, or the check's message (false without one becomes 'check failed'). */
function verdict(check: Check | undefined, res: ResponseInfo): true | string {
  const v = check?.(res);
  return v === undefined || v === true ? true : v === false ? 'check failed' : v;
}

async function runRequest(demo: DemoHandle, name: string, seq: number, key = KEY): Promise<true | string> {
  const e = scenario.mix![name] as RequestEntry;
  return verdict(e.check, await send(demo, e.request(contextFor(seq, key))));
}

/** Runs a transaction; returns each named request's verdict in order. */
async function runTransaction(demo: DemoHandle, name: string, seq: number, key = KEY) {
  const sent: Array<{ name: string; ok: true | string; body: any }> = [];
  const http = {
    send: async (n: string, spec: RequestSpec, check?: Check): Promise<SentResponse> => {
      const res = await send(demo, spec);
      const v = res.status >= 400 ? `status ${res.status}` : verdict(check, res);
      sent.push({ name: n, ok: v, body: res.json() });
      return { ...res, ok: v === true, ...(v === true ? {} : { error: v }) };
    },
  };
  await (scenario.mix![name] as TransactionEntry).run(contextFor(seq, key), http);
  return sent;
}

describe('demo/scenario.ts, the realistic mix', () => {
  it('passes plateau’s scenario rules, with the names and weights the demo’s capacity counts', () => {
    expect(scenarioProblems(scenario)).toEqual([]);
    const traffic = trafficOf(scenario);
    expect(traffic.byName).toBe(true);
    const holds = { readMs: 1, writeMs: 2, confirmMs: 3 };
    expect(traffic.entries.map((e) => [e.name, e.weight, e.run !== undefined])).toEqual(
      demoMixEntries(holds).map((e) => [e.name, e.weight, e.holdsMs.length > 1]),
    );
    expect(scenario.data).toEqual({ accounts: { csv: './accounts.csv', order: 'sequential' } });
    // both one-request entries check the body
    expect(traffic.entries.filter((e) => e.checkReadsBody).map((e) => e.name)).toEqual(['read order', 'create order']);
  });

  it('ships accounts.csv: a few hundred distinct account ids, each an account of every demo size tests use', () => {
    expect(accounts.length).toBeGreaterThanOrEqual(200);
    expect(accounts.length).toBeLessThanOrEqual(1000);
    const ids = accounts.map((r) => Number(r.id));
    expect(ids.every((id) => Number.isInteger(id) && id >= 1 && id <= 1000)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(Object.keys(accounts[0]!)).toEqual(['id']);
  });

  describe('against the demo', () => {
    let demo: DemoHandle;
    beforeAll(async () => {
      demo = await startDemo({ slots: 4, holdMs: 2, rows: 1000, hmacKey: KEY });
    });
    afterAll(async () => {
      await demo?.close();
    });

    it('reads seeded orders: the demo seeds every id the scenario picks', async () => {
      expect(demo.seedOrders).toBe(SEED_ORDERS);
      const results = await Promise.all(Array.from({ length: 40 }, (_, i) => runRequest(demo, 'read order', i + 1)));
      expect(results).toEqual(Array(40).fill(true));
      // the highest seed the scenario can pick exists too
      expect((await fetch(`${demo.url}/orders/seed-${SEED_ORDERS - 1}`)).status).toBe(200);
    });

    it('creates orders for the accounts of accounts.csv, signed', async () => {
      for (let seq = 1; seq <= 5; seq++) expect(await runRequest(demo, 'create order', seq)).toBe(true);
      expect(demo.stats().writes).toBe(5);
      const order = (await (await fetch(`${demo.url}/orders/ord-scn-3`)).json()) as { accountId: number };
      expect(order.accountId).toBe(Number(accounts[2]!.id));
    });

    it('checks say why a response is refused', async () => {
      expect(await runRequest(demo, 'create order', 100, 'not-the-key')).toBe('expected 201 Created, got 401');
      const none = await startDemo({ rows: 10, seedOrders: 0 });
      try {
        expect(await runRequest(none, 'read order', 1)).toBe('expected 200, got 404');
      } finally {
        await none.close();
      }
    });

    it('checkout creates an order, thinks, and confirms that order', async () => {
      const sent = await runTransaction(demo, 'checkout', 200);
      expect(sent.map((s) => [s.name, s.ok])).toEqual([
        ['checkout: create', true],
        ['checkout: confirm', true],
      ]);
      expect(sent[1]!.body).toMatchObject({ id: 'ord-scn-200', status: 'confirmed' });
      expect(demo.stats()).toMatchObject({ confirms: 1 });
    });

    it('checkout stops at a failed create and sends no confirm', async () => {
      const confirms = demo.stats().confirms;
      const sent = await runTransaction(demo, 'checkout', 201, 'not-the-key');
      expect(sent.map((s) => [s.name, s.ok])).toEqual([['checkout: create', 'status 401']]);
      expect(demo.stats().confirms).toBe(confirms);
    });
  });
});
