import { describe, expect, it } from 'vitest';
import { seriesRate, sumOfRates, type CounterSeries } from './counter-rate.ts';

const s = (...samples: Array<[number, number]>): CounterSeries => ({ samples });

describe('one series’ rate over its own samples in the window [0, 10 s], the window’s first sample at 1 s', () => {
  it.each([
    { what: 'two inside: between them', x: s([-4000, 0], [1000, 50], [6000, 300]), rate: 50, from: 1000, to: 6000 },
    {
      what: 'one inside: from the last sample before the window',
      x: s([-8000, 0], [-3000, 150], [4000, 500]),
      rate: 50,
      from: -3000,
      to: 4000,
    },
    {
      what: 'born inside: from 0 at the window’s first sample',
      x: s([4000, 60], [9000, 160]),
      rate: 20,
      from: 1000,
      to: 9000,
    },
    { what: 'born inside, one sample', x: s([5000, 80]), rate: 20, from: 1000, to: 5000 },
    { what: 'a reset counts the value after it', x: s([1000, 250], [6000, 150]), rate: 30, from: 1000, to: 6000 },
    {
      what: 'not-a-number samples left out',
      x: s([1000, 50], [3000, NaN], [6000, 300]),
      rate: 50,
      from: 1000,
      to: 6000,
    },
  ])('$what', ({ x, rate, from, to }) => {
    expect(seriesRate(x, 0, 10_000, 1000)).toEqual({ ratePerSec: rate, firstMs: from, lastMs: to, reset: rate === 30 });
  });

  it.each([
    { what: 'no sample inside', x: s([-4000, 0], [-1000, 150]) },
    { what: 'one inside at the window’s first sample, none before', x: s([1000, 50]) },
    { what: 'only samples after the window', x: s([11_000, 50], [12_000, 100]) },
  ])('none: $what', ({ x }) => {
    expect(seriesRate(x, 0, 10_000, 1000)).toBeNull();
  });

  it('adds the series’ rates, their spans joined', () => {
    const a = s([-4000, 0], [1000, 250], [6000, 500]);
    const b = s([-1000, 0], [4000, 250], [9000, 500]);
    expect(sumOfRates([a, b, s()], 0, 10_000, 1000)).toEqual({
      ratePerSec: 100,
      firstMs: 1000,
      lastMs: 9000,
      reset: false,
    });
    expect(sumOfRates([s()], 0, 10_000, 1000)).toBeNull();
  });
});
