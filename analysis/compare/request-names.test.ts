import { describe, expect, it } from 'vitest';
import { fakeRun } from '../testing/builders.ts';
import type { RunResult } from '../types.ts';
import { settingDifferences } from './differences.ts';
import { requestNamesDifference, requestShares } from './request-names.ts';
import { withNames, type FakeName } from './testing.ts';

/** An import of the user's own k6 script (no mix entries), its steps' requests split by `shares` (name: share). */
function imported(shares: Record<string, number> | null): RunResult {
  const run: RunResult = {
    ...fakeRun({ steps: [100, 200, 300].map((r) => ({ ratePerSec: r, okPerSec: r })), holdS: 10, rampS: 1 }),
    traffic: { entries: [], iterations: { requestsPerArrival: 1 } },
  };
  if (shares === null) return run;
  return withNames(run, (s) =>
    Object.fromEntries(
      Object.entries(shares).map(([name, share]): [string, FakeName] => [
        name,
        { completed: Math.round(share * s.ratePerSec * 9), perSec: share * s.ratePerSec },
      ]),
    ),
  );
}

describe('requests by name, where a run records no mix', () => {
  it('shares of every steady window, transactions left out; null for a run of one name', () => {
    const run = withNames(imported(null), () => ({
      read: { completed: 700 },
      write: { completed: 300 },
      checkout: { completed: 50, transaction: true },
    }));
    expect(Object.fromEntries(requestShares(run)!)).toEqual({ read: 0.7, write: 0.3 });
    expect(requestShares(imported(null))).toBeNull();
  });

  it('one name against several: the traffic differs, whichever side has which', () => {
    const one = imported(null),
      three = imported({ login: 0.1, read: 0.6, write: 0.3 });
    expect(requestNamesDifference(one, three)).toBe(
      "requests by name differ: A's carry one name, B's 3 (read 60%, write 30%, login 10%): a capacity is a property of the traffic; compare runs of one script (a k6 import records no mix, only its requests' names)",
    );
    expect(requestNamesDifference(three, one, ['the baseline', 'the run'])).toMatch(
      /^requests by name differ: the run's carry one name, the baseline's 3 \(/,
    );
    // the sentence reaches compare's and the gate's warnings
    expect(settingDifferences(one, three)).toContainEqual(expect.stringMatching(/^requests by name differ: /));
  });

  it('names only one run sent, and shares moved past 5 points of the requests', () => {
    const a = imported({ read: 0.7, write: 0.3 });
    expect(requestNamesDifference(a, imported({ read: 0.7, write: 0.2, login: 0.1 }))).toMatch(
      /^requests by name differ \(only in B: login 10%; share of the requests from A to B: write 30% → 20%\): /,
    );
    expect(requestNamesDifference(a, imported({ read: 0.3, write: 0.7 }))).toMatch(
      /\(share of the requests from A to B: read 70% → 30%, write 30% → 70%\)/,
    );
  });

  it('two imports of one script fold other counts of URLs into one row: one name, not two', () => {
    expect(
      requestNamesDifference(
        imported({ '(unnamed: 4,123 URLs)': 0.6, login: 0.4 }),
        imported({ '(unnamed: 3,998 URLs)': 0.6, login: 0.4 }),
      ),
    ).toBeNull();
  });

  it('agrees within 5 points (two imports of one script), and says nothing where neither run tells', () => {
    expect(
      requestNamesDifference(imported({ read: 0.7, write: 0.3 }), imported({ read: 0.68, write: 0.32 })),
    ).toBeNull();
    expect(requestNamesDifference(imported(null), imported(null))).toBeNull();
  });

  it('two runs that record their mixes are left to the mix comparison', () => {
    const mix = {
      entries: [
        { name: 'read', weight: 7, transaction: false },
        { name: 'write', weight: 3, transaction: false },
      ],
    };
    const a = { ...imported({ read: 0.7, write: 0.3 }), traffic: mix },
      b = { ...imported({ read: 0.3, write: 0.7 }), traffic: mix };
    expect(requestNamesDifference(a, b)).toBeNull();
    // a native mix against an import of a script of other proportions: told by the names
    expect(requestNamesDifference(a, imported({ read: 0.3, write: 0.7 }))).toMatch(/read 70% → 30%/);
  });
});
