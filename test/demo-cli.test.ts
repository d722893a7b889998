import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

describe('demo CLI', () => {
  it('prints one listening line, keeps the HMAC key secret, and exits 0 on SIGTERM', async () => {
    const secret = 'cli-secret-key-123';
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'demo/main.ts', '--port', '0', '--slots', '4', '--hold-ms', '10', '--rows', '100'],
      { cwd: ROOT, env: { ...process.env, PLATEAU_DEMO_HMAC_KEY: secret }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    let stdout = '';
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    try {
      const lines = createInterface({ input: child.stdout! });
      lines.on('line', (l) => (stdout += l + '\n'));
      const [first] = (await once(lines, 'line')) as [string];
      const msg = JSON.parse(first);
      expect(msg).toEqual({
        event: 'listening',
        url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
        capacityPerSec: 400,
        slots: 4,
        holdMs: 10,
      });

      const health = await fetch(`${msg.url}/health`);
      expect(health.status).toBe(200);
      const unsigned = await fetch(`${msg.url}/orders`, {
        method: 'POST',
        body: '{"id":"a","accountId":1,"amountCents":1}',
      });
      expect(unsigned.status).toBe(401); // key taken from the environment

      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const [code, signal] = (await exited) as [number | null, string | null];
      expect(signal).toBeNull();
      expect(code).toBe(0);
      expect(stdout.trim().split('\n')).toHaveLength(1);
      expect(stderr).toContain(`demo target on ${msg.url}: 4 slots x 10 ms hold = theoretical capacity 400 req/s`);
      expect(stdout + stderr).not.toContain(secret);
    } finally {
      clearTimeout(killer);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  }, 20_000);

  it('rejects a bad flag with exit code 2', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'demo/main.ts', '--slots', 'many'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    const [code] = (await once(child, 'exit')) as [number | null];
    clearTimeout(killer);
    expect(code).toBe(2);
    expect(stderr).toContain('--slots must be a number');
  }, 20_000);
});
