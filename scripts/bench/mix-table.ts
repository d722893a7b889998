/**
 * Pure: the mix case's figures (issue 27, "Speed"). Each round runs scripts/bench/engine-profile.ts
 * once per variant, one thread at a fixed arrival rate against nginx: the default one-request
 * scenario, the three-entry mix (scripts/bench/mix-scenario.ts), the same mix with every request a
 * GET and no body read (scripts/bench/mix-scenario-get.ts: the mix's own machinery without the
 * bodies its requests carry), and the default scenario on the commit before issue 27 (its own
 * engine-profile.ts, from a git worktree). Rounds rotate the order of the variants so that a
 * drift of the machine's state falls on each of them alike; the figures are medians over the
 * rounds, and each ratio is given both as the ratio of the medians and as the median of the
 * rounds' own ratios (each round's variants ran minutes apart at most). Ratios are printed, never
 * judged in a test.
 */
import { median, type Measure } from './table.ts';

export type Variant = 'one' | 'mix' | 'gets' | 'before' | 'bareOne' | 'bareMix';

/**
 * bareOne and bareMix are the peer: engine-profile.ts --mode bare, a loop of undici dispatch()
 * calls with no engine, sending one GET per arrival and then the bench mix's very requests (its
 * shares, paths, bodies, body check and dependent second request): what the mix's traffic costs a
 * client that does nothing else, in the same run.
 */
export const VARIANTS: readonly Variant[] = ['one', 'mix', 'gets', 'before', 'bareOne', 'bareMix'];

/** One line of engine-profile.ts's output, as this commit's file and the earlier one print it. */
export interface ProfileLine {
  rate: number;
  /** Requests completed (the earlier file: arrivals, each one request). */
  completed: number;
  /** Arrivals completed; absent from the earlier file (there each arrival is one request). */
  arrivals?: number;
  ok?: number;
  dropped?: number;
  achievedPerSec: number;
  requestsPerSec?: number;
  /** CPU-s per 10k requests, the process from before the scenario's load to after the pool's close. */
  cpuPer10k: number;
  /** CPU-s per 10k requests over the schedule alone; absent from the earlier file. */
  loadCpuPer10k?: number | null;
  /** Its user and system parts, and the process's context switches per request over the schedule (since 12-05). */
  loadUserPer10k?: number | null;
  loadSysPer10k?: number | null;
  voluntarySwitchesPerRequest?: number | null;
  involuntarySwitchesPerRequest?: number | null;
}

export interface ProfileRun {
  variant: Variant;
  round: number;
  line: ProfileLine;
}

/** The figures line of engine-profile.ts's stdout (its last line that is a JSON object with cpuPer10k). */
export function parseProfileLine(stdout: string): ProfileLine {
  const lines = stdout.trim().split('\n').reverse();
  for (const l of lines) {
    if (!l.startsWith('{')) continue;
    let v: unknown;
    try {
      v = JSON.parse(l);
    } catch {
      continue;
    }
    const o = v as Partial<ProfileLine>;
    if (typeof o.cpuPer10k === 'number' && typeof o.completed === 'number' && typeof o.rate === 'number')
      return o as ProfileLine;
  }
  throw new Error(
    `engine-profile printed no figures line (a JSON object with rate, completed and cpuPer10k): ${JSON.stringify(stdout.slice(-400))}`,
  );
}

/** The variants of round r (1-based), rotated by one each round: one, mix, gets, before; mix, gets, before, one; ... */
export function roundOrder(round: number, variants: readonly Variant[] = VARIANTS): Variant[] {
  const k = (round - 1) % variants.length;
  return [...variants.slice(k), ...variants.slice(0, k)];
}

export interface VariantFigures {
  runs: number;
  /** Medians over the variant's runs. */
  cpuPer10k: number | null;
  loadCpuPer10k: number | null;
  loadUserPer10k: number | null;
  loadSysPer10k: number | null;
  voluntarySwitchesPerRequest: number | null;
  involuntarySwitchesPerRequest: number | null;
  achievedPerSec: number | null;
  requestsPerSec: number | null;
  /** Requests per arrival (1 for a one-request scenario). */
  requestsPerArrival: number | null;
  /** Arrivals dropped for want of a VU, each run's. */
  dropped: number[];
  /** Arrivals that failed (completed minus ok), each run's where printed. */
  failed: number[];
}

