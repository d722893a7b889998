import { describe, expect, it } from 'vitest';
import {
  formatMix,
  mixMeasures,
  mixSummary,
  parseProfileLine,
  roundOrder,
  type ProfileLine,
  type ProfileRun,
  type Variant,
} from './mix-table.ts';
import { aggregate } from './table.ts';

const line = (over: Partial<ProfileLine> = {}): ProfileLine => ({
  rate: 10_000,
  completed: 100_000,
  arrivals: 100_000,
  ok: 100_000,
  dropped: 0,
  achievedPerSec: 9_800,
  requestsPerSec: 9_800,
  cpuPer10k: 0.2,
  loadCpuPer10k: 0.19,
  ...over,
});
const run = (variant: Variant, round: number, over: Partial<ProfileLine> = {}): ProfileRun => ({
  variant,
  round,
  line: line(over),
});
/** The earlier commit's file prints neither arrivals, ok, dropped nor the schedule's CPU. */
const before = (round: number, cpuPer10k: number): ProfileRun => ({
  variant: 'before',
  round,
  line: { rate: 10_000, completed: 99_000, achievedPerSec: 9_700, cpuPer10k },
});

describe('the mix case figures', () => {
  it("reads engine-profile's figures line, this commit's and the earlier one's, past other output", () => {
    const now = line({ completed: 110_000, arrivals: 100_000 });
    expect(parseProfileLine(`bench: starting\n${JSON.stringify(now)}\n`)).toEqual(now);
    const old = '{"mode":"plateau","rate":10000,"completed":45846,"achievedPerSec":9152,"cpuPer10k":0.18}';
    expect(parseProfileLine(`${old}\n{"not":"figures"}\n`)).toMatchObject({ completed: 45846, cpuPer10k: 0.18 });
    expect(() => parseProfileLine('bare: 3 dropped\n{"mode":"x"}')).toThrow(/printed no figures line/);
  });

  it('rotates the variants by one each round: over as many rounds as variants, each runs once in every position', () => {
    expect([1, 2, 6, 7].map((r) => roundOrder(r))).toEqual([
      ['one', 'mix', 'gets', 'before', 'bareOne', 'bareMix'],
      ['mix', 'gets', 'before', 'bareOne', 'bareMix', 'one'],
      ['bareMix', 'one', 'mix', 'gets', 'before', 'bareOne'],
      ['one', 'mix', 'gets', 'before', 'bareOne', 'bareMix'],
    ]);
    expect(roundOrder(2, ['one', 'mix'])).toEqual(['mix', 'one']);
  });

  it("gives the mix over one request by the schedule's CPU per request, and now over before by the window both files measure", () => {
    const runs = [
      run('one', 1, { loadCpuPer10k: 0.2, cpuPer10k: 0.21 }),
      run('mix', 1, { loadCpuPer10k: 0.22, completed: 110_000, requestsPerSec: 10_780 }),
      before(1, 0.2),
      run('one', 2, { loadCpuPer10k: 0.3, cpuPer10k: 0.31 }),
      run('mix', 2, { loadCpuPer10k: 0.36, completed: 110_000, requestsPerSec: 10_780 }),
      before(2, 0.31),
      run('one', 3, { loadCpuPer10k: 0.25, cpuPer10k: 0.26 }),
      run('mix', 3, { loadCpuPer10k: 0.25, completed: 110_000, requestsPerSec: 10_780 }),
      before(3, 0.25),
    ];
    const s = mixSummary(10_000, runs);
    // medians 0.25 over 0.25; the rounds' own ratios 1.1, 1.2, 1.0
    expect(s.mixOverOne!.ofMedians).toBeCloseTo(1, 9);
    expect(s.mixOverOne!.medianOfRounds).toBeCloseTo(1.1, 9);
    expect(s.mixOverOne).toMatchObject({ lo: 1, rounds: 3 });
    expect(s.mixOverOne!.hi).toBeCloseTo(1.2, 9);
    // now 0.21, 0.31, 0.26 against 0.2, 0.31, 0.25: medians 0.26 / 0.25
    expect(s.oneOverBefore!.ofMedians).toBeCloseTo(1.04, 9);
    expect(s.oneOverBefore!.lo).toBeCloseTo(1, 9);
    expect(s.oneOverBefore!.hi).toBeCloseTo(1.05, 9);
    expect(s.byVariant.mix).toMatchObject({ runs: 3, requestsPerArrival: 1.1, requestsPerSec: 10_780 });
    expect(s.byVariant.before).toMatchObject({ runs: 3, loadCpuPer10k: null, requestsPerArrival: 1, dropped: [] });
  });

  it('pairs rounds only where both variants ran, and has no ratio without one of them', () => {
    const s = mixSummary(10_000, [run('one', 1), run('mix', 1, { loadCpuPer10k: 0.38 }), run('one', 2)]);
    expect(s.mixOverOne).toMatchObject({ rounds: 1 });
    expect(s.mixOverOne!.ofMedians).toBeCloseTo(2, 9);
    expect(s.oneOverBefore).toBeNull();
    expect(s.getsOverOne).toBeNull();
    // no GET mix ran: no line for it
    expect(formatMix(s, null)).not.toContain('GETs only');
    expect(formatMix(s, null)).toContain(
      "one request now / before, CPU per request: – (CPU-s/10k, each commit's own engine-profile.ts over the window both measure: not measured)",
    );
  });

  it('prints each variant with its drops and failures, and the ratios against the goals of issue 27', () => {
    const s = mixSummary(10_000, [
      run('one', 1, { dropped: 3 }),
      run('mix', 1, { loadCpuPer10k: 0.2185, completed: 110_000, ok: 99_990 }),
      before(1, 0.21),
    ]);
    const text = formatMix(s, '8bf094a');
    const rows = text.split('\n');
    expect(rows[0]).toBe(
      "native engine on 1 thread at 10,000 arrivals/s against nginx, medians (CPU-s per 10k requests: a transaction's two requests are two):",
    );
    expect(rows[1]).toMatch(
      /^ {2}variant +runs +arrivals\/s +requests\/s +req\/arrival +CPU-s\/10k +schedule CPU-s\/10k +dropped +failed$/,
    );
    expect(rows[2]).toMatch(/^ {2}one request \(default scenario\) +1 +9,800 +9,800 +1\.000 +0\.2000 +0\.1900 +3 +0$/);
    expect(rows[3]).toMatch(/^ {2}mix \(3 entries, one a 2-request transaction\) .* 1\.100 +0\.2000 +0\.2185 +0 +10$/);
    expect(rows[4]).toMatch(
      /^ {2}one request, before issue 27 \(8bf094a\) +1 +9,700 +9,700 +1\.000 +0\.2100 +– +– +–$/,
    );
    expect(text).toContain(
      'mix / one request, CPU per request: 1.150 x (goal <= 1.15: met) (schedule CPU-s/10k, the same file and window for both, ratio of the medians; round by round 1.150 median, 1.150 to 1.150 over 1 round)',
    );
    expect(text).toContain('one request now / before (8bf094a), CPU per request: 0.952 x (goal <= 1.05: met)');
    const over = formatMix(mixSummary(10_000, [run('one', 1), run('mix', 1, { loadCpuPer10k: 0.2186 })]), null);
    expect(over).toContain('1.151 x (goal <= 1.15: NOT met)');
  });

  it('names another commit given as before (--mix-before) by its hash, with no goal: the goal is against 8bf094a', () => {
    const s = mixSummary(10_000, [run('one', 1), run('mix', 1), before(1, 0.21)]);
    const text = formatMix(s, '9169096');
    expect(text).toMatch(/\n {2}one request on 9169096 +1 /);
    expect(text).not.toContain('before issue 27');
    expect(text).toMatch(/one request now \/ before \(9169096\), CPU per request: 0\.952 x \(CPU-s/);
    // the goal's own commit, however short its hash was given
    expect(formatMix(s, '8bf094ac1cf6')).toContain(
      'one request now / before (8bf094ac1cf6), CPU per request: 0.952 x (goal <= 1.05: met)',
    );
  });

  it('prints the GET mix against one request as a figure to read, with no goal of its own, and its row', () => {
    const s = mixSummary(10_000, [
      run('one', 1, { loadCpuPer10k: 0.2 }),
      run('mix', 1, { loadCpuPer10k: 0.25, completed: 110_000 }),
      run('gets', 1, { loadCpuPer10k: 0.22, completed: 110_000 }),
    ]);
    expect(s.getsOverOne!.ofMedians).toBeCloseTo(1.1, 9);
    const text = formatMix(s, null);
    expect(text).toMatch(/^ {2}the same mix, GETs only, no body read +1 .* 1\.100 +0\.2000 +0\.2200 +0 +0$/m);
    expect(text).toContain(
      "the same mix with GETs only / one request, CPU per request: 1.100 x (the mix's entries, weights and transaction with no body sent or read: its own machinery; schedule CPU-s/10k, ratio of the medians; round by round 1.100 median, 1.100 to 1.100 over 1 round)",
    );
    expect(text).toContain('mix / one request, CPU per request: 1.250 x (goal <= 1.15: NOT met)');
    expect(aggregate(mixMeasures(s.byVariant.gets ? [run('gets', 1)] : [], null))[0]).toMatchObject({
      tool: 'engine 1 thread, mix of GETs',
    });
  });

  it("splits the mix's extra into user and system CPU with each variant's context switches per request, when the runs print them", () => {
    const split = (user: number, sys: number, vol: number, invol: number): Partial<ProfileLine> => ({
      loadCpuPer10k: user + sys,
      loadUserPer10k: user,
      loadSysPer10k: sys,
      voluntarySwitchesPerRequest: vol,
      involuntarySwitchesPerRequest: invol,
    });
    const s = mixSummary(10_000, [
      run('one', 1, split(0.16, 0.08, 0.5, 0.3)),
      run('mix', 1, split(0.2, 0.12, 0.6, 0.45)),
      run('one', 2, split(0.18, 0.1, 0.7, 0.5)),
      run('mix', 2, split(0.198, 0.11, 0.8, 0.55)),
    ]);
    expect(s.mixOverOneUser!.ofMedians).toBeCloseTo(0.199 / 0.17, 9);
    expect(s.mixOverOneSys!.ofMedians).toBeCloseTo(0.115 / 0.09, 9);
    expect(formatMix(s, null)).toContain(
      '  where it lies (schedule): user CPU 0.1700 -> 0.1990 (1.171 x), system CPU 0.0900 -> 0.1150 (1.278 x) per 10k requests; context switches per request (voluntary + involuntary) 0.600 + 0.400 -> 0.700 + 0.500',
    );
    // an earlier engine-profile.ts printed no split: no line, rather than dashes
    expect(formatMix(mixSummary(10_000, [run('one', 1), run('mix', 1)]), null)).not.toContain('where it lies');
  });

  it("prints the peer's mix over its one request, what the traffic itself costs, and the engine's over the peer's", () => {
    const s = mixSummary(10_000, [
      run('one', 1, { loadCpuPer10k: 0.25 }),
      run('mix', 1, { loadCpuPer10k: 0.31, completed: 110_000 }),
      run('bareOne', 1, { loadCpuPer10k: 0.35 }),
      run('bareMix', 1, { loadCpuPer10k: 0.385, completed: 110_000, dropped: 1_500 }),
    ]);
    expect(s.bareMixOverOne!.ofMedians).toBeCloseTo(1.1, 9);
    expect(s.mixOverBareMix!.ofMedians).toBeCloseTo(0.31 / 0.385, 9);
    const text = formatMix(s, null);
    expect(text).toMatch(/^ {2}peer: bare undici loop, one request +1 .* 1\.000 +0\.2000 +0\.3500 +0 +0$/m);
    expect(text).toMatch(/^ {2}peer: bare undici loop, the mix's requests +1 .* 1\.100 +0\.2000 +0\.3850 +1,500 +0$/m);
    expect(text).toContain(
      "the peer's mix / its one request, CPU per request: 1.100 x (the same requests from a bare undici loop with no engine: what the mix's traffic itself costs a client; schedule CPU-s/10k, ratio of the medians;",
    );
    expect(text).toContain(
      "the engine's mix / the peer's, and one request / the peer's: 0.805 x (the engine's price for the same traffic; one request 0.714 x, ratio of the medians;",
    );
    // the goal stays the mix over the engine's own one request
    expect(text).toContain('mix / one request, CPU per request: 1.240 x (goal <= 1.15: NOT met)');
    // without the peer, no peer lines
    expect(formatMix(mixSummary(10_000, [run('one', 1), run('mix', 1)]), null)).not.toContain('peer');
    expect(aggregate(mixMeasures([run('bareMix', 1, { requestsPerSec: 10_700 })], null))[0]).toMatchObject({
      tool: 'bare undici loop 1 thread, mix',
      note: '10,700 requests/s; CPU per 10k requests',
    });
  });

  it("makes the bench table's rows, one per variant, arrivals/s and CPU per 10k requests over the window both commits measure", () => {
    const rows = aggregate(
      mixMeasures(
        [
          run('one', 1, { cpuPer10k: 0.25 }),
          run('mix', 1, { cpuPer10k: 0.23, requestsPerSec: 10_780, ok: 99_000 }),
          before(1, 0.19),
          run('one', 2, { cpuPer10k: 0.5 }),
        ],
        '8bf094a',
      ),
    );
    expect(rows.map((r) => [r.tool, r.runs, r.cpuPer10k, r.errors, r.heldRuns])).toEqual([
      ['engine 1 thread, one request', 2, 0.375, 0, undefined],
      ['engine 1 thread, mix', 1, 0.23, 1_000, undefined],
      ['engine 1 thread, one request, 8bf094a', 1, 0.19, 0, undefined],
    ]);
    expect(rows[1].note).toBe('10,780 requests/s; CPU per 10k requests');
  });
});
