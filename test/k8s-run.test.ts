/**
 * plateau k8s run's orchestration, with stand-ins for what cannot run here (no Kubernetes
 * cluster): a fake `kubectl` script on PATH that records every call and answers from files in its
 * state directory, and fake k6 runner REST APIs on 127.0.0.1 (one server, runner i under
 * /runner-i, reached through --runner-api) that answer GET /v1/status (paused or not) and record
 * each PATCH /v1/status body. They check
 * what plateau sends and how it reacts; they prove nothing about a real cluster or operator.
 * Prometheus is real (Debian's 2.42 with the remote-write receiver), fed by the remote-write
 * test writer as 4 simulated runners on a simulated clock that moves when the run sleeps.
 *
 * The fake kubectl's state directory: `stages` (one TestRun stage a line; each `get testrun`
 * answers the first and drops it, the last one stays), `message` (the operator's condition
 * message), and flags `no-context`, `no-crd`, `delete-fails`, `exists` (create refused); it writes `calls.log`.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPrometheus, startPrometheus, type PrometheusHandle } from './helpers/prometheus.ts';
import { bucketIndex, remoteWrite, type FloatSeries, type HistogramSeries } from './helpers/remote-write.ts';
import { prepareK8s } from '../harness/cli/k8s-commands.ts';
import { runK8s, type RunK8sInput } from '../harness/k8s/run.ts';
import { STOP_BODY } from '../harness/k8s/runners.ts';
import { stripeCount } from '../analysis/k8s-arrivals.ts';
import type { K8sClock } from '../harness/k8s/lifecycle.ts';

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
  create*)
    if [ -e "$S/exists" ]; then echo 'Error from server (AlreadyExists): error when creating "testrun.json": testruns.k6.io "x" already exists' >&2; exit 1; fi
    echo 'configmap/x created'; echo 'testrun.k6.io/x created' ;;
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
  /** Whether the runners' test is running (GET /v1/status answers paused: false); else paused, as before the operator's starter. */
  running: () => boolean;
  /** Called after each PATCH (e.g. to let the fake TestRun finish). */
  onPatch?: () => void;
  close(): Promise<void>;
}