export interface RatioFigures {
  /** Ratio of the two variants' medians. */
  ofMedians: number | null;
  /** Median of the rounds' own ratios, and the lowest and highest of them. */
  medianOfRounds: number | null;
  lo: number | null;
  hi: number | null;
  rounds: number;
}

export interface MixSummary {
  rate: number;
  byVariant: Partial<Record<Variant, VariantFigures>>;
  /** The mix's CPU per request over the one-request scenario's, the schedule's window (loadCpuPer10k). */
  mixOverOne: RatioFigures | null;
  /** The same ratio of its user and of its system CPU: where the difference lies (the scenario and engine, or the kernel). */
  mixOverOneUser: RatioFigures | null;
  mixOverOneSys: RatioFigures | null;
  /** The GET mix's CPU per request over the one-request scenario's (loadCpuPer10k): the mix without its bodies. */
  getsOverOne: RatioFigures | null;
  /** The one-request scenario's CPU per request now over before, the window both files measure (cpuPer10k). */
  oneOverBefore: RatioFigures | null;
  /** The peer's: the bare loop's mix over its one request (loadCpuPer10k), what the traffic itself costs. */
  bareMixOverOne: RatioFigures | null;
  /** The engine's mix over the bare loop's (loadCpuPer10k): the engine's price for the mix's traffic. */
  mixOverBareMix: RatioFigures | null;
  /** The engine's one request over the bare loop's (loadCpuPer10k). */
  oneOverBareOne: RatioFigures | null;
}

const arrivalsOf = (l: ProfileLine) => l.arrivals ?? l.completed;

function figures(runs: ProfileRun[]): VariantFigures {
  const m = (f: (l: ProfileLine) => number | null | undefined) =>
    median(runs.map((r) => f(r.line)).filter((v): v is number => typeof v === 'number' && Number.isFinite(v)));
  return {
    runs: runs.length,
    cpuPer10k: m((l) => l.cpuPer10k),
    loadCpuPer10k: m((l) => l.loadCpuPer10k),
    loadUserPer10k: m((l) => l.loadUserPer10k),
    loadSysPer10k: m((l) => l.loadSysPer10k),
    voluntarySwitchesPerRequest: m((l) => l.voluntarySwitchesPerRequest),
    involuntarySwitchesPerRequest: m((l) => l.involuntarySwitchesPerRequest),
    achievedPerSec: m((l) => l.achievedPerSec),
    requestsPerSec: m((l) => l.requestsPerSec ?? l.achievedPerSec),
    requestsPerArrival: m((l) => (arrivalsOf(l) > 0 ? l.completed / arrivalsOf(l) : null)),
    dropped: runs.map((r) => r.line.dropped).filter((d): d is number => typeof d === 'number'),
    failed: runs.filter((r) => typeof r.line.ok === 'number').map((r) => arrivalsOf(r.line) - r.line.ok!),
  };
}

function ratioOf(
  runs: ProfileRun[],
  a: Variant,
  b: Variant,
  f: (l: ProfileLine) => number | null | undefined,
): RatioFigures | null {
  const of = (v: Variant) => runs.filter((r) => r.variant === v);
  const val = (r: ProfileRun | undefined) => {
    const x = r ? f(r.line) : null;
    return typeof x === 'number' && Number.isFinite(x) ? x : null;
  };
  const ma = median(
    of(a)
      .map(val)
      .filter((x): x is number => x !== null),
  );
  const mb = median(
    of(b)
      .map(val)
      .filter((x): x is number => x !== null),
  );
  const perRound: number[] = [];
  for (const round of new Set(runs.map((r) => r.round))) {
    const x = val(of(a).find((r) => r.round === round));
    const y = val(of(b).find((r) => r.round === round));
    if (x !== null && y !== null && y > 0) perRound.push(x / y);
  }
  if (ma === null || mb === null || mb <= 0) return null;
  return {
    ofMedians: ma / mb,
    medianOfRounds: median(perRound),
    lo: perRound.length ? Math.min(...perRound) : null,
    hi: perRound.length ? Math.max(...perRound) : null,
    rounds: perRound.length,
  };
}

