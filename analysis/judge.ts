/**
 * The stop rule. A step is judged on its steady window only (the hold minus its settle time; the
 * ramp never counts):
 *
 *   X        = ok completions in the window / seconds of the window with data   (arrivals/s: req/s where an arrival is one request)
 *   delivery = X / rate
 *   capture  = (X_i - min(X_{i-1}, rate_{i-1})) / (rate_i - rate_{i-1})        (null for the first step)
 *   holds   <=> delivery >= deliveryMin  and  (capture null or capture >= captureMin)
 *
 * X_{i-1} counts at most what was offered: a window that drained a backlog (a stall just before
 * it; its successes above the arrivals it offered) did not sustain its surge, and taken whole it
 * cut the next step's capture (0.59 where 749 of 750/s were delivered: a plateau that was not there).
 *
 * Only successful completions count as throughput: a server that answers 503 fast completes a
 * lot and delivers nothing.
 */
import { aggregate, refusedNamesOf, type Aggregate, type NameAggregate } from './buckets.ts';
import {
  fmtInt,
  fmtPercent,
  fmtRate,
  fmtRatio,
  fmtRatioBelow,
  fmtSignedRate,
  fmtSignedTarget,
  fmtTarget,
  unitCounts,
  unitOf,
} from './format.ts';
import { percentileMs, type Histogram } from './histogram.ts';
import { DEFAULT_MIN_TAIL_SAMPLES, DEFAULT_QUANTILES, percentiles } from './percentiles.ts';
import { STEPS_PHASE } from './phases.ts';
import { poolReading } from './pool.ts';
import { crossCheck, routeWindow, serverWindow, type ClientTimeouts } from './server.ts';
import { overSpan, SpanReader } from './span-match.ts';
import { requestTimeoutShare } from './client-timeouts.ts';
import { capWindow } from './server-cap.ts';
import { judgedWindow } from './server-histogram.ts';
import { sustainedPerSec } from './overload-shape.ts';
import type {
  AnalyzeInput,
  AnalysedRecord,
  NameResult,
  PromqlWindow,
  Rules,
  RunResult,
  ServerSample,
  ServerWindow,
  StepPlan,
  StepResult,
  StepVerdict,
} from './types.ts';

/** A failing step's error share above which its reasons also name the errors. */
const ERROR_REASON_MIN = 0.01;

/**
 * The steady window in whole buckets: a bucket tS covers [tS, tS+1), so only buckets fully inside
 * [steadyStartS, steadyEndS) count: tS in [ceil(steadyStartS), floor(steadyEndS)).
 */
export function steadyWindowS(step: StepPlan): { fromS: number; toS: number; plannedS: number } {
  const fromS = Math.ceil(step.steadyStartS);
  const toS = Math.floor(step.steadyEndS);
  return { fromS, toS, plannedS: Math.max(0, toS - fromS) };
}

/**
 * capture = ΔX / Δrate against the previous step, whose X counts at most its offered rate (the
 * file's comment); null without a previous step with data or a rate increase.
 */
function captureOf(step: StepPlan, throughputPerSec: number, prev: StepResult | null, rules: Rules): number | null {
  if (prev === null || prev.steadyS === 0) return null;
  const addedPerSec = step.ratePerSec - prev.ratePerSec;
  if (addedPerSec <= 0) return null;
  return (throughputPerSec - captureBaseline(prev, rules)) / addedPerSec;
}

/** The previous step's throughput as the next capture's baseline: at most its rate, but where a closed model offered none. */
export function captureBaseline(prev: StepResult, rules: Rules): number {
  return rules.closedModel ? prev.throughputPerSec : sustainedPerSec(prev);
}

interface Figures {
  step: StepPlan;
  prev: StepResult | null;
  agg: Aggregate;
  plannedS: number;
  throughputPerSec: number;
  delivery: number;
  capture: number | null;
  errorRate: number;
}

