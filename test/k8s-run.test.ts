/**
 * plateau k8s run's orchestration, with stand-ins for what cannot run here (no Kubernetes
 * cluster): a fake `kubectl` script on PATH that records every call and answers from files in its
 * state directory, and fake k6 runner REST APIs on 127.0.0.1 (one server, runner i under
 * /runner-i, reached through --runner-api) that record each PATCH /v1/status body. They check
 * what plateau sends and how it reacts; they prove nothing about a real cluster or operator.
 * Prometheus is real (Debian's 2.42 with the remote-write receiver), fed by the remote-write
 * test writer as 4 runners pushing every 200 ms in real time.
 *
 * The fake kubectl's state directory: `stages` (one TestRun stage a line; each `get testrun`
 * answers the first and drops it, the last one stays), `message` (the operator's condition
 * message), and flags `no-context`, `no-crd`, `delete-fails`; it writes `calls.log`.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPrometheus, startPrometheus, type PrometheusHandle } from './helpers/prometheus.ts';
import { remoteWrite, type FloatSeries } from './helpers/remote-write.ts';
import { prepareK8s } from '../harness/cli/k8s-commands.ts';
import { runK8s, type RunK8sInput } from '../harness/k8s/run.ts';
import { STOP_BODY } from '../harness/k8s/runners.ts';

const SCRIPT = `#!/bin/sh
S="$FAKE_KUBECTL_STATE"
echo "$*" >> "$S/calls.log"
case "$*" in
  "config current-context")
    if [ -e "$S/no-context" ]; then echo 'error: current-context is not set' >&2; exit 1; fi
    echo fake-context ;;
  "get crd testruns.k6.io -o name")
    if [ -e "$S/no-crd" ]; then echo 'Error from server (NotFound): customresourcedefinitions.apiextensions.k8s.io "testruns.k6.io" not found' >&2; exit 1; fi
    echo customresourcedefinition.apiextensions.k8s.io/testruns.k6.io ;;
  apply*) echo 'configmap/x created'; echo 'testrun.k6.io/x created' ;;
  *" get testrun "*)
    if [ -e "$S/deleted" ]; then echo 'Error from server (NotFound): testruns.k6.io not found' >&2; exit 1; fi
    stage=$(head -n 1 "$S/stages")
    if [ "$(wc -l < "$S/stages")" -gt 1 ]; then tail -n +2 "$S/stages" > "$S/stages.tmp" && mv "$S/stages.tmp" "$S/stages"; fi
    msg=$(cat "$S/message" 2>/dev/null)
    printf '{"kind":"TestRun","status":{"stage":"%s","conditions":[{"type":"TestRunRunning","reason":"Fake","message":"%s"}]}}\\n' "$stage" "$msg" ;;
  *" delete testrun "*)
    if [ -e "$S/delete-fails" ]; then echo 'error: You must be logged in to the server (Unauthorized)' >&2; exit 1; fi
    touch "$S/deleted"; echo 'testrun.k6.io "x" deleted' ;;
  *" delete configmap "*) echo 'configmap "x" deleted' ;;
  *) echo "fake kubectl: unexpected call: $*" >&2; exit 3 ;;
esac
`;

interface FakeKubectl {
  /** PATH with the fake kubectl first. */
  env: NodeJS.ProcessEnv;
  state: string;
  set(file: string, content?: string): void;
  calls(): string[];
}

function fakeKubectl(stages: string[]): FakeKubectl {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plateau-fake-kubectl-'));
  const bin = path.join(dir, 'bin');
  const state = path.join(dir, 'state');
  fs.mkdirSync(bin);
  fs.mkdirSync(state);
  fs.writeFileSync(path.join(bin, 'kubectl'), SCRIPT, { mode: 0o755 });
  fs.writeFileSync(path.join(state, 'stages'), `${stages.join('\n')}\n`);
  return {
    env: {
      ...process.env,
      KUBECTL: undefined,
      PATH: `${bin}${path.delimiter}${process.env.PATH}`,
      FAKE_KUBECTL_STATE: state,
    },
    state,
    set: (file, content = '') => fs.writeFileSync(path.join(state, file), content),
    calls: () =>
      fs.existsSync(path.join(state, 'calls.log'))
        ? fs.readFileSync(path.join(state, 'calls.log'), 'utf8').trim().split('\n')
        : [],
  };
}