export function mixSummary(rate: number, runs: ProfileRun[]): MixSummary {
  const byVariant: Partial<Record<Variant, VariantFigures>> = {};
  for (const v of VARIANTS) {
    const rs = runs.filter((r) => r.variant === v);
    if (rs.length) byVariant[v] = figures(rs);
  }
  return {
    rate,
    byVariant,
    mixOverOne: ratioOf(runs, 'mix', 'one', (l) => l.loadCpuPer10k),
    mixOverOneUser: ratioOf(runs, 'mix', 'one', (l) => l.loadUserPer10k),
    mixOverOneSys: ratioOf(runs, 'mix', 'one', (l) => l.loadSysPer10k),
    getsOverOne: ratioOf(runs, 'gets', 'one', (l) => l.loadCpuPer10k),
    oneOverBefore: ratioOf(runs, 'one', 'before', (l) => l.cpuPer10k),
    bareMixOverOne: ratioOf(runs, 'bareMix', 'bareOne', (l) => l.loadCpuPer10k),
    mixOverBareMix: ratioOf(runs, 'mix', 'bareMix', (l) => l.loadCpuPer10k),
    oneOverBareOne: ratioOf(runs, 'one', 'bareOne', (l) => l.loadCpuPer10k),
  };
}

/** The goals of issue 27's "Speed" section, as the printed lines state them (never asserted). */
export const MIX_GOAL = 1.15;
export const BEFORE_GOAL = 1.05;

const n0 = (v: number | null) => (v === null ? '–' : Math.round(v).toLocaleString('en-US'));
const f4 = (v: number | null) => (v === null ? '–' : v.toFixed(4));
const f3 = (v: number | null) => (v === null ? '–' : v.toFixed(3));

/** A ratio with its rounds; judged against `goal` when the ratio has one (null: a figure to read, no goal). */
function ratioLine(what: string, r: RatioFigures | null, goal: number | null, detail: string): string {
  if (!r) return `${what}: – (${detail}: not measured)`;
  const verdict =
    // within a float's rounding of the goal counts as on it (0.2185 / 0.19 is 1.1500000000000001)
    r.ofMedians === null || goal === null
      ? ''
      : r.ofMedians <= goal + 1e-9
        ? ` (goal <= ${goal}: met)`
        : ` (goal <= ${goal}: NOT met)`;
  const rounds =
    r.rounds > 0
      ? `; round by round ${f3(r.medianOfRounds)} median, ${f3(r.lo)} to ${f3(r.hi)} over ${r.rounds} round${r.rounds === 1 ? '' : 's'}`
      : '';
  return `${what}: ${f3(r.ofMedians)} x${verdict} (${detail}, ratio of the medians${rounds})`;
}

/** The last commit before issue 27's first (f629b83): the engine with one request per arrival, the goal's "before". */
export const BEFORE_REV = '8bf094a';

/** Whether `rev` (a short hash, resolved) is BEFORE_REV: the goal holds against that commit alone. */
function isGoalRev(rev: string | null): boolean {
  return rev === null || rev.startsWith(BEFORE_REV) || BEFORE_REV.startsWith(rev);
}

const LABEL: Record<Variant, string> = {
  one: 'one request (default scenario)',
  mix: 'mix (3 entries, one a 2-request transaction)',
  gets: 'the same mix, GETs only, no body read',
  before: 'one request, before issue 27',
  bareOne: 'peer: bare undici loop, one request',
  bareMix: "peer: bare undici loop, the mix's requests",
};

