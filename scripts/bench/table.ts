/**
 * Pure: a bench case's measures, their medians over repeated runs, the table and plateau's ratios
 * to its peers (the goals of issue 7).
 */

export interface Measure {
  tool: string;
  model: 'closed' | 'open';
  settings: string;
  /** Offered rate of an open model, req/s; null for a closed model. */
  targetRate: number | null;
  achievedPerSec: number;
  /** CPU seconds of the load generator per 10,000 requests answered, over the steady part of the run. */
  cpuPer10k: number | null;
  /** CPU seconds of the target (nginx's worker) per 10,000 answers over the same window; absent where not read. */
  targetCpuPer10k?: number | null;
  /**
   * Context switches (wake-ups and preemptions, every thread) of the generator and of the target
   * per 10,000 answers over the same window; absent where not read.
   */
  switchesPer10k?: number | null;
  targetSwitchesPer10k?: number | null;
  p50Ms: number | null;
  p99Ms: number | null;
  /** Arrivals dropped for want of a VU (plateau only; null where the tool has no such count). */
  dropped: number | null;
  errors: number;
  note?: string;
  /** plateau only: the step was reported generator-limited (held) or generator-bound (failed). */
  generator?: 'limited' | 'bound';
  /** The paired case only: autocannon's closed maximum in the same repetition, which set the rate. */
  pairedMax?: number;
}

/** The overdrive case's tool name: one thread pushed up a ladder of rates until it says it is the bottleneck. */
export const OVERDRIVE_TOOL = 'plateau 1 thread, overdriven';

/** Issue 7's held-rate goal: this many times autocannon's closed maximum in the same run. */
export const HELD_GOAL = 1.25;

/** The paired case's tool name: plateau at HELD_GOAL x the closed maximum autocannon reached just before it. */
export const PAIRED_TOOL = `plateau at ${HELD_GOAL} x autocannon`;

/** The paired case's rate: HELD_GOAL x autocannon's closed maximum, rounded up to a multiple of 500 req/s. */
export function pairedRate(autocannonMax: number): number {
  return Math.ceil((HELD_GOAL * autocannonMax) / 500) * 500;
}

export interface Row extends Measure {
  runs: number;
  /** plateau's open-model rows: how many of the runs held the rate on their own (held()). */
  heldRuns?: number;
}

