/**
 * The traffic mix and the figures by name as plain text (cells, titles, sentences), shared by
 * report.md, report.html and steps-by-name.csv so each says the same thing; each renderer escapes
 * it for its own format. Names are the user's text: every renderer escapes them.
 */
import {
  byCodePoint,
  fmtInt,
  fmtMs,
  fmtPercent,
  fmtRate,
  fmtRatio,
  fmtShare,
  fmtShareOver,
  fmtTarget,
  rateUnitOf,
  stepList,
  stepNo,
  stepText,
} from '../analysis/format.ts';
import { firstDegradingName, type NamePoint, type NamesKnee } from '../analysis/names-knee.ts';
import { latenciesLeftOutWhy } from '../analysis/warnings.ts';
import { FAILED_MIN, NAME_SHARE_WARN } from '../analysis/failures-in-held.ts';
import { requiredSamples } from '../analysis/percentiles.ts';
import type { NameResult, RunResult, StepResult, TrafficRecord } from '../analysis/types.ts';
import { countsText, percentileCell, verdictLabel } from './cells.ts';
import type { TextParagraph, TextSection } from './markdown-verdicts.ts';

/** The steps whose figures by name are shown: those with data and names, in the order they ran. */
export function namedSteps(run: RunResult): StepResult[] {
  return run.steps.filter((s) => s.steadyS > 0 && s.byName !== undefined && Object.keys(s.byName).length > 0);
}

/**
 * Every name of the run in one order for every table and chart: the mix's entries as the traffic
 * lists them, then the other names (a transaction's requests) by code point; without a recorded
 * traffic, all by code point.
 */
export function nameOrder(run: RunResult): string[] {
  const seen = new Set(run.steps.flatMap((s) => Object.keys(s.byName ?? {})));
  const entries = (run.traffic?.entries ?? []).map((e) => e.name).filter((n) => seen.has(n));
  const rest = [...seen].filter((n) => !entries.includes(n)).sort(byCodePoint);
  return [...entries, ...rest];
}

/** True when a name is a transaction in any step (a transaction's figures are arrivals). */
export function isTransaction(run: RunResult, name: string): boolean {
  return (
    run.steps.some((s) => s.byName?.[name]?.transaction === true) ||
    (run.traffic?.entries.some((e) => e.name === name && e.transaction) ?? false)
  );
}

/** The percentiles shown by name. */
export const NAME_QUANTILES = [50, 90, 99] as const;

export const NAME_HEADER = [
  'Name',
  'Kind',
  'Completed/s',
  'Successful/s',
  'p50',
  'p90',
  'p99',
  'Error rate',
  'Errors by kind',
];

/** What the columns of a step's table by name mean. */
export const NAME_NOTE =
  "Completed/s counts requests for a request's name and arrivals for a transaction (a mix entry of several requests); a transaction's percentiles are its whole duration, from the arrival's start to its last answer, think time included. Percentiles are of the successful ones, steady window only.";

/** The note of a run with no transaction (an imported k6 run's names, a mix of single requests): its rows are requests. */
const NAME_NOTE_REQUESTS =
  "Completed/s counts each name's requests, Successful/s those that succeeded. Percentiles are of the successful ones, steady window only.";

/** What the columns mean, for this run: transactions explained only where it has one. */
export function nameNote(run: RunResult): string {
  return nameOrder(run).some((n) => isTransaction(run, n)) ? NAME_NOTE : NAME_NOTE_REQUESTS;
}

/**
 * What a row by name is, in the sentences about them: an imported k6 run's rows are its `name`
 * tags, not entries of a mix (unless it ran plateau's own script's mix).
 */
function rowWord(run: RunResult): { one: string; many: string } {
  const names = run.rules.imported && run.traffic?.iterations?.of !== 'plateau-mix';
  return names ? { one: 'name', many: 'names' } : { one: 'entry', many: 'entries' };
}

/** A name's row of a step's table. */
export function nameCells(name: string, r: NameResult): string[] {
  return [
    name,
    r.transaction ? 'transaction' : 'request',
    fmtRate(r.completedPerSec),
    fmtRate(r.throughputPerSec),
    ...NAME_QUANTILES.map((q) => percentileCell(r.latency.find((p) => p.q === q))),
    fmtPercent(r.errorRate),
    countsText(r.errors) || '–',
  ];
}

