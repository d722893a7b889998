/**
 * kubectl, as the user's own: the kubeconfig and context it finds (KUBECONFIG, ~/.kube/config),
 * run as a child process; plateau talks to the cluster through it only. Its checks before any
 * load: kubectl on PATH (or KUBECTL), a current context, k6-operator's CRD installed.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { EXIT, PlateauError } from '../errors.ts';

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface Kubectl {
  readonly path: string;
  run(args: string[], timeoutMs?: number): Promise<KubectlResult>;
}

/** The kubectl binary: KUBECTL, else the first on PATH; refused with the fix when there is none. */
export function findKubectl(env: NodeJS.ProcessEnv): string {
  const candidates = env.KUBECTL
    ? [env.KUBECTL]
    : (env.PATH ?? '')
        .split(delimiter)
        .filter(Boolean)
        .map((d) => join(d, 'kubectl'));
  for (const c of candidates) {
    try {
      accessSync(c, constants.X_OK);
      return c;
    } catch {
      // not here
    }
  }
  throw new PlateauError(
    env.KUBECTL
      ? `KUBECTL=${env.KUBECTL} is not an executable`
      : 'no kubectl on PATH: plateau k8s drives the cluster through it',
    'install kubectl (https://kubernetes.io/docs/tasks/tools/) and put it on PATH, or set KUBECTL to its path',
    'k8s-no-kubectl',
    EXIT.preflight,
  );
}

export function kubectl(path: string, env: NodeJS.ProcessEnv): Kubectl {
  return {
    path,
    run: (args, timeoutMs = 30_000) =>
      new Promise((resolve) => {
        execFile(path, args, { env, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
          const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
          resolve({ code, stdout: String(stdout), stderr: String(stderr) || (err && code !== 0 ? err.message : '') });
        });
      }),
  };
}

const firstLine = (s: string) => s.trim().split('\n')[0] ?? '';

/** The current context (named in run.json); refused when kubectl has none. */
export async function currentContext(k: Kubectl): Promise<string> {
  const r = await k.run(['config', 'current-context'], 10_000);
  if (r.code !== 0 || !r.stdout.trim())
    throw new PlateauError(
      `kubectl has no current context: ${firstLine(r.stderr) || 'none set'}`,
      'point kubectl at the cluster (kubectl config use-context NAME, or KUBECONFIG=...) and check with kubectl get nodes',
      'k8s-no-context',
      EXIT.preflight,
    );
  return r.stdout.trim();
}

/** k6-operator's TestRun CRD must be installed; its absence is refused with how to install it. */
export async function requireCrd(k: Kubectl, context: string): Promise<void> {
  const r = await k.run(['get', 'crd', 'testruns.k6.io', '-o', 'name'], 15_000);
  if (r.code === 0 && r.stdout.includes('testruns.k6.io')) return;
  throw new PlateauError(
    `the cluster of context ${context} has no TestRun CRD (kubectl get crd testruns.k6.io: ${firstLine(r.stderr) || 'not found'})`,
    'install k6-operator (helm install k6-operator grafana/k6-operator -n k6-operator-system --create-namespace, or kubectl apply of its bundle.yaml), then run again',
    'k8s-no-crd',
    EXIT.preflight,
  );
}

export interface TestRunStatus {
  stage: string | null;
  /** The operator's conditions' messages, for an error stage. */
  messages: string[];
  /** False when the TestRun is not there (deleted, or never created). */
  exists: boolean;
}

export async function testRunStatus(k: Kubectl, ns: string, name: string): Promise<TestRunStatus> {
  const r = await k.run(['-n', ns, 'get', 'testrun', name, '-o', 'json'], 15_000);
  if (r.code !== 0) {
    if (/NotFound|not found/i.test(r.stderr)) return { stage: null, messages: [], exists: false };
    throw new PlateauError(
      `kubectl -n ${ns} get testrun ${name} failed: ${firstLine(r.stderr)}`,
      'check the cluster connection (kubectl get nodes) and the rights to read testruns.k6.io in the namespace',
      'k8s-kubectl-failed',
      EXIT.stage,
    );
  }
  let o: { status?: { stage?: string; conditions?: { message?: string; reason?: string }[] } };
  try {
    o = JSON.parse(r.stdout);
  } catch {
    throw new PlateauError(
      `kubectl -n ${ns} get testrun ${name} -o json printed no JSON: ${r.stdout.slice(0, 120)}`,
      'check that KUBECTL/PATH names the real kubectl',
      'k8s-kubectl-failed',
      EXIT.stage,
    );
  }
  const messages = (o.status?.conditions ?? [])
    .map((c) => [c.reason, c.message].filter(Boolean).join(': '))
    .filter(Boolean);
  return { stage: o.status?.stage ?? null, messages, exists: true };
}
