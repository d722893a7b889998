/**
 * Which samples count: those of the selected scenarios (all by default); setup/teardown samples
 * (group ::setup / ::teardown) never count; vus/vus_max (no scenario tag) always do. And the
 * scenarios seen, counted for the import's checks (IngestStats.scenarioIterations, otherScenarios).
 */
import type { K6Point } from './point.ts';
import type { IngestStats } from './ingest-stats.ts';

/** Scenario tags whose iterations are counted apiece (IngestStats.scenarioIterations); k6 runs a handful. */
export const MAX_SCENARIOS = 20;

/** Is p counted: not setup()'s or teardown()'s, and of a selected scenario (all when `scenarios` is null)? */
export function selected(p: K6Point, scenarios: ReadonlySet<string> | null): boolean {
  const g = p.tags.group;
  // most samples carry group "" (the root group): look at the text only when it could match
  if (
    g !== undefined &&
    g.charCodeAt(0) === 58 /* : */ &&
    (lifecycle(p, g, '::setup') || lifecycle(p, g, '::teardown'))
  )
    return false;
  return (
    scenarios === null ||
    p.metric === 'vus' ||
    p.metric === 'vus_max' ||
    (p.tags.scenario !== undefined && scenarios.has(p.tags.scenario))
  );
}

/**
 * k6's setup() or teardown() group, or one nested in it: never a scenario's, so its samples carry
 * no scenario tag. Not a user's group('setupCart') ("::setupCart"), nor a user's own
 * group('setup') inside the default function, which k6 also tags "::setup", with its scenario.
 */
export function lifecycle(p: K6Point, group: string, name: string): boolean {
  return p.tags.scenario === undefined && (group === name || group.startsWith(`${name}::`));
}

/** n iterations of a scenario left out: counted under its name (IngestStats.otherScenarios). */
export function otherScenario(stats: IngestStats, name = '', n: number): void {
  const by = stats.otherScenarios;
  if (Object.hasOwn(by, name)) by[name] += n;
  else if (Object.keys(by).length < MAX_SCENARIOS) by[name] = n;
}

/** n iterations of a selected scenario: counted under its name (IngestStats.scenarioIterations). */
export function scenarioIterations(stats: IngestStats, name = '', n: number): void {
  const by = stats.scenarioIterations;
  if (Object.hasOwn(by, name)) by[name] += n;
  else if (Object.keys(by).length < MAX_SCENARIOS) by[name] = n;
}

/** An iteration of a selected scenario started at startMs: its scenario's first and last starts (IngestStats.scenarioStartsMs). */
export function scenarioStart(stats: IngestStats, name = '', startMs: number): void {
  const by = stats.scenarioStartsMs;
  const span = Object.hasOwn(by, name) ? by[name] : undefined;
  if (span === undefined) {
    if (Object.keys(by).length < MAX_SCENARIOS) by[name] = [startMs, startMs];
  } else if (startMs < span[0]) span[0] = startMs;
  else if (startMs > span[1]) span[1] = startMs;
}