/** The rows of a step's table by name, in the run's name order. */
export function nameRows(run: RunResult, s: StepResult): string[][] {
  return nameOrder(run).flatMap((name) => {
    const r = s.byName?.[name];
    return r ? [nameCells(name, r)] : [];
  });
}

/**
 * "Step 3 · 150/s offered, holds: 148.2 arrivals/s successful, 412.3 requests/s completed", in the
 * run's rate unit (req/s where each arrival was one request).
 */
export function nameStepTitle(s: StepResult, unit: string = 'arrivals/s'): string {
  const attempt = (s.attempt ?? 1) > 1 ? ` (attempt ${s.attempt})` : '';
  const requests = s.requestsPerSec === undefined ? '' : `, ${fmtRate(s.requestsPerSec)} requests/s completed`;
  return `Step ${stepNo(s.index)}${attempt} · ${fmtTarget(s.ratePerSec)}/s offered, ${verdictLabel(s)}: ${fmtRate(s.throughputPerSec)} ${unit} successful${requests}`;
}

/** True when a shown percentile by name rests on too few samples (the tables then carry a footnote). */
export function anyNameUnreliable(run: RunResult): boolean {
  return namedSteps(run).some((s) =>
    Object.values(s.byName ?? {}).some((r) =>
      r.latency.some((p) => (NAME_QUANTILES as readonly number[]).includes(p.q) && p.valueMs !== null && !p.reliable),
    ),
  );
}

/** The footnote of an unreliable percentile by name. */
export function nameUnreliableNote(run: RunResult): string {
  const need = (q: number) => fmtInt(requiredSamples(q, run.rules.minTailSamples));
  return `* unreliable: fewer than ${fmtInt(run.rules.minTailSamples)} samples lie beyond this percentile (p90 needs ${need(90)} samples of that name in the window, p99 ${need(99)}); shown for diagnosis only.`;
}

/**
 * How the steps' VUs were sized, in words: with `given`, the one count the config gave, kept as
 * given while `sizedFrom` sized the other.
 */
export function sizedFromText(
  sizedFrom: NonNullable<TrafficRecord['sizedFrom']>,
  given?: TrafficRecord['vusGiven'],
): string {
  // the figure Little's law sized, and the one the config gave
  const split =
    given === 'max'
      ? {
          sized: ' for the preallocated VUs (at most the given max)',
          kept: '; the max as the config gives it (vus.max, --max-vus)',
        }
      : given === 'preAllocated'
        ? {
            sized: ' for the max VUs',
            kept: '; the preallocated VUs as the config gives them (vus.preAllocated, --vus)',
          }
        : { sized: '', kept: '' };
  switch (sizedFrom) {
    case 'warmup':
      return `the warmup's measured time per arrival (the whole entry, think time included, plus the RTT), by Little's law${split.sized}${split.kept}`;
    case 'samples':
      return `preflight's sample arrivals: each transaction's own time (think time included) and vus.expectedServiceMs plus the RTT for a request, by the mix's weights and Little's law${split.sized}: no warmup measured a longer time per arrival${split.kept}`;
    case 'expectedServiceMs':
      return `vus.expectedServiceMs (the configured service time) plus the RTT, by Little's law${split.sized}: no warmup measured a longer time per arrival${split.kept}`;
    case 'given':
      return 'the VU counts the config gives (vus.preAllocated, vus.max)';
  }
}

/** What an arrival of an imported k6 run was, and what its rates count. */
function importedText(t: TrafficRecord, it: NonNullable<TrafficRecord['iterations']>): string {
  const several = rateUnitOf(t) === 'arrivals/s';
  const perArrival = `which sent ${fmtRatio(it.requestsPerArrival)} requests on average`;
  if (it.of === 'plateau-mix')
    return `Imported from a k6 run of plateau's own script: an arrival is one entry of its mix (its plateau_arrival samples), ${perArrival}. Rates, delivery and capture count ${several ? 'arrivals (arrivals/s)' : 'arrivals, each one request (req/s)'}.`;
  return `Imported from a k6 run of its own script: an arrival is one iteration (k6's iterations metric), ${perArrival}. Rates, delivery and capture count ${several ? 'iterations (arrivals/s)' : 'iterations, each one request (req/s)'}; ${outcomeRule(it, several)}`;
}

