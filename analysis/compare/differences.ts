/**
 * What makes two runs comparable: same engine, target, topology, generator host, network distance
 * (RTT), steps and rules. Pure: each difference becomes one warning sentence with both values.
 * An A/B comparison or a gate against a baseline is only valid when these agree.
 */
import { fmtMs, rateUnitOf, sharedRateUnit, withShares } from '../format.ts';
import { firstFew, pct } from './share-text.ts';
import { requestNamesDifference } from './request-names.ts';
import { timeoutDifference, timeoutDifferenceWhy } from './timeout-difference.ts';
import type { RunResult } from '../types.ts';

/** RTTs differ when their medians are further apart than max(0.5 ms, 50% of the smaller). */
export const RTT_FLOOR_MS = 0.5;
export const RTT_RELATIVE = 0.5;

/** Environment keys that describe where the load came from and what it hit. */
const TOPOLOGY_KEYS = ['topology', 'replicas', 'hostname', 'cpus', 'platform'];

/** The plan's step size: the median positive difference between consecutive offered rates. */
export function stepSizePerSec(run: RunResult): number {
  const rates = [...new Set(run.steps.map((s) => s.ratePerSec))].sort((a, b) => a - b);
  const diffs = rates
    .slice(1)
    .map((r, i) => r - rates[i])
    .filter((d) => d > 0)
    .sort((a, b) => a - b);
  if (diffs.length === 0) return rates[0] ?? 0;
  return diffs[Math.floor(diffs.length / 2)];
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** The target as the gate compares it: a loopback target's port is left out (the demo's is ephemeral). */
export function targetKey(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${LOOPBACK.has(u.hostname) ? 'loopback' : u.host}${u.pathname}`;
  } catch {
    return url;
  }
}

/** The distinct offered rates of a run's steps, ascending. */
function ratesOf(run: RunResult): number[] {
  return [...new Set(run.steps.map((s) => s.ratePerSec))].sort((a, b) => a - b);
}

/**
 * Within this share of a step, two rates are one: an instance's share of a rate is rounded to
 * 0.001 (a k6 execution segment's 16.667 by 16.666), and a merge sums the rounded shares.
 */
export const GRID_TOLERANCE = 0.01;

/** Rate r lies on the grid from `from` by `by`. */
function onGrid(r: number, from: number, by: number): boolean {
  const k = (r - from) / by;
  return Math.abs(k - Math.round(k)) < GRID_TOLERANCE;
}

/**
 * Whether two runs' steps lie on one grid of offered rates, so that a knee of one is a rate the
 * other offered or would have: the same step, and starts a whole number of steps apart. A run of
 * one rate (its first step failed) has no step of its own: its rate must lie on the other's grid.
 */
export function sameGrid(a: RunResult, b: RunResult): boolean {
  const ra = ratesOf(a),
    rb = ratesOf(b);
  if (ra.length === 0 || rb.length === 0) return true;
  if (ra.length === 1 && rb.length === 1) return true;
  if (ra.length === 1) return onGrid(ra[0], rb[0], stepSizePerSec(b));
  if (rb.length === 1) return onGrid(rb[0], ra[0], stepSizePerSec(a));
  const step = stepSizePerSec(a);
  return Math.abs(step - stepSizePerSec(b)) < GRID_TOLERANCE * step && onGrid(rb[0], ra[0], step);
}

/** The two runs' lowest rates differ by more than rounding (a grid's same rates from another start). */
function startsApart(a: RunResult, b: RunResult): boolean {
  const ra = ratesOf(a),
    rb = ratesOf(b);
  if (ra.length === 0 || rb.length === 0) return ra.length !== rb.length;
  const step = Math.max(stepSizePerSec(a), stepSizePerSec(b));
  return Math.abs(ra[0] - rb[0]) > GRID_TOLERANCE * step;
}

/**
 * The plan's grid as run: its first rate and step (reruns and where each run stopped aside), in
 * `unit` (the runs' shared one): "from 50 by 50 req/s".
 */
export function grid(run: RunResult, unit: string): string {
  if (run.steps.length === 0) return 'none';
  return `from ${Math.min(...run.steps.map((s) => s.ratePerSec))} by ${stepSizePerSec(run)} ${unit}`;
}

function steadyLengths(run: RunResult): string {
  return [...new Set(run.steps.map((s) => Math.round(s.steadyEndS - s.steadyStartS)))].join('/');
}

/** Max VUs further apart than this factor are another headroom. */
export const VUS_APART = 1.25;

/** The target is on the generator's own machine (a loopback address). */
function onLoopback(url: string): boolean {
  try {
    return LOOPBACK.has(new URL(url).hostname);
  } catch {
    return false;
  }
}

function rttDiffers(a: RunResult, b: RunResult): string | null {
  if (a.rtt === null && b.rtt === null) return null;
  // both on loopback: no network path to differ, only the machine's noise (0.52 against 1.03 ms)
  if (onLoopback(a.target) && onLoopback(b.target)) return null;
  if (a.rtt === null || b.rtt === null)
    return `RTT measured in only one run (${a.rtt === null ? 'B' : 'A'}): generator distance unknown`;
  const x = a.rtt.httpMedianMs,
    y = b.rtt.httpMedianMs;
  if (Math.abs(x - y) <= Math.max(RTT_FLOOR_MS, RTT_RELATIVE * Math.min(x, y))) return null;
  return `RTT (generator distance) differs: HTTP median ${fmtMs(x)} ms vs ${fmtMs(y)} ms: latency and capacity are not comparable across network paths`;
}

/**
 * The stop rule's thresholds that differ, in words ("rules.minTailSamples 10 vs 3"), and what the
 * difference does: a delivery or capture threshold moves the knee itself; minTailSamples only which
 * percentiles are trusted, which the classification of a failed step (its tail against the last
 * held one's) and the per-name comparison read. Null when they agree.
 */
export function ruleDifference(
  a: Pick<RunResult, 'rules'>,
  b: Pick<RunResult, 'rules'>,
  /** How each pair of values is said: "10 vs 3" by default. */
  pair: (x: number, y: number) => string = (x, y) => `${x} vs ${y}`,
): { which: string; why: string } | null {
  const keys = (['deliveryMin', 'captureMin', 'minTailSamples'] as const).filter((k) => a.rules[k] !== b.rules[k]);
  if (keys.length === 0) return null;
  const which = keys.map((k) => `rules.${k} ${pair(a.rules[k], b.rules[k])}`).join(', ');
  const why =
    keys.length === 1 && keys[0] === 'minTailSamples'
      ? 'a percentile is trusted on other sample counts, which the classification of a failed step and the per-name comparison read'
      : 'the stop rule differs, so the knee means different things';
  return { which, why };
}

type MixEntry = { name: string; weight: number; transaction: boolean };

function kind(transaction: boolean): string {
  return transaction ? 'a transaction' : 'a request';
}

/** Each name's share and kind (a name given twice: its shares summed). */
function byName(es: readonly MixEntry[]): Map<string, { share: number; transaction: boolean }> {
  const out = new Map<string, { share: number; transaction: boolean }>();
  for (const e of withShares(es)) {
    const seen = out.get(e.name);
    out.set(e.name, { share: (seen?.share ?? 0) + e.share, transaction: e.transaction });
  }
  return out;
}

/**
 * How the mix of `b` differs from `a`'s, naming only what differs: the entries only one run
 * offered, and those whose share of the arrivals or kind (request or transaction) changed, each
 * part its first few entries and a count of the rest: "only in the baseline: old name 0.9%; only
 * in the run: new name 0.9%; changed from the baseline to the run: read 70% → 90%, write 30% → 10%".
 * `labels` name the runs ("A" and "B" by default). Shares, not weights: weights 70/30 and 7/3 are
 * one mix. Null when the mixes are one, or it cannot be told (a run recorded before mixes, an
 * import of the user's own k6 script) or there is no mix to speak of (one entry on each side:
 * renaming a scenario changes no traffic).
 */
export function mixDifference(
  a: Pick<RunResult, 'traffic'>,
  b: Pick<RunResult, 'traffic'>,
  labels: readonly [string, string] = ['A', 'B'],
): string | null {
  const x = a.traffic?.entries ?? [],
    y = b.traffic?.entries ?? [];
  if (x.length === 0 || y.length === 0 || (x.length === 1 && y.length === 1)) return null;
  // an entry that turned from a request into a transaction (or back) under its name is another mix
  const key = (es: readonly MixEntry[]) =>
    withShares(es)
      .sort((p, q) => (p.name < q.name ? -1 : 1))
      .map((e) => `${e.name}:${e.share.toFixed(6)}:${kind(e.transaction)}`);
  if (key(x).join('\n') === key(y).join('\n')) return null;
  const mx = byName(x),
    my = byName(y);
  const entry = (name: string, e: { share: number; transaction: boolean }) =>
    `${name} ${pct(e.share)}${e.transaction ? ' (a transaction)' : ''}`;
  const only = (m: typeof mx, other: typeof mx) =>
    [...m].filter(([name]) => !other.has(name)).map(([name, e]) => entry(name, e));
  const changed: string[] = [];
  for (const [name, e] of mx) {
    const f = my.get(name);
    if (f === undefined) continue;
    const share =
      e.share.toFixed(6) !== f.share.toFixed(6) ? `${pct(e.share, f.share)} → ${pct(f.share, e.share)}` : '';
    const turned = e.transaction !== f.transaction ? `${kind(e.transaction)} → ${kind(f.transaction)}` : '';
    if (share || turned) changed.push(`${name} ${[share, turned].filter(Boolean).join(', ')}`);
  }
  const [la, lb] = labels;
  const parts = [
    ...[only(mx, my)].filter((l) => l.length > 0).map((l) => `only in ${la}: ${firstFew(l)}`),
    ...[only(my, mx)].filter((l) => l.length > 0).map((l) => `only in ${lb}: ${firstFew(l)}`),
    ...(changed.length > 0 ? [`changed from ${la} to ${lb}: ${firstFew(changed)}`] : []),
  ];
  // a name given twice in one mix and its shares summed alike in the other: the entries as they are
  return parts.length > 0
    ? parts.join('; ')
    : `${la}: ${firstFew(withShares(x).map((e) => entry(e.name, e)))}; ${lb}: ${firstFew(withShares(y).map((e) => entry(e.name, e)))}`;
}

/** The target a k6 run imported without --target records: its file's name follows (harness/k6/import). */
export const IMPORTED_TARGET = 'k6 run imported from ';

/** The fix for a target an import did not name, the gate's too (analysis/gate/decide.ts). */
const IMPORTED_TARGET_FIX =
  'a k6 import names its target only when told (plateau import k6 FILE --target URL): import both runs with the same --target';

/**
 * Two targets of which one or both are an import's placeholder: the target unknown, not another
 * (two imports of one run from JSON and CSV read "target differs"), and unknown too where both
 * placeholders name one file (every import of k6-out.json read as one service); null when both
 * were named. docs/decisions/051.
 */
export function unknownTargetText(a: string, b: string, [la, lb]: readonly [string, string]): string | null {
  const file = (t: string) => (t.startsWith(IMPORTED_TARGET) ? t.slice(IMPORTED_TARGET.length) : null);
  const [fa, fb] = [file(a), file(b)];
  if (fa !== null && fb !== null)
    return `target unknown: ${la} and ${lb} are k6 runs imported without --target (from ${fa} and ${fb}): ${IMPORTED_TARGET_FIX}`;
  if (fa === null && fb === null) return null;
  const [which, from, other, named] = fa !== null ? [la, fa, lb, b] : [lb, fb, la, a];
  return `target unknown: ${which} is a k6 run imported without --target (from ${from}), ${other}'s is ${named}: ${IMPORTED_TARGET_FIX}`;
}

