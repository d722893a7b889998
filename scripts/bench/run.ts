/**
 * `npm run bench`: plateau's native engine side by side with wrk, autocannon, hey, artillery and a
 * bare undici loop, against nginx (one worker) on 127.0.0.1 (issue 7, "The bench").
 *
 * 1. Outside: installs what is missing (nginx, wrk, hey from Debian; autocannon, artillery from npm
 *    into ~/.cache/plateau-bench, never project dependencies).
 * 2. Re-runs itself inside a new network namespace with only loopback up (`unshare -n`), so no
 *    byte can leave 127.0.0.1 (artillery 2 sends telemetry on exit whatever its settings); it
 *    checks that it really is isolated before anything starts.
 * 3. Inside: starts nginx, runs every case `--repeat` times interleaved (closed-model maxima of
 *    wrk, autocannon and hey; plateau at 1.25 x autocannon's maximum right after it, the paired
 *    case; open-model rates for plateau, the bare undici loop and artillery),
 *    then the mix case (one thread: the one-request scenario, the mix, the mix of GETs and the
 *    commit before issue 27, in alternating rounds), the memory case, prints the table of medians and plateau's
 *    ratios, stops nginx.
 *
 *   npm run bench                      # full: about 30 minutes (27 on 12-01 before the mix case's 4)
 *   npm run bench -- --quick           # about 2 minutes: 1 run each, shorter holds, no soak
 *   npm run bench -- --soak-minutes 10 # the issue's memory claim (RSS at 10 min vs 1 min)
 *   npm run bench -- --only mix        # issue 27's mix case alone: about 9 minutes (mix-case.ts)
 *   npm run bench -- --help
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ensureTools, findTools, toolCache, ARTILLERY, AUTOCANNON } from './ensure-tools.ts';
import { startNginx } from './nginx.ts';
import {
  runArtillery,
  runAutocannon,
  runAutocannonAt,
  runBareUndici,
  runHey,
  runWrk,
  type PeerSettings,
} from './peers.ts';
import { cliHasFlag, rssAt, runPlateau, type PlateauSettings } from './plateau-case.ts';
import { killAll } from './proc.ts';
import { BEFORE_REV, runMixCase, type MixCaseResult } from './mix-case.ts';
import { formatMix, mixMeasures, mixSummary } from './mix-table.ts';
import {
  aggregate,
  formatRatios,
  formatTable,
  OVERDRIVE_TOOL,
  PAIRED_TOOL,
  pairedRate,
  ratios,
  type Measure,
} from './table.ts';

/**
 * The overdrive ladder: up to this many rates, this far apart (20,000 to 47,500 by default). On
 * 12-01 one thread kept up at 35,000 (10:40, the top of the four rungs 5,000 apart then, so the
 * case went unjudged), and at 11:05 it went from 62% busy at 35,000 to 99% and 18,652 dropped at
 * 40,000: the rates where the lag passes its bound before any arrival is dropped are a narrow band.
 */
const OVERDRIVE_RUNGS = 12;
const OVERDRIVE_STEP = 2_500;

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../..');