/** How an imported user script's iterations were told failed (second.ts); where it names the next to end, a window's first iterations can fail by requests before it (decision 063). */
function outcomeRule(it: NonNullable<TrafficRecord['iterations']>, several: boolean): string {
  if (it.exactOutcomes)
    return "an iteration failed when one of its requests did (each request matched to its iteration by k6's vu and iter).";
  if (!several)
    return 'each failed request fails one iteration (a lower bound on those that succeeded, exact at one request an iteration).';
  return 'each failed request fails one iteration: one that ended in its second or, where fewer ended there, the next to end (perhaps in the next window; a lower bound on those that succeeded; k6 run with vu and iter in --system-tags makes it exact).';
}

/** The traffic the run offered (entries, weights, shares, which are transactions) and what sized its VUs; null when not recorded. */
export function trafficText(run: RunResult): TextSection | null {
  const t = run.traffic;
  if (!t) return null;
  const total = t.entries.reduce((a, e) => a + e.weight, 0);
  const mixed = t.entries.length > 1 || t.entries.some((e) => e.transaction);
  const paragraphs: TextParagraph[] = [];
  if (mixed)
    paragraphs.push({
      text: "Each arrival runs one entry of the mix, chosen by its arrival number (a weighted round robin in Tijdeman's order: from the first arrival each entry's count stays within one of its share, and within two over any run of consecutive arrivals). Rates, delivery and capture count arrivals: a transaction is one arrival however many requests it sends, and succeeds only when every one of them did.",
    });
  if (t.iterations) paragraphs.push({ text: importedText(t, t.iterations) });
  if (t.sizedFrom) paragraphs.push({ lead: 'VUs sized from', text: `: ${sizedFromText(t.sizedFrom, t.vusGiven)}.` });
  if (t.entries.length === 0) return { title: 'Traffic', paragraphs };
  return {
    title: 'Traffic',
    paragraphs,
    table: {
      header: ['Entry', 'Weight', 'Share', 'Kind'],
      rows: t.entries.map((e) => [
        e.name,
        String(e.weight),
        total > 0 ? fmtPercent(e.weight / total) : '–',
        e.transaction ? 'transaction' : 'request',
      ]),
    },
  };
}

/**
 * Which entry's p99 (else p90, on short holds) grew first on the way to the knee, and which failed
 * a share of its arrivals (analysis/names-knee.ts), in a sentence or two; null when the run has no
 * figures by name.
 */
export function namesKneeSentence(run: RunResult): string | null {
  const f = firstDegradingName(run.steps, run.kneeStep);
  const said = kneeSentence(run, f);
  if (said === null) return null;
  const errors = f.failing.length === 0 ? [] : [failingSentence(run, f)];
  const stalled = f.stalled.length === 0 ? [] : [stalledSentence(run, f)];
  return [said, ...errors, ...stalled].join(' ');
}

/** The steps the rule left out for the generator's own delays, and why, in a sentence; the knee named where it is one. */
function stalledSentence(run: RunResult, f: NamesKnee): string {
  const one = new Set(f.stalled).size === 1;
  const kneeOut = f.kneeIndex !== null && f.stalled.includes(f.kneeIndex);
  const which = !kneeOut ? '' : one ? `, ${kneeWord(run)},` : ` (${kneeWord(run)} among them)`;
  return `${one ? 'Step' : 'Steps'} ${stepList(f.stalled)}${which} ${one ? 'is' : 'are'} left out, the generator's own delays being in ${one ? 'its' : 'their'} latencies: ${latenciesLeftOutWhy(run.steps, f.stalled).join('; ')}.`;
}

/** Most names listed by the sentence of the names failing; the rest counted. */
const FAILING_LISTED = 3;

