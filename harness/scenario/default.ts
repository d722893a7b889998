import type { Scenario } from './types.ts';

/** Without a scenario module every iteration is GET on the target URL. */
export function defaultScenario(url: string): Scenario {
  return { name: `GET ${url}`, request: () => ({ method: 'GET', url }) };
}