/** A random source's draws as a difference names them: 'seed "ab"' or 'run id r1'. */
function drawText(d: { by: 'seed' | 'run id'; text: string }): string {
  return d.by === 'seed' ? `seed ${JSON.stringify(d.text)}` : `run id ${d.text}`;
}

/** One sentence per difference that limits the comparison of A and B; empty when comparable. */
export function settingDifferences(a: RunResult, b: RunResult): string[] {
  return settingDifferenceList(a, b)
    .filter((d) => d.key !== 'sized')
    .map((d) => d.text);
}

/** One sentence per figure plateau derived that differs (no setting the user gave): information, not a warning. */
export function sizedDifferences(a: RunResult, b: RunResult): string[] {
  return settingDifferenceList(a, b)
    .filter((d) => d.key === 'sized')
    .map((d) => d.text);
}

/**
 * What a setting difference is about: the gate says one that is a reason it cannot judge once.
 * `sized`: no setting of the user's but a figure plateau derived from each run (its VUs).
 */
export type DifferenceKey =
  'engine' | 'target' | 'steps' | 'rules' | 'timeouts' | 'rate unit' | 'traffic mix' | 'sized' | 'other';

/** Where plateau's VU sizing took a run's time per arrival from (run.json traffic.sizedFrom). */
function sizedFromWords(r: RunResult): string {
  const from = r.traffic?.sizedFrom;
  return from === 'warmup'
    ? "the warmup's"
    : from === 'samples'
      ? "preflight's sample arrivals'"
      : from === 'expectedServiceMs'
        ? 'vus.expectedServiceMs'
        : 'its own';
}

