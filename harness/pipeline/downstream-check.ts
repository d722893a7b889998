/**
 * Preflight for metrics.downstreams: every declared series (ops, and saturation and latency when
 * given) must exist where the run will read it, after the sample arrivals (a target makes its
 * counters at its first call). Read from the target's endpoint, a missing one is refused naming
 * the families there that look alike; through Prometheus (metrics.prometheus: the series usually
 * live on an exporter), one with no sample in the last five minutes is refused naming the
 * selector, so a typo or an unscraped exporter stops the run before any load instead of leaving
 * every step's downstream row empty.
 */
import { EXIT, PlateauError } from '../errors.ts';
import type { PlateauConfig } from '../config/schema.ts';
import { rawSamples, selector } from '../metrics/promql.ts';
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
  const empty: string[] = [];
  for (const d of ds)
    for (const s of downstreamSeries(d)) {
      const sel = selector(s.name, s.labels);
      const series = await rawSamples(m.prometheus.url, sel, nowMs - 300_000, nowMs).catch((err: unknown) => {
        // before any load: a preflight refusal (exit 3), as every other check here
        if (err instanceof PlateauError) throw new PlateauError(err.message, err.hint, err.code, EXIT.preflight);
        throw err;
      });
      if (!series.some((x) => x.samples.length > 0)) empty.push(`${sel} (downstream ${d.name})`);
    }
  if (empty.length)
    throw new PlateauError(
      `Prometheus at ${m.prometheus.url} has no sample in the last 5 minutes of ${empty.join(', ')}`,
      `${FIX}, or make Prometheus scrape its exporter (a job in prometheus.yml)`,
      'metrics-missing',
      EXIT.preflight,
    );
  return `downstream series in Prometheus: ${ds.map((d) => d.name).join(', ')}`;
}