const HELP = `npm run bench -- [flags]
  --quick                 1 run of each case, 6 s closed runs, 1 s ramp + 6 s hold, rates 5k,10k,20k; 1 mix round of 5 s; no soak
  --repeat N              runs of each case; the table shows medians (default 3; quick 1)
  --rates a,b,...         open-model rates for plateau and the bare undici loop (default 5000,10000,20000,30000,40000,50000,60000:
                          past where plateau held on this machine, so the held rate is found, not capped)
  --artillery-rates a,..  artillery's open-model rates (default 1000,2500; its ceiling is near 1-2k)
  --artillery-repeat N    runs of each artillery rate (default 1: slow to start and to stop)
  --artillery-pool N      artillery http.pool (shared connections; 0 = a connection per virtual user; default 64)
  --no-artillery          leave artillery out
  --closed-seconds S      duration of each closed-model run (default 10)
  --ramp S --hold S --settle S   each open-model run: ramp, hold, part of the hold not judged (default 1, 12, 2)
  --bare-schedule S       the bare loop's schedule: timer (wake every ms, fire what is due; default), immediate
                          (setImmediate when the next arrival is < 0.25 ms away, as plateau's engine once did), or both
  --connections N         closed-model connections and the bare loop's pool size (default 64)
  --vus N --max-vus N     plateau's VUs (default 128 / 8192: VUs are allocated on demand, so a high bound costs nothing
                          until a stall of the machine needs it: the arrivals of a 100 ms stall at 45,000 req/s
                          start together on 4,500 VUs; the stall still shows as scheduler lag)
  --workers N|auto        passed to plateau run when its CLI has --workers
  --http-client C         plateau's HTTP client, undici or socket (passed as --http-client; default: plateau's own default)
  --overdrive-rate R      once: plateau on one thread (--workers 1 when the CLI has it) from R req/s up
                          by 2,500 (at most 12 rates) until plateau reports the step generator-limited or -bound
                          (default 20000; 0 = skip)
  --soak-minutes M        the memory case: plateau at --soak-rate for M minutes, RSS every 10 s (default 2; quick 0 = skip)
  --soak-rate R           (default 10000)
  --one-thread-rate R     each run: plateau on one thread (--workers 1) at R req/s too, the cheaper shape for a
                          target on the same machine (default 10000; quick 0 = skip)
  --mix-rate R            the mix case (issue 27): one thread of the native engine at R arrivals/s, in rounds of six
                          runs of scripts/bench/engine-profile.ts in turn: the default one-request scenario, the mix
                          (scripts/bench/mix-scenario.ts: 3 entries, one a 2-request transaction), the same mix with
                          GETs only (--mix-gets), the default scenario on --mix-before and the peer (--mix-peer);
                          prints CPU per request, the ratios mix / one, GETs / one, now / before and the peer's, and
                          where the mix's extra lies (default 10000; 0 = skip)
  --mix-rounds N          rounds of the mix case (default: 5, or one per variant where there are more, so that
                          each runs once in every position: 6 with the peer; quick 1)
  --mix-seconds S         each run of the mix case (default 10; quick 5)
  --mix-scenario FILE     the mix variant's scenario module (default scripts/bench/mix-scenario.ts)
  --mix-gets FILE|none    the GET mix variant's module (default scripts/bench/mix-scenario-get.ts; none = leave it out)
  --mix-vus N             its VUs (default 512: a 50 ms stall of the thread at 10,000/s drops nothing)
  --mix-before REV        the commit of its before variant, checked out in a git worktree in the temp directory and removed
                          afterwards (default ${BEFORE_REV}, the last before issue 27; none = leave it out)
  --mix-peer on|none      the mix case's peer: a bare undici loop (no engine) sending one GET per arrival, then the
                          mix's very requests, in the same rounds; prints what the traffic itself costs a client
                          (default on; none = leave it out)
  --only a,b              run only these tools (wrk,autocannon,hey,artillery,plateau,paired,one-thread,bare,overdrive,mix,soak);
                          paired: each run, plateau right after autocannon's closed maximum at 1.25 x it (rounded up
                          to 500 req/s), issue 7's held-rate goal measured run by run (needs autocannon)
  --port P                nginx's port on 127.0.0.1 (default 18080)
  --json FILE             also write every measure and the table's rows as JSON
  --no-install            do not install missing tools (cases whose tool is missing are skipped)
  --no-netns              run on the host's loopback instead of a new network namespace (artillery is then left out)`;

