/**
 * `plateau k8s manifest`: the ConfigMap and TestRun it writes, validated against k6-operator's
 * TestRun CRD schema (test/fixtures/k6-operator, its PROVENANCE.md) for N = 1, 3 and 4. The
 * schema is closed here (additionalProperties: false wherever it lists properties), so a field
 * name the CRD does not have fails too, not only a wrong type. No cluster is involved.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Ajv } from 'ajv';
import { program } from '../harness/cli/program.ts';
import { processIo } from '../harness/cli/io.ts';
import { buildManifests, objectName, operatorSegment, operatorSequence } from '../harness/k8s/manifest.ts';
import { segmentLcd } from '../analysis/segment.ts';
import { K8S_COMMANDS, flagsOf } from '../harness/cli/flags.ts';

const SCHEMA = JSON.parse(
  fs.readFileSync(path.join(import.meta.dirname, 'fixtures/k6-operator/testrun-v1alpha1.schema.json'), 'utf8'),
) as Record<string, unknown>;

/** The schema with every object that lists its properties closed to them. */
function closed(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(closed);
  if (!s || typeof s !== 'object') return s;
  const o = Object.fromEntries(Object.entries(s).map(([k, v]) => [k, k === 'enum' ? v : closed(v)]));
  if (o.properties && o.additionalProperties === undefined && !o['x-kubernetes-preserve-unknown-fields'])
    o.additionalProperties = false;
  return o;
}

const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
const validate = ajv.compile(closed(SCHEMA) as object);

async function cli(argv: string[]): Promise<number> {
  let code = -1;
  await program(argv, (c) => (code = c), processIo)
    .exitProcess(false)
    .parseAsync();
  return code;
}

function readJson(f: string): Record<string, any> {
  return JSON.parse(fs.readFileSync(f, 'utf8'));
}

