/**
 * A TestRun's lifecycle around the live part of `plateau k8s run`: waiting for a status.stage
 * (each change said, `error` with the operator's message), and the end: the stop to every runner
 * (runners.ts), the fallback of deleting the TestRun, waiting for `finished`, deleting what
 * plateau created unless --keep. An end that cannot stop the runners says so loudly, with the
 * command that will.
 */
import { EXIT, PlateauError } from '../errors.ts';
import { testRunStatus, type Kubectl } from './kubectl.ts';
import { runnerPaused, stopRunners } from './runners.ts';
import type { K8sBounds, RunK8sInput } from './run.ts';

/** The wall clock of a k8s run: epoch ms, and a sleep that ends at once when the signal aborts. Tests give a simulated one. */
export interface K8sClock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const wallClock: K8sClock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(resolve, ms);
      signal?.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
    }),
};

const clockOf = (o: RunK8sInput): K8sClock => o.clock ?? wallClock;

export async function waitForStage(
  k: Kubectl,
  o: RunK8sInput,
  name: string,
  want: string,
  b: K8sBounds,
  say: (l: string) => void,
): Promise<void> {
  const deadline = clockOf(o).now() + b.stageTimeoutMs;
  let last: string | null = null;
  while (!o.signal?.aborted) {
    const s = await testRunStatus(k, o.namespace, name);
    if (s.stage !== last) say(`TestRun ${name}: stage ${s.stage ?? '(none yet)'}`);
    last = s.stage;
    if (s.stage === 'error')
      throw new PlateauError(
        `TestRun ${name} reached stage error: ${s.messages.join('; ') || 'the operator gave no message'}`,
        `read the operator's log (kubectl -n k6-operator-system logs deploy/k6-operator-controller-manager) and the runner pods' (kubectl -n ${o.namespace} logs -l k6_cr=${name})`,
        'k8s-stage-error',
        EXIT.stage,
      );
    if (s.stage === want) return;
    if (clockOf(o).now() > deadline)
      throw new PlateauError(
        `TestRun ${name} did not reach ${want} within ${b.stageTimeoutMs / 1000} s (stage ${s.stage ?? 'none'})`,
        `look at its pods (kubectl -n ${o.namespace} get pods -l k6_cr=${name}; describe one that is Pending or failing)${s.stage === 'created' ? `; the operator starts none until all ${o.parallelism} runner pods run, and separate: true gives each its own node (required anti-affinity with every k6 runner pod in ${o.namespace}): ${o.parallelism} runners need ${o.parallelism} nodes free of other runners, so a Pending one wants fewer runners (--parallelism) or more nodes` : ''}`,
        'k8s-stage-timeout',
        EXIT.stage,
      );
    await clockOf(o).sleep(b.pollMs, o.signal);
  }
}

/**
 * The plan's t = 0 (epoch ms): when the operator's starter unpaused the runners. Stage `started` is
 * set as the starter job is created, not once it has run (k6-operator's StartJobs), and its pod may
 * take seconds to be scheduled and pull its image: a clock started at the stage would judge every
 * window that much early. So the runners' own status is polled from the stage on, and t = 0 is the
 * middle between the last poll that found them all paused and the first that found one running.
 */
