/**
 * CLI: npx tsx demo/main.ts --port 0 --slots 4 --hold-ms 10 [--acquire-timeout-ms N] [--rows N]
 *      [--id-max-length N] [--db-path FILE]
 *      [--contention-alpha A] [--coherency-beta B]       hold = holdMs (1 + A (n-1) + B n (n-1)), n busy slots
 *      [--coherency-window-ms W]     n = busy slots averaged over W ms (default 250; 0 = at the grant)
 *      [--replicas N] [--replicas-change-at-s S --replicas-change-to M]   gauge demo_replicas; slots per replica
 * The HMAC key comes only from the environment (PLATEAU_DEMO_HMAC_KEY) and is never printed.
 * Prints one JSON line to stdout once listening, a human line to stderr; exits 0 on SIGTERM/SIGINT.
 */
import { parseArgs } from 'node:util';
import { startDemo, type DemoOptions } from './server.ts';

const HMAC_ENV = 'PLATEAU_DEMO_HMAC_KEY';

function numberFlag(values: Record<string, string | undefined>, flag: string): number | undefined {
  const raw = values[flag];
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n)) throw new Error(`--${flag} must be a number, got "${raw}"`);
  return n;
}

function parseDemoArgs(argv: string[], env: NodeJS.ProcessEnv): DemoOptions {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      port: { type: 'string' },
      slots: { type: 'string' },
      'hold-ms': { type: 'string' },
      'acquire-timeout-ms': { type: 'string' },
      rows: { type: 'string' },
      'id-max-length': { type: 'string' },
      'db-path': { type: 'string' },
      'contention-alpha': { type: 'string' },
      'coherency-beta': { type: 'string' },
      'coherency-window-ms': { type: 'string' },
      replicas: { type: 'string' },
      'replicas-change-at-s': { type: 'string' },
      'replicas-change-to': { type: 'string' },
    },
  });
  const v = values as Record<string, string | undefined>;
  const key = env[HMAC_ENV];
  return {
    port: numberFlag(v, 'port') ?? 0,
    slots: numberFlag(v, 'slots'),
    holdMs: numberFlag(v, 'hold-ms'),
    acquireTimeoutMs: numberFlag(v, 'acquire-timeout-ms'),
    rows: numberFlag(v, 'rows'),
    idMaxLength: numberFlag(v, 'id-max-length'),
    dbPath: v['db-path'],
    contentionAlpha: numberFlag(v, 'contention-alpha'),
    coherencyBeta: numberFlag(v, 'coherency-beta'),
    coherencyWindowMs: numberFlag(v, 'coherency-window-ms'),
    replicas: numberFlag(v, 'replicas'),
    replicasChangeAtS: numberFlag(v, 'replicas-change-at-s'),
    replicasChangeTo: numberFlag(v, 'replicas-change-to'),
    hmacKey: key !== undefined && key !== '' ? key : undefined,
  };
}

async function main(): Promise<void> {
  let opts: DemoOptions;
  try {
    opts = parseDemoArgs(process.argv.slice(2), process.env);
  } catch (err) {
    process.stderr.write(`demo: ${(err as Error).message}\n`);
    process.exit(2);
  }
  const demo = await startDemo(opts);
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    demo.close().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`demo: error while closing: ${(err as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  const penalised = demo.coherency.contentionAlpha > 0 || demo.coherency.coherencyBeta > 0;
  const modes = {
    ...(penalised ? { ...demo.coherency, coherencyWindowMs: demo.coherencyWindowMs, peakConcurrency: demo.peakConcurrency, saturatedPerSec: demo.saturatedPerSec } : {}),
    ...(opts.replicas !== undefined || opts.replicasChangeAtS !== undefined ? { replicas: demo.replicas } : {}),
  };
  const line = { event: 'listening', url: demo.url, capacityPerSec: demo.capacityPerSec, slots: demo.slots, holdMs: demo.holdMs, ...modes };
  process.stdout.write(JSON.stringify(line) + '\n');
  const penalty = penalised
    ? `; penalty alpha ${demo.coherency.contentionAlpha}, beta ${demo.coherency.coherencyBeta} on the busy count averaged over ${demo.coherencyWindowMs} ms: peak ${demo.expectedPeakPerSec.toFixed(1)} req/s at ${demo.peakConcurrency} busy slots, ${demo.saturatedPerSec.toFixed(1)} req/s with all busy`
    : '';
  const change = opts.replicasChangeAtS !== undefined ? `; replicas ${demo.replicas} -> ${opts.replicasChangeTo} at ${opts.replicasChangeAtS} s` : '';
  process.stderr.write(
    `demo target on ${demo.url}: ${demo.slots} slots x ${demo.holdMs} ms hold = theoretical capacity ${+demo.capacityPerSec.toFixed(2)} req/s` +
      penalty + change + (opts.hmacKey ? ' (HMAC signatures required)' : '') + '\n',
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`demo: ${(err as Error).message}\n`);
  process.exit(1);
});
