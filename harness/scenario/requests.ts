/**
 * The scenario as the engine uses it: a request builder and a response check. Built the same way
 * in the main thread and in every engine worker, from the scenario module's path.
 */
import type { Scenario } from './types.ts';
import { contextFactory } from './context.ts';
import { defaultScenario } from './default.ts';
import { loadScenario, requestBuilder, type RequestBuilder } from './load.ts';
import { responseHeaders, type Outcome } from '../engine/http.ts';

export interface ScenarioRequests {
  scenario: Scenario;
  build: RequestBuilder;
  check(o: Outcome): string | null;
}

export async function scenarioRequests(
  path: string | null,
  targetUrl: string,
  runId: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ScenarioRequests> {
  const scenario = path ? await loadScenario(path) : defaultScenario(targetUrl);
  const build = requestBuilder(scenario, contextFactory(runId, scenario.ids?.prefix ?? '', env), targetUrl);
  return { scenario, build, check: checker(scenario) };
}

function checker(s: Scenario): (o: Outcome) => string | null {
  if (!s.check) return () => null;
  const check = s.check;
  return (o) => {
    try {
      const v = check({ status: o.status, headers: responseHeaders(o) });
      return v === true || v === undefined ? null : typeof v === 'string' ? v : 'check returned false';
    } catch (err) {
      return `check threw: ${(err as Error).message}`;
    }
  };
}