export async function waitForUnpause(
  o: RunK8sInput,
  name: string,
  urls: string[],
  b: K8sBounds,
  say: (l: string) => void,
): Promise<number> {
  const clock = clockOf(o);
  const sinceMs = clock.now();
  let pausedMs = sinceMs;
  let answered = false;
  while (!o.signal?.aborted) {
    const sentMs = clock.now();
    const states = await Promise.all(urls.map((u) => runnerPaused(u)));
    const nowMs = clock.now();
    if (states.includes(false)) {
      const t0Ms = Math.round((pausedMs + nowMs) / 2);
      say(`runners unpaused ${((t0Ms - sinceMs) / 1000).toFixed(1)} s after stage started: t = 0 of the plan`);
      return t0Ms;
    }
    if (states.includes(true)) [answered, pausedMs] = [true, sentMs];
    else if (nowMs - sinceMs > b.seriesTimeoutMs)
      throw new PlateauError(
        `no runner of TestRun ${name} answered GET /v1/status (${urls[0]}/v1/status) ${b.seriesTimeoutMs / 1000} s after stage started: plateau cannot tell when they start, nor stop them`,
        `from outside the cluster give --runner-api, e.g. through kubectl proxy: http://127.0.0.1:8001/api/v1/namespaces/${o.namespace}/services/{name}-service-{i}:6565/proxy`,
        'k8s-runner-api',
        EXIT.stage,
      );
    if (answered && nowMs - sinceMs > b.stageTimeoutMs)
      throw new PlateauError(
        `the runners of TestRun ${name} were still paused ${b.stageTimeoutMs / 1000} s after stage started`,
        `the operator's starter job unpauses them: kubectl -n ${o.namespace} describe job ${name}-starter, and its pod's log`,
        'k8s-start-timeout',
        EXIT.stage,
      );
    await clock.sleep(b.startPollMs, o.signal);
  }
  return clock.now();
}

/**
 * Stops every runner, falls back to deleting the TestRun, waits for finished, deletes unless
 * --keep. Once the runners' plan has ended, k6 has exited (or is finishing its last iterations,
 * loading nothing new): a runner that does not answer the stop then is not one to delete for,
 * least of all under --keep.
 */
export async function stopAndClean(
  k: Kubectl,
  o: RunK8sInput,
  name: string,
  urls: string[],
  deleteCmd: string,
  b: K8sBounds,
  say: (l: string) => void,
  planEnded = false,
): Promise<void> {
  const outcomes = await stopRunners(urls);
  const failed = outcomes.filter((x) => !x.ok);
  for (const f of failed) say(`runner ${f.runner} (${f.url}) ${f.detail}`);
  let deleted = false;
  if (failed.length > 0 && planEnded)
    say(`${failed.length} of ${urls.length} runners did not take the stop: their plan had ended (k6 exits at its end)`);
  else if (failed.length > 0) {
    say(
      `${failed.length} of ${urls.length} runners did not take the stop: deleting TestRun ${name} (its pods stop with it)`,
    );
    const r = await k.run(['-n', o.namespace, 'delete', 'testrun', name, '--wait=false']);
    deleted = r.code === 0;
    if (!deleted) {
      say(
        `!!! RUNNERS MAY STILL BE LOADING THE TARGET: plateau could not stop runner(s) ${failed.map((f) => f.runner).join(', ')} nor delete TestRun ${name} (${r.stderr.trim().split('\n')[0]}). Run now: ${deleteCmd}`,
      );
      return;
    }
  } else say(`stop sent to all ${urls.length} runners`);
  if (!deleted) {
    const deadline = clockOf(o).now() + b.finishTimeoutMs;
    for (;;) {
      const s = await testRunStatus(k, o.namespace, name).catch(() => null);
      if (!s || !s.exists || s.stage === 'finished' || s.stage === 'error') break;
      if (clockOf(o).now() > deadline) {
        say(`TestRun ${name} did not reach finished within ${b.finishTimeoutMs / 1000} s after the stop`);
        break;
      }
      await clockOf(o).sleep(b.pollMs);
    }
  }
  if (o.keep) {
    if (!deleted) say(`kept TestRun ${name} and ConfigMap ${name}-script (--keep); delete them with: ${deleteCmd}`);
    return;
  }
  const r = await k.run(['-n', o.namespace, 'delete', 'testrun', name, '--ignore-not-found']);
  const c = await k.run(['-n', o.namespace, 'delete', 'configmap', `${name}-script`, '--ignore-not-found']);
  if (r.code !== 0 || c.code !== 0)
    say(
      `could not delete what plateau created: ${(r.stderr || c.stderr).trim().split('\n')[0]}; delete with: ${deleteCmd}; kubectl -n ${o.namespace} delete configmap ${name}-script`,
    );
  else say(`deleted TestRun ${name} and ConfigMap ${name}-script`);
}
