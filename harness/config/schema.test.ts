/**
 * Schema rules that would otherwise bite mid-run: run ids that misplace the run store, a reset
 * guard pattern that is not a regular expression, and workers values, each refused with the fix.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_RULES } from '../../analysis/plan.ts';
import { validateConfig } from './validate.ts';

const valid = {
  target: { url: 'http://127.0.0.1:8080/orders' },
  steps: { startPerSec: 50, stepPerSec: 50, maxPerSec: 200, rampS: 1, holdS: 10 },
};
type Obj = Record<string, unknown>;
const sqlReset = (databasePattern: unknown): Obj => ({
  ...valid,
  reset: {
    hooks: [
      { kind: 'sql', database: '/tmp/x.db', statements: ['DELETE FROM t'], guard: { tables: ['t'], databasePattern } },
    ],
  },
});

function problem(raw: Obj, field: string): string {
  const r = validateConfig(raw);
  expect(r.config).toBeNull();
  const p = r.problems.find((x) => x.field === field);
  expect(p, JSON.stringify(r.problems)).toBeDefined();
  return p!.message;
}

describe('output.runId names a run directory, never the output dir, its parent or the latest link', () => {
  it.each<[string, RegExp]>([
    ['..', /"\.\." is not a run name .*parent.*use a name such as/],
    ['.', /"\." is not a run name .*use a name such as/],
    ['...', /"\.\.\." is not a run name/],
    ['latest', /"latest" is reserved for the link to the newest run.*choose another name/],
    ['Latest', /"latest" is reserved/],
    ['../escape', /letters, digits, dot, dash, underscore/],
    ['', /letters, digits, dot, dash, underscore/],
  ])('%j is refused', (runId, message) => {
    expect(problem({ ...valid, output: { runId } }, 'output.runId')).toMatch(message);
  });

  it.each(['v1.2', 'latest-2', '.hidden', 'a..b', 'run_01'])('%j is accepted', (runId) => {
    expect(validateConfig({ ...valid, output: { runId } }).problems).toEqual([]);
  });
});

describe('reset guard.databasePattern must compile as a regular expression', () => {
  it.each<[string, RegExp]>([
    ['(', /"\(" is not a valid regular expression \(Unterminated group\): escape special characters with a backslash/],
    ['[a-', /"\[a-" is not a valid regular expression \(Unterminated character class\)/],
    ['a)', /"a\)" is not a valid regular expression \(Unmatched '\)'\)/],
    ['', /must not be empty .*"\^staging-"/],
  ])('%j is refused with the fix', (pattern, message) => {
    expect(problem(sqlReset(pattern), 'reset.hooks.0.guard.databasePattern')).toMatch(message);
  });

  it('a pattern that is not a string', () => {
    expect(problem(sqlReset(/^staging-/), 'reset.hooks.0.guard.databasePattern')).toMatch(
      /regular expression as a string, e\.g\. "\^staging-"/,
    );
  });

  it.each(['^staging-', '^demo$', 'test\\(eu\\)'])('%j is accepted', (pattern) => {
    expect(validateConfig(sqlReset(pattern)).problems).toEqual([]);
  });
});

describe('workers says what it accepts', () => {
  // a NaN reaches the schema from a config's own arithmetic (a flag given text is refused before: harness/cli/options.ts).
  it.each<[string, unknown]>([
    ['not a number (NaN)', Number('abc')],
    ['a word', 'two'],
    ['zero', 0],
    ['negative', -1],
    ['a fraction', 1.5],
  ])('%s', (_name, workers) => {
    expect(problem({ ...valid, workers }, 'workers')).toBe(
      "must be 'auto' (one thread per CPU this process may use) or a whole number of threads >= 1, e.g. --workers 2 or workers: 2",
    );
  });

  it.each<unknown>(['auto', 1, 4])('%j is accepted', (workers) => {
    expect(validateConfig({ ...valid, workers }).problems).toEqual([]);
  });
});

describe('the default stop rules', () => {
  it('are the one DEFAULT_RULES of analysis/, for a missing section and for each missing field', () => {
    expect(validateConfig(valid).config!.rules).toEqual(DEFAULT_RULES);
    expect(validateConfig({ ...valid, rules: { deliveryMin: 0.8 } }).config!.rules).toEqual({
      ...DEFAULT_RULES,
      deliveryMin: 0.8,
    });
  });
});

describe("http's timeouts are no longer than a timer waits", () => {
  // Node fires a timer longer than 2^31-1 ms after 1 ms: http.timeoutMs 1e12 timed every request out at once
  it.each(['timeoutMs', 'transactionTimeoutMs'])('http.%s 1e12 is refused with the bound; 2^31-1 passes', (field) => {
    expect(problem({ ...valid, http: { [field]: 1e12 } }, `http.${field}`)).toMatch(
      /must be > 0 and <= 2147483647 .*set http\.\w+ to a number > 0 and <= 2147483647/,
    );
    expect(validateConfig({ ...valid, http: { [field]: 2 ** 31 - 1 } }).problems).toEqual([]);
  });
});
