import { describe, expect, it } from 'vitest';
import {
  DEFAULT_GENERATOR_BOUNDS,
  generatorLimitedText,
  generatorSymptomOf,
  symptomText,
} from './generator-symptoms.ts';
import type { GeneratorBounds, StepResult } from './types.ts';
import { stepWithP99 as step } from './testing/builders.ts';

/** The generator's symptom in words (null when it kept its bounds). */
function generatorSymptom(s: StepResult, b: GeneratorBounds): string | null {
  const sym = generatorSymptomOf(s, b);
  return sym && symptomText(sym, s);
}

/** Why a held step is generator-limited, as decision.ts words it into its reasons (null when it failed or the generator kept up). */
function heldButGeneratorLimited(s: StepResult, b: GeneratorBounds = DEFAULT_GENERATOR_BOUNDS): string | null {
  const sym = s.verdict === 'holds' ? generatorSymptomOf(s, b) : null;
  return sym && generatorLimitedText(sym, s);
}

describe('heldButGeneratorLimited', () => {
  it('marks a held step whose generator lagged, looped late or dropped, even with no drop at all', () => {
    expect(heldButGeneratorLimited(step({ lagP99Ms: 54.2 }))).toMatch(
      /^generator-limited while holding: scheduler lag p99 54\.2 ms > 20 ms;/,
    );
    expect(heldButGeneratorLimited(step({ loopDelayMaxMs: 170 }))).toMatch(/event-loop delay 170 ms > 100 ms/);
    expect(heldButGeneratorLimited(step({ dropped: 473 }))).toMatch(/473 arrivals dropped/);
    expect(heldButGeneratorLimited(step({ dropped: 1 }))).toMatch(/: 1 arrival dropped \(no free VU/);
    expect(
      heldButGeneratorLimited(step({ lagP99Ms: 30 }), { lagP99MaxMs: 50, loopDelayMaxMs: 100, tailFactor: 3 }),
    ).toBeNull();
  });

  it("marks a held step whose generator's busiest thread was saturated, at the configured bound", () => {
    expect(heldButGeneratorLimited(step({ generatorBusy: 0.93 }))).toMatch(
      /generator's busiest thread busy 93% of the time > 90%/,
    );
    expect(heldButGeneratorLimited(step({ generatorBusy: 0.903 }))).toMatch(/busy 90\.3% of the time > 90%/);
    expect(heldButGeneratorLimited(step({ generatorBusy: 0.85 }))).toBeNull();
    expect(
      heldButGeneratorLimited(step({ generatorBusy: 0.85 }), {
        lagP99MaxMs: 20,
        loopDelayMaxMs: 100,
        generatorBusyMax: 0.8,
        tailFactor: 3,
      }),
    ).toMatch(/busy 85% of the time > 80%/);
    expect(heldButGeneratorLimited(step({ generatorBusy: null }))).toBeNull();
  });

  it("marks a held step whose generator's process used nearly all its CPUs (k6's, where no thread is measured)", () => {
    expect(heldButGeneratorLimited(step({ generatorBusy: null, generatorCpu: 0.96 }))).toMatch(
      /generator's process used 96% of the CPUs it may use > 90%/,
    );
    expect(heldButGeneratorLimited(step({ generatorBusy: null, generatorCpu: 0.9 }))).toBeNull();
    expect(
      heldButGeneratorLimited(step({ generatorCpu: 0.85 }), {
        lagP99MaxMs: 20,
        loopDelayMaxMs: 100,
        generatorBusyMax: 0.8,
        tailFactor: 3,
      }),
    ).toMatch(/used 85% of the CPUs it may use > 80%/);
  });

  it('says when late arrivals came from stalls rather than a thread short of CPU', () => {
    expect(heldButGeneratorLimited(step({ lagP99Ms: 25, generatorBusy: 0.55 }))).toMatch(
      /scheduler lag p99 25\.0 ms > 20 ms while its busiest thread was busy only 55% of the time: the delays are stalls \(the target or other processes on this machine, CPU steal, GC pauses\), not a generator short of CPU/,
    );
    // Measured suspects come first with their figures; steal measured low is no suspect.
    expect(
      heldButGeneratorLimited(step({ lagP99Ms: 25, generatorBusy: 0.55, cpuSteal: 0.081, throttledMs: 1_234.5 })),
    ).toMatch(
      /the delays are stalls \(the container's CPU quota, which throttled it 1,235 ms, CPU steal, 8% of the machine's time, the target or other processes on this machine, GC pauses\)/,
    );
    expect(
      heldButGeneratorLimited(step({ lagP99Ms: 25, generatorBusy: 0.55, cpuSteal: 0.004, throttledMs: 0 })),
    ).toMatch(/the delays are stalls \(the target or other processes on this machine, GC pauses\)/);
    expect(heldButGeneratorLimited(step({ lagP99Ms: 25, generatorBusy: 0.55, cpuSteal: 0.012 }))).toMatch(
      /the delays are stalls \(CPU steal, 1% of the machine's time, the target or other processes on this machine, GC pauses\)/,
    );
    expect(heldButGeneratorLimited(step({ lagP99Ms: 25, generatorBusy: 0.8 }))).not.toMatch(/stalls/);
    expect(heldButGeneratorLimited(step({ lagP99Ms: 25 }))).not.toMatch(/stalls/); // not measured (k6): no claim
  });

  it('leaves alone a step that kept its schedule, and a failed step (classifyFailure speaks for it)', () => {
    expect(heldButGeneratorLimited(step({}))).toBeNull();
    expect(heldButGeneratorLimited(step({ lagP99Ms: 54, verdict: 'fails' }))).toBeNull();
  });
});

describe('scheduler lag judged like any tail', () => {
  it('takes the p99 from 3,000 arrivals, the p90 from 300, and neither below', () => {
    expect(generatorSymptom(step({ lagP99Ms: 34, lagP90Ms: 5, lagSamples: 3_000 }), DEFAULT_GENERATOR_BOUNDS)).toMatch(
      /^scheduler lag p99 34\.0 ms > 20 ms/,
    );
    expect(
      generatorSymptom(step({ lagP99Ms: 34, lagP90Ms: 5, lagSamples: 2_999 }), DEFAULT_GENERATOR_BOUNDS),
    ).toBeNull();
    expect(generatorSymptom(step({ lagP99Ms: 34, lagP90Ms: 25, lagSamples: 750 }), DEFAULT_GENERATOR_BOUNDS)).toMatch(
      /^scheduler lag p90 25\.0 ms > 20 ms \(its p99 rests on 750 arrivals, too few\)/,
    );
    expect(
      generatorSymptom(step({ lagP99Ms: 34, lagP90Ms: 25, lagSamples: 299 }), DEFAULT_GENERATOR_BOUNDS),
    ).toBeNull();
    // a run recorded before the sample count was kept: its p99 as it is
    expect(generatorSymptom(step({ lagP99Ms: 34 }), DEFAULT_GENERATOR_BOUNDS)).toMatch(/^scheduler lag p99 34\.0 ms/);
    // a held step at a low rate with one stall is not generator-limited for it (its loop delay may still say so)
    expect(heldButGeneratorLimited(step({ lagP99Ms: 80.6, lagP90Ms: 12, lagSamples: 1_000 }))).toBeNull();
    expect(
      heldButGeneratorLimited(step({ lagP99Ms: 80.6, lagP90Ms: 12, lagSamples: 1_000, loopDelayMaxMs: 115 })),
    ).toMatch(/event-loop delay 115 ms > 100 ms/);
  });
});