/** settingDifferences, each sentence with what it is about. */
export function settingDifferenceList(
  a: RunResult,
  b: RunResult,
  /** What the two runs are called where a text names them (the gate's: the baseline, the run). */
  labels: readonly [string, string] = ['A', 'B'],
): { key: DifferenceKey; text: string }[] {
  const out: { key: DifferenceKey; text: string }[] = [];
  const differ = (what: string, x: string, y: string, why: string, key: DifferenceKey = 'other') => {
    // the plural subjects (steps, rules, threads) take their verb: 'steps (offered rates) differs' read wrong
    if (x !== y)
      out.push({
        key,
        text: `${what} ${/^(steps|rules|generator's threads)\b/.test(what) ? 'differ' : 'differs'}: ${x} vs ${y}: ${why}`,
      });
  };
  differ('engine', a.engine, b.engine, 'engines measure differently; compare runs of one engine', 'engine');
  // its threads and HTTP client, as run.json's environment.engine says them once the engine started
  // ("native (1 thread), socket HTTP client"); one that stopped before records the engine's name alone: unknown
  const [ga, gb] = [a.environment.engine, b.environment.engine];
  if (a.engine === b.engine && ga !== undefined && gb !== undefined && ga !== a.engine && gb !== b.engine)
    differ(
      "generator's threads and HTTP client",
      ga,
      gb,
      "the generator's own limit (how many arrivals it sends on time) is theirs: a capacity near it may be the generator's; compare runs of one setup (--workers, http.client)",
    );
  // the scenario by name; under one name, by its code and data (harness/scenario/digest.ts). A run
  // recorded before either is unknown, never a difference
  if (a.scenario !== undefined && b.scenario !== undefined && a.scenario !== b.scenario)
    differ(
      'scenario',
      a.scenario,
      b.scenario,
      "the traffic's code may differ even where its names and shares agree (what each request sends, which fail on purpose); compare runs of one scenario",
    );
  else if (a.scenarioDigest !== undefined && b.scenarioDigest !== undefined && a.scenarioDigest !== b.scenarioDigest)
    differ(
      `scenario${a.scenario === undefined ? '' : ` "${a.scenario}"`} code or data`,
      a.scenarioDigest,
      b.scenarioDigest,
      "its module, a file it imports or a data file changed: the traffic's code may differ even where its names and shares agree; compare runs of one version of it",
    );
  // a random source drew other rows in each run (its seed, else the run id: decision 057); a source
  // in one run only is the scenario's difference above
  const [da, db] = [a.traffic?.randomDraws ?? {}, b.traffic?.randomDraws ?? {}];
  for (const name of Object.keys(da).filter((n) => n in db && da[n].text !== db[n].text))
    differ(
      `random rows of data source "${name}"`,
      drawText(da[name]),
      drawText(db[name]),
      `each run drew other rows, so a difference may be the data's: give the source a seed (data: { ${name}: { ..., order: 'random', seed: 'ab' } }) and both runs draw the same`,
    );
  // a loopback target's port is ephemeral (the demo's): not a difference
  const unknown = unknownTargetText(a.target, b.target, labels);
  if (unknown) out.push({ key: 'target', text: unknown });
  else if (targetKey(a.target) !== targetKey(b.target))
    differ('target', a.target, b.target, 'make sure both runs hit the same service', 'target');
  for (const key of TOPOLOGY_KEYS) {
    const x = a.environment[key],
      y = b.environment[key];
    if (x !== undefined && y !== undefined)
      differ(
        `${key === 'hostname' || key === 'cpus' || key === 'platform' ? 'generator ' : ''}${key}`,
        x,
        y,
        key === 'topology' || key === 'replicas'
          ? 'an A/B is only valid on the same topology'
          : 'the generator itself changed',
      );
  }
  // A container's CPU limit, by its figure (the cgroup's path differs from container to container).
  const quota = (r: RunResult) => r.environment.cpuQuota?.split(' (')[0] ?? 'no CPU quota';
  if (a.environment.cpuQuota !== undefined || b.environment.cpuQuota !== undefined)
    differ('generator CPU quota', quota(a), quota(b), 'the generator had a different share of CPU');
  const rtt = rttDiffers(a, b);
  if (rtt) out.push({ key: 'other', text: rtt });
  const unit = sharedRateUnit(a.traffic, b.traffic);
  // rates rounded alike (an instance's share, a merge's sum) are one grid, said once
  if (!sameGrid(a, b) || startsApart(a, b))
    differ(
      'steps (offered rates)',
      grid(a, unit),
      grid(b, unit),
      'compare at equal rates only; capacity resolution differs',
      'steps',
    );
  differ('steady window (s)', steadyLengths(a), steadyLengths(b), 'longer windows hold more samples and smooth more');
  const rules = ruleDifference(a, b);
  if (rules) out.push({ key: 'rules', text: `rules differ: ${rules.which}: ${rules.why}` });
  const deadlines = timeoutDifference(a, b);
  if (deadlines)
    out.push({
      key: deadlines.timedOut[0] + deadlines.timedOut[1] > 0 ? 'timeouts' : 'other',
      text: `deadlines differ: ${deadlines.which} ms: ${timeoutDifferenceWhy(deadlines, labels)}`,
    });
  differ(
    'rate unit',
    rateUnitOf(a.traffic),
    rateUnitOf(b.traffic),
    'one run counts arrivals of several requests (transactions), the other single requests: its rates are not the same quantity',
    'rate unit',
  );
  const mix = mixDifference(a, b, labels);
  if (mix)
    out.push({
      key: 'traffic mix',
      text: `traffic mix differs (${mix}): a capacity is a property of the mix; compare runs of one mix`,
    });
  // a run that records no mix (an import of the user's own k6 script) is told by its requests' names
  const names = mix ? null : requestNamesDifference(a, b, labels);
  if (names) out.push({ key: 'other', text: names });
  // a k6 import knows the VUs k6 allocated (vus_max at its peak), not the maxVUs its script allowed
  const imports = [a, b].filter((r) => r.environment.k6Output !== undefined).length;
  // sized by Little's law from each run's own RTT and warmup, two runs of one config differ a little
  // (164 and 172 in a user's CI): the headroom differs only past VUS_APART; a vus.max the user set
  // is no noise, and any difference with it is said
  const [va, vb] = [a.vus.maxVUs, b.vus.maxVUs];
  const set = a.vus.configuredMax !== undefined || b.vus.configuredMax !== undefined;
  if (va === vb || (imports === 0 && !set && Math.max(va, vb) <= VUS_APART * Math.min(va, vb))) return out;
  // neither given: plateau sized both from each run's time per arrival, so a slower target gets more
  // (420 vs 1256 for a pool cut from 5 to 2): the user changed nothing, and a warning said they had
  if (imports === 0 && !set) {
    out.push({
      key: 'sized',
      text: `max VUs differs: ${va} vs ${vb}: no setting (no vus.max given): plateau sized each run's VUs from its time per arrival (${sizedFromWords(a)} vs ${sizedFromWords(b)}), so they follow the target's speed; it matters only where a run dropped arrivals for want of VUs`,
    });
    return out;
  }
  differ(
    imports === 2 ? 'VUs allocated at most (a k6 import: vus_max)' : 'max VUs',
    String(a.vus.maxVUs),
    String(b.vus.maxVUs),
    imports === 2
      ? "an import reads the VUs k6 allocated, not the script's maxVUs: a difference may be the load's, not the headroom's"
      : imports === 1
        ? 'one run is a k6 import, whose figure is the VUs k6 allocated, not a maxVUs: not the same figure'
        : "the generator's headroom differs",
  );
  return out;
}