describe('plateau k8s manifest', () => {
  it.each([1, 3, 4])(
    'N = %i: the TestRun validates against the CRD schema, the ConfigMap holds the script',
    async (n) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plateau-k8s-'));
      const out = process.stdout.write;
      process.stdout.write = (() => true) as typeof process.stdout.write;
      try {
        const code = await cli([
          'k8s',
          'manifest',
          '--parallelism',
          String(n),
          '--namespace',
          'load',
          '--prometheus',
          'http://prometheus.monitoring:9090',
          '--target',
          'http://orders.shop:8080/orders',
          '--start-rate',
          '50',
          '--step-rate',
          '50',
          '--max-rate',
          '300',
          '--max-vus',
          '50',
          '--run-id',
          `cap-${n}`,
          '--secret',
          'plateau-secrets',
          '--out',
          dir,
        ]);
        expect(code).toBe(0);
      } finally {
        process.stdout.write = out;
      }
      const tr = readJson(path.join(dir, 'testrun.json'));
      const cm = readJson(path.join(dir, 'configmap.json'));
      const ok = validate(tr);
      expect(validate.errors ?? [], JSON.stringify(validate.errors)).toEqual([]);
      expect(ok).toBe(true);
      expect(tr.spec.parallelism).toBe(n);
      expect(tr.spec.separate).toBe(true);
      // the run's key, not the given run id alone: a fixed --run-id given again gets its own TestRun and series
      const key = new RegExp(`^cap-${n}-[0-9a-z]{10}$`);
      expect(tr.spec.arguments).toMatch(/^--out experimental-prometheus-rw --tag testid=\S+$/);
      expect(tr.spec.arguments.split('testid=')[1]).toMatch(key);
      expect(tr.metadata.name).toBe(`plateau-${tr.spec.arguments.split('testid=')[1]}`);
      expect(tr.spec.arguments).not.toMatch(/execution-segment/);
      expect(tr.spec.runner.envFrom).toEqual([{ secretRef: { name: 'plateau-secrets' } }]);
      const env = Object.fromEntries(tr.spec.runner.env.map((e: { name: string; value: string }) => [e.name, e.value]));
      expect(env).toEqual({
        K6_PROMETHEUS_RW_SERVER_URL: 'http://prometheus.monitoring:9090/api/v1/write',
        K6_PROMETHEUS_RW_PUSH_INTERVAL: '1s',
        K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM: 'true',
      });
      expect(cm.kind).toBe('ConfigMap');
      expect(cm.metadata).toMatchObject({ name: tr.spec.script.configMap.name, namespace: 'load' });
      const script = cm.data[tr.spec.script.configMap.file] as string;
      expect(script).toContain('export {');
      // maxVUs of the script: a multiple of N, the denominator of the operator's sequence, and not below what was asked
      const maxVUs = Number(/"maxVUs": (\d+)/.exec(script)?.[1]);
      expect(maxVUs % n).toBe(0);
      expect(maxVUs).toBeGreaterThanOrEqual(50);
      expect(maxVUs).toBeLessThan(50 + n);
      expect(segmentLcd(operatorSegment(1, n), operatorSequence(n))).toBe(n);
    },
  );

  it('the closed schema refuses what the CRD does not have: a wrong type, an unknown field, a missing script', () => {
    const m = buildManifests({
      runId: 'r1',
      idKey: 'r1',
      parallelism: 2,
      namespace: 'load',
      script: 'x',
      prometheusUrl: 'http://p:9090',
    });
    expect(validate(m.testRun)).toBe(true);
    const spec = m.testRun.spec as Record<string, unknown>;
    expect(validate({ ...m.testRun, spec: { ...spec, parallelism: '2' } })).toBe(false);
    expect(validate({ ...m.testRun, spec: { ...spec, executionSegment: '0:1/2' } })).toBe(false);
    const { script: _, ...noScript } = spec;
    expect(() =>
      buildManifests({
        runId: 'r1',
        idKey: 'r1',
        parallelism: 2,
        namespace: 'load',
        script: 'x'.repeat(1 << 20),
        prometheusUrl: 'http://p:9090',
      }),
    ).toThrow(/bundled k6 script is 1\.00 MiB: a ConfigMap holds at most 1 MiB/);
    expect(validate({ ...m.testRun, spec: noScript })).toBe(false);
  });

  it("names a TestRun by the run's key: a given run id twice gives two names, a long one keeps the key's tail; DNS-1123, at most 47", () => {
    expect(objectName('20261129-172233-a1f3')).toBe('plateau-20261129-172233-a1f3');
    expect(objectName('Nightly', 'Nightly-t5a3kx0q7c')).toBe('plateau-nightly-t5a3kx0q7c');
    expect(objectName('nightly', 'nightly-t5a3kx0q7d')).not.toBe(objectName('nightly', 'nightly-t5a3kx0q7c'));
    const long = 'checkout-service-capacity-nightly-main-branch';
    const a = objectName(long, `${long}-t5a3kx0q7c`);
    expect(a).toBe('plateau-checkout-service-capacity-ni-t5a3kx0q7c');
    expect(objectName(long, `${long}-t5a3kx0q7d`)).not.toBe(a);
    for (const n of [a, objectName('a_b.c', 'a_b.c-x1'), objectName('-x-', '-x--y')]) {
      expect(n).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
      expect(n.length).toBeLessThanOrEqual(47);
    }
  });

  it('the operator sequence and segments are those it gives its runners', () => {
    expect(operatorSequence(4)).toBe('0,1/4,2/4,3/4,1');
    expect([1, 2, 3, 4].map((i) => operatorSegment(i, 4))).toEqual(['0:1/4', '1/4:2/4', '2/4:3/4', '3/4:1']);
    expect(operatorSegment(1, 1)).toBe('0:1');
  });

  it.each([
    [
      ['--parallelism', '0', '--prometheus', 'http://p:9090'],
      /--parallelism 0 is not a whole number of runners.*--parallelism 4/s,
    ],
    [['--parallelism', '2', '--prometheus', 'prom:9090'], /is not http\(s\)|is not a URL/],
    [
      ['--parallelism', '2', '--prometheus', 'http://p:9090', '--namespace', 'Load_1'],
      /not a Kubernetes namespace name.*--namespace load/s,
    ],
    [['--parallelism', '2', '--prometheus', 'http://p:9090', '--execution-segment', '0:1/2'], /Unknown argument/],
    [
      ['--parallelism', '2', '--prometheus', 'http://p:9090', '--scenario', 'test/fixtures/scenarios/token-echo.ts'],
      /reads secrets \(PLATEAU_TEST_TOKEN\) and no --secret.*create secret generic plateau-secrets --from-literal=PLATEAU_TEST_TOKEN=\.\.\.\).*--secret plateau-secrets/s,
    ],
    [
      ['--parallelism', '2', '--prometheus', 'http://p:9090', '--scenario', 'demo/scenario.ts'],
      /reads data files \(accounts\) from this machine's paths.*plateau run --engine k6/s,
    ],
  ])('bad input %j is refused with the fix', async (extra, msg) => {
    const argv = ['k8s', 'manifest', '--target', 'http://t:1/', '--out', os.tmpdir()];
    const err = await cli([...argv, ...extra]).then(
      () => null,
      (e: Error & { hint?: string }) => `${e.message} ${e.hint ?? ''}`,
    );
    expect(err).toMatch(msg);
  });
});

describe('the k8s commands list exactly their flags from the table (flags.ts)', () => {
  it.each(K8S_COMMANDS)('plateau %s --help', async (command) => {
    const help = await new Promise<string>((resolve, reject) => {
      program([], () => undefined, processIo)
        .exitProcess(false)
        .parse([...command.split(' '), '--help'], {}, (err, _argv, output) => (err ? reject(err) : resolve(output)));
    });
    const listed = [...help.matchAll(/^ {2}--([\w-]+)/gm)]
      .map((m) => m[1])
      .filter((n) => n !== 'version' && n !== 'help');
    expect(listed).toEqual(flagsOf(command).map((f) => f.name));
    for (const f of flagsOf(command))
      expect(help.replace(/\s+/g, ' ')).toContain(String(f.option.describe).replace(/\s+/g, ' '));
  });
});
