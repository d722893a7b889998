import { describe, expect, it } from 'vitest';
import { nameResult, serverWindowOf, stepResult } from './testing/builders.ts';
import { unseenFilter, unseenRoutes } from './route-unseen.ts';
import { runWarnings } from './warnings.ts';
import { DEFAULT_RULES } from './plan.ts';
import type { CrossCheck, StepResult } from './types.ts';

const check = (verdict: CrossCheck['verdict']): CrossCheck => ({
  verdict,
  detail: 'route /r: ...',
  clientPerSec: 20,
  serverPerSec: verdict === 'no-data' ? null : 20,
  clientMeanMinusRttMs: 10,
  serverMeanMs: verdict === 'no-data' ? null : 10,
});
const LINE =
  'metrics.requests.routes["get item"] {route="/items/{id}"} matches no series of x_count (route values there: "/items/:id"): no cross-check for "get item"; set it to the route as the target labels it';

/** A step whose own series read fine (or not), "get item" mapped to a route read as `get`, "create item" read fine. */
function step(index: number, get: CrossCheck['verdict'], own: CrossCheck['verdict'] = 'consistent'): StepResult {
  return stepResult({
    index,
    server: { ...serverWindowOf(100, 10), problems: [LINE] },
    crossCheck: check(own),
    byName: {
      'get item': nameResult(70, { crossCheck: check(get) }),
      'create item': nameResult(30, { crossCheck: check('consistent') }),
      checkout: nameResult(10, { transaction: true }),
    },
  });
}

describe('a mapped route that never appeared', () => {
  it('is a warning naming the name, its steps and the reading that says which route values exist', () => {
    const w = unseenRoutes([step(0, 'no-data'), step(1, 'no-data')]);
    expect(w).toEqual([{ code: 'route-unseen', step: null, figures: { name: 'get item', steps: [0, 1], line: LINE } }]);
    // counted with the run's warnings
    expect(runWarnings([step(0, 'no-data')], DEFAULT_RULES).map((x) => x.code)).toContain('route-unseen');
  });

  it('is none where the route read at some step, or where the step read nothing itself (the label filter is the culprit)', () => {
    expect(unseenRoutes([step(0, 'no-data'), step(1, 'consistent')])).toEqual([]);
    expect(unseenRoutes([step(0, 'no-data', 'no-data')])).toEqual([]);
  });
});

describe('a label filter that never matched (review G17: preflight only says one that misses by its route)', () => {
  const FILTER =
    'metrics.requests.labels {uri="/order"} match none of the 3 series of http_server_requests_seconds_count (uri: "/health", "/orders"); set metrics.requests.labels to values the target exposes';
  const PROMQL =
    'through PromQL: Prometheus holds no samples of http_server_requests_seconds_count{uri="/order"} in the window: check metrics.requests (preset, name, labels) and that Prometheus scrapes the endpoint that exports it';
  const unread = (index: number, line: string, own: CrossCheck['verdict'] = 'no-data'): StepResult =>
    stepResult({ index, server: { ...serverWindowOf(100, 10), problems: [line] }, crossCheck: check(own) });

  it('is a warning naming its steps and the reading that says which values exist, counted with the run', () => {
    expect(unseenFilter([unread(0, FILTER), unread(1, FILTER)])).toEqual([
      { code: 'labels-unseen', step: null, figures: { steps: [0, 1], line: FILTER } },
    ]);
    expect(unseenFilter([unread(0, PROMQL)])).toEqual([
      { code: 'labels-unseen', step: null, figures: { steps: [0], line: PROMQL } },
    ]);
    expect(runWarnings([unread(0, FILTER)], DEFAULT_RULES).map((x) => x.code)).toContain('labels-unseen');
  });

  it('is none where a step read the filter (its route counted late), or where no line blames a filter', () => {
    expect(unseenFilter([unread(0, FILTER), unread(1, FILTER, 'consistent')])).toEqual([]);
    // no filter in the selector: Prometheus not scraping the target, not a label
    expect(
      unseenFilter([
        unread(0, 'Prometheus holds no samples of http_server_requests_seconds_count{} in the window: ...'),
      ]),
    ).toEqual([]);
    expect(unseenFilter([])).toEqual([]);
  });
});
