/**
 * k6-operator's runners through each one's k6 REST API: whether it is still paused (`GET
 * /v1/status`, for the plan's t = 0), and stopping it (`PATCH /v1/status` with
 * stopped: true, the way the operator's own stopper ends a cloud run), reached through its
 * Service (<testrun>-service-<i>, port 6565) from inside the cluster, or through a URL template
 * the user gives (--runner-api, e.g. through kubectl proxy). A runner that does not take the stop
 * leaves the fallback: deleting the TestRun, which deletes its runner pods.
 */
import { request } from 'undici';

/** k6's REST API body that stops a test (its status resource with stopped set). */
export const STOP_BODY = { data: { type: 'status', id: 'default', attributes: { stopped: true } } };

/** Runner i's (1-based) REST API base URL. */
export function runnerUrl(template: string | undefined, i: number, name: string, namespace: string): string {
  const t = template ?? 'http://{name}-service-{i}.{namespace}.svc:6565';
  return t
    .replaceAll('{i}', String(i))
    .replaceAll('{name}', name)
    .replaceAll('{namespace}', namespace)
    .replace(/\/+$/, '');
}

export interface StopOutcome {
  runner: number;
  url: string;
  ok: boolean;
  detail: string;
}

/** PATCHes every runner at once; never throws: each outcome says what its runner answered. */
export async function stopRunners(urls: string[], timeoutMs = 5000): Promise<StopOutcome[]> {
  return Promise.all(
    urls.map(async (url, k): Promise<StopOutcome> => {
      try {
        const res = await request(`${url}/v1/status`, {
          method: 'PATCH',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(STOP_BODY),
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        });
        const text = await res.body.text();
        const ok = res.statusCode >= 200 && res.statusCode < 300;
        return { runner: k + 1, url, ok, detail: ok ? 'stopped' : `answered ${res.statusCode}: ${text.slice(0, 120)}` };
      } catch (err) {
        return { runner: k + 1, url, ok: false, detail: `did not answer: ${(err as Error).message}` };
      }
    }),
  );
}

/** Whether the runner's test is still paused (k6's GET /v1/status, data.attributes.paused); null when it does not answer so. */
export async function runnerPaused(url: string, timeoutMs = 2000): Promise<boolean | null> {
  try {
    const res = await request(`${url}/v1/status`, { headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
    const text = await res.body.text();
    if (res.statusCode !== 200) return null;
    const paused = (JSON.parse(text) as { data?: { attributes?: { paused?: unknown } } }).data?.attributes?.paused;
    return typeof paused === 'boolean' ? paused : null;
  } catch {
    return null;
  }
}
