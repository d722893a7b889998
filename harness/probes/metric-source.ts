/**
 * A distribution probe's metric source, for systems whose distribution is a metric (TiKV's
 * region leaders per store, a Kafka broker's partition leaders): one scrape of a Prometheus text
 * endpoint, the gauge `series` (only samples with `labels`) summed per value of `nodeLabel`.
 */
import { request } from 'undici';
import { PlateauError, EXIT } from '../errors.ts';
import { matches, parsePromText } from '../metrics/prom-text.ts';
import { scrubUrlSecrets } from '../secret-scrub.ts';
import type { DistributionProbe } from './probes-schema.ts';
import type { SourceReading } from './sql-source.ts';

export async function readMetricCounts(p: DistributionProbe, targetUrl: string, who: string): Promise<SourceReading> {
  const url = new URL(p.url!, targetUrl);
  const from = scrubUrlSecrets(url.href);
  let status: number;
  let text: string;
  try {
    const res = await request(url, { headersTimeout: p.timeoutS * 1000, bodyTimeout: p.timeoutS * 1000 });
    status = res.statusCode;
    text = await res.body.text();
  } catch (err) {
    throw new PlateauError(
      `${who}: ${from} is not reachable (${(err as { code?: string }).code ?? (err as Error).message})`,
      "check the probe's url and that the endpoint is up",
      'probe-metric-unreachable',
      EXIT.preflight,
    );
  }
  if (status !== 200)
    throw new PlateauError(
      `${who}: ${from} answered ${status}`,
      "point the probe's url at a Prometheus text endpoint",
      'probe-metric-status',
      EXIT.preflight,
    );
  return { from, counts: countsBy(parsePromText(text), p, who, from) };
}

/** The gauge summed per node; a series that is absent, or whose samples lack the node label, is refused. */
export function countsBy(
  samples: ReturnType<typeof parsePromText>,
  p: Pick<DistributionProbe, 'series' | 'labels' | 'nodeLabel'>,
  who: string,
  from: string,
): Record<string, number> {
  const mine = samples.filter((s) => s.name === p.series && matches(s.labels, p.labels ?? {}));
  if (mine.length === 0) {
    const any = samples.some((s) => s.name === p.series);
    throw new PlateauError(
      `${who}: ${from} has ${any ? `no sample of ${p.series} with labels ${JSON.stringify(p.labels)}` : `no series ${p.series}`}`,
      any
        ? "correct the probe's labels to values the endpoint exposes"
        : "correct the probe's series to a gauge the endpoint exposes",
      'probe-metric-series',
      EXIT.preflight,
    );
  }
  const out: Record<string, number> = {};
  for (const s of mine) {
    const node = s.labels[p.nodeLabel!];
    if (node === undefined)
      throw new PlateauError(
        `${who}: a sample of ${p.series} at ${from} has no label ${p.nodeLabel} (its labels: ${Object.keys(s.labels).join(', ') || 'none'})`,
        "set the probe's nodeLabel to the label that names the node",
        'probe-metric-label',
        EXIT.preflight,
      );
    if (s.raw !== undefined || !Number.isFinite(s.value) || s.value < 0)
      throw new PlateauError(
        `${who}: ${p.series}{${p.nodeLabel}="${node}"} at ${from} is ${s.raw ?? s.value}, not a count >= 0`,
        'point the probe at a gauge that counts (leaders, regions, rows)',
        'probe-metric-value',
        EXIT.preflight,
      );
    out[node] = (out[node] ?? 0) + s.value;
  }
  return out;
}
