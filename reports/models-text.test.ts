import { describe, expect, it } from 'vitest';
import type { Models } from '../analysis/types.ts';
import { modelsIntro } from './models-text.ts';

const models = (over: Partial<Models> = {}): Models => ({
  little: [],
  usl: null,
  uslNote: 'not fitted',
  utilisationBasePerSec: 400,
  utilisation: [],
  ...over,
});

describe("the models section's introduction", () => {
  it("says what W is: an arrival's time in a mix, a request's where no arrival's time was recorded (a k6 import)", () => {
    expect(modelsIntro(models({ wPerArrival: true }), 'arrivals/s')).toContain(
      "X counts arrivals, so W is an arrival's mean time (a transaction's whole, think time included)",
    );
    expect(modelsIntro(models(), 'arrivals/s')).toContain(
      "X counts arrivals, but W is a request's mean time (the run records no arrival's own: an imported k6 run's iterations), so N understates the arrivals in flight.",
    );
    expect(modelsIntro(models(), 'req/s')).not.toContain('X counts arrivals');
  });
});