export function median(xs: number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

const medianOf = (ms: Measure[], f: (m: Measure) => number | null): number | null =>
  median(ms.map(f).filter((v): v is number => v !== null && Number.isFinite(v)));

function nearest(g: Measure[], v: number): Measure {
  return g.reduce((b, m) => (Math.abs(m.achievedPerSec - v) < Math.abs(b.achievedPerSec - v) ? m : b), g[0]);
}

/** One row per (tool, model, target rate): the median of each figure over the repeated runs. */
export function aggregate(measures: Measure[]): Row[] {
  const groups = new Map<string, Measure[]>();
  for (const m of measures) {
    const k = `${m.tool}|${m.model}|${m.targetRate ?? ''}`;
    const g = groups.get(k) ?? [];
    g.push(m);
    groups.set(k, g);
  }
  return [...groups.values()].map((g) => {
    // Every plateau shape (2 workers, 1 thread) says how many of its runs held on their own.
    const heldRuns = g[0].tool.startsWith('plateau') && g[0].model === 'open' ? g.filter(held).length : undefined;
    // Notes differ run to run (lag, loop delay): the note of the run nearest the median throughput.
    const note = nearest(g, medianOf(g, (m) => m.achievedPerSec) ?? 0).note;
    return {
      ...g[0],
      achievedPerSec: medianOf(g, (m) => m.achievedPerSec) ?? 0,
      cpuPer10k: medianOf(g, (m) => m.cpuPer10k),
      targetCpuPer10k: medianOf(g, (m) => m.targetCpuPer10k ?? null),
      switchesPer10k: medianOf(g, (m) => m.switchesPer10k ?? null),
      targetSwitchesPer10k: medianOf(g, (m) => m.targetSwitchesPer10k ?? null),
      p50Ms: medianOf(g, (m) => m.p50Ms),
      p99Ms: medianOf(g, (m) => m.p99Ms),
      dropped: g.some((m) => m.dropped !== null) ? medianOf(g, (m) => m.dropped) : null,
      errors: medianOf(g, (m) => m.errors) ?? 0,
      note:
        [heldRuns !== undefined && g.length > 1 ? `held in ${heldRuns} of ${g.length} runs` : '', note ?? '']
          .filter(Boolean)
          .join('; ') || undefined,
      runs: g.length,
      // A row is flagged only when all its runs were (a single overdrive run, typically).
      generator: g.every((m) => m.generator === g[0].generator) ? g[0].generator : undefined,
      ...(heldRuns !== undefined ? { heldRuns } : {}),
    };
  });
}

const num = (v: number | null, digits = 0): string =>
  v === null ? '–' : v.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const lat = (v: number | null): string =>
  v === null ? '–' : v < 10 ? v.toFixed(2) : v < 100 ? v.toFixed(1) : v.toFixed(0);

export function formatTable(rows: Row[]): string {
  const head = [
    'tool',
    'model',
    'target/s',
    'achieved/s',
    '% target',
    'CPU-s/10k',
    'nginx CPU-s/10k',
    'switches/10k',
    'nginx switches/10k',
    'p50 ms',
    'p99 ms',
    'dropped',
    'errors',
    'runs',
    'note',
  ];
  const body = rows.map((r) => [
    r.tool,
    r.model,
    r.targetRate === null ? 'max' : num(r.targetRate),
    num(r.achievedPerSec),
    r.targetRate === null ? '–' : `${((100 * r.achievedPerSec) / r.targetRate).toFixed(1)}%`,
    r.cpuPer10k === null ? '–' : r.cpuPer10k.toFixed(3),
    r.targetCpuPer10k == null ? '–' : r.targetCpuPer10k.toFixed(3),
    r.switchesPer10k == null ? '–' : num(r.switchesPer10k),
    r.targetSwitchesPer10k == null ? '–' : num(r.targetSwitchesPer10k),
    lat(r.p50Ms),
    lat(r.p99Ms),
    r.dropped === null ? '–' : num(r.dropped),
    num(r.errors),
    String(r.runs),
    r.note ?? '',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const left = new Set([0, 1, head.length - 1]);
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (left.has(i) ? c.padEnd(widths[i]) : c.padStart(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(head), ...body.map(line)].join('\n');
}

/**
 * plateau held a rate: within 1% of it, nothing dropped, median under 2 ms. A row (medians of the
 * runs) or a single run; a row's heldRuns says how many of its runs held on their own.
 */
export function held(r: Measure): boolean {
  return r.targetRate !== null && missedHolding(r).length === 0;
}

/** Which of held()'s conditions a run missed, in words (none: it held, given a target rate). */
function missedHolding(m: Measure): string[] {
  const why: string[] = [];
  if (m.targetRate !== null && m.achievedPerSec < 0.99 * m.targetRate)
    why.push(`${((100 * m.achievedPerSec) / m.targetRate).toFixed(1)}% of the rate`);
  if ((m.dropped ?? 0) > 0) why.push(`${num(m.dropped)} dropped`);
  if (m.p50Ms === null || m.p50Ms >= 2) why.push(`p50 ${lat(m.p50Ms)} ms`);
  return why;
}

export interface Ratio {
  what: string;
  value: number | null;
  goal: string;
  met: boolean | null;
  detail: string;
}

/** @param cores the machine's cores, shared by the generator and nginx (for the CPU budget line). */
export function ratios(rows: Row[], cores: number | null = null): Ratio[] {
  const plateau = rows.filter((r) => r.tool === 'plateau' && r.model === 'open');
  // A rate counts when most of its runs held it on their own, not only the medians of the figures.
  const rowHeld = (r: Row) => (r.heldRuns !== undefined ? r.heldRuns * 2 > r.runs : held(r));
  const best = plateau
    .filter(rowHeld)
    .reduce<Row | null>((b, r) => (!b || (r.targetRate ?? 0) > (b.targetRate ?? 0) ? r : b), null);
  const bestRate = best ? best.achievedPerSec : null;
  const closed = (tool: string) =>
    rows.find((r) => r.tool === tool && r.model === 'closed' && r.targetRate === null) ?? null;
  const artilleryMax = rows
    .filter((r) => r.tool === 'artillery')
    .reduce<number | null>((m, r) => Math.max(m ?? 0, r.achievedPerSec), null);
  const at10k = (tool: string) => rows.find((r) => r.tool === tool && r.targetRate === 10_000) ?? null;
  const div = (a: number | null | undefined, b: number | null | undefined) =>
    a != null && b != null && b > 0 ? a / b : null;
  const out: Ratio[] = [];
  const runsHeld = best && best.runs > 1 ? ` in ${best.heldRuns ?? 0} of ${best.runs} runs` : '';
  const heldDetail = best
    ? `plateau held ${num(best.targetRate)} req/s${runsHeld} (median ${num(bestRate)} achieved)`
    : 'plateau held no rate in most runs (within 1%, 0 dropped, p50 < 2 ms)';
  for (const tool of ['autocannon', 'wrk', 'hey']) {
    const c = closed(tool);
    // no fixed rate of plateau's ran (the paired case alone, say): nothing to compare
    if (!c || plateau.length === 0) continue;
    const v = div(bestRate, c.achievedPerSec);
    const goal = tool === 'autocannon' ? `>= ${HELD_GOAL}` : 'informative';
    out.push({
      what: `plateau held rate / ${tool} closed max`,
      value: v,
      goal,
      met: tool === 'autocannon' ? (v === null ? false : v >= HELD_GOAL) : null,
      detail: `${heldDetail}; ${tool} ${num(c.achievedPerSec)} req/s`,
    });
  }
  const paired = pairedRatio(rows);
  if (paired) out.push(paired);
  const budget = cpuBudget(best, closed('autocannon'), cores);
  if (budget) out.push(budget);
  if (artilleryMax !== null) {
    const v = div(bestRate, artilleryMax);
    out.push({
      what: 'plateau held rate / artillery best',
      value: v,
      goal: '> 15',
      met: v === null ? false : v > 15,
      detail: `${heldDetail}; artillery at most ${num(artilleryMax)} req/s`,
    });
  }
  const p10 = at10k('plateau');
  // The CPU goal compares at the same fixed rate (autocannon -R 10000); its closed maximum is shown too.
  for (const [tool, goal, bound] of [
    ['autocannon -R', '<= 1.0', 1.0],
    ['autocannon', 'informative', null],
    ['bare undici', '<= 1.3', 1.3],
    ['bare undici (spin)', '<= 1.3', 1.3],
  ] as const) {
    const peer = tool === 'autocannon' ? closed(tool) : at10k(tool);
    if (!p10 || !peer) continue;
    const v = div(p10.cpuPer10k, peer.cpuPer10k);
    out.push({
      what: `plateau CPU-s/10k at 10k req/s / ${tool === 'autocannon' ? 'autocannon (closed max)' : `${tool} at 10k req/s`}`,
      value: v,
      goal,
      met: v === null || bound === null ? null : v <= bound,
      detail: `${p10.cpuPer10k?.toFixed(3) ?? '–'} vs ${peer.cpuPer10k?.toFixed(3) ?? '–'} CPU-s/10k${switchesDetail(p10, peer)}`,
    });
  }
  const one10 = at10k('plateau 1 thread');
  const ac10 = at10k('autocannon -R');
  if (one10 && ac10) {
    out.push({
      what: 'plateau on 1 thread CPU-s/10k at 10k req/s / autocannon -R',
      value: div(one10.cpuPer10k, ac10.cpuPer10k),
      goal: 'informative',
      met: null,
      detail: `${one10.cpuPer10k?.toFixed(3) ?? '–'} vs ${ac10.cpuPer10k?.toFixed(3) ?? '–'} CPU-s/10k (--workers 1: the cheaper shape when the target shares the machine)`,
    });
  }
  const od = overdriveRatio(rows);
  if (od) out.push(od);
  if (p10)
    out.push({
      what: 'plateau p99 at 10k req/s (ms)',
      value: p10.p99Ms,
      goal: '<= 15',
      met: p10.p99Ms === null ? null : p10.p99Ms <= 15,
      detail: `p50 ${lat(p10.p50Ms)} ms`,
    });
  return out;
}

/** The context switches per 10k of both sides, where both were read: what batching saved the cheaper one. */
function switchesDetail(a: Row, b: Row): string {
  if (a.switchesPer10k == null || b.switchesPer10k == null) return '';
  const nginx =
    a.targetSwitchesPer10k != null && b.targetSwitchesPer10k != null
      ? `, nginx's ${num(a.targetSwitchesPer10k)} vs ${num(b.targetSwitchesPer10k)}`
      : '';
  return `; context switches per 10k ${num(a.switchesPer10k)} vs ${num(b.switchesPer10k)}${nginx}`;
}

/**
 * Why the held-rate goal is (or is not) within the machine's reach: the cores plateau and nginx
 * together would keep busy at 1.25 x autocannon's closed maximum, from their CPU-s per 10k at the
 * highest rate plateau held. An open model needs headroom on top (its stalls are made up in bursts).
 */
function cpuBudget(best: Row | null, ac: Row | null, cores: number | null): Ratio | null {
  if (!best || !ac || best.cpuPer10k === null || best.targetCpuPer10k == null) return null;
  const goalRate = HELD_GOAL * ac.achievedPerSec;
  const perReq = best.cpuPer10k + best.targetCpuPer10k;
  const need = (perReq * goalRate) / 1e4;
  const acUses =
    ac.cpuPer10k !== null && ac.targetCpuPer10k != null
      ? `; autocannon's own maximum kept ${(((ac.cpuPer10k + ac.targetCpuPer10k) * ac.achievedPerSec) / 1e4).toFixed(2)} cores busy (itself ${ac.cpuPer10k.toFixed(3)} + nginx ${ac.targetCpuPer10k.toFixed(3)} CPU-s/10k)`
      : '';
  return {
    what: 'cores plateau + nginx would keep busy at 1.25 x autocannon max',
    value: need,
    goal: cores ? `< ${cores} cores` : 'informative',
    met: null,
    detail: `${num(goalRate)} req/s at plateau ${best.cpuPer10k.toFixed(3)} + nginx ${best.targetCpuPer10k.toFixed(3)} CPU-s/10k (measured at ${num(best.targetRate)} req/s), before any headroom for stalls${acUses}`,
  };
}

/**
 * The held-rate goal run by run: each repetition ran plateau right after autocannon's closed
 * maximum, at HELD_GOAL x that maximum, so the two share the host's state of the moment (which moves
 * autocannon's maximum by a factor of two here). Met when most runs held their rate.
 */
function pairedRatio(rows: Row[]): Ratio | null {
  const ps = rows.filter((r) => r.tool === PAIRED_TOOL).sort((a, b) => (a.targetRate ?? 0) - (b.targetRate ?? 0));
  if (ps.length === 0) return null;
  const runs = ps.reduce((a, r) => a + r.runs, 0);
  const heldRuns = ps.reduce((a, r) => a + (r.heldRuns ?? 0), 0);
  const each = ps.map(
    (r) =>
      `${num(r.targetRate)} req/s (autocannon ${num(r.pairedMax ?? null)}): ${r.runs > 1 ? `held in ${r.heldRuns ?? 0} of ${r.runs}` : r.heldRuns ? 'held' : `not held, ${missedHolding(r).join(', ')}`}`,
  );
  return {
    what: `plateau held ${HELD_GOAL} x autocannon closed max, run by run`,
    value: heldRuns / runs,
    goal: 'most runs',
    met: heldRuns * 2 > runs,
    detail: `held in ${heldRuns} of ${runs} runs; ${each.join('; ')}`,
  };
}

/**
 * Issue 7: a step where the generator's lag or loop delay is over its bound is reported
 * generator-bound even when nothing was dropped. Met by the lowest overdriven rate that plateau
 * flagged with 0 dropped; flagged only with drops, or not at all, is not met.
 */
function overdriveRatio(rows: Row[]): Ratio | null {
  const od = rows.filter((r) => r.tool === OVERDRIVE_TOOL).sort((a, b) => (a.targetRate ?? 0) - (b.targetRate ?? 0));
  if (od.length === 0) return null;
  const flagged = od.find((r) => r.generator !== undefined);
  const tried = od.map((r) => num(r.targetRate)).join(', ');
  const what = 'overdriven thread reported generator-bound with 0 dropped';
  if (!flagged)
    return {
      what,
      value: null,
      goal: 'reported',
      met: false,
      detail: `not reported at ${tried} req/s: one thread kept up; raise --overdrive-rate`,
    };
  return {
    what,
    value: null,
    goal: 'reported',
    met: flagged.dropped === 0,
    detail: `at ${num(flagged.targetRate)} req/s (tried ${tried}), ${num(flagged.dropped ?? 0)} dropped: ${flagged.note ?? flagged.generator}`,
  };
}

export function formatRatios(rs: Ratio[]): string {
  return rs
    .map(
      (r) =>
        `${r.what.padEnd(62)} ${shown(r).padStart(7)}  goal ${r.goal.padEnd(11)} ${r.met === null ? '' : r.met ? 'met' : 'NOT met'}  (${r.detail})`,
    )
    .join('\n');
}

/** Two decimals, or three when two would round the value onto its goal's limit (1.2476 reads 1.248, not "1.25 NOT met"). */
function shown(r: Ratio): string {
  if (r.value === null) return '–';
  const limit = Number(/\d+(?:\.\d+)?/.exec(r.goal)?.[0]);
  return Number.isFinite(limit) && Math.abs(r.value - limit) < 0.005 ? r.value.toFixed(3) : r.value.toFixed(2);
}