/** The verdict and, unless it holds, why, in words with numbers. */
function decide(f: Figures, rules: Rules): { verdict: StepVerdict; reasons: string[] } {
  const { agg, plannedS, step } = f;
  if (agg.seconds === 0)
    return { verdict: 'not-run', reasons: [`no data in the steady window (${fmtInt(plannedS)} s planned)`] };
  if (agg.seconds < plannedS) {
    return {
      verdict: 'incomplete',
      reasons: [`steady window has data for ${fmtInt(agg.seconds)} s of ${fmtInt(plannedS)} s planned`],
    };
  }
  const reasons: string[] = [];
  const unit = unitOf(rules);
  if (f.delivery < rules.deliveryMin) {
    reasons.push(
      `delivery ${rules.okLowerBound ? 'at least ' : ''}${fmtRatioBelow(f.delivery, rules.deliveryMin)} < ${fmtRatio(rules.deliveryMin)}: ${fmtRate(f.throughputPerSec)} ${unit} achieved of ${fmtTarget(step.ratePerSec)} offered`,
    );
  }
  if (f.capture !== null && f.capture < rules.captureMin && f.prev !== null) {
    const gainedPerSec = f.throughputPerSec - captureBaseline(f.prev, rules);
    const addedPerSec = step.ratePerSec - f.prev.ratePerSec;
    reasons.push(
      `capture ${fmtRatioBelow(f.capture, rules.captureMin)} < ${fmtRatio(rules.captureMin)}: ${fmtSignedRate(gainedPerSec)} ${unit} for ${fmtSignedTarget(addedPerSec)} offered`,
    );
  }
  if (reasons.length > 0 && f.errorRate >= ERROR_REASON_MIN) {
    reasons.push(
      `${rules.okLowerBound ? 'up to ' : ''}${fmtPercent(f.errorRate)} of ${fmtInt(agg.completed)} completed ${unitCounts(unit)} failed`,
    );
  }
  return { verdict: reasons.length === 0 ? 'holds' : 'fails', reasons };
}

/**
 * Judges one step from the buckets of its steady window (phase "steps" only). `summed`: the
 * window's durations already summed from the same records (durations.ts), not decoded again.
 */
export function judgeStep(
  step: StepPlan,
  prev: StepResult | null,
  records: readonly AnalysedRecord[],
  rules: Rules,
  summed?: Histogram,
): StepResult {
  const { fromS, toS, plannedS } = steadyWindowS(step);
  const agg = aggregate(records, STEPS_PHASE, fromS, toS, summed);
  const steadyS = agg.seconds;
  const throughputPerSec = steadyS > 0 ? agg.ok / steadyS : 0;
  const delivery = step.ratePerSec > 0 ? throughputPerSec / step.ratePerSec : 0;
  const capture = steadyS > 0 ? captureOf(step, throughputPerSec, prev, rules) : null;
  const errorRate = agg.completed > 0 ? agg.failed / agg.completed : 0;
  const { verdict, reasons } = decide(
    { step, prev, agg, plannedS, throughputPerSec, delivery, capture, errorRate },
    rules,
  );
  const duration = agg.hist.duration;
  return {
    index: step.index,
    ratePerSec: step.ratePerSec,
    steadyStartS: step.steadyStartS,
    steadyEndS: step.steadyEndS,
    steadyS,
    throughputPerSec,
    completedPerSec: steadyS > 0 ? agg.completed / steadyS : 0,
    delivery,
    capture,
    completed: agg.completed,
    ok: agg.ok,
    failed: agg.failed,
    errorRate,
    errors: agg.errors,
    dropped: agg.dropped,
    ...(agg.droppedBusy > 0 ? { droppedBusy: agg.droppedBusy } : {}),
    started: agg.started,
    latency: percentiles(duration, DEFAULT_QUANTILES, rules.minTailSamples),
    meanMs: duration.totalCount > 0 ? duration.mean / 1000 : null,
    maxMs: duration.totalCount > 0 ? duration.maxValue / 1000 : null,
    reconnects: agg.reconnects,
    ...(agg.throttledMs !== null ? { throttledMs: Math.round(agg.throttledMs * 10) / 10 } : {}),
    ...(agg.cpuSteal !== null ? { cpuSteal: Math.round(agg.cpuSteal * 1000) / 1000 } : {}),
    lagP99Ms: percentileMs(agg.lag, 99),
    lagP90Ms: percentileMs(agg.lag, 90),
    lagSamples: agg.lag.totalCount,
    loopDelayMaxMs: agg.loopDelayMaxMs,
    generatorBusy: agg.busy,
    ...(agg.processCpu !== null ? { generatorCpu: Math.round(agg.processCpu * 1000) / 1000 } : {}),
    vusActiveMax: agg.vusActiveMax,
    vusAllocatedMax: agg.vusAllocatedMax,
    verdict,
    reasons,
    statuses: agg.statuses,
    errorSamples: agg.samples,
    ...(agg.requestsCounted ? { requestsPerSec: steadyS > 0 ? agg.requests / steadyS : 0 } : {}),
    ...(agg.requestsFailed !== null ? { requestsFailed: agg.requestsFailed } : {}),
    ...(agg.byName.size > 0 ? { byName: namesOf(agg, rules) } : {}),
    ...refusedNamesOf(
      records.filter((r) => r.phase === STEPS_PHASE && r.tS >= step.rampStartS && r.tS < step.holdEndS),
    ),
  };
}

