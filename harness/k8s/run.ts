/**
 * `plateau k8s run`: k6-operator runs the load, plateau judges it. Checks (kubectl, context, the
 * TestRun CRD, a Prometheus with the remote-write receiver and native histograms), creates the
 * ConfigMap and TestRun, waits for status.stage `started` and for the runners to be unpaused (the
 * plan's t = 0: lifecycle.ts waitForUnpause), then every second reads the runners'
 * series (rw-reader.ts) into the run store's buckets and judges each steady window by the same
 * decision path as `plateau run` once every runner has reported past its end. At the plateau, on
 * Ctrl-C (the signal), on a stage error or when a runner's series never arrive, it stops every
 * runner through its REST API (fallback: deleting the TestRun), waits for `finished`, deletes
 * what it created unless --keep, and writes the report from the store as for any run.
 * An exit path that cannot stop the runners says so loudly, with the command that will.
 */
import fs from 'node:fs';
import path from 'node:path';
import { decideAttempt, type Judged } from '../../analysis/decision.ts';
import { RwBuckets, resolutionOf } from '../../analysis/k8s-rw.ts';
import { sharesOf, stripeCount } from '../../analysis/k8s-arrivals.ts';
import { Schedule } from '../../analysis/schedule.ts';
import { STEPS_PHASE } from '../../analysis/phases.ts';
import type { AttemptRecord, BucketRecord } from '../../analysis/types.ts';
import { unitOf } from '../../analysis/format.ts';
import { environment } from '../environment.ts';
import { EXIT, PlateauError } from '../errors.ts';
import { decisionPolicy } from '../pipeline/steps.ts';
import { writeReports } from '../report.ts';
import { redact, RunStore, storedPlan } from '../store/run-store.ts';
import type { Prepared } from './script.ts';
import { currentContext, findKubectl, kubectl, requireCrd } from './kubectl.ts';
import { runnerUrl } from './runners.ts';
import { stopAndClean, waitForStage, waitForUnpause } from './lifecycle.ts';
import { checkPrometheus, RwReader } from './rw-reader.ts';
import { wallClock, type K8sClock } from './lifecycle.ts';

export interface K8sBounds {
  /** How long the TestRun may take to reach `started`. */
  stageTimeoutMs: number;
  /** How long after the start every runner must have pushed its first series. */
  seriesTimeoutMs: number;
  /** A runner silent this long past a second's end counts as stopped (its share dropped). */
  silentAfterMs: number;
  /** How often the runners' status is polled for their unpause (t = 0's precision). */
  startPollMs: number;
  /** How long to wait for `finished` after the stop. */
  finishTimeoutMs: number;
  pollMs: number;
}

export const DEFAULT_BOUNDS: K8sBounds = {
  stageTimeoutMs: 300_000,
  seriesTimeoutMs: 30_000,
  silentAfterMs: 5_000,
  startPollMs: 100,
  finishTimeoutMs: 60_000,
  pollMs: 1000,
};

export interface RunK8sInput {
  prepared: Prepared;
  namespace: string;
  prometheusUrl: string;
  parallelism: number;
  keep: boolean;
  runnerApi?: string;
  outDir: string;
  env?: NodeJS.ProcessEnv;
  /** Aborted on Ctrl-C (the CLI wires SIGINT to it). */
  signal?: AbortSignal;
  bounds?: Partial<K8sBounds>;
  out?: (line: string) => void;
  /** The wall clock (default); a test gives a simulated one. */
  clock?: K8sClock;
}

