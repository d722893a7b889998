/**
 * The peers: wrk, autocannon and hey as closed-model maxima (N connections, each sending its next
 * request when the previous answer arrives), artillery as an open model (arrivalRate new virtual
 * users a second, one GET each) and the bare undici loop. Each run is bounded in time; CPU is read
 * from /proc over the middle of the load, so start-up and shut-down are left out for every tool.
 */
import fs from 'node:fs';
import path from 'node:path';
import { cpuRateBetween, per10kOf, runMeasured, type RunResult } from './proc.ts';
import type { Measure } from './table.ts';

const ms = (v: number, unit: string): number => v * ({ us: 1e-3, ms: 1, s: 1e3, m: 6e4 }[unit] ?? NaN);

/** wrk --latency's "50%  629.00us" lines and "Requests/sec:" line. */
export function parseWrk(out: string): {
  perSec: number;
  p50Ms: number | null;
  p99Ms: number | null;
  errors: number;
  total: number;
  durationS: number;
} {
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(out);
  if (!rps) throw new Error(`wrk printed no Requests/sec:\n${out}`);
  const pct = (p: string) => {
    const m = new RegExp(`^\\s+${p}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, 'm').exec(out);
    return m ? ms(Number(m[1]), m[2]) : null;
  };
  const tot = /(\d+) requests in ([\d.]+)(us|ms|s|m)/.exec(out);
  const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(out);
  const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const errors = (non2xx ? Number(non2xx[1]) : 0) + (sock ? sock.slice(1).reduce((a, x) => a + Number(x), 0) : 0);
  return {
    perSec: Number(rps[1]),
    p50Ms: pct('50'),
    p99Ms: pct('99'),
    errors,
    total: tot ? Number(tot[1]) : 0,
    durationS: tot ? ms(Number(tot[2]), tot[3]) / 1000 : 0,
  };
}

/** hey's summary: "Requests/sec:\t16155.98", "  50% in 0.0029 secs", status and error distributions. */
export function parseHey(out: string): {
  perSec: number;
  p50Ms: number | null;
  p99Ms: number | null;
  errors: number;
  ok: number;
} {
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(out);
  if (!rps) throw new Error(`hey printed no Requests/sec:\n${out}`);
  const pct = (p: string) => {
    const m = new RegExp(`^\\s+${p}% in ([\\d.]+) secs`, 'm').exec(out);
    return m ? Number(m[1]) * 1000 : null;
  };
  let ok = 0;
  let errors = 0;
  for (const m of out.matchAll(/^\s+\[(\d+)\]\s+(\d+) responses/gm))
    m[1] === '200' ? (ok += Number(m[2])) : (errors += Number(m[2]));
  const errSection = out.split('Error distribution:')[1];
  if (errSection) for (const m of errSection.matchAll(/^\s+\[(\d+)\]/gm)) errors += Number(m[1]);
  return { perSec: Number(rps[1]), p50Ms: pct('50'), p99Ms: pct('99'), errors, ok };
}

interface AutocannonJson {
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  latency: { p50: number; p99: number };
  requests: { total: number; average: number };
  '2xx': number;
}

export function parseAutocannon(out: string): { perSec: number; p50Ms: number; p99Ms: number; errors: number } {
  const j = JSON.parse(out.slice(out.indexOf('{'))) as AutocannonJson;
  return {
    perSec: j['2xx'] / j.duration,
    p50Ms: j.latency.p50,
    p99Ms: j.latency.p99,
    errors: j.errors + j.timeouts + j.non2xx,
  };
}

export interface ArtilleryAggregate {
  counters: Record<string, number>;
  summaries: Record<string, { median: number; p99: number; count: number }>;
  firstCounterAt: number;
  lastCounterAt: number;
}

/** Responses over the time artillery really took to send them (a phase it cannot keep up with lasts longer than its duration). */
export function parseArtillery(
  report: string,
  durationS: number,
): {
  perSec: number;
  spanS: number;
  ok: number;
  p50Ms: number | null;
  p99Ms: number | null;
  errors: number;
  created: number;
} {
  const a = (JSON.parse(report) as { aggregate: ArtilleryAggregate }).aggregate;
  const c = a.counters;
  const ok = c['http.codes.200'] ?? 0;
  const spanS = Math.max(durationS, (a.lastCounterAt - a.firstCounterAt) / 1000);
  const errors =
    (c['vusers.failed'] ?? 0) +
    Object.entries(c)
      .filter(([k]) => /^http\.codes\.(?!200)/.test(k))
      .reduce((s, [, v]) => s + v, 0);
  const rt = a.summaries['http.response_time'];
  return {
    perSec: ok / spanS,
    spanS,
    ok,
    p50Ms: rt ? rt.median : null,
    p99Ms: rt ? rt.p99 : null,
    errors,
    created: c['vusers.created'] ?? 0,
  };
}

export interface PeerSettings {
  url: string;
  connections: number;
  durationS: number;
  tmp: string;
  env: NodeJS.ProcessEnv;
  /** The target's process, whose CPU is read over the same window as the tool's. */
  targetPid?: number | null;
}

function fail(tool: string, r: RunResult): never {
  throw new Error(
    `${tool} exited ${r.code ?? r.signal}${r.timedOut ? ' (timed out)' : ''}: ${(r.stderr || r.stdout).slice(-2000)}`,
  );
}

/** CPU-s per 10k requests of the tool and of the target over the middle of a closed-model run of durationS seconds. */
function closedCpu(r: RunResult, durationS: number, perSec: number): ReturnType<typeof per10kOf> {
  return per10kOf(cpuRateBetween(r.samples, Math.min(2, durationS * 0.25), durationS - 0.5), perSec);
}

export async function runWrk(bin: string, s: PeerSettings): Promise<Measure> {
  const threads = 2;
  const r = await runMeasured(bin, [`-t${threads}`, `-c${s.connections}`, `-d${s.durationS}s`, '--latency', s.url], {
    timeoutMs: (s.durationS + 20) * 1000,
    sampleEveryMs: 250,
    env: s.env,
    targetPid: s.targetPid,
  });
  if (r.code !== 0) fail('wrk', r);
  const p = parseWrk(r.stdout);
  return {
    tool: 'wrk',
    model: 'closed',
    settings: `-t${threads} -c${s.connections} -d${s.durationS}s`,
    targetRate: null,
    achievedPerSec: p.perSec,
    ...closedCpu(r, s.durationS, p.perSec),
    p50Ms: p.p50Ms,
    p99Ms: p.p99Ms,
    dropped: null,
    errors: p.errors,
  };
}

export async function runAutocannon(bin: string, s: PeerSettings): Promise<Measure> {
  const r = await runMeasured(bin, ['-c', String(s.connections), '-d', String(s.durationS), '-j', s.url], {
    timeoutMs: (s.durationS + 30) * 1000,
    sampleEveryMs: 250,
    env: s.env,
    targetPid: s.targetPid,
  });
  if (r.code !== 0) fail('autocannon', r);
  const p = parseAutocannon(r.stdout);
  return {
    tool: 'autocannon',
    model: 'closed',
    settings: `-c ${s.connections} -d ${s.durationS}`,
    targetRate: null,
    achievedPerSec: p.perSec,
    ...closedCpu(r, s.durationS, p.perSec),
    p50Ms: p.p50Ms,
    p99Ms: p.p99Ms,
    dropped: null,
    errors: p.errors,
  };
}

/**
 * autocannon held to a fixed overall rate (-R): still a closed model (64 connections, each waiting
 * for its answer) at the same requests per second as plateau's open model. Not the same traffic:
 * autocannon 8 gives each connection a budget per second (lib/httpClient.js: a 1 s interval
 * resets reqsMadeThisSecond), so every second's requests leave back to back at its closed speed
 * and it idles for the rest. The context-switch columns show each tool's wake-ups beside it.
 */
export async function runAutocannonAt(bin: string, s: PeerSettings, rate: number): Promise<Measure> {
  const r = await runMeasured(
    bin,
    ['-c', String(s.connections), '-d', String(s.durationS), '-R', String(rate), '-j', s.url],
    { timeoutMs: (s.durationS + 30) * 1000, sampleEveryMs: 250, env: s.env, targetPid: s.targetPid },
  );
  if (r.code !== 0) fail('autocannon -R', r);
  const p = parseAutocannon(r.stdout);
  return {
    tool: 'autocannon -R',
    model: 'closed',
    settings: `-c ${s.connections} -d ${s.durationS} -R ${rate}`,
    targetRate: rate,
    achievedPerSec: p.perSec,
    ...closedCpu(r, s.durationS, p.perSec),
    p50Ms: p.p50Ms,
    p99Ms: p.p99Ms,
    dropped: null,
    errors: p.errors,
  };
}

export async function runHey(bin: string, s: PeerSettings): Promise<Measure> {
  const r = await runMeasured(bin, ['-c', String(s.connections), '-z', `${s.durationS}s`, s.url], {
    timeoutMs: (s.durationS + 30) * 1000,
    sampleEveryMs: 250,
    env: s.env,
    targetPid: s.targetPid,
  });
  if (r.code !== 0) fail('hey', r);
  const p = parseHey(r.stdout);
  return {
    tool: 'hey',
    model: 'closed',
    settings: `-c ${s.connections} -z ${s.durationS}s`,
    targetRate: null,
    achievedPerSec: p.perSec,
    ...closedCpu(r, s.durationS, p.perSec),
    p50Ms: p.p50Ms,
    p99Ms: p.p99Ms,
    dropped: null,
    errors: p.errors,
  };
}

/**
 * artillery's open model: `arrivalRate` new virtual users a second for durationS, each one GET,
 * connections shared through `http.pool` (0: each virtual user opens its own). Must run inside the
 * loopback-only namespace: artillery 2 sends telemetry to an outside host on exit.
 */
export async function runArtillery(
  bin: string,
  s: PeerSettings,
  rate: number,
  pool: number,
  tag: string,
): Promise<Measure> {
  const target = new URL(s.url);
  const script = {
    config: {
      target: target.origin,
      phases: [{ duration: s.durationS, arrivalRate: rate }],
      http: { timeout: 10, ...(pool > 0 ? { pool } : {}) },
    },
    scenarios: [{ flow: [{ get: { url: target.pathname } }] }],
  };
  const file = path.join(s.tmp, `artillery-${tag}.json`);
  const out = path.join(s.tmp, `artillery-${tag}-report.json`);
  fs.writeFileSync(file, JSON.stringify(script, null, 2));
  const spawnedAt = Date.now();
  let reportSeenAt: number | null = null;
  const r = await runMeasured(bin, ['run', '--quiet', '--output', out, file], {
    timeoutMs: (s.durationS * 4 + 60) * 1000,
    sampleEveryMs: 500,
    targetPid: s.targetPid,
    env: { ...s.env, ARTILLERY_DISABLE_TELEMETRY: 'true', DO_NOT_TRACK: '1' },
    // Once the report is written artillery only waits on its (unreachable) telemetry: stop it then.
    probe: (pid) => {
      if (reportSeenAt === null && fs.existsSync(out)) {
        try {
          JSON.parse(fs.readFileSync(out, 'utf8'));
          reportSeenAt = Date.now();
        } catch {
          return;
        }
      }
      if (reportSeenAt !== null && Date.now() - reportSeenAt > 1000) process.kill(pid, 'SIGTERM');
    },
  });
  if (!fs.existsSync(out)) fail('artillery', r);
  const p = parseArtillery(fs.readFileSync(out, 'utf8'), s.durationS);
  const a = (JSON.parse(fs.readFileSync(out, 'utf8')) as { aggregate: ArtilleryAggregate }).aggregate;
  // CPU over the span artillery counted requests in, less its first and last second.
  const from = (a.firstCounterAt - spawnedAt) / 1000 + 1;
  const to = (a.lastCounterAt - spawnedAt) / 1000 - 0.5;
  const cpuRate = cpuRateBetween(r.samples, from, to);
  return {
    tool: 'artillery',
    model: 'open',
    settings: `arrivalRate ${rate} for ${s.durationS}s${pool > 0 ? `, http.pool ${pool}` : ', no pool'}`,
    targetRate: rate,
    achievedPerSec: p.perSec,
    ...per10kOf(cpuRate, p.perSec),
    p50Ms: p.p50Ms,
    p99Ms: p.p99Ms,
    dropped: null,
    errors: p.errors,
    note:
      p.spanS > s.durationS * 1.02
        ? `${p.ok} answers took ${p.spanS.toFixed(1)} s for a ${s.durationS} s phase`
        : undefined,
  };
}

export async function runBareUndici(
  tsx: string,
  script: string,
  s: PeerSettings,
  rate: number,
  hold: { rampS: number; holdS: number; settleS: number },
  schedule: 'timer' | 'immediate',
): Promise<Measure> {
  const r = await runMeasured(
    tsx,
    [
      script,
      '--url',
      s.url,
      '--rate',
      String(rate),
      '--ramp',
      String(hold.rampS),
      '--hold',
      String(hold.holdS),
      '--settle',
      String(hold.settleS),
      '--connections',
      String(s.connections),
      '--schedule',
      schedule,
    ],
    {
      timeoutMs: (hold.rampS + hold.holdS + 40) * 1000,
      env: s.env,
    },
  );
  if (r.code !== 0) fail('bare-undici', r);
  const j = JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as {
    achievedPerSec: number;
    cpuPer10k: number | null;
    p50Ms: number | null;
    p99Ms: number | null;
    errors: number;
    unfinished: number;
  };
  return {
    tool: schedule === 'timer' ? 'bare undici' : 'bare undici (spin)',
    model: 'open',
    settings: `Pool.request(), ${s.connections} connections, one thread, ${schedule} schedule`,
    targetRate: rate,
    achievedPerSec: j.achievedPerSec,
    cpuPer10k: j.cpuPer10k,
    p50Ms: j.p50Ms,
    p99Ms: j.p99Ms,
    dropped: null,
    errors: j.errors,
    note: j.unfinished ? `${j.unfinished} still queued at the end` : undefined,
  };
}