async function fakeRunners(): Promise<FakeRunners> {
  const r: FakeRunners = {
    template: '',
    patches: [],
    failing: new Set(),
    running: () => true,
    close: async () => undefined,
  };
  const server = http.createServer((req, res) => {
    const m = /^\/runner-(\d+)\/v1\/status$/.exec(req.url ?? '');
    let text = '';
    req.on('data', (d: Buffer) => (text += d.toString()));
    req.on('end', () => {
      if (m && req.method === 'GET') {
        const attributes = { paused: !r.running(), stopped: false };
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ data: { type: 'status', id: 'default', attributes } }));
        return;
      }
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
async function prepared(prometheusUrl: string, steps: Record<string, number> = {}) {
  const runId = `k8s-run-${process.pid}-${++seq}`;
  return prepareK8s(
    {
      ...steps,
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
      ...steps,
    },
    'k8s run',
  );
}

/**
 * Simulated runners on a simulated clock: runner r (instance_id r) pushes its cumulative counters
 * 100 to 250 ms after each second of the plan, stamped in Prometheus's recent past; the clock moves
 * only when the run sleeps, and each move writes the pushes due by then. Of each second's arrivals
 * the first `capacity` are served (10 ms below it, 300 ms above it), the rest dropped. The runners
 * are unpaused `startDelayS` after the clock's start (the stage started), as by the operator's
 * starter pod; `running` says whether they are.
 */
function simulated(
  p: Awaited<ReturnType<typeof prepared>>,
  runnerIds: number[],
  capacity = 130,
  onSleep?: (simS: number) => void,
  startDelayS = 0,
): K8sClock & { running: () => boolean } {
  const steps = p.script.plan.steps;
  const rateAt = (x: number) => steps.find((st) => x >= st.rampStartS && x < st.holdEndS)?.ratePerSec ?? 0;
  const arrivalsBefore = (x: number) => Array.from({ length: x }, (_, i) => rateAt(i)).reduce((a, b) => a + b, 0);
  const t0 = Date.now() - 120_000;
  let sim = t0;
  const startMs = t0 + startDelayS * 1000;
  let pushedS = 0;
  const cum = [1, 2, 3, 4].map(() => ({ n: 0, dropped: 0, count: 0, sum: 0, buckets: new Map<number, number>() }));
  const writeUpTo = async (nowMs: number) => {
    while (startMs + (pushedS + 1) * 1000 + 250 <= nowMs) {
      const s = pushedS++;
      const rate = rateAt(s);
      const served = Math.min(rate, capacity);
      const from = arrivalsBefore(s);
      const latencyS = rate > capacity ? 0.3 : 0.01;
      const floats: FloatSeries[] = [];
      const histograms: HistogramSeries[] = [];
      cum.forEach((c, r) => {
        const ok = stripeCount(r, 4, from, from + served);
        c.n += ok;
        c.dropped += stripeCount(r, 4, from + served, from + rate);
        c.buckets.set(bucketIndex(latencyS, 3), (c.buckets.get(bucketIndex(latencyS, 3)) ?? 0) + ok);
        c.count += ok;
        c.sum += ok * latencyS;
        if (!runnerIds.includes(r + 1)) return;
        const tMs = startMs + (s + 1) * 1000 + 100 + r * 50;
        const base = { testid: p.idKey, instance_id: String(r + 1) };
        floats.push(
          { labels: { __name__: 'k6_iterations_total', ...base }, samples: [{ value: c.n, tMs }] },
          {
            labels: { __name__: 'k6_http_reqs_total', ...base, expected_response: 'true', status: '200' },
            samples: [{ value: c.n, tMs }],
          },
        );
        if (c.dropped > 0)
          floats.push({
            labels: { __name__: 'k6_dropped_iterations_total', ...base },
            samples: [{ value: c.dropped, tMs }],
          });
        if (c.count > 0)
          histograms.push({
            labels: { __name__: 'k6_http_req_duration_seconds', ...base },
            samples: [{ tMs, schema: 3, count: c.count, sum: c.sum, buckets: new Map(c.buckets) }],
          });
      });
      await remoteWrite(prom.url, { floats, histograms });
    }
  };
  return {
    running: () => sim >= startMs,
    now: () => sim,
    sleep: async (ms) => {
      sim += ms;
      await writeUpTo(sim);
      onSleep?.((sim - t0) / 1000);
    },
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
  /** The runners sent a stop since patch number `before`, in order. */
  const stoppedSince = (before: number) =>
    runners.patches
      .slice(before)
      .map((x) => x.runner)
      .sort();

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
    expect(k.calls().some((c) => c.startsWith('create'))).toBe(false);
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
    expect(k.calls().some((c) => c.startsWith('create'))).toBe(false);
  });

  it("a TestRun of the same name already there: refused naming it, and neither stopped nor deleted (it is not this run's)", async () => {
    const p = await prepared(prom.url);
    const k = fakeKubectl(['started']);
    k.set('exists');
    const before = runners.patches.length;
    expect(await failure(runK8s(input(p, k, runners)))).toMatch(
      new RegExp(
        `a TestRun or ConfigMap named ${p.manifests.name} already exists in namespace load.*\\| fix: another run holds that name`,
      ),
    );
    expect(runners.patches.length - before).toBe(0);
    expect(k.calls().some((c) => c.includes(' delete '))).toBe(false);
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
    // the run store says it failed, and has its report
    expect(JSON.parse(fs.readFileSync(path.join(tmp, p.runId, 'run.json'), 'utf8')).status).toBe('failed');
    expect(fs.existsSync(path.join(tmp, p.runId, 'report.md'))).toBe(true);
  });

  it('interrupting the run sends the stop to every runner, waits for finished, deletes the TestRun and ConfigMap, and reports', async () => {
    const p = await prepared(prom.url);
    const k = fakeKubectl(['initialization', 'created', 'started']);
    const before = runners.patches.length;
    runners.onPatch = () => {
      if (runners.patches.length - before === 4) k.set('stages', 'finished\n');
    };
    const ac = new AbortController();
    // Ctrl-C 3 s into the run (on the simulated clock)
    const clock = simulated(p, [1, 2, 3, 4], 130, (simS) => simS >= 3 && ac.abort());
    const lines: string[] = [];
    const run = runK8s(input(p, k, runners, { signal: ac.signal, clock, out: (l) => lines.push(l) }));
    const code = await run;
    const buckets = fs.readFileSync(path.join(tmp, p.runId, 'buckets.ndjson'), 'utf8');
    for (const src of ['k8s/1', 'k8s/2', 'k8s/3', 'k8s/4']) expect(buckets).toContain(`"source":"${src}"`);
    runners.onPatch = undefined;
    expect(code).toBe(130);
    const sent = runners.patches.slice(before);
    expect(sent.map((x) => x.runner).sort()).toEqual([1, 2, 3, 4]);
    for (const x of sent) expect(x.body).toEqual(STOP_BODY);
    expect(STOP_BODY).toEqual({ data: { type: 'status', id: 'default', attributes: { stopped: true } } });
    const calls = k.calls();
    expect(calls.some((c) => /^create -f .*configmap\.json -f .*testrun\.json$/.test(c))).toBe(true);
    expect(calls).toContain(`-n load delete testrun ${p.manifests.name} --ignore-not-found`);
    expect(calls).toContain(`-n load delete configmap ${p.manifests.name}-script --ignore-not-found`);
    expect(lines.join('\n')).toMatch(
      /stage created[\s\S]*stage started[\s\S]*interrupted: stopping the 4 runners[\s\S]*stop sent to all 4 runners/,
    );
    const meta = JSON.parse(fs.readFileSync(path.join(tmp, p.runId, 'run.json'), 'utf8'));
    expect(meta.status).toBe('interrupted');
    expect(meta.engine).toBe('k6-operator');
    // the runners' ids are the run's own, whatever its given run id: the key the script holds is recorded
    expect(meta.idKey).toMatch(new RegExp(`^${p.runId}-[0-9a-z]{10}$`));
    expect(p.script.text).toContain(`"idKey": "${meta.idKey}"`);
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

  it('a TestRun left at stage created (runner pods not all running) stops at the bound, naming what separate: true asks of the nodes', async () => {
    const p = await prepared(prom.url);
    const k = fakeKubectl(['initialization', 'created']);
    const clock = simulated(p, []);
    expect(await failure(runK8s(input(p, k, runners, { clock })))).toMatch(
      /did not reach started within 5 s \(stage created\).*\| fix: look at its pods.*separate: true gives each its own node.*4 runners need 4 nodes free of other runners/,
    );
    expect(k.calls()).toContain(`-n load delete testrun ${p.manifests.name} --ignore-not-found`);
  });

  it('a runner whose series never arrive stops the run at the bound, naming it; a runner that refuses the stop falls back to deleting the TestRun', async () => {
    const p = await prepared(prom.url);
    const k = fakeKubectl(['started']);
    const before = runners.patches.length;
    runners.failing.add(2);
    const clock = simulated(p, [1, 2, 3]);
    const lines: string[] = [];
    const err = await failure(runK8s(input(p, k, runners, { clock, out: (l) => lines.push(l) })));
    runners.failing.clear();
    expect(err).toMatch(
      /no series from runner 4 .*testid=k8s-run-.* 2\.5 s after the start.*\| fix: check that the runner pods reach K6_PROMETHEUS_RW_SERVER_URL/,
    );
    expect(stoppedSince(before)).toEqual([1, 2, 3, 4]);
    expect(lines.join('\n')).toMatch(
      /runner 2 \(.*\/runner-2\) answered 500[\s\S]*1 of 4 runners did not take the stop: deleting TestRun/,
    );
    expect(k.calls()).toContain(`-n load delete testrun ${p.manifests.name} --wait=false`);
  });

  // 2 s: the starter pod unpauses the runners after the stage says started; a clock started at the stage read step 1 (40 req/s) as 26.7 achieved, fails, and stopped there
  it.each([0, 2])(
    'runs to the plateau on a simulated clock (runners unpaused %i s after stage started): stops every runner at the step over 130 req/s, the report holds 120',
    async (startDelayS) => {
      const CAPACITY = 130;
      const p = await prepared(prom.url, { 'max-rate': 200, hold: 4, settle: 1 });
      const k = fakeKubectl(['started']);
      const before = runners.patches.length;
      runners.onPatch = () => {
        if (runners.patches.length - before === 4) k.set('stages', 'finished\n');
      };
      const clock = simulated(p, [1, 2, 3, 4], CAPACITY, undefined, startDelayS);
      runners.running = clock.running;
      const lines: string[] = [];
      const code = await runK8s(
        input(p, k, runners, {
          clock,
          bounds: { ...FAST, pollMs: 500, seriesTimeoutMs: 10_000 },
          out: (l) => lines.push(l),
        }),
      ).finally(() => (runners.running = () => true));
      runners.onPatch = undefined;
      expect(code).toBe(0);
      const said = lines.join('\n');
      // t = 0 within one status poll (100 ms) of the unpause, said to 0.1 s
      const unpausedS = Number(/runners unpaused (\d+\.\d) s after stage started: t = 0 of the plan/.exec(said)?.[1]);
      expect(Math.abs(unpausedS - startDelayS)).toBeLessThan(0.15);
      expect(said).toMatch(
        /step 3 at 120 req\/s: 120\.0 achieved, holds[\s\S]*step 4 at 160 req\/s: 130\.0 achieved, fails[\s\S]*stopping at step 4/,
      );
      expect(stoppedSince(before)).toEqual([1, 2, 3, 4]);
      expect(k.calls()).toContain(`-n load delete testrun ${p.manifests.name} --ignore-not-found`);
      const summary = JSON.parse(fs.readFileSync(path.join(tmp, p.runId, 'summary.json'), 'utf8'));
      expect(summary.capacityPerSec).toBe(120);
      expect(summary.stopReason).toBe('plateau');
      expect(summary.engine).toBe('k6-operator');
      const meta = JSON.parse(fs.readFileSync(path.join(tmp, p.runId, 'run.json'), 'utf8'));
      expect(meta.environment.k8sLatency).toMatch(/^native histogram schema 3: buckets 9\.1% wide/);
      // the traffic it offered, as a native run records it: one request an arrival, so req/s
      expect(meta.traffic.entries).toEqual([expect.objectContaining({ weight: 1, transaction: false })]);
      expect(meta.plan.rules.rateUnit).toBe('req/s');
      expect(summary.steps.map((x: { ratePerSec: number; verdict: string }) => `${x.ratePerSec}:${x.verdict}`)).toEqual(
        ['40:holds', '80:holds', '120:holds', '160:fails'],
      );
    },
  );

  it("runners whose REST API never answers: refused with --runner-api's fix, and the TestRun deleted (they cannot be stopped otherwise)", async () => {
    const p = await prepared(prom.url);
    const k = fakeKubectl(['started']);
    const clock = simulated(p, [1, 2, 3, 4]);
    const lines: string[] = [];
    const err = await failure(
      runK8s(input(p, k, runners, { clock, runnerApi: 'http://127.0.0.1:9/runner-{i}', out: (l) => lines.push(l) })),
    );
    expect(err).toMatch(
      /no runner of TestRun plateau-k8s-run-.* answered GET \/v1\/status \(http:\/\/127\.0\.0\.1:9\/runner-1\/v1\/status\) 2\.5 s after stage started.*\| fix: from outside the cluster give --runner-api/,
    );
    expect(k.calls()).toContain(`-n load delete testrun ${p.manifests.name} --wait=false`);
  });

  it('a run to the end of its plan: runners that no longer answer the stop (k6 exited) are not a reason to delete a --keep TestRun', async () => {
    const p = await prepared(prom.url);
    const k = fakeKubectl(['started', 'finished']);
    for (const r of [1, 2, 3, 4]) runners.failing.add(r);
    const clock = simulated(p, [1, 2, 3, 4], 1000);
    const lines: string[] = [];
    const code = await runK8s(input(p, k, runners, { clock, keep: true, out: (l) => lines.push(l) })).finally(() =>
      runners.failing.clear(),
    );
    expect(code).toBe(0);
    const said = lines.join('\n');
    expect(said).toMatch(/step 3 at 120 req\/s: 120\.0 achieved, holds/);
    expect(said).toMatch(/4 of 4 runners did not take the stop: their plan had ended[\s\S]*kept TestRun/);
    expect(k.calls().some((c) => c.includes('delete testrun'))).toBe(false);
  });

  it('Ctrl-C on the command line (SIGINT to plateau k8s run) sends the stop to every runner before plateau exits 130', async () => {
    const k = fakeKubectl(['initialization', 'started']);
    const before = runners.patches.length;
    runners.onPatch = () => {
      if (runners.patches.length - before === 4) k.set('stages', 'finished\n');
    };
    const argv = ['bin/plateau.js', 'k8s', 'run', '--parallelism', '4', '--namespace', 'load'];
    argv.push('--prometheus', prom.url, '--runner-api', runners.template, '--out', tmp);
    argv.push('--target', 'http://127.0.0.1:9/orders', '--start-rate', '40', '--step-rate', '40', '--max-rate', '120');
    argv.push('--hold', '3', '--ramp', '0', '--run-id', `k8s-cli-${process.pid}`);
    const child = spawn(process.execPath, argv, { env: k.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      // interrupt once the runners are started (plateau waits for their series then)
      if (/stage started/.test(out) && child.signalCode === null && !child.killed) child.kill('SIGINT');
    });
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    runners.onPatch = undefined;
    expect(code, `${out}\n${err}`).toBe(130);
    expect(stoppedSince(before)).toEqual([1, 2, 3, 4]);
    expect(out).toMatch(/interrupted: stopping the 4 runners[\s\S]*stop sent to all 4 runners[\s\S]*deleted TestRun/);
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
