/**
 * Preflight for metrics.downstreams: every declared series (ops, and saturation and latency when
 * given) must exist where the run will read it, after the sample arrivals (a target makes its
 * counters at its first call). Read from the target's endpoint, a missing one is refused naming
 * the families there that look alike; through Prometheus (metrics.prometheus: the series usually
 * live on an exporter), one with no sample in the last five minutes is refused naming the
 * selector, so a typo or an unscraped exporter stops the run before any load instead of leaving
 * every step's downstream row empty; one whose name has samples there without its labels is
 * refused naming the values its labels have (the name is right: its fix is the labels).
 */
import { EXIT, PlateauError } from '../errors.ts';
import type { PlateauConfig } from '../config/schema.ts';
import { rawSamples, scrapeIntervalMs, selector, type RawSeries } from '../metrics/promql.ts';
import { unmatchedLabels } from '../metrics/prom-text.ts';
import { lookAlike, metricNames } from './metrics-check.ts';

type Downstream = NonNullable<PlateauConfig['metrics']>['downstreams'][number];

/** The series a downstream is read from, with the labels each must carry. */
export function downstreamSeries(d: Downstream): { name: string; labels: Record<string, string> }[] {
  return [
    { name: d.ops, labels: d.labels },
    ...(d.saturation ? [{ name: d.saturation, labels: d.labels }] : []),
    ...(d.latency ? [`${d.latency}_sum`, `${d.latency}_count`].map((name) => ({ name, labels: {} })) : []),
  ];
}

const FIX = 'correct the name in metrics.downstreams (as the exporter or target exposes it), or remove that downstream';

/** From the target's endpoint text: every declared downstream series is there. */
export function checkDownstreamsInText(config: PlateauConfig, url: string, text: string): string | null {
  const ds = config.metrics?.downstreams ?? [];
  if (ds.length === 0) return null;
  const present = metricNames(text);
  const missing = ds.flatMap((d) =>
    downstreamSeries(d)
      .filter((s) => !present.has(s.name))
      .map((s) => ({ d: d.name, name: s.name })),
  );
  if (missing.length) {
    const alike = [...new Set(missing.flatMap((m) => lookAlike(m.name, present)))];
    throw new PlateauError(
      `metrics endpoint ${url} has no ${missing.map((m) => `${m.name} (downstream ${m.d})`).join(', ')}${alike.length ? `; it has these that look alike: ${alike.join(', ')}` : '; nothing there looks alike'}`,
      `${FIX}; a downstream whose series live on an exporter is read through metrics.prometheus`,
      'metrics-missing',
      EXIT.preflight,
    );
  }
  return `downstream series present: ${ds.map((d) => d.name).join(', ')}`;
}

/** Through Prometheus: every declared downstream series has a sample in the last five minutes. */
export async function checkDownstreamsInPrometheus(config: PlateauConfig, nowMs = Date.now()): Promise<string | null> {
  const m = config.metrics;
  const ds = m?.downstreams ?? [];
  if (!m?.prometheus || ds.length === 0) return null;
  const read = (sel: string) =>
    rawSamples(m.prometheus!.url, sel, nowMs - 300_000, nowMs).catch((err: unknown) => {
      // before any load: a preflight refusal (exit 3), as every other check here
      if (err instanceof PlateauError) throw new PlateauError(err.message, err.hint, err.code, EXIT.preflight);
      throw err;
    });
  const empty: string[] = [];
  const unmatched: string[] = [];
  for (const d of ds)
    for (const s of downstreamSeries(d)) {
      const sel = selector(s.name, s.labels);
      const series = await read(sel);
      if (series.some((x) => x.samples.length > 0)) {
        const stopped = stoppedLine(series, nowMs, `${sel} (downstream ${d.name})`);
        if (stopped) unmatched.push(stopped);
        continue;
      }
      const miss = Object.keys(s.labels ?? {}).length > 0 ? labelsMiss(d.name, s, await read(selector(s.name))) : null;
      if (miss) unmatched.push(miss);
      else empty.push(`${sel} (downstream ${d.name})`);
    }
  if (empty.length || unmatched.length)
    throw new PlateauError(
      `Prometheus at ${m.prometheus.url} ${[
        ...(empty.length ? [`has no sample in the last 5 minutes of ${empty.join(', ')}`] : []),
        ...unmatched,
      ].join('; ')}`,
      [
        ...(empty.length ? [`${FIX}, or make Prometheus scrape its exporter (a job in prometheus.yml)`] : []),
        ...(unmatched.some((l) => l.startsWith('holds '))
          ? ['set metrics.downstreams[].labels to values Prometheus holds (or remove them)']
          : []),
        ...(unmatched.some((l) => l.startsWith('stopped '))
          ? [
              "start the exporter (or target) whose scrapes stopped, and check Prometheus's targets page (its up series)",
            ]
          : []),
      ].join('; '),
      'metrics-missing',
      EXIT.preflight,
    );
  return `downstream series in Prometheus: ${ds.map((d) => d.name).join(', ')}`;
}

/** Scrapes this many intervals overdue have stopped (Prometheus's ingestion lags by about one). */
const STOPPED_INTERVALS = 3;

/**
 * "stopped scraping `what` 130 s ago, every 1.0 s before" where the newest sample of `series` is more than
 * STOPPED_INTERVALS scrape intervals (at least 10 s) old: an exporter that died minutes ago still
 * has samples in the last five, and every window of the run would read none. Else null.
 */
export function stoppedLine(series: readonly RawSeries[], nowMs: number, what: string): string | null {
  const every = scrapeIntervalMs(series);
  if (every === null) return null;
  const lastMs = Math.max(...series.flatMap((x) => x.samples.map(([t]) => t)));
  const ageMs = nowMs - lastMs;
  if (ageMs <= Math.max(STOPPED_INTERVALS * every, 10_000)) return null;
  return `stopped scraping ${what} ${(ageMs / 1000).toFixed(0)} s ago, every ${(every / 1000).toFixed(1)} s before`;
}

/**
 * Where the series has samples without the downstream's labels, the line naming the values its
 * labels have there (the name is right, the labels are not: "correct the name" would mislead); else null.
 */
function labelsMiss(
  name: string,
  s: { name: string; labels: Record<string, string> },
  unfiltered: readonly RawSeries[],
): string | null {
  const samples = unfiltered
    .filter((x) => x.samples.length > 0)
    .map((x) => ({ name: s.name, labels: x.labels, value: x.samples.at(-1)![1] }));
  const line = unmatchedLabels(samples, s.name, s.labels, `metrics.downstreams["${name}"].labels`);
  return line === null ? null : `holds ${s.name}, but ${line.replace(/; set .*$/, '')}`;
}