/** The names whose error rate stayed past the bound up to the knee, with their shares, in a sentence. */
function failingSentence(run: RunResult, f: NamesKnee): string {
  const one = (n: NamesKnee['failing'][number]) => {
    const of = n.transaction ? 'arrivals' : 'requests';
    const share = (x: { errorRate: number }) => fmtShareOver(x.errorRate, NAME_SHARE_WARN);
    const last = n.last ? ` and ${share(n.last)} at ${stepText(n.last.index, n.last.attempt)}` : '';
    return `${n.name} (${n.transaction ? 'transaction' : 'request'}) failed ${share(n.from)} of its ${of} at ${stepText(n.from.index, n.from.attempt)}${last}`;
  };
  const listed = f.failing.slice(0, FAILING_LISTED).map(one);
  const more = f.failing.length - listed.length;
  const rest = more > 0 ? `, and ${more} other ${more === 1 ? 'name' : 'names'}` : '';
  const those = f.failing.length === 1 ? 'Its' : "Each one's";
  const from = f.failing.length === 1 ? 'there' : 'its first named';
  return `By errors: ${listed.join('; ')}${rest}. ${those} error rate was ${fmtShare(NAME_SHARE_WARN)} or more, on ${FAILED_MIN} failures at least, at every step compared from ${from} up to ${lastCompared(run, f)}.`;
}

/** The knee in words: a run that established no capacity has no knee, only its highest step held. */
function kneeWord(run: RunResult): string {
  return run.capacityPerSec === null ? 'the highest step held' : 'the knee';
}

/**
 * The last step compared, in words: the knee (or the highest step held), or the step before it
 * where the knee itself was left out (the sentence of the steps left out says it was the knee).
 */
function lastCompared(run: RunResult, f: NamesKnee): string {
  const knee = kneeWord(run);
  if (f.kneeIndex === null) return knee;
  if (f.lastIndex === null || f.lastIndex === f.kneeIndex) return `${knee} (step ${stepNo(f.kneeIndex)})`;
  return `step ${stepNo(f.lastIndex)}`;
}

/** A floor in ms as it was set: "5", not fmtMs's "5.00". */
function floorMsText(ms: number): string {
  return Number.isInteger(ms) ? String(ms) : fmtMs(ms);
}

/** The floor a rise must pass, in words: "more than 5 ms above it". */
function floorText(f: NamesKnee): string {
  return `more than ${floorMsText(f.floorMs)} ms above it`;
}

/** The name that went past factor x its baseline without growing by the rule, and why it does not count. */
function touchedText(
  t: NonNullable<Extract<NamesKnee, { kind: 'none' }>['touched']>,
  factor: number,
  floorMs: number,
): string {
  const at = `${t.name} reached ${t.peak.growth.toFixed(1)}× at ${stepText(t.peak.index, t.peak.attempt)}`;
  const rise = (p: NamePoint) =>
    `${fmtMs(p.ms - t.baseMs)} ms above its ${fmtMs(t.baseMs)} ms, within the ${floorMsText(floorMs)} ms floor`;
  const back = t.back;
  const fell = (p: NamePoint) => `fell back: ${p.growth.toFixed(1)}× at ${stepText(p.index, p.attempt)}`;
  if (t.withinFloor) return `${at}, only ${rise(t.peak)}${back && back.growth <= factor ? `, and ${fell(back)}` : ''}`;
  // past at its peak, so a later step was not (else it would have grown): back under factor x, or within the floor
  return back!.growth > factor
    ? `${at} but fell back at ${stepText(back!.index, back!.attempt)} to ${rise(back!)}`
    : `${at} but ${fell(back!)}`;
}

