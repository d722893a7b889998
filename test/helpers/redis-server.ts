/**
 * The real parts of the downstream test, as child processes on 127.0.0.1: redis-server on a free
 * port (own temp dir, nothing persisted, DEBUG enabled for local connections only) and Debian's
 * prometheus-redis-exporter in front of it. `make test` installs both (scripts/ensure-redis.sh);
 * without them, findRedisTools() returns the name of the one missing and the test skips with it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { freePort } from './free-port.ts';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { RespClient } from './resp-client.ts';

export interface RedisTools {
  redisServer: string;
  exporter: string;
}

function onPath(name: string, env: NodeJS.ProcessEnv): string | null {
  for (const d of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    try {
      accessSync(join(d, name), constants.X_OK);
      return join(d, name);
    } catch {
      // not here
    }
  }
  return null;
}

/** redis-server and prometheus-redis-exporter on PATH, or the name of the one missing. */
export function findRedisTools(env: NodeJS.ProcessEnv = process.env): RedisTools | string {
  const redisServer = onPath('redis-server', env);
  const exporter = onPath('prometheus-redis-exporter', env);
  if (!redisServer) return 'redis-server';
  if (!exporter) return 'prometheus-redis-exporter';
  return { redisServer, exporter };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A child process, its stderr kept for a failing test's message, stopped with SIGTERM (SIGKILL after 5 s). */
interface Child {
  child: ChildProcess;
  log(): string;
  stop(): Promise<void>;
}

function start(binary: string, args: string[]): Child {
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const keep = (d: Buffer) => (out = (out + d.toString()).slice(-10_000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  return {
    child,
    log: () => out,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

async function until(ok: () => Promise<boolean>, what: string, c: Child, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (c.child.exitCode !== null) throw new Error(`${what} exited: ${c.log()}`);
    try {
      if (await ok()) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${what} not ready within ${timeoutMs} ms: ${c.log()}`);
    await sleep(50);
  }
}

export interface RedisHandle {
  port: number;
  /** redis://127.0.0.1:PORT */
  addr: string;
  log(): string;
  stop(): Promise<void>;
}

/** redis-server on a free port, its own temp dir, nothing persisted; removed on stop. */
export async function startRedis(binary: string): Promise<RedisHandle> {
  const dir = mkdtempSync(join(tmpdir(), 'plateau-redis-'));
  const port = await freePort();
  const c = start(binary, [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    'no',
    '--protected-mode',
    'no',
    '--enable-debug-command',
    'local',
  ]);
  const stop = async () => {
    await c.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await until(
      async () => {
        const client = await RespClient.connect(port);
        const { reply } = await client.call('PING');
        client.close();
        return reply === 'PONG';
      },
      'redis-server',
      c,
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return { port, addr: `redis://127.0.0.1:${port}`, log: c.log, stop };
}

export interface ExporterHandle {
  /** http://127.0.0.1:PORT (its series at /metrics) */
  url: string;
  stop(): Promise<void>;
}

/** prometheus-redis-exporter for `redis`, on `port` of 127.0.0.1 (a free one when not given). */
export async function startExporter(binary: string, redis: RedisHandle, port?: number): Promise<ExporterHandle> {
  port ??= await freePort();
  // no CONFIG GET on each scrape: 5 commands a scrape instead of 6, counted in Redis's ops like the target's
  const c = start(binary, [
    '--redis.addr',
    redis.addr,
    '--web.listen-address',
    `127.0.0.1:${port}`,
    '--config-command',
    '-',
  ]);
  const url = `http://127.0.0.1:${port}`;
  try {
    await until(async () => (await (await fetch(`${url}/metrics`)).text()).includes('redis_up 1'), 'the exporter', c);
  } catch (err) {
    await c.stop();
    throw err;
  }
  return { url, stop: c.stop };
}
