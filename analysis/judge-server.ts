/**
 * A judged step beside the target's own view of its steady window: the server's figures (direct
 * readings or PromQL's), the cross-check of the client's against them, per step and per mapped
 * route, and the pool's reading.
 */
import { DEFAULT_MIN_TAIL_SAMPLES } from './percentiles.ts';
import { STEPS_PHASE } from './phases.ts';
import { poolReading } from './pool.ts';
import { crossCheck, type ClientTimeouts } from './cross-check.ts';
import { routeWindow, serverWindow } from './server-window.ts';
import { overSpan, SpanReader } from './span-match.ts';
import { requestTimeoutShare } from './client-timeouts.ts';
import { capWindow } from './server-cap.ts';
import { judgedWindow } from './server-histogram.ts';
import { steadyWindowS } from './judge.ts';
import type {
  AnalysedRecord,
  NameResult,
  PromqlWindow,
  ServerSample,
  ServerWindow,
  StepPlan,
  StepResult,
} from './types.ts';

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