function kneeSentence(run: RunResult, f: NamesKnee): string | null {
  const knee = kneeWord(run);
  const w = rowWord(run);
  const upTo = f.kneeIndex === null ? '' : ` up to ${lastCompared(run, f)}`;
  const needs = (q: number) => fmtInt(requiredSamples(q, run.rules.minTailSamples));
  const p = `p${f.q}`;
  // on p90: why not p99, and what would give one
  const fallback =
    f.q === 99
      ? ''
      : `; ${p} because no name's p99 rests on ${needs(99)} samples at two steps, which longer holds collect`;
  // a name failing its arrivals degraded: "none degraded" would not be true of the run
  const inLatency = f.failing.length > 0 ? ' in latency' : '';
  if (f.kind === 'none') {
    switch (f.why) {
      case 'no-names':
        return null;
      case 'no-knee':
        return `No step held, so no ${w.one} can be said to have degraded first.`;
      case 'one-step':
        // steps before it were left out (the generator's delays): not "no step before it"
        if (f.stalled.length > 0)
          return `Which ${w.one} degraded first${inLatency} cannot be told: of the steps up to ${knee} (step ${stepNo(f.kneeIndex!)}), fewer than two can be judged.`;
        return `Which ${w.one} degraded first${inLatency} cannot be told: ${knee} is step ${stepNo(f.kneeIndex!)}, and no step before it gives the ${w.many}' latency to grow from; ${run.rules.imported ? "start the k6 script's stages lower" : 'start lower (steps.startPerSec)'} to see which grows first.`;
      case 'too-few-samples':
        return `Which ${w.one} degraded first${inLatency} cannot be told: no name's p99 or p90 rests on enough samples at two steps${upTo}; p99 needs ${needs(99)} samples of that name in a window and p90 ${needs(90)}, which longer holds collect.`;
      case 'steady': {
        const touched = f.touched ? `; ${touchedText(f.touched, f.factor, f.floorMs)}` : '';
        // one name judged: that it stayed says nothing of the others, which may have degraded unseen
        if (f.judged.length === 1)
          return `Only ${f.judged[0]}'s ${p} could be judged, and it did not rise past ${f.factor}× its first reliable ${p}, and ${floorText(f)}, to stay there${upTo}: whether any ${w.one} degraded ahead of the others${inLatency} cannot be told, no other name's ${p} resting on enough samples at two steps${fallback}${touched}.`;
        const all = nameOrder(run).length;
        const only =
          f.judged.length < all
            ? ` (judged: ${f.judged.join(', ')}; the other names' ${p}s rest on too few samples to compare)`
            : '';
        return `No ${w.one}'s ${p} rose past ${f.factor}× its first reliable ${p}, and ${floorText(f)}, to stay there${upTo}${only}: none degraded ahead of the others${inLatency}${fallback}${touched}.`;
      }
    }
  }
  const g = f.first;
  const kind = g.transaction ? 'transaction' : 'request';
  const upToKnee = `on the way to ${knee} (step ${stepNo(f.kneeIndex)})`;
  // "first" only where it was: another name judged, and none grew at the same step
  const alone = f.judged.length <= 1;
  const lead = alone
    ? `Grew ${upToKnee}, the only name whose ${p} could be judged (which degraded first cannot be told: no other name's ${p} rests on enough samples at two steps)`
    : g.alsoGrew.length > 0
      ? `Degraded ${upToKnee} together with ${g.alsoGrew.join(', ')}, all at one step (named here: the largest growth; which came first within the step cannot be told)`
      : g.roseAsMuch.length > 0
        ? `First past ${f.factor}× its baseline${inLatency} ${upToKnee}, not alone in its rise`
        : `First to degrade${inLatency} ${upToKnee}`;
  // the others may have grown as much, unseen: say which names the rule could judge
  const onlyJudged =
    !alone && f.judged.length < nameOrder(run).length
      ? `; judged: ${f.judged.join(', ')}, the other names' ${p}s resting on too few samples to compare`
      : '';
  // the same added wait at that step, crossing the factor first where the baseline was smallest
  const shared =
    g.roseAsMuch.length === 0
      ? ''
      : `; at that step ${g.roseAsMuch.map((o) => `${o.name}'s ${p} rose as much or more in ms (${fmtMs(o.baseMs)} to ${fmtMs(o.ms)} ms)`).join(', ')}, short of ${f.factor}× only for its larger baseline: a cause they share (a pool, a lock) adds the same wait to each, so "first" may be the smallest baseline's, not a cause of its own`;
  const at = g.index === f.kneeIndex ? `, at ${knee}` : '';
  const stayed = f.lastIndex === f.kneeIndex ? knee : lastCompared(run, f);
  return `${lead}: ${g.name} (${kind}), whose ${p} reached ${fmtMs(g.ms)} ms at ${stepText(g.index, g.attempt)}${at}, the first ${p} past ${f.factor}× its own baseline, and ${floorText(f)}, that stayed there up to ${stayed} (reliable percentiles only${fallback}): ${g.growth.toFixed(1)}× its ${fmtMs(g.baseMs)} ms at ${stepText(g.baseIndex, g.baseAttempt)}${shared}${onlyJudged}.`;
}