const { values: f } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    'http-client': { type: 'string' },
    repeat: { type: 'string' },
    rates: { type: 'string' },
    'artillery-rates': { type: 'string' },
    'artillery-repeat': { type: 'string' },
    'artillery-pool': { type: 'string', default: '64' },
    'no-artillery': { type: 'boolean', default: false },
    'closed-seconds': { type: 'string' },
    ramp: { type: 'string' },
    hold: { type: 'string' },
    settle: { type: 'string' },
    connections: { type: 'string', default: '64' },
    'bare-schedule': { type: 'string', default: 'timer' },
    vus: { type: 'string', default: '128' },
    'max-vus': { type: 'string', default: '8192' },
    workers: { type: 'string' },
    'soak-minutes': { type: 'string' },
    'soak-rate': { type: 'string', default: '10000' },
    'overdrive-rate': { type: 'string' },
    'one-thread-rate': { type: 'string' },
    'mix-rate': { type: 'string', default: '10000' },
    'mix-rounds': { type: 'string' },
    'mix-seconds': { type: 'string' },
    'mix-vus': { type: 'string', default: '512' },
    'mix-scenario': { type: 'string' },
    'mix-gets': { type: 'string' },
    'mix-before': { type: 'string', default: BEFORE_REV },
    'mix-peer': { type: 'string', default: 'on' },
    only: { type: 'string' },
    port: { type: 'string', default: '18080' },
    json: { type: 'string' },
    'no-install': { type: 'boolean', default: false },
    'no-netns': { type: 'boolean', default: false },
    'inside-netns': { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (f.help) {
  console.log(HELP);
  process.exit(0);
}

const list = (s: string | undefined, d: number[]) =>
  s
    ? s
        .split(',')
        .map(Number)
        .filter((x) => x > 0)
    : d;
const quick = f.quick;
const cfg = {
  repeat: Number(f.repeat ?? (quick ? 1 : 3)),
  rates: list(f.rates, quick ? [5000, 10000, 20000] : [5000, 10000, 20000, 30000, 40000, 50000, 60000]),
  artilleryRates: list(f['artillery-rates'], quick ? [1000] : [1000, 2500]),
  artilleryRepeat: Number(f['artillery-repeat'] ?? 1),
  artilleryPool: Number(f['artillery-pool']),
  closedS: Number(f['closed-seconds'] ?? (quick ? 6 : 10)),
  rampS: Number(f.ramp ?? 1),
  holdS: Number(f.hold ?? (quick ? 6 : 12)),
  settleS: Number(f.settle ?? 2),
  connections: Number(f.connections),
  vus: Number(f.vus),
  maxVus: Number(f['max-vus']),
  workers: f.workers ?? null,
  httpClient: f['http-client'] ?? null,
  soakMinutes: Number(f['soak-minutes'] ?? (quick ? 0 : 2)),
  soakRate: Number(f['soak-rate']),
  overdriveRate: Number(f['overdrive-rate'] ?? (quick ? 0 : 20000)),
  oneThreadRate: Number(f['one-thread-rate'] ?? (quick ? 0 : 10000)),
  mixRate: Number(f['mix-rate']),
  // at least one round per variant, so that each runs once in every position of the rotation
  mixRounds: Number(
    f['mix-rounds'] ??
      (quick
        ? 1
        : Math.max(
            5,
            2 +
              (f['mix-gets'] === 'none' ? 0 : 1) +
              (f['mix-before'] === 'none' ? 0 : 1) +
              (f['mix-peer'] === 'none' ? 0 : 2),
          )),
  ),
  mixSeconds: Number(f['mix-seconds'] ?? (quick ? 5 : 10)),
  mixVus: Number(f['mix-vus']),
  mixScenario: f['mix-scenario'] ? path.resolve(f['mix-scenario']) : path.join(here, 'mix-scenario.ts'),
  mixGets:
    f['mix-gets'] === 'none'
      ? null
      : f['mix-gets']
        ? path.resolve(f['mix-gets'])
        : path.join(here, 'mix-scenario-get.ts'),
  mixBefore: f['mix-before'] === 'none' ? null : f['mix-before']!,
  mixPeer: f['mix-peer'] !== 'none',
  only: f.only ? new Set(f.only.split(',')) : null,
  port: Number(f.port),
};
const TOOLS = [
  'wrk',
  'autocannon',
  'hey',
  'artillery',
  'plateau',
  'paired',
  'one-thread',
  'bare',
  'overdrive',
  'mix',
  'soak',
];
const unknownTools = [...(cfg.only ?? [])].filter((t) => !TOOLS.includes(t));
if (unknownTools.length) {
  console.error(`bench: --only ${unknownTools.join(',')}: no such case; pick from ${TOOLS.join(',')}`);
  process.exit(2);
}
for (const [flag, v, whole] of [
  ['--mix-rate', cfg.mixRate, false],
  ['--mix-rounds', cfg.mixRounds, true],
  ['--mix-seconds', cfg.mixSeconds, false],
  ['--mix-vus', cfg.mixVus, true],
] as const) {
  if (!(v >= 0) || (whole && !Number.isInteger(v)) || (flag !== '--mix-rate' && v === 0)) {
    console.error(
      `bench: ${flag} ${f[flag.slice(2) as 'mix-rate']} is not a ${whole ? 'positive whole number' : 'positive number'}${flag === '--mix-rate' ? ' (or 0 to skip the mix case)' : ''}; pass one`,
    );
    process.exit(2);
  }
}
if (f['mix-peer'] !== 'on' && f['mix-peer'] !== 'none') {
  console.error(`bench: --mix-peer ${f['mix-peer']} is neither on nor none; pass one of them`);
  process.exit(2);
}
if (cfg.mixGets !== null && !fs.existsSync(cfg.mixGets)) {
  console.error(`bench: --mix-gets ${cfg.mixGets} does not exist; pass the path of a scenario module, or none`);
  process.exit(2);
}
if (!fs.existsSync(cfg.mixScenario)) {
  console.error(`bench: --mix-scenario ${cfg.mixScenario} does not exist; pass the path of a scenario module`);
  process.exit(2);
}
const bareSchedules = (
  f['bare-schedule'] === 'both' ? ['timer', 'immediate'] : [f['bare-schedule'] === 'immediate' ? 'immediate' : 'timer']
) as ('timer' | 'immediate')[];
const wants = (tool: string) => !cfg.only || cfg.only.has(tool);
const log = (m: string) => process.stderr.write(`bench: ${m}\n`);

/** Only `lo` in this network namespace, and every address a loopback one. */
function isolated(): boolean {
  const addrs = Object.entries(os.networkInterfaces());
  return addrs.every(([, list]) => (list ?? []).every((a) => a.internal));
}

async function outside(): Promise<number> {
  const artillery = !f['no-artillery'] && !f['no-netns'] && wants('artillery');
  // The peers the chosen cases use (nginx always): `--only mix` installs none of them.
  const peers = (['wrk', 'hey', 'autocannon'] as const).filter(
    (t) => wants(t) || (t === 'autocannon' && wants('paired')),
  );
  const tools = f['no-install'] ? findTools() : ensureTools({ artillery, offline: false, only: ['nginx', ...peers] });
  const missing = Object.entries(tools)
    .filter(([k, v]) => !v && (k === 'nginx' || (k === 'artillery' ? artillery : peers.includes(k as never))))
    .map(([k]) => k);
  if (missing.length) log(`missing: ${missing.join(', ')} (their cases are skipped)`);
  if (f['no-netns']) {
    log(
      '--no-netns: running on the host loopback; artillery is left out (it sends telemetry to an outside host on exit)',
    );
    return inside(true);
  }
  try {
    execFileSync('unshare', ['-n', '--', 'sh', '-c', 'ip link set lo up'], { stdio: 'pipe' });
  } catch (err) {
    log(
      `cannot make a loopback-only network namespace (${(err as Error).message.split('\n')[0]}): running on the host loopback; artillery is left out (it sends telemetry to an outside host on exit)`,
    );
    return inside(true);
  }
  const tsx = path.join(repo, 'node_modules/.bin/tsx');
  const args = [...process.argv.slice(2), '--inside-netns'];
  // A fresh network namespace: only loopback, brought up; no route anywhere else.
  const child = spawn(
    'unshare',
    ['-n', '--', 'sh', '-c', 'ip link set lo up && exec "$@"', 'sh', tsx, fileURLToPath(import.meta.url), ...args],
    { stdio: 'inherit', cwd: repo },
  );
  const forward = (sig: NodeJS.Signals) => () => child.kill(sig);
  process.on('SIGINT', forward('SIGINT'));
  process.on('SIGTERM', forward('SIGTERM'));
  return new Promise((resolve) => child.on('close', (code, sig) => resolve(code ?? (sig ? 130 : 1))));
}

async function inside(hostLoopback: boolean): Promise<number> {
  if (!hostLoopback && !isolated()) {
    log(
      `refusing to run: this network namespace has non-loopback addresses (${JSON.stringify(os.networkInterfaces())})`,
    );
    return 2;
  }
  const tools = findTools();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'plateau-bench-'));
  if (!tools.nginx) {
    log('nginx is missing; nothing to measure against');
    return 2;
  }
  const nginx = await startNginx(tools.nginx, tmp, cfg.port);
  const stop = async () => {
    killAll();
    await nginx.stop();
  };
  process.on('SIGINT', () => {
    void stop().then(() => process.exit(130));
  });
  process.on('SIGTERM', () => {
    void stop().then(() => process.exit(130));
  });
  const date = new Date().toISOString();
  const loadAtStart = os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');
  const machine = `${os.cpus().length} x ${os.cpus()[0]?.model ?? '?'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.type()} ${os.release()}, Node ${process.version}`;
  log(`nginx on ${nginx.url} (one worker); run files in ${tmp}`);
  const env = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' };
  const targetPid = nginx.workerPid();
  if (targetPid === null) log("could not find nginx's worker process: its CPU is not read");
  const peer: PeerSettings = {
    url: nginx.url,
    connections: cfg.connections,
    durationS: cfg.closedS,
    tmp,
    env,
    targetPid,
  };
  const pl: PlateauSettings = {
    repo,
    url: nginx.url,
    tmp,
    rampS: cfg.rampS,
    holdS: cfg.holdS,
    settleS: cfg.settleS,
    vus: cfg.vus,
    maxVus: cfg.maxVus,
    workers: cfg.workers,
    httpClient: cfg.httpClient,
    env,
    targetPid,
  };
  const withArtillery = !hostLoopback && !f['no-artillery'] && wants('artillery') && tools.artillery;
  const tsx = path.join(repo, 'node_modules/.bin/tsx');
  const stamp = date.replace(/[-:]/g, '').slice(0, 15);

  const measures: Measure[] = [];
  const failures: string[] = [];
  const attempt = async (label: string, fn: () => Promise<Measure>): Promise<Measure | null> => {
    log(`${label} ...`);
    let m: Measure | null = null;
    try {
      m = await fn();
      measures.push(m);
      log(
        `${label}: ${m.achievedPerSec.toFixed(0)} req/s, p50 ${m.p50Ms?.toFixed(2) ?? '–'} ms, p99 ${m.p99Ms?.toFixed(2) ?? '–'} ms, CPU ${m.cpuPer10k?.toFixed(3) ?? '–'} s/10k${m.dropped ? `, dropped ${m.dropped}` : ''}${m.note ? ` (${m.note})` : ''}`,
      );
    } catch (err) {
      failures.push(`${label}: ${(err as Error).message.split('\n').slice(0, 6).join(' | ')}`);
      log(`${label} FAILED: ${(err as Error).message.slice(0, 800)}`);
    }
    await new Promise((r) => setTimeout(r, 1000)); // let TIME_WAITs and the scheduler settle between cases
    return m;
  };
  const hold = { rampS: cfg.rampS, holdS: cfg.holdS, settleS: cfg.settleS };

  let soak: ReturnType<typeof rssAt> | null = null;
  let mix: MixCaseResult | null = null;
  try {
    for (let rep = 1; rep <= cfg.repeat; rep++) {
      const tag = `run ${rep}/${cfg.repeat}`;
      if (wants('wrk') && tools.wrk) await attempt(`${tag} wrk closed`, () => runWrk(tools.wrk!, peer));
      const ac =
        wants('autocannon') && tools.autocannon
          ? await attempt(`${tag} autocannon closed`, () => runAutocannon(tools.autocannon!, peer))
          : null;
      if (wants('paired') && ac) {
        // Right after autocannon, while the host is in the same state: the goal's rate itself.
        const rate = pairedRate(ac.achievedPerSec);
        await attempt(`${tag} ${PAIRED_TOOL} (${Math.round(ac.achievedPerSec)}): ${rate}/s`, async () => {
          const m = (await runPlateau(pl, rate, `bench-${stamp}-paired-${rep}`)).measure;
          return { ...m, tool: PAIRED_TOOL, pairedMax: ac.achievedPerSec };
        });
      }
      if (wants('hey') && tools.hey) await attempt(`${tag} hey closed`, () => runHey(tools.hey!, peer));
      if (wants('autocannon') && tools.autocannon)
        await attempt(`${tag} autocannon -R 10000`, () => runAutocannonAt(tools.autocannon!, peer, 10_000));
      for (const rate of cfg.rates) {
        if (wants('plateau'))
          await attempt(
            `${tag} plateau ${rate}/s`,
            async () => (await runPlateau(pl, rate, `bench-${stamp}-${rate}-${rep}`)).measure,
          );
        for (const sched of bareSchedules) {
          if (wants('bare'))
            await attempt(`${tag} bare undici (${sched}) ${rate}/s`, () =>
              runBareUndici(tsx, path.join(here, 'bare-undici.ts'), peer, rate, hold, sched),
            );
        }
      }
      if (wants('one-thread') && cfg.oneThreadRate > 0 && cfg.workers !== '1') {
        // The same engine on one thread: on a machine shared with the target, fewer threads cost less.
        await attempt(`${tag} plateau 1 thread ${cfg.oneThreadRate}/s`, async () => {
          const m = (await runPlateau({ ...pl, workers: '1' }, cfg.oneThreadRate, `bench-${stamp}-one-${rep}`)).measure;
          return { ...m, tool: 'plateau 1 thread' };
        });
      }
      if (wants('overdrive') && rep === 1 && cfg.overdriveRate > 0) {
        // One thread pushed up a ladder of rates until plateau reports its generator over its
        // bounds: how fast one thread is depends on the machine's state, the report must not.
        for (let k = 0; k < OVERDRIVE_RUNGS; k++) {
          const rate = cfg.overdriveRate + k * OVERDRIVE_STEP;
          let flagged = false;
          await attempt(`${tag} plateau overdriven, 1 thread, ${rate}/s`, async () => {
            const m = (await runPlateau({ ...pl, workers: '1' }, rate, `bench-${stamp}-overdrive-${rate}`)).measure;
            flagged = m.generator !== undefined;
            return { ...m, tool: OVERDRIVE_TOOL };
          });
          if (flagged) break;
        }
      }
      if (withArtillery && rep <= cfg.artilleryRepeat) {
        for (const rate of cfg.artilleryRates) {
          await attempt(`${tag} artillery ${rate}/s`, () =>
            runArtillery(
              tools.artillery!,
              { ...peer, durationS: cfg.holdS },
              rate,
              cfg.artilleryPool,
              `${rate}-${rep}`,
            ),
          );
        }
      }
    }
    if (wants('mix') && cfg.mixRate > 0) {
      // Its own rounds, each run its own process and nginx (the earlier commit's file starts one).
      mix = await runMixCase({
        repo,
        tmp,
        rate: cfg.mixRate,
        seconds: cfg.mixSeconds,
        rounds: cfg.mixRounds,
        vus: cfg.mixVus,
        scenario: cfg.mixScenario,
        getsScenario: cfg.mixGets,
        client: cfg.httpClient,
        port: cfg.port + 1,
        beforeRev: cfg.mixBefore,
        peer: cfg.mixPeer,
        env,
        log,
      });
      measures.push(...mixMeasures(mix.runs, mix.beforeRev));
      failures.push(...mix.failures);
    }
    if (wants('soak') && cfg.soakMinutes > 0) {
      const holdS = Math.round(cfg.soakMinutes * 60);
      log(`memory: plateau at ${cfg.soakRate}/s for ${cfg.soakMinutes} min, RSS every 10 s ...`);
      try {
        const r = await runPlateau(
          { ...pl, holdS, settleS: Math.min(10, holdS / 2) },
          cfg.soakRate,
          `bench-${stamp}-soak`,
          { sampleEveryMs: 10_000, withRss: true, timeoutS: cfg.rampS + holdS + 120 },
        );
        soak = rssAt(r.samples, cfg.rampS + holdS);
        measures.push({ ...r.measure, tool: 'plateau (soak)', cpuPer10k: null, note: `${cfg.soakMinutes} min hold` });
      } catch (err) {
        failures.push(`memory case: ${(err as Error).message.slice(0, 400)}`);
      }
    }
  } finally {
    await stop();
  }

  const rows = aggregate(measures);
  const rs = ratios(rows, os.cpus().length);
  const lines: string[] = [];
  lines.push(
    '',
    `plateau bench ${date}`,
    `machine: ${machine}`,
    `target: nginx (1 worker, static 200 "ok") on ${nginx.url}${hostLoopback ? ' (host loopback)' : ', loopback-only network namespace'}`,
  );
  lines.push(
    `load average (1/5/15 min) at start ${loadAtStart}, at end ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}: other work on the machine shares its ${os.cpus().length} cores`,
  );
  lines.push(
    `settings: closed ${cfg.connections} connections x ${cfg.closedS} s; open ramp ${cfg.rampS} s + hold ${cfg.holdS} s (first ${cfg.settleS} s of the hold not judged); medians of ${cfg.repeat} run(s)${withArtillery ? `; artillery ${cfg.artilleryRepeat} run(s)` : ''}`,
  );
  lines.push(
    `tools: wrk ${tools.wrk ? 'yes' : 'missing'}, hey ${tools.hey ? 'yes' : 'missing'}, ${AUTOCANNON}${tools.autocannon ? '' : ' missing'}, ${withArtillery ? ARTILLERY : 'artillery left out'} (npm tools in ${toolCache()}); plateau --workers ${cliHasFlag(repo, '--workers') ? (cfg.workers ?? 'default') : 'not a flag yet'}, --http-client ${cliHasFlag(repo, '--http-client') ? (cfg.httpClient ?? 'default') : 'not a flag yet'}`,
  );
  lines.push(
    "CPU-s/10k: CPU seconds (user + system, the generator's whole process tree from /proc) per 10,000 answers over the steady part of each run; nginx CPU-s/10k: its worker's, over the same window (the cores both share)",
  );
  lines.push(
    '',
    formatTable(rows),
    '',
    'plateau against its peers (issue 7 goals):',
    formatRatios(rs) || '(not enough cases to compare)',
  );
  if (soak) {
    const growth = soak.firstMinute && soak.end ? (100 * (soak.end - soak.firstMinute)) / soak.firstMinute : null;
    lines.push(
      '',
      `memory at ${cfg.soakRate}/s for ${cfg.soakMinutes} min: RSS after 1 min ${soak.firstMinute?.toFixed(0) ?? '– (run shorter than 1 min)'} MiB, at the end ${soak.end?.toFixed(0) ?? '–'} MiB${growth !== null ? ` (${growth >= 0 ? '+' : ''}${growth.toFixed(1)}%; goal within 10% after 10 min: ${Math.abs(growth) <= 10 ? 'met' : 'NOT met'} over this run)` : ''}`,
    );
    lines.push(`  RSS every 10 s (MiB): ${soak.series.map((p) => p.rssMiB.toFixed(0)).join(' ')}`);
  }
  const mixFigures = mix && mix.runs.length ? mixSummary(cfg.mixRate, mix.runs) : null;
  if (mixFigures && mix)
    lines.push(
      '',
      `the mix case (issue 27; ${path.relative(repo, cfg.mixScenario)}, ${cfg.mixRounds} round(s) of ${cfg.mixSeconds} s, the variants in turn, ${cfg.mixVus} VUs):`,
      formatMix(mixFigures, mix.beforeRev),
    );
  if (failures.length) lines.push('', 'failed cases:', ...failures.map((x) => `  ${x}`));
  console.log(lines.join('\n'));
  const jsonFile = f.json ? path.resolve(f.json) : path.join(tmp, 'bench.json');
  fs.writeFileSync(
    jsonFile,
    JSON.stringify(
      {
        date,
        machine,
        settings: cfg,
        measures,
        rows,
        ratios: rs,
        soak,
        mix: mix && { ...mix, summary: mixFigures },
        failures,
      },
      (_k, v: unknown) => (v instanceof Set ? [...v] : v),
      2,
    ),
  );
  console.log(`\nall measures: ${jsonFile}`);
  return failures.length && measures.length === 0 ? 1 : 0;
}

const code = f['inside-netns'] ? await inside(false) : await outside();
process.exit(code);
