/** Shared helpers for the demo target tests (not a test file itself). */
import { createHmac } from 'node:crypto';

export function sign(body: string, key: string): string {
  return createHmac('sha256', key).update(body).digest('hex');
}

export async function postOrder(
  baseUrl: string,
  order: unknown,
  key?: string,
  signature?: string,
): Promise<{ status: number; json: any }> {
  const body = JSON.stringify(order);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const sig = signature ?? (key !== undefined ? sign(body, key) : undefined);
  if (sig !== undefined) headers['x-signature'] = sig;
  const res = await fetch(`${baseUrl}/orders`, { method: 'POST', headers, body });
  return { status: res.status, json: await res.json() };
}

/** Parse Prometheus text: "name{labels}" -> value, plus HELP/TYPE lines by metric name. */
export function parseMetrics(text: string): { samples: Map<string, number>; types: Map<string, string> } {
  const samples = new Map<string, number>();
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) types.set(type[1]!, type[2]!);
    if (line.startsWith('#')) continue;
    const m = /^(\S+?(?:\{[^}]*\})?) (\S+)$/.exec(line);
    if (!m) throw new Error(`bad metrics line: ${line}`);
    samples.set(m[1]!, Number(m[2]));
  }
  return { samples, types };
}

export function ordersSeries(
  suffix: 'count' | 'sum' | 'max',
  status: number,
  outcome: string,
  exception = 'None',
): string {
  return `http_server_requests_seconds_${suffix}{method="POST",uri="/orders",status="${status}",outcome="${outcome}",exception="${exception}"}`;
}