/**
 * The steady window by name, sorted by name: each name's rates over the step's steady seconds
 * (the step's own denominator), its errors, and its duration percentiles under the step's rule.
 */
function namesOf(agg: Aggregate, rules: Rules): Record<string, NameResult> {
  const names = [...agg.byName.keys()].sort();
  return Object.fromEntries(names.map((name) => [name, nameResult(agg.byName.get(name)!, agg.seconds, rules)]));
}

function nameResult(n: NameAggregate, steadyS: number, rules: Rules): NameResult {
  const duration = n.duration;
  return {
    ...(n.transaction ? { transaction: true as const } : {}),
    completedPerSec: steadyS > 0 ? n.completed / steadyS : 0,
    throughputPerSec: steadyS > 0 ? n.ok / steadyS : 0,
    completed: n.completed,
    ok: n.ok,
    failed: n.failed,
    errorRate: n.completed > 0 ? n.failed / n.completed : 0,
    errors: n.errors,
    ...(Object.keys(n.statuses).length > 0 ? { statuses: n.statuses } : {}),
    latency: percentiles(duration, DEFAULT_QUANTILES, rules.minTailSamples),
    meanMs: duration.totalCount > 0 ? duration.mean / 1000 : null,
    maxMs: duration.totalCount > 0 ? duration.maxValue / 1000 : null,
  };
}

export interface ServerInput {
  samples: readonly ServerSample[];
  rttMs: number;
  promql?: readonly PromqlWindow[];
  /** The mix's names to the server's routes (metrics.requests.routes): each mapped name gets its own cross-check. */
  routes?: Readonly<Record<string, string>>;
  /** The client's deadline per request (http.timeoutMs), for the words of the cross-check where requests timed out. */
  clientTimeoutMs?: number;
}

/**
 * The target's own view of a step's steady window, and the cross-check of the client's against it;
 * its percentiles judged by the client's rule (rules.minTailSamples: `minTailSamples`). With the
 * step's `records`, the client is compared over the server window's own span (span-match.ts).
 */
export function withServer(
  r: StepResult,
  p: StepPlan & { attempt?: number },
  server: ServerInput | undefined,
  minTailSamples: number = DEFAULT_MIN_TAIL_SAMPLES,
  records?: readonly AnalysedRecord[],
): StepResult {
  if (!server) return r;
  const viaPromql = server.promql?.find((w) => w.index === p.index && w.attempt === (p.attempt ?? 1))?.window;
  if (!viaPromql && server.samples.length === 0) return r;
  const w = preferredWindow(viaPromql, () => serverWindow(server.samples, STEPS_PHASE, p.steadyStartS, p.steadyEndS));
  const requests = r.requestsPerSec !== undefined;
  const routesViaPromql = server.promql?.find((x) => x.index === p.index && x.attempt === (p.attempt ?? 1))?.routes;
  const reader = records ? new SpanReader(records) : null;
  const byName =
    r.byName && server.routes
      ? namesWithServer(
          r.byName,
          p,
          server,
          routesViaPromql,
          minTailSamples,
          reader,
          (w?.throughputPerSec ?? null) === null,
        )
      : r.byName;
  const perSec = r.requestsPerSec ?? r.completedPerSec;
  const failedShare = requestErrorRate(r);
  const client = overSpan(steadyWindowS(p), w, reader?.step.bind(reader), { perSec, meanMs: r.meanMs });
  const check = crossCheck(
    client.perSec,
    client.meanMs,
    server.rttMs,
    w,
    failedShare,
    requests ? 'requests' : 'arrivals',
    timedOutOf(requestTimeoutShare(r), server),
    minTailSamples,
    client.slack,
  );
  const { fromS, toS } = steadyWindowS(p);
  return {
    ...r,
    ...(byName ? { byName } : {}),
    // the percentiles at most the highest value known to bound them (server-cap.ts)
    server: judgedWindow(
      capWindow(w, { maxMs: r.maxMs, perSec, failedShare, fromS, toS, verdict: check.verdict }),
      minTailSamples,
    ),
    crossCheck: check,
    poolReading: poolReading(w),
  };
}

/** The client's timeouts as the cross-check reads them: their share, and the deadline where known. */
function timedOutOf(share: number, server: ServerInput): ClientTimeouts {
  return { share, ...(server.clientTimeoutMs !== undefined ? { timeoutMs: server.clientTimeoutMs } : {}) };
}

