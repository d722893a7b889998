/**
 * RTT: how far the generator is from the target. N TCP connects and N HTTP round trips on one
 * kept-alive connection to a cheap endpoint; median and p90 of each. Shown in the report and used
 * to size the VUs (a distant generator needs more VUs for the same rate: N = X x W).
 */
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { Client } from 'undici';
import type { StageResult } from './stage.ts';
import type { RttFigures } from '../../analysis/types.ts';

/** Measured here, the fastest round trip is always present. */
export type Rtt = RttFigures & { httpMinMs: number };

export async function measureRtt(origin: string, path: string, samples: number): Promise<StageResult<Rtt>> {
  const url = new URL(origin);
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const connects: number[] = [];
  for (let i = 0; i < samples; i++) connects.push(await tcpConnectMs(url.hostname, port));
  const client = new Client(origin, { pipelining: 1 });
  const https: number[] = [];
  try {
    for (let i = 0; i <= samples; i++) {
      const t0 = performance.now();
      const res = await client.request({ method: 'GET', path });
      await res.body.dump();
      if (i > 0) https.push(performance.now() - t0); // the first one paid for the connection
    }
  } finally {
    await client.close();
  }
  const value = {
    connectMedianMs: quantile(connects, 0.5),
    httpMedianMs: quantile(https, 0.5),
    httpP90Ms: quantile(https, 0.9),
    httpMinMs: Math.min(...https),
    samples,
  };
  return {
    value,
    detail: `TCP connect median ${value.connectMedianMs.toFixed(3)} ms; HTTP round trip to ${path} median ${value.httpMedianMs.toFixed(3)} ms, p90 ${value.httpP90Ms.toFixed(3)} ms, min ${value.httpMinMs.toFixed(3)} ms (${samples} samples each)`,
    evidence: [
      `connect ms: ${connects.map((x) => x.toFixed(3)).join(' ')}`,
      `http ms: ${https.map((x) => x.toFixed(3)).join(' ')}`,
    ],
  };
}

function tcpConnectMs(host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const s = net.connect({ host, port });
    s.once('connect', () => {
      const ms = performance.now() - t0;
      s.destroy();
      resolve(ms);
    });
    s.once('error', reject);
  });
}

/** Nearest-rank quantile of a small sample. */
export function quantile(xs: number[], q: number): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
}
