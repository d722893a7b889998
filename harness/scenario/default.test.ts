import { describe, expect, it } from 'vitest';
import { defaultScenario } from './default.ts';
import { scenarioProblems, trafficOf } from './traffic.ts';

describe("plateau's default scenario", () => {
  it("is named after the target's URL, whose port's digits are no name built from data", () => {
    const s = defaultScenario('http://127.0.0.1:38781/orders');
    expect(() => trafficOf(s)).not.toThrow();
    expect(trafficOf(s).entries.map((e) => e.name)).toEqual(['GET http://127.0.0.1:38781/orders']);
    // a user's module with that name is refused when loaded (load.ts checks the name)
    expect(scenarioProblems(s).join('\n')).toMatch(/^`name`: .* looks built from data/);
  });
});
