/**
 * Preflight's label check on the direct path (metrics.url, no Prometheus) against a target whose
 * registry a periodic reader fills (OpenTelemetry's PeriodicExportingMetricReader pushes every
 * 60 s by default to a collector whose Prometheus exporter is metrics.url): the sample request is
 * counted only at the next export, which this target makes when the test says (no timer). Review
 * G17: a filter naming the route the samples call is said, not refused; a wrong filter still is.
 * A real server on 127.0.0.1, preflight alone: each test well under a second.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfigOrThrow } from '../harness/config/validate.ts';
import { preflight } from '../harness/pipeline/preflight.ts';
import { scenarioRequests } from '../harness/scenario/requests.ts';
import { PlateauError } from '../harness/errors.ts';
import { tinyServer } from './helpers/tiny-server.ts';
import { tempRunsDir } from './helpers/pipeline.ts';

/** A target counting its requests by route, its /metrics the counts of its last export (Spring's names). */
async function exportingTarget() {
  const live = new Map<string, number>();
  let exported = '';
  const exportNow = () => {
    exported = [...live]
      .flatMap(([uri, n]) => [
        `http_server_requests_seconds_count{application="shop",method="GET",status="200",uri="${uri}"} ${n}`,
        `http_server_requests_seconds_sum{application="shop",method="GET",status="200",uri="${uri}"} ${n * 0.002}`,
      ])
      .join('\n');
  };
  const server = await tinyServer((q, res) => {
    if (q.url === '/metrics') return res.end(`${exported}\n`);
    const uri = q.url === '/health' ? '/health' : '/orders';
    live.set(uri, (live.get(uri) ?? 0) + 1);
    res.end('ok');
  });
  return { ...server, exportNow };
}

let target: Awaited<ReturnType<typeof exportingTarget>>;
const runsDir = tempRunsDir();
beforeAll(async () => {
  target = await exportingTarget();
  // started and health-checked once, exported once: the registry holds /health alone
  await fetch(`${target.url}/health`);
  target.exportNow();
});
afterAll(async () => {
  await target.close();
  fs.rmSync(runsDir, { recursive: true, force: true });
});

async function preflightWith(labels: Record<string, string>) {
  const config = parseConfigOrThrow({
    target: { url: `${target.url}/orders` },
    steps: { startPerSec: 10, stepPerSec: 10, maxPerSec: 10, rampS: 0, holdS: 1 },
    metrics: { url: '/metrics', requests: { labels } },
    output: { dir: runsDir },
  });
  const requests = await scenarioRequests(null, config.target.url, 'labels');
  return preflight({
    config,
    scenario: requests.scenario,
    requests,
    idKey: 'labels',
    maxSeq: 10,
    maxRows: 10,
    maxVUs: 10,
    durationS: 1,
    env: {},
  });
}

describe('preflight on the direct path, the sample request counted at the next export (review G17)', () => {
  it('says a filter naming the route the samples call, not yet exported, and passes', async () => {
    const r = await preflightWith({ application: 'shop', uri: '/orders' });
    expect(r.detail).toMatch(
      /; metrics\.requests\.labels \{application="shop",uri="\/orders"\} match no series of http_server_requests_seconds_count in metrics endpoint http:\/\/127\.0\.0\.1:\d+\/metrics yet \(uri values there: "\/health"\): set its uri to the route/,
    );
  });

  it('refuses a filter whose other label matches nothing, or a label no series has, before any load (exit 3)', async () => {
    for (const [labels, why] of [
      [{ application: 'shopp', uri: '/orders' }, /\(application: "shop"; uri: "\/health"\)/],
      [{ urii: '/orders' }, /\(urii: no such label\)/],
    ] as const) {
      const err = await preflightWith(labels).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PlateauError);
      expect((err as PlateauError).message).toMatch(why);
      expect((err as PlateauError).exitCode).toBe(3);
    }
  });

  it('once the samples are exported, the same filter passes with nothing said', async () => {
    // a sample request of an earlier preflight, exported: this one's own is counted at the next export
    await fetch(`${target.url}/orders`);
    target.exportNow();
    const r = await preflightWith({ application: 'shop', uri: '/orders' });
    expect(r.detail).not.toContain('metrics.requests.labels');
  });
});
