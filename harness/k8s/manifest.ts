/**
 * The manifests of a k6-operator run, as plain objects (no I/O): a ConfigMap holding the bundled
 * k6 script and a TestRun (k6.io/v1alpha1) of N runners. The operator gives runner i its
 * --execution-segment (i-1)/N:i/N and the sequence 0,1/N,...,1 itself, so the arguments carry no
 * segment flags; each runner pushes its samples to Prometheus by remote write, tagged with the
 * run's key (testid: a fixed --run-id given again still gets its own), which is what the live
 * reader (rw-reader.ts) filters on. Secrets come from a named Kubernetes Secret (envFrom) and are
 * never written here.
 */
import { urlSecrets } from '../secret-scrub.ts';

/** k6-operator's API group and version of the TestRun this builds. */
export const TESTRUN_API = 'k6.io/v1alpha1';
/** The file name of the script inside the ConfigMap (and so under /test/ in the runner pods). */
export const SCRIPT_FILE = 'script.js';
/** The longest name plateau gives its objects: the operator appends "-service-N" and "-N-xxxxx" to it, within 63. */
const MAX_NAME = 47;
/** Kubernetes refuses a ConfigMap over 1 MiB (its data and metadata; the script is nearly all of it). */
const MAX_CONFIGMAP_BYTES = 1024 * 1024 - 4096;

export interface ManifestInput {
  runId: string;
  /** The run's key (environment.ts runIds), its own whatever the run id: names the TestRun and tags the series (testid). */
  idKey: string;
  parallelism: number;
  namespace: string;
  /** The bundled k6 script (options with the whole plan: each runner scales it to its segment). */
  script: string;
  /** Prometheus's base URL (the remote-write endpoint is /api/v1/write under it). */
  prometheusUrl: string;
  /** The Secret whose keys become the runners' environment (the scenario's secrets); none when the scenario needs none. */
  secretName?: string;
  /** The runner image; the operator's default (grafana/k6) when absent. */
  image?: string;
}

export interface Manifests {
  name: string;
  configMap: Record<string, unknown>;
  testRun: Record<string, unknown>;
}

/** A manifest input the cluster would refuse, or that would run differently from what plateau judges. */
export class ManifestError extends Error {
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
    this.name = 'ManifestError';
  }
}

const dnsLabel = (x: string) =>
  x
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '');

/**
 * A DNS-1123 label from the run's key (environment.ts runIds), at most MAX_NAME with the prefix:
 * `plateau-<run id>`, and for a given run id (which may be given again) the key's own tail after
 * it, kept whole when the run id is cut, so that no two runs share a TestRun.
 */
export function objectName(runId: string, idKey = runId): string {
  const body = dnsLabel(runId);
  if (body === '')
    throw new ManifestError(
      `run id "${runId}" has no letter or digit to name the TestRun by`,
      'give --run-id letters, digits and dashes, e.g. --run-id checkout-1',
    );
  const tail = idKey.startsWith(runId) ? dnsLabel(idKey.slice(runId.length)) : dnsLabel(idKey);
  const head = `plateau-${body}`.slice(0, MAX_NAME - (tail ? tail.length + 1 : 0)).replace(/-+$/, '');
  return tail ? `${head}-${tail}` : head;
}

/** The segment sequence the operator gives N runners: 0,1/N,...,1. */
export function operatorSequence(n: number): string {
  return ['0', ...Array.from({ length: n - 1 }, (_, i) => `${i + 1}/${n}`), '1'].join(',');
}

/** Runner i's (1-based) segment as the operator writes it. */
export function operatorSegment(i: number, n: number): string {
  return `${i === 1 ? '0' : `${i - 1}/${n}`}:${i === n ? '1' : `${i}/${n}`}`;
}

export function checkParallelism(n: unknown): number {
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 1000)
    throw new ManifestError(
      `--parallelism ${String(n)} is not a whole number of runners from 1 to 1000`,
      'give --parallelism the number of k6 runner pods, e.g. --parallelism 4',
    );
  return n;
}

/** The remote-write endpoint of a Prometheus base URL. */
export function remoteWriteUrl(prometheusUrl: string): string {
  let u: URL;
  try {
    u = new URL(prometheusUrl);
  } catch {
    throw new ManifestError(
      `--prometheus ${prometheusUrl} is not a URL`,
      'give the Prometheus base URL the runner pods reach, e.g. --prometheus http://prometheus.monitoring:9090',
    );
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new ManifestError(
      `--prometheus ${prometheusUrl} is not http(s)`,
      'e.g. --prometheus http://prometheus.monitoring:9090',
    );
  const found = urlSecrets(u);
  if (found.userinfo || found.params.length > 0)
    throw new ManifestError(
      `--prometheus: the URL carries ${found.userinfo ? 'credentials (user:password@)' : `a secret-looking parameter (${found.params.map((n) => `"${n}"`).join(', ')})`}, which the TestRun would hold in clear`,
      'remove them: plateau writes --prometheus into the TestRun and sends no credentials to Prometheus; allow its remote write and queries without them from the runners and the load machine',
    );
  return `${prometheusUrl.replace(/\/+$/, '')}/api/v1/write`;
}

/** The k6 arguments of every runner: remote write tagged with the run's key; the operator adds the segments. */
export function runnerArguments(idKey: string): string {
  if (/\s/.test(idKey))
    throw new ManifestError(`run id "${idKey}" has a space`, 'give --run-id without spaces, e.g. --run-id checkout-1');
  return `--out experimental-prometheus-rw --tag testid=${idKey}`;
}

export function buildManifests(m: ManifestInput): Manifests {
  const n = checkParallelism(m.parallelism);
  const name = objectName(m.runId, m.idKey);
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(m.namespace))
    throw new ManifestError(
      `--namespace ${m.namespace} is not a Kubernetes namespace name`,
      'give lowercase letters, digits and dashes, e.g. --namespace load',
    );
  const bytes = Buffer.byteLength(m.script);
  if (bytes > MAX_CONFIGMAP_BYTES)
    throw new ManifestError(
      `the bundled k6 script is ${(bytes / 1024 / 1024).toFixed(2)} MiB: a ConfigMap holds at most 1 MiB`,
      'make the scenario smaller (large inline data belongs in a file, which a k8s run does not take yet), or run it with plateau run --engine k6',
    );
  const labels = { 'app.kubernetes.io/managed-by': 'plateau', 'plateau/run-id': name.slice('plateau-'.length) };
  const configMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `${name}-script`, namespace: m.namespace, labels },
    data: { [SCRIPT_FILE]: m.script },
  };
  const env = [
    { name: 'K6_PROMETHEUS_RW_SERVER_URL', value: remoteWriteUrl(m.prometheusUrl) },
    { name: 'K6_PROMETHEUS_RW_PUSH_INTERVAL', value: '1s' },
    { name: 'K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM', value: 'true' },
  ];
  const runner: Record<string, unknown> = {
    env,
    ...(m.secretName ? { envFrom: [{ secretRef: { name: m.secretName } }] } : {}),
    ...(m.image ? { image: m.image } : {}),
    metadata: { labels },
  };
  const testRun = {
    apiVersion: TESTRUN_API,
    kind: 'TestRun',
    metadata: { name, namespace: m.namespace, labels },
    spec: {
      parallelism: n,
      separate: true,
      script: { configMap: { name: `${name}-script`, file: SCRIPT_FILE } },
      arguments: runnerArguments(m.idKey),
      runner,
    },
  };
  return { name, configMap, testRun };
}
