import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cliBinary } from './helpers/cli.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/**
 * The demo as plateau starts it (harness/demo-process.ts): bin/demo.mjs, demo/main.ts from its
 * cached bundle (through tsx when none can be made: the same code). Through tsx each start
 * compiled the demo's modules anew, about 1 to 3 s of a busy machine's CPU a start.
 */
const DEMO = 'bin/demo.mjs';

describe('demo CLI', () => {
  it('started with a channel to its parent (as plateau starts it), exits when the channel closes: a parent killed by SIGKILL leaves no demo behind', async () => {
    const child = spawn(process.execPath, [DEMO, '--port', '0', '--slots', '2', '--hold-ms', '5', '--rows', '10'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'ignore', 'ipc'],
      env: { ...process.env, PLATEAU_DEMO_HMAC_KEY: 'k' },
    });
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    try {
      const lines = createInterface({ input: child.stdout! });
      const [first] = (await once(lines, 'line')) as [string];
      const { url } = JSON.parse(first) as { url: string };
      expect((await fetch(`${url}/health`)).status).toBe(200);
      const exited = once(child, 'exit');
      child.disconnect(); // what the parent's death does to the channel
      const [code] = (await exited) as [number | null];
      expect(code).toBe(0);
      await expect(fetch(`${url}/health`)).rejects.toThrow();
    } finally {
      clearTimeout(killer);
    }
  });

  it('prints one listening line, keeps the HMAC key secret, and exits 0 on SIGTERM', async () => {
    const secret = 'cli-secret-key-123';
    const child = spawn(process.execPath, [DEMO, '--port', '0', '--slots', '4', '--hold-ms', '10', '--rows', '100'], {
      cwd: ROOT,
      env: { ...process.env, PLATEAU_DEMO_HMAC_KEY: secret },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
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
        readHoldMs: 2,
        confirmHoldMs: 10,
        mixArrivalsPerSec: expect.closeTo(4000 / 4.9, 6),
        mixRequestsPerSec: expect.closeTo((4000 / 4.9) * 1.05, 6),
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
      expect(stderr).toContain(
        `demo target on ${msg.url}: 4 slots x 10 ms hold = theoretical capacity 400 req/s of writes alone`,
      );
      expect(stderr).toContain(
        'demo: pool 4, hold read 2 ms / write 10 ms / confirm 10 ms: its own mix (demo/scenario.ts) 70/25/5 -> theoretical capacity about 816 arrivals/s (857 req/s)',
      );
      expect(stdout + stderr).not.toContain(secret);
    } finally {
      clearTimeout(killer);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  }, 20_000);

  it('takes the hold of each route and states the mix capacity they give', async () => {
    const args = ['--slots', '2', '--hold-ms', '10', '--read-hold-ms', '4', '--confirm-hold-ms', '6', '--rows', '10'];
    const child = spawn(process.execPath, [DEMO, '--port', '0', ...args], {
      cwd: ROOT,
      env: { ...process.env, PLATEAU_DEMO_HMAC_KEY: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    try {
      const [first] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
      // 0.7 x 4 + 0.25 x 10 + 0.05 x (10 + 6) = 6.1 ms per arrival: 2 / 6.1 x 1000 arrivals/s
      expect(JSON.parse(first)).toMatchObject({ readHoldMs: 4, confirmHoldMs: 6, mixArrivalsPerSec: 2000 / 6.1 });
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
      expect(stderr).toContain(
        'demo: pool 2, hold read 4 ms / write 10 ms / confirm 6 ms: its own mix (demo/scenario.ts) 70/25/5 -> theoretical capacity about 328 arrivals/s (344 req/s)',
      );
    } finally {
      clearTimeout(killer);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  }, 20_000);

  it('refuses a read hold that is not a positive number', async () => {
    const child = spawn(process.execPath, [DEMO, '--read-hold-ms', '0'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    const [code] = (await once(child, 'exit')) as [number | null];
    clearTimeout(killer);
    expect(code).toBe(1);
    expect(stderr).toContain('demo: readHoldMs must be a finite number of ms > 0, got 0');
  }, 20_000);

  it('rejects a bad flag with exit code 2', async () => {
    const child = spawn(process.execPath, [DEMO, '--slots', 'many'], {
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

  it("plateau plan --demo from a directory without a config plans the demo's own steps (plateau's plateau.config.ts)", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plateau-elsewhere-'));
    try {
      const { status, stdout, stderr } = await cliBinary(['plan', '--demo'], { cwd: dir });
      expect(status, stderr).toBe(0);
      expect(stdout).toMatch(/^target {3}http:\/\/127\.0\.0\.1:0\/orders$/m);
      // threads where the machine gives workers: auto more than one (the demo is on this machine), as run does
      const sized = /^threads {2}after the warmup, the steps keep as few of the \d+ engine threads/m.test(stdout);
      expect(stdout).toMatch(/^threads {2}(after the warmup|not sized: the engine runs on one thread)/m);
      expect(stdout).toMatch(
        new RegExp(
          `^stages {3}preflight -> reset -> rtt -> warmup -> ${sized ? 'threads -> ' : ''}20 steps -> report$`,
          'm',
        ),
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
