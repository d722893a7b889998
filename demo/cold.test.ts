/** The demo's cold start: the multiplier, its validation, a real demo that gets faster, and --cold-s in --help. */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { coldFactorAt, validCold } from './cold.ts';
import { startDemo } from './server.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

describe('coldFactorAt', () => {
  it.each([
    // coldS, factor, ms since listening, multiplier
    [30, 3, 0, 3],
    [30, 3, 29_999, 3],
    [30, 3, 30_000, 1],
    [0, 3, 0, 1],
    [2, 1.5, 1_000, 1.5],
  ])('cold for %d s x %d: at %d ms the hold is x %d', (coldS, factor, sinceMs, multiplier) => {
    expect(coldFactorAt({ coldS, factor }, 1_000, 1_000 + sinceMs)).toBe(multiplier);
  });
});

describe('validCold', () => {
  it('defaults to never cold, factor 3', () => {
    expect(validCold(undefined, undefined)).toEqual({ coldS: 0, factor: 3 });
  });
  it.each([
    [-1, 3, /coldS must be a finite number of seconds >= 0, got -1/],
    [10, 0.5, /coldFactor must be a finite number >= 1 .*got 0.5/],
    [Infinity, 3, /coldS must be/],
    [undefined, 2, /coldFactor needs coldS/],
  ])('refuses coldS %s with factor %s', (coldS, factor, message) => {
    expect(() => validCold(coldS, factor)).toThrow(message);
  });
});

async function orderMs(url: string, id: string): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(`${url}/orders`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id, accountId: 1, amountCents: 1 }),
  });
  await res.arrayBuffer();
  expect(res.status).toBe(201);
  return performance.now() - t0;
}

describe('demo cold mode', () => {
  it('holds each request coldFactor times longer until coldS after listening, then at holdMs', async () => {
    const demo = await startDemo({ slots: 1, holdMs: 20, rows: 100, coldS: 1, coldFactor: 4 });
    try {
      expect(demo.cold).toEqual({ coldS: 1, factor: 4 });
      const gauge = async () =>
        /^demo_cold_factor (\S+)$/m.exec(await (await fetch(`${demo.url}/metrics`)).text())?.[1];
      expect(await gauge()).toBe('4');
      const coldMs = await orderMs(demo.url, 'cold-1');
      // 80 ms of hold; bounds wide enough for a busy machine, far apart enough to tell x4 from x1
      expect(coldMs).toBeGreaterThanOrEqual(78);
      await new Promise((r) => setTimeout(r, Math.max(0, 1_100 - coldMs)));
      // the fastest of three: a busy machine only adds to a request's time (one read 95 ms at a load average of 9)
      const warm = [
        await orderMs(demo.url, 'warm-1'),
        await orderMs(demo.url, 'warm-2'),
        await orderMs(demo.url, 'warm-3'),
      ];
      const warmMs = Math.min(...warm);
      expect(warmMs).toBeGreaterThanOrEqual(19);
      expect(warmMs, warm.join(', ')).toBeLessThan(60);
      expect(await gauge()).toBe('1');
    } finally {
      await demo.close();
    }
  });

  it('is documented in --help', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'demo/main.ts', '--help'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
    expect(stdout).toMatch(/--cold-s S\] \[--cold-factor F\]\s+a cold start: every hold F times longer/);
  }, 20_000);
});
