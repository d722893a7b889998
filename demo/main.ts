/**
 * CLI of the demo target; USAGE below is what --help prints. The HMAC key comes only from the
 * environment (PLATEAU_DEMO_HMAC_KEY) and is never printed. Prints one JSON line to stdout once
 * listening, two human lines to stderr (its capacity for writes alone, then for demo/scenario.ts's mix);
 * exits 0 on SIGTERM/SIGINT.
 */
import { parseArgs } from 'node:util';
import { startDemo, type DemoOptions } from './server.ts';
import { mixCapacityLine } from './capacity.ts';

const HMAC_ENV = 'PLATEAU_DEMO_HMAC_KEY';

const USAGE = `usage: npx tsx demo/main.ts [options]
  --port N                     port on 127.0.0.1 (default 0: any free port)
  --slots N --hold-ms MS       pool slots and the hold of a write (POST /orders): slots / hold-ms x 1000 writes/s
  [--read-hold-ms MS]          the hold of a read, GET /orders/{id} (default hold-ms / 5)
  [--confirm-hold-ms MS]       the hold of a confirm, POST /orders/{id}/confirm (default hold-ms)
                               demo/scenario.ts's mix: capacity = slots / mean hold per arrival (printed at start)
  [--seed-orders N]            orders seed-0 .. seed-<N-1> seeded at start and on reset (default 10000)
  [--acquire-timeout-ms N]     a request waiting longer for a slot gets 503 (default: an unbounded queue)
  [--rows N] [--id-max-length N] [--db-path FILE]
  [--contention-alpha A] [--coherency-beta B]    hold = hold-ms (1 + A (n-1) + B n (n-1)), n busy slots
  [--coherency-window-ms W]    n = busy slots averaged over W ms (default 250; 0 = at the grant)
  [--replicas N] [--replicas-change-at-s S --replicas-change-to M]   gauge demo_replicas; slots per replica
  [--cold-s S] [--cold-factor F]   a cold start: every hold F times longer (default 3) for the first S seconds
                               after listening, steady while slow (gauge demo_cold_factor)
  --help                       this text
environment: ${HMAC_ENV} (when set, orders must carry its HMAC-SHA256 in x-signature)`;

function numberFlag(values: Record<string, string | undefined>, flag: string): number | undefined {
  const raw = values[flag];
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n)) throw new Error(`--${flag} must be a number, got "${raw}"`);
  return n;
}

function parseDemoArgs(argv: string[], env: NodeJS.ProcessEnv): DemoOptions | 'help' {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      port: { type: 'string' },
      slots: { type: 'string' },
      'hold-ms': { type: 'string' },
      'read-hold-ms': { type: 'string' },
      'confirm-hold-ms': { type: 'string' },
      'seed-orders': { type: 'string' },
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
      'cold-s': { type: 'string' },
      'cold-factor': { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) return 'help';
  const v = values as Record<string, string | undefined>;
  const key = env[HMAC_ENV];
  return {
    port: numberFlag(v, 'port') ?? 0,
    slots: numberFlag(v, 'slots'),
    holdMs: numberFlag(v, 'hold-ms'),
    readHoldMs: numberFlag(v, 'read-hold-ms'),
    confirmHoldMs: numberFlag(v, 'confirm-hold-ms'),
    seedOrders: numberFlag(v, 'seed-orders'),
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
    coldS: numberFlag(v, 'cold-s'),
    coldFactor: numberFlag(v, 'cold-factor'),
    hmacKey: key !== undefined && key !== '' ? key : undefined,
  };
}

async function main(): Promise<void> {
  let parsed: DemoOptions | 'help';
  try {
    parsed = parseDemoArgs(process.argv.slice(2), process.env);
  } catch (err) {
    process.stderr.write(`demo: ${(err as Error).message}\n${USAGE}\n`);
    process.exit(2);
  }
  if (parsed === 'help') {
    process.stdout.write(USAGE + '\n');
    return;
  }
  const opts = parsed;
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
  // started by plateau (harness/demo-process.ts) with a channel to it: when plateau dies, even by
  // SIGKILL, the channel closes and the demo stops rather than live on, holding its port and files
  if (process.send) process.on('disconnect', stop);
  const penalised = demo.coherency.contentionAlpha > 0 || demo.coherency.coherencyBeta > 0;
  const modes = {
    ...(penalised
      ? {
          ...demo.coherency,
          coherencyWindowMs: demo.coherencyWindowMs,
          peakConcurrency: demo.peakConcurrency,
          saturatedPerSec: demo.saturatedPerSec,
        }
      : {}),
    ...(opts.replicas !== undefined || opts.replicasChangeAtS !== undefined ? { replicas: demo.replicas } : {}),
    ...(demo.cold.coldS > 0 ? { coldS: demo.cold.coldS, coldFactor: demo.cold.factor } : {}),
  };
  const line = {
    event: 'listening',
    url: demo.url,
    capacityPerSec: demo.capacityPerSec,
    slots: demo.slots,
    holdMs: demo.holdMs,
    readHoldMs: demo.holds.readMs,
    confirmHoldMs: demo.holds.confirmMs,
    mixArrivalsPerSec: demo.mix.arrivalsPerSec,
    mixRequestsPerSec: demo.mix.requestsPerSec,
    ...modes,
  };
  process.stdout.write(JSON.stringify(line) + '\n');
  const penalty = penalised
    ? `; penalty alpha ${demo.coherency.contentionAlpha}, beta ${demo.coherency.coherencyBeta} on the busy count averaged over ${demo.coherencyWindowMs} ms: peak ${demo.expectedPeakPerSec.toFixed(1)} req/s at ${demo.peakConcurrency} busy slots, ${demo.saturatedPerSec.toFixed(1)} req/s with all busy`
    : '';
  const change =
    opts.replicasChangeAtS !== undefined
      ? `; replicas ${demo.replicas} -> ${opts.replicasChangeTo} at ${opts.replicasChangeAtS} s`
      : '';
  const cold = demo.cold.coldS > 0 ? `; cold for its first ${demo.cold.coldS} s (holds x ${demo.cold.factor})` : '';
  process.stderr.write(
    `demo target on ${demo.url}: ${demo.slots} slots x ${demo.holdMs} ms hold = theoretical capacity ${+demo.capacityPerSec.toFixed(2)} req/s of writes alone` +
      penalty +
      change +
      cold +
      (opts.hmacKey ? ' (HMAC signatures required)' : '') +
      '\n' +
      mixCapacityLine(demo.slots, demo.holds, demo.mix) +
      '\n',
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`demo: ${(err as Error).message}\n`);
  process.exit(1);
});