/**
 * The window a step's server figures come from: the direct readings where they read a rate (taken
 * at the steady window's very edges, and what the live decision judged by: one figure in the
 * console and the report), else PromQL's where it read one, else the direct readings carrying
 * PromQL's reason (a Prometheus scraping less often than twice a steady window reads no rate
 * there); PromQL's empty window when there are none (docs/decisions/067).
 */
function preferredWindow(viaPromql: ServerWindow | undefined, direct: () => ServerWindow | null): ServerWindow | null {
  const scraped = direct();
  if (viaPromql === undefined) return scraped;
  if (viaPromql.throughputPerSec !== null)
    return scraped !== null && scraped.throughputPerSec !== null ? scraped : viaPromql;
  if (scraped === null) return viaPromql;
  const why = (viaPromql.problems ?? []).map((l) => `through PromQL: ${l}; shown: the direct readings`);
  return why.length > 0 ? { ...scraped, problems: [...(scraped.problems ?? []), ...why] } : scraped;
}

/**
 * Each name that metrics.requests.routes maps (a request, never a transaction, whose figures are
 * arrivals): its route's window (through PromQL when the run read one, else from the direct
 * readings), and the name's client figures against it.
 */
function namesWithServer(
  byName: Record<string, NameResult>,
  p: StepPlan,
  server: ServerInput,
  viaPromql: Readonly<Record<string, ServerWindow>> | undefined,
  minTailSamples: number,
  reader: SpanReader | null,
  stepUnread: boolean,
): Record<string, NameResult> {
  // fromEntries defines each key, so a name such as __proto__ stays a name (an assignment would set the prototype)
  return Object.fromEntries(
    Object.entries(byName).map(([name, n]): [string, NameResult] => {
      const route = Object.hasOwn(server.routes ?? {}, name) ? server.routes![name] : undefined;
      if (route === undefined || n.transaction) return [name, n];
      const found = preferredWindow(Object.hasOwn(viaPromql ?? {}, name) ? viaPromql![name] : undefined, () =>
        routeWindow(server.samples, STEPS_PHASE, p.steadyStartS, p.steadyEndS, name),
      );
      // where the step's own series read nothing (a label filter that matches nothing), its lines say
      // why: a route's "no samples" would blame a route that may be right
      const w = stepUnread && found?.problems ? { ...found, problems: undefined } : found;
      const timeouts = n.completed > 0 ? (n.errors.timeout ?? 0) / n.completed : 0;
      const read = reader ? (span: ServerWindow) => reader.name(span, name) : undefined;
      const compared = overSpan(steadyWindowS(p), w, read, { perSec: n.completedPerSec, meanMs: n.meanMs });
      const c = crossCheck(
        compared.perSec,
        compared.meanMs,
        server.rttMs,
        w,
        n.errorRate,
        'arrivals',
        timedOutOf(timeouts, server),
        minTailSamples,
        compared.slack,
      );
      const { fromS, toS } = steadyWindowS(p);
      const client = {
        maxMs: n.maxMs,
        perSec: n.completedPerSec,
        failedShare: n.errorRate,
        fromS,
        toS,
        verdict: c.verdict,
      };
      return [
        name,
        {
          ...n,
          server: judgedWindow(capWindow(w, client), minTailSamples),
          crossCheck: { ...c, detail: `route ${route}: ${c.detail}` },
        },
      ];
    }),
  );
}

/**
 * The failed share of the window's requests (what the server counts), where the names tell it:
 * failed / completed over the request names (not the transactions, whose figures are arrivals).
 * Without names each arrival is one request: the step's own error rate, less the arrivals that
 * sent nothing (requests counted apart).
 */
export function requestErrorRate(r: StepResult): number {
  const requests = Object.values(r.byName ?? {}).filter((n) => !n.transaction);
  const completed = requests.reduce((a, n) => a + n.completed, 0);
  if (completed > 0) return requests.reduce((a, n) => a + n.failed, 0) / completed;
  // a one-request run that counted its requests apart: its arrivals that sent nothing (the
  // scenario threw) are failures the server never saw
  if (r.requestsPerSec !== undefined && r.completedPerSec > 0) {
    const unsentShare = Math.max(0, r.completedPerSec - r.requestsPerSec) / r.completedPerSec;
    const requestShare = 1 - unsentShare;
    return requestShare > 0 ? Math.max(0, r.errorRate - unsentShare) / requestShare : 0;
  }
  return r.errorRate;
}