interface FakeRunners {
  /** The --runner-api template: http://127.0.0.1:PORT/runner-{i} */
  template: string;
  patches: { runner: number; body: unknown }[];
  /** Runners that answer 500 to a PATCH. */
  failing: Set<number>;
  /** Called after each PATCH (e.g. to let the fake TestRun finish). */
  onPatch?: () => void;
  close(): Promise<void>;
}

async function fakeRunners(): Promise<FakeRunners> {
  const r: FakeRunners = { template: '', patches: [], failing: new Set(), close: async () => undefined };
  const server = http.createServer((req, res) => {
    const m = /^\/runner-(\d+)\/v1\/status$/.exec(req.url ?? '');
    let text = '';
    req.on('data', (d: Buffer) => (text += d.toString()));
    req.on('end', () => {
      if (!m || req.method !== 'PATCH') {
        res.writeHead(404).end();
        return;
      }
      const runner = Number(m[1]);
      r.patches.push({ runner, body: JSON.parse(text || 'null') });
      r.onPatch?.();
      if (r.failing.has(runner)) res.writeHead(500).end('fake failure');
      else res.writeHead(200, { 'content-type': 'application/json' }).end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  r.template = `http://127.0.0.1:${(server.address() as { port: number }).port}/runner-{i}`;
  r.close = () => new Promise((resolve) => server.close(() => resolve()));
  return r;
}

const bin = findPrometheus();
let prom: PrometheusHandle;
let plain: PrometheusHandle;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'plateau-k8s-run-'));

beforeAll(async () => {
  if (!bin) return;
  [prom, plain] = await Promise.all([
    startPrometheus({ binary: bin, targetUrl: 'http://127.0.0.1:9', remoteWrite: true }),
    startPrometheus({ binary: bin, targetUrl: 'http://127.0.0.1:9' }),
  ]);
});
afterAll(async () => {
  await Promise.all([prom?.stop(), plain?.stop()]);
});

let seq = 0;
async function prepared(prometheusUrl: string) {
  const runId = `k8s-run-${process.pid}-${++seq}`;
  return prepareK8s(
    {
      parallelism: 4,
      namespace: 'load',
      prometheus: prometheusUrl,
      target: 'http://127.0.0.1:9/orders',
      'start-rate': 40,
      'step-rate': 40,
      'max-rate': 120,
      hold: 3,
      ramp: 0,
      'run-id': runId,
    },
    'k8s run',
  );
}

/** Pushes k6's counters for the given runners every 200 ms until stopped (40 req/s each, all fine). */
function pushing(testid: string, runners: number[]) {
  const started = Date.now();
  let stop = false;
  const loop = (async () => {
    while (!stop) {
      const tMs = Date.now();
      const n = Math.floor(((tMs - started) / 1000) * 40);
      const floats: FloatSeries[] = runners.flatMap((r) => {
        const base = { testid, instance_id: String(r) };
        return [
          { labels: { __name__: 'k6_iterations_total', ...base }, samples: [{ value: n, tMs }] },
          {
            labels: { __name__: 'k6_http_reqs_total', ...base, expected_response: 'true', status: '200' },
            samples: [{ value: n, tMs }],
          },
        ];
      });
      await remoteWrite(prom.url, { floats }).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  return async () => {
    stop = true;
    await loop;
  };
}

const FAST = { stageTimeoutMs: 5000, seriesTimeoutMs: 2500, silentAfterMs: 2000, finishTimeoutMs: 1500, pollMs: 200 };

function input(
  p: Awaited<ReturnType<typeof prepared>>,
  k: FakeKubectl,
  runners: FakeRunners,
  extra: Partial<RunK8sInput> = {},
): RunK8sInput {
  return {
    prepared: p,
    namespace: 'load',
    prometheusUrl: prom.url,
    parallelism: 4,
    keep: false,
    runnerApi: runners.template,
    outDir: tmp,
    env: k.env,
    bounds: FAST,
    out: () => undefined,
    ...extra,
  };
}

const failure = (p: Promise<unknown>) =>
  p.then(
    () => 'no error',
    (e: Error & { hint?: string }) => `${e.message} | fix: ${e.hint ?? ''}`,
  );

describe.skipIf(!bin)('plateau k8s run (stand-ins for kubectl and the runners; a real Prometheus)', () => {
  let runners: FakeRunners;
  beforeAll(async () => {
    runners = await fakeRunners();
  });
  afterAll(async () => {
    await runners.close();
  });

  it('no kubectl on PATH, no context, no CRD: refused before anything is applied, each with the fix', async () => {
    const p = await prepared(prom.url);
    const k = fakeKubectl(['started']);
    const none = await failure(runK8s(input(p, k, runners, { env: { ...k.env, PATH: tmp } })));
    expect(none).toMatch(/no kubectl on PATH.*\| fix: install kubectl .*KUBECTL/);
    k.set('no-context');
    expect(await failure(runK8s(input(p, k, runners)))).toMatch(/no current context.*kubectl config use-context/);
    fs.rmSync(path.join(k.state, 'no-context'));
    k.set('no-crd');
    expect(await failure(runK8s(input(p, k, runners)))).toMatch(
      /no TestRun CRD.*testruns\.k6\.io.*\| fix: install k6-operator/,
    );
    expect(k.calls().some((c) => c.startsWith('apply'))).toBe(false);
  });

  it('a Prometheus unreachable, or without the remote-write receiver and native histograms: refused with the flags to set', async () => {
    const p = await prepared(prom.url);
    const k = fakeKubectl(['started']);
    expect(await failure(runK8s(input(p, k, runners, { prometheusUrl: 'http://127.0.0.1:9' })))).toMatch(
      /Prometheus at http:\/\/127\.0\.0\.1:9 did not answer.*\| fix: check --prometheus/,
    );
    expect(await failure(runK8s(input(p, k, runners, { prometheusUrl: plain.url })))).toMatch(
      /runs without --web\.enable-remote-write-receiver and --enable-feature=native-histograms.*\| fix: start Prometheus with/,
    );
    expect(k.calls().some((c) => c.startsWith('apply'))).toBe(false);
  });

  it("a stage error stops the run with the operator's message, and what was applied is stopped and deleted", async () => {
    const p = await prepared(prom.url);
    const k = fakeKubectl(['initialization', 'error']);
    k.set('message', 'runner pod failed: ImagePullBackOff');
    const before = runners.patches.length;
    expect(await failure(runK8s(input(p, k, runners)))).toMatch(
      /reached stage error: Fake: runner pod failed: ImagePullBackOff.*\| fix: read the operator's log/,
    );
    expect(runners.patches.length - before).toBe(4);
    expect(k.calls()).toContain(`-n load delete testrun ${p.manifests.name} --ignore-not-found`);
  });

  it('interrupting the run sends the stop to every runner, waits for finished, deletes the TestRun and ConfigMap, and reports', async () => {
    const p = await prepared(prom.url);
    const k = fakeKubectl(['initialization', 'created', 'started']);
    const before = runners.patches.length;
    runners.onPatch = () => {
      if (runners.patches.length - before === 4) k.set('stages', 'finished\n');
    };
    const stopPushing = pushing(p.runId, [1, 2, 3, 4]);
    const ac = new AbortController();
    const lines: string[] = [];
    const run = runK8s(input(p, k, runners, { signal: ac.signal, out: (l) => lines.push(l) }));
    // interrupt once the store holds buckets of every runner
    const buckets = path.join(tmp, p.runId, 'buckets.ndjson');
    const deadline = Date.now() + 8000;
    while (Date.now() < deadline) {
      const text = fs.existsSync(buckets) ? fs.readFileSync(buckets, 'utf8') : '';
      if (['k8s/1', 'k8s/2', 'k8s/3', 'k8s/4'].every((s) => text.includes(`"source":"${s}"`))) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    ac.abort();
    const code = await run;
    await stopPushing();
    runners.onPatch = undefined;
    expect(code).toBe(130);
    const sent = runners.patches.slice(before);
    expect(sent.map((x) => x.runner).sort()).toEqual([1, 2, 3, 4]);
    for (const x of sent) expect(x.body).toEqual(STOP_BODY);
    expect(STOP_BODY).toEqual({ data: { type: 'status', id: 'default', attributes: { stopped: true } } });
    const calls = k.calls();
    expect(calls.some((c) => /^apply -f .*configmap\.json -f .*testrun\.json$/.test(c))).toBe(true);
    expect(calls).toContain(`-n load delete testrun ${p.manifests.name} --ignore-not-found`);
    expect(calls).toContain(`-n load delete configmap ${p.manifests.name}-script --ignore-not-found`);
    expect(lines.join('\n')).toMatch(
      /stage created[\s\S]*stage started[\s\S]*interrupted: stopping the 4 runners[\s\S]*stop sent to all 4 runners/,
    );
    const meta = JSON.parse(fs.readFileSync(path.join(tmp, p.runId, 'run.json'), 'utf8'));
    expect(meta.status).toBe('interrupted');
    expect(meta.engine).toBe('k6-operator');
    expect(meta.environment).toMatchObject({
      k8sTestRun: `load/${p.manifests.name}`,
      k8sParallelism: '4',
      k8sContext: 'fake-context',
    });
    // each runner's instance id and share of the arrivals (the writer gives each the same count), and the start skew
    expect(meta.environment.k8sRunners).toMatch(
      /^instance_id 1: 2\d\.\d% \(\d+ arrivals\), instance_id 2: .*instance_id 4: 2\d\.\d% \(\d+ arrivals\)$/,
    );
    expect(Number(meta.environment.k8sStartSkewMs)).toBeGreaterThanOrEqual(0);
    expect(fs.existsSync(path.join(tmp, p.runId, 'report.md'))).toBe(true);
  });

  it('a runner whose series never arrive stops the run at the bound, naming it; a runner that refuses the stop falls back to deleting the TestRun', async () => {
    const p = await prepared(prom.url);
    const k = fakeKubectl(['started']);
    const before = runners.patches.length;
    runners.failing.add(2);
    const stopPushing = pushing(p.runId, [1, 2, 3]);
    const lines: string[] = [];
    const err = await failure(runK8s(input(p, k, runners, { out: (l) => lines.push(l) })));
    await stopPushing();
    runners.failing.clear();
    expect(err).toMatch(
      /no series from runner 4 .*testid=k8s-run-.* 2\.5 s after the start.*\| fix: check that the runner pods reach K6_PROMETHEUS_RW_SERVER_URL/,
    );
    expect(
      runners.patches
        .slice(before)
        .map((x) => x.runner)
        .sort(),
    ).toEqual([1, 2, 3, 4]);
    expect(lines.join('\n')).toMatch(
      /runner 2 \(.*\/runner-2\) answered 500[\s\S]*1 of 4 runners did not take the stop: deleting TestRun/,
    );
    expect(k.calls()).toContain(`-n load delete testrun ${p.manifests.name} --wait=false`);
  });

  it('when neither the stop nor the delete works, it says so loudly with the command that will', async () => {
    const p = await prepared(prom.url);
    const k = fakeKubectl(['initialization', 'error']);
    k.set('delete-fails');
    runners.failing.add(1);
    const lines: string[] = [];
    await failure(runK8s(input(p, k, runners, { out: (l) => lines.push(l) })));
    runners.failing.clear();
    expect(lines.join('\n')).toMatch(
      new RegExp(
        `RUNNERS MAY STILL BE LOADING THE TARGET.*Run now: kubectl -n load delete testrun ${p.manifests.name}`,
      ),
    );
  });
});