export async function runK8s(o: RunK8sInput): Promise<number> {
  const env = o.env ?? process.env;
  const b = { ...DEFAULT_BOUNDS, ...o.bounds };
  const say = o.out ?? ((line: string) => process.stdout.write(`${line}\n`));
  const { manifests: m, runId, idKey, config, script } = o.prepared;
  const n = o.parallelism;
  const k = kubectl(findKubectl(env), env);
  const context = await currentContext(k);
  await requireCrd(k, context);
  say(await checkPrometheus(o.prometheusUrl));
  const plan = script.plan;
  const store = RunStore.create(o.outDir, {
    schemaVersion: 2,
    runId,
    idKey,
    status: 'running',
    startedAt: new Date().toISOString(),
    finishedAt: null,
    target: config.target.url,
    engine: 'k6-operator',
    scenario: config.scenario ?? 'default',
    traffic: script.traffic,
    config: redact(config),
    plan: storedPlan(plan),
    vus: plan.vus,
    rtt: null,
    stages: [],
    interruptedAtStep: null,
    environment: {
      ...environment('k6-operator'),
      k8sOperator: 'k6-operator (k6.io/v1alpha1 TestRun)',
      k8sContext: context,
      k8sTestRun: `${o.namespace}/${m.name}`,
      k8sParallelism: String(n),
    },
  });
  const policy = decisionPolicy({ config, plan }, script.traffic);
  store.update({ policy });
  const dir = path.join(store.dir, 'k8s');
  fs.mkdirSync(dir, { recursive: true });
  const files = ['configmap.json', 'testrun.json'].map((f) => path.join(dir, f));
  fs.writeFileSync(files[0]!, `${JSON.stringify(m.configMap, null, 2)}\n`);
  fs.writeFileSync(files[1]!, `${JSON.stringify(m.testRun, null, 2)}\n`);
  const urls = Array.from({ length: n }, (_, i) => runnerUrl(o.runnerApi, i + 1, m.name, o.namespace));
  const deleteCmd = `kubectl -n ${o.namespace} delete testrun ${m.name}`;
  let applied = false;
  let code: number = EXIT.ok;
  let planEnded = false;
  let failure: unknown = null;
  const attempts: AttemptRecord[] = [];
  try {
    // create, not apply: apply's last-applied annotation holds the whole ConfigMap and is refused
    // over 256 KiB, and apply would silently reconfigure a TestRun of the same name instead of refusing it
    const r = await k.run(['create', '-f', files[0]!, '-f', files[1]!]);
    if (r.code !== 0) throw createFailed(r.stderr, o.namespace, m.name, dir);
    applied = true;
    say(
      `created ConfigMap ${m.name}-script and TestRun ${m.name} (${n} runners) in ${o.namespace}, context ${context}`,
    );
    await waitForStage(k, o, m.name, 'started', b, say);
    const t0Ms = await waitForUnpause(o, m.name, urls, b, say);
    const outcome = await live(o, store, t0Ms, b, say, attempts, policy);
    [code, planEnded] = [outcome.code, outcome.planEnded];
  } catch (err) {
    failure = err;
  } finally {
    if (applied) await stopAndClean(k, o, m.name, urls, deleteCmd, b, say, planEnded);
  }
  store.update({
    attempts,
    status: failure ? 'failed' : code === EXIT.interrupted ? 'interrupted' : 'complete',
    finishedAt: new Date().toISOString(),
  });
  store.close();
  // the report is written in every case, as for plateau run; a failure is thrown after it
  const written = await writeReports(store.dir).then(
    () => true,
    (err: Error) => (say(`the report could not be written: ${err.message}`), false),
  );
  if (written) say(`report: ${path.relative(process.cwd(), store.dir)}/report.md`);
  if (failure) throw failure;
  return code;
}

/** kubectl create refused: an object of the name is someone else's (never stopped or deleted by plateau), or the rights lack. */
function createFailed(stderr: string, ns: string, name: string, dir: string): PlateauError {
  const first = stderr.trim().split('\n')[0];
  if (/AlreadyExists|already exists/.test(stderr))
    return new PlateauError(
      `kubectl create refused: a TestRun or ConfigMap named ${name} already exists in namespace ${ns} (${first})`,
      `another run holds that name: plateau neither stops nor deletes it; see it with kubectl -n ${ns} get testrun,configmap -l plateau/run-id=${name.slice('plateau-'.length)}, delete it when it is done, or run with another --run-id`,
      'k8s-name-taken',
      EXIT.preflight,
    );
  return new PlateauError(
    `kubectl create of the ConfigMap and TestRun failed: ${first}`,
    `check the rights in namespace ${ns} (kubectl auth can-i create testruns.k6.io -n ${ns}); the manifests are in ${dir}`,
    'k8s-apply-failed',
    EXIT.preflight,
  );
}

