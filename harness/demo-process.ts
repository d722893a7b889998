/**
 * Starts the embedded demo target (demo/main.ts) as a child process on 127.0.0.1 for
 * `plateau run --demo`, so it has its own event loop (and core), and stops it afterwards.
 * The HMAC key reaches it only through the environment.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { PlateauError, EXIT } from './errors.ts';

export const DEMO_KEY_ENV = 'PLATEAU_DEMO_HMAC_KEY';

export interface DemoOptions {
  slots: number;
  holdMs: number;
  /** Further demo/main.ts flags (modes: --acquire-timeout-ms, --coherency-beta, --replicas ...). */
  args?: string[];
}

export interface DemoProcess {
  url: string;
  capacityPerSec: number;
  stop(): Promise<void>;
}

/** The demo signs with this key; a fresh random one per run when the user set none. */
export function ensureDemoKey(env: NodeJS.ProcessEnv): void {
  if (!env[DEMO_KEY_ENV]) env[DEMO_KEY_ENV] = randomBytes(24).toString('hex');
}

export async function startDemoProcess(o: DemoOptions, env: NodeJS.ProcessEnv): Promise<DemoProcess> {
  // demo/main.ts, bundled (bin/bundle-cache.mjs)
  const main = fileURLToPath(new URL('../bin/demo.mjs', import.meta.url));
  const child = spawn(
    process.execPath,
    [main, '--port', '0', '--slots', String(o.slots), '--hold-ms', String(o.holdMs), ...(o.args ?? [])],
    {
      env,
      // the channel tells the demo when this process is gone, however it died (demo/main.ts)
      stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    },
  );
  // the channel must not keep this process alive by itself
  child.channel?.unref();
  const line = await firstLine(child);
  const msg = JSON.parse(line) as { url: string; capacityPerSec: number };
  return {
    url: msg.url,
    capacityPerSec: msg.capacityPerSec,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 5000).unref();
      }),
  };
}

function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    const rl = createInterface({ input: child.stdout! });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new PlateauError(
          'the demo target did not start within 30 s',
          'run `npx tsx demo/main.ts` by hand to see why',
          'demo-start',
          EXIT.preflight,
        ),
      );
    }, 30_000);
    rl.once('line', (l) => {
      clearTimeout(timer);
      rl.close();
      resolve(l);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(
        new PlateauError(
          `the demo target exited with code ${code} before listening`,
          'run `npx tsx demo/main.ts` by hand to see why',
          'demo-start',
          EXIT.preflight,
        ),
      );
    });
  });
}
