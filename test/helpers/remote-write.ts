/**
 * A test writer that speaks Prometheus remote write 1.0 as k6's experimental-prometheus-rw output
 * does: a protobuf WriteRequest (prometheus/prompb types.proto: TimeSeries with float samples and
 * native histograms) encoded by protobufjs, block-compressed by snappyjs, POSTed to
 * /api/v1/write with the protocol's headers. The message layout below is the protocol's public
 * field numbering, declared here (not copied code).
 */
import protobuf from 'protobufjs';
import { createRequire } from 'node:module';
import { request } from 'undici';

/** snappyjs ships no types: the one function used here. */
const snappy = createRequire(import.meta.url)('snappyjs') as { compress(input: Uint8Array): Uint8Array };

const root = protobuf.Root.fromJSON({
  nested: {
    prometheus: {
      nested: {
        WriteRequest: { fields: { timeseries: { rule: 'repeated', type: 'TimeSeries', id: 1 } } },
        TimeSeries: {
          fields: {
            labels: { rule: 'repeated', type: 'Label', id: 1 },
            samples: { rule: 'repeated', type: 'Sample', id: 2 },
            histograms: { rule: 'repeated', type: 'Histogram', id: 4 },
          },
        },
        Label: { fields: { name: { type: 'string', id: 1 }, value: { type: 'string', id: 2 } } },
        Sample: { fields: { value: { type: 'double', id: 1 }, timestamp: { type: 'int64', id: 2 } } },
        BucketSpan: { fields: { offset: { type: 'sint32', id: 1 }, length: { type: 'uint32', id: 2 } } },
        Histogram: {
          oneofs: {
            count: { oneof: ['countInt', 'countFloat'] },
            zeroCount: { oneof: ['zeroCountInt', 'zeroCountFloat'] },
          },
          fields: {
            countInt: { type: 'uint64', id: 1 },
            countFloat: { type: 'double', id: 2 },
            sum: { type: 'double', id: 3 },
            schema: { type: 'sint32', id: 4 },
            zeroThreshold: { type: 'double', id: 5 },
            zeroCountInt: { type: 'uint64', id: 6 },
            zeroCountFloat: { type: 'double', id: 7 },
            positiveSpans: { rule: 'repeated', type: 'BucketSpan', id: 11 },
            positiveDeltas: { rule: 'repeated', type: 'sint64', id: 12 },
            timestamp: { type: 'int64', id: 15 },
          },
        },
      },
    },
  },
});
const WriteRequest = root.lookupType('prometheus.WriteRequest');

export interface FloatSeries {
  labels: Record<string, string>;
  samples: { value: number; tMs: number }[];
}

/** A cumulative native histogram sample: positive buckets by index (schema `schema`), no negative or zero bucket. */
export interface NativeHistogramSample {
  tMs: number;
  schema: number;
  count: number;
  sum: number;
  /** Bucket index -> cumulative count of that bucket. Index i covers (2^((i-1)/2^schema), 2^(i/2^schema)]. */
  buckets: Map<number, number>;
}

export interface HistogramSeries {
  labels: Record<string, string>;
  samples: NativeHistogramSample[];
}

/** The bucket index of value v under a schema (the upper bound is inclusive). */
export function bucketIndex(v: number, schema: number): number {
  return Math.ceil(Math.log2(v) * 2 ** schema);
}

function labelsOf(l: Record<string, string>) {
  return Object.entries(l)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => ({ name, value }));
}

function histogramOf(h: NativeHistogramSample) {
  const idx = [...h.buckets.keys()].filter((i) => (h.buckets.get(i) ?? 0) > 0).sort((a, b) => a - b);
  const spans: { offset: number; length: number }[] = [];
  const deltas: number[] = [];
  let prevIdx: number | null = null;
  let prevCount = 0;
  for (const i of idx) {
    if (prevIdx !== null && i === prevIdx + 1) spans.at(-1)!.length++;
    else spans.push({ offset: prevIdx === null ? i : i - prevIdx - 1, length: 1 });
    const c = h.buckets.get(i)!;
    deltas.push(c - prevCount);
    prevCount = c;
    prevIdx = i;
  }
  return {
    countInt: h.count,
    sum: h.sum,
    schema: h.schema,
    zeroThreshold: 1e-128,
    zeroCountInt: 0,
    positiveSpans: spans,
    positiveDeltas: deltas,
    timestamp: h.tMs,
  };
}

/** POSTs one WriteRequest; throws with Prometheus's answer unless it is 2xx. */
export async function remoteWrite(
  prometheusUrl: string,
  series: { floats?: FloatSeries[]; histograms?: HistogramSeries[] },
): Promise<void> {
  const timeseries = [
    ...(series.floats ?? []).map((s) => ({
      labels: labelsOf(s.labels),
      samples: s.samples.map((x) => ({ value: x.value, timestamp: x.tMs })),
    })),
    ...(series.histograms ?? []).map((s) => ({ labels: labelsOf(s.labels), histograms: s.samples.map(histogramOf) })),
  ];
  const msg = WriteRequest.create({ timeseries });
  const body = snappy.compress(WriteRequest.encode(msg).finish());
  const res = await request(new URL('/api/v1/write', prometheusUrl), {
    method: 'POST',
    body: Buffer.from(body),
    headers: {
      'content-type': 'application/x-protobuf',
      'content-encoding': 'snappy',
      'x-prometheus-remote-write-version': '0.1.0',
    },
  });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`remote write answered ${res.statusCode}: ${text}`);
}
