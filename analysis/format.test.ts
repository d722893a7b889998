import { describe, expect, it } from 'vitest';
import {
  fmtCountShare,
  fmtMixShare,
  fmtInt,
  fmtMs,
  fmtMsOver,
  fmtPercent,
  fmtSecondsOver,
  fmtRate,
  fmtRatio,
  fmtRatioBelow,
  fmtShare,
  fmtShareOver,
  fmtSignedRate,
  fmtTarget,
} from './format.ts';

describe('format', () => {
  it.each([
    [fmtInt(4512), '4,512'],
    [fmtInt(1234567.6), '1,234,568'],
    [fmtInt(-1344), '-1,344'],
    [fmtRate(205.06), '205.1'],
    [fmtRate(1205.06), '1,205.1'],
    [fmtTarget(250), '250'],
    [fmtTarget(12.5), '12.5'],
    [fmtSignedRate(15.49), '+15.5'],
    [fmtSignedRate(-3), '-3.0'],
    [fmtRatio(0.8213), '0.82'],
    [fmtRatio(null), '–'],
    [fmtShare(0.412), '41%'],
    [fmtShare(null), '–'],
    [fmtShare(undefined), '–'],
    [fmtShareOver(0.93, 0.9), '93%'],
    [fmtShareOver(0.903, 0.9), '90.3%'],
    [fmtShareOver(0.9004, 0.9), '90.04%'],
    [fmtMsOver(54.2, 20), '54.2'],
    [fmtMsOver(10.04, 10), '10.04'],
    [fmtSecondsOver(6100, 3), '6.1'],
    [fmtSecondsOver(3040, 3), '3.04'],
    [fmtSecondsOver(3000.2, 3), '3.001'],
    [fmtMsOver(100.4, 100), '100.4'],
    [fmtMsOver(1234.5, 100), '1,230'],
    [fmtRatioBelow(0.8213, 0.9), '0.82'],
    [fmtRatioBelow(-0.004, 0.6), '0.00'],
    [fmtRatio(-0.004), '0.00'],
    [fmtRatioBelow(-0.02, 0.6), '-0.02'],
    [fmtRatioBelow(0.8968, 0.9), '0.897'],
    [fmtRatioBelow(0.89996, 0.9), '0.8999'],
    [fmtRatioBelow(0.8999, 0.9), '0.8999'],
    [fmtRatioBelow(0.5951, 0.6), '0.595'],
    [fmtMs(12.34), '12.3'],
    [fmtMs(1.2), '1.20'],
    [fmtMs(0.1234), '0.123'],
    [fmtMs(123.4), '123'],
    [fmtMs(999.7), '1,000'],
    [fmtMs(1234), '1,230'],
    [fmtMs(0), '0'],
    [fmtMs(null), '–'],
    [fmtPercent(0.0123), '1.23%'],
  ])('%s === %s', (actual, expected) => {
    expect(actual).toBe(expected);
  });
});

describe('fmtCountShare', () => {
  it('never reads as all of them when some are missing: 958 of 961 is 99.7%, not 100%', () => {
    // nor as none of them when some are there: 1 in 100,000 is 0.001%, 1 in 10 million too
    expect([0.000_01, 0.000_000_1, 0.000_2, 0].map((x) => fmtCountShare(x))).toEqual([
      '0.001%',
      '0.001%',
      '0.02%',
      '0.0%',
    ]);
    // at least a tenth where asked: 0.4 of 240 is 99.8%, 0.01 of 240 99.996%
    expect([1 - 0.4 / 240, 1 - 0.01 / 240, 0.5, 1].map((x) => fmtCountShare(x, 1))).toEqual([
      '99.8%',
      '99.996%',
      '50.0%',
      '100.0%',
    ]);
    expect([958 / 961, 0.9995, 0.999_999, 1, 1.1, 0.5, 0.045, 0.001].map((x) => fmtCountShare(x))).toEqual([
      '99.7%',
      '99.95%',
      '99.999%',
      '100%',
      '110%',
      '50%',
      '4.5%',
      '0.1%',
    ]);
  });
});

describe('fmtMixShare', () => {
  it('gives whole percents where the share is one, else a tenth', () => {
    expect([0.7, 0.25, 0.05, 0.0361, 1 / 3].map(fmtMixShare)).toEqual(['70%', '25%', '5%', '3.6%', '33.3%']);
  });
});