/** The mix case's lines: each variant's medians, then the two ratios of issue 27. */
export function formatMix(s: MixSummary, beforeRev: string | null): string {
  const lines = [
    `native engine on 1 thread at ${n0(s.rate)} arrivals/s against nginx, medians (CPU-s per 10k requests: a transaction's two requests are two):`,
  ];
  const head = [
    'variant',
    'runs',
    'arrivals/s',
    'requests/s',
    'req/arrival',
    'CPU-s/10k',
    'schedule CPU-s/10k',
    'dropped',
    'failed',
  ];
  const body = VARIANTS.filter((v) => s.byVariant[v]).map((v) => {
    const f = s.byVariant[v]!;
    return [
      // another commit (--mix-before) is no "before issue 27": it read so beside 9169096
      v === 'before' && beforeRev
        ? isGoalRev(beforeRev)
          ? `${LABEL[v]} (${beforeRev})`
          : `one request on ${beforeRev}`
        : LABEL[v],
      String(f.runs),
      n0(f.achievedPerSec),
      n0(f.requestsPerSec),
      f.requestsPerArrival === null ? '–' : f.requestsPerArrival.toFixed(3),
      f4(f.cpuPer10k),
      f4(f.loadCpuPer10k),
      f.dropped.length ? f.dropped.map(n0).join(' ') : '–',
      f.failed.length ? f.failed.map(n0).join(' ') : '–',
    ];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i])))
      .join('  ')
      .trimEnd();
  lines.push(...[head, ...body].map((c) => `  ${line(c)}`));
  lines.push(
    ratioLine(
      'mix / one request, CPU per request',
      s.mixOverOne,
      MIX_GOAL,
      'schedule CPU-s/10k, the same file and window for both',
    ),
  );
  if (s.byVariant.gets)
    lines.push(
      ratioLine(
        'the same mix with GETs only / one request, CPU per request',
        s.getsOverOne,
        null,
        "the mix's entries, weights and transaction with no body sent or read: its own machinery; schedule CPU-s/10k",
      ),
    );
  lines.push(
    ratioLine(
      `one request now / before${beforeRev ? ` (${beforeRev})` : ''}, CPU per request`,
      s.oneOverBefore,
      // the goal is against the commit before issue 27; against another it is a comparison only
      isGoalRev(beforeRev) ? BEFORE_GOAL : null,
      "CPU-s/10k, each commit's own engine-profile.ts over the window both measure",
    ),
  );
  if (s.bareMixOverOne)
    lines.push(
      ratioLine(
        "the peer's mix / its one request, CPU per request",
        s.bareMixOverOne,
        null,
        "the same requests from a bare undici loop with no engine: what the mix's traffic itself costs a client; schedule CPU-s/10k",
      ),
      ratioLine(
        "the engine's mix / the peer's, and one request / the peer's",
        s.mixOverBareMix,
        null,
        `the engine's price for the same traffic; one request ${f3(s.oneOverBareOne?.ofMedians ?? null)} x`,
      ),
    );
  const split = splitLine(s);
  if (split) lines.push(split);
  return lines.join('\n');
}

/**
 * Where the mix's extra CPU lies: its user and system parts against the one-request scenario's,
 * and the context switches per request of each (a wake-up of the thread costs system CPU); null
 * when the runs did not print them (an engine-profile.ts before 12-05).
 */
function splitLine(s: MixSummary): string | null {
  const one = s.byVariant.one;
  const mix = s.byVariant.mix;
  if (!one || !mix || one.loadUserPer10k === null || mix.loadUserPer10k === null) return null;
  const r = (x: RatioFigures | null) => (x?.ofMedians == null ? '–' : `${f3(x.ofMedians)} x`);
  const sw = (f: VariantFigures) => `${f3(f.voluntarySwitchesPerRequest)} + ${f3(f.involuntarySwitchesPerRequest)}`;
  return (
    `  where it lies (schedule): user CPU ${f4(one.loadUserPer10k)} -> ${f4(mix.loadUserPer10k)} (${r(s.mixOverOneUser)}), ` +
    `system CPU ${f4(one.loadSysPer10k)} -> ${f4(mix.loadSysPer10k)} (${r(s.mixOverOneSys)}) per 10k requests; ` +
    `context switches per request (voluntary + involuntary) ${sw(one)} -> ${sw(mix)}`
  );
}

/**
 * The case's runs as the bench table's measures (one row per variant, medians by aggregate()):
 * CPU-s per 10k requests over the window both commits' files measure (cpuPer10k), and arrivals/s.
 */
export function mixMeasures(runs: ProfileRun[], beforeRev: string | null): Measure[] {
  const tool: Record<Variant, string> = {
    one: 'engine 1 thread, one request',
    mix: 'engine 1 thread, mix',
    gets: 'engine 1 thread, mix of GETs',
    before: `engine 1 thread, one request, ${beforeRev ?? 'before'}`,
    bareOne: 'bare undici loop 1 thread, one request',
    bareMix: 'bare undici loop 1 thread, mix',
  };
  return runs.map((r) => {
    const l = r.line;
    const failed = typeof l.ok === 'number' ? arrivalsOf(l) - l.ok : 0;
    return {
      tool: tool[r.variant],
      model: 'open',
      settings: 'scripts/bench/engine-profile.ts',
      targetRate: l.rate,
      achievedPerSec: l.achievedPerSec,
      cpuPer10k: l.cpuPer10k,
      p50Ms: null,
      p99Ms: null,
      dropped: l.dropped ?? null,
      errors: failed,
      note:
        r.variant === 'mix' || r.variant === 'gets' || r.variant === 'bareMix'
          ? `${n0(l.requestsPerSec ?? null)} requests/s; CPU per 10k requests`
          : undefined,
    };
  });
}