/** The live part: read, store, judge; returns the exit code (ok, or interrupted) and whether the runners' plan ran to its end. */
async function live(
  o: RunK8sInput,
  store: RunStore,
  t0Ms: number,
  b: K8sBounds,
  say: (l: string) => void,
  attempts: AttemptRecord[],
  policy: ReturnType<typeof decisionPolicy>,
): Promise<{ code: number; planEnded: boolean }> {
  const { plan } = o.prepared.script;
  const n = o.parallelism;
  const schedule = new Schedule(plan.segments);
  const arrivals = (s: number) => Math.floor(schedule.integral(Math.max(0, s)));
  const buckets = new RwBuckets({
    t0Ms,
    // the operator tags runner i (1..N) instance_id=i; its segment (i-1)/N:i/N is stripe i-1
    runners: Array.from({ length: n }, (_, i) => String(i + 1)),
    expected: (r, s) => stripeCount(r, n, arrivals(s), arrivals(s + 1)),
    silentAfterMs: b.silentAfterMs,
    phase: STEPS_PHASE,
  });
  const records: BucketRecord[] = [];
  const reader = new RwReader({
    prometheusUrl: o.prometheusUrl,
    testid: o.prepared.idKey,
    buckets,
    t0Ms,
    sink: (r) => {
      records.push(r);
      store.appendBucket(r);
    },
  });
  let judged: Judged = [];
  let kStep = 0;
  const endS = plan.durationS;
  try {
    for (;;) {
      if (o.signal?.aborted) {
        say(`interrupted: stopping the ${n} runners`);
        store.update({ interruptedAtStep: plan.steps[kStep]?.index ?? null });
        return { code: EXIT.interrupted, planEnded: false };
      }
      const nowMs = (o.clock ?? wallClock).now();
      await reader.poll(nowMs, endS);
      const unseen = buckets.unseen();
      if (unseen.length > 0 && nowMs - t0Ms > b.seriesTimeoutMs)
        throw new PlateauError(
          `no series from runner${unseen.length > 1 ? 's' : ''} ${unseen.join(', ')} (instance_id, testid=${o.prepared.idKey}) in Prometheus ${b.seriesTimeoutMs / 1000} s after the start`,
          'check that the runner pods reach K6_PROMETHEUS_RW_SERVER_URL (kubectl logs of a runner: remote write errors) and that plateau reads the same Prometheus (--prometheus)',
          'k8s-series-missing',
          EXIT.stage,
        );
      const doneS = records.length > 0 ? records.at(-1)!.tS : -1;
      while (kStep < plan.steps.length && doneS + 1 >= plan.steps[kStep]!.steadyEndS) {
        const a: AttemptRecord = { ...plan.steps[kStep++]!, attempt: 1, maxVUs: plan.vus.maxVUs, action: null };
        const d = decideAttempt(judged, a, { records, probes: [], rttMs: 0 }, policy);
        judged = d.judged;
        attempts.push({ ...a, action: d.action.kind === 'rerun' ? { kind: 'stop' } : d.action });
        store.update({ attempts });
        say(
          `step ${a.index + 1} at ${a.ratePerSec} ${unitOf(plan.rules)}: ${d.result.throughputPerSec.toFixed(1)} achieved, ${d.result.verdict}${d.result.generatorBound ? ' (generator-bound)' : ''}`,
        );
        if (d.action.kind !== 'go-on') {
          say(
            `stopping at step ${a.index + 1}: ${d.why ?? d.result.reasons.join('; ')}${d.action.kind === 'rerun' ? ' (a rerun would be a new TestRun: run again with the fix)' : ''}`,
          );
          return { code: EXIT.ok, planEnded: false };
        }
      }
      if (kStep >= plan.steps.length || doneS + 1 >= endS) return { code: EXIT.ok, planEnded: true };
      await (o.clock ?? wallClock).sleep(b.pollMs, o.signal);
    }
  } finally {
    wrapUp(buckets, records, store, say);
  }
}

/** run.json names each runner's instance id and share of the arrivals, and the runners' start skew; the reader's notes are said. */
function wrapUp(buckets: RwBuckets, records: BucketRecord[], store: RunStore, say: (l: string) => void): void {
  const shares = sharesOf(records);
  const skew = buckets.startSkewMs();
  store.update({
    environment: {
      ...store.meta.environment,
      k8sRunners: Object.entries(shares)
        .map(
          ([source, x]) =>
            `instance_id ${source.replace('k8s/', '')}: ${(x.share * 100).toFixed(1)}% (${x.arrivals} arrivals)`,
        )
        .join(', '),
      k8sStartSkewMs: skew === null ? 'not every runner pushed' : String(skew),
      k8sLatency: buckets.schema === null ? 'no native histogram read' : resolutionOf(buckets.schema),
    },
  });
  for (const line of buckets.notes) say(`note: ${line}`);
}
