/** The `slo` section: the quantiles the results keep are the only ones it takes, each refusal with the fix. */
import { describe, expect, it } from 'vitest';
import { validateConfig } from './validate.ts';

const valid = {
  target: { url: 'http://127.0.0.1:8080/orders' },
  steps: { startPerSec: 50, stepPerSec: 50, maxPerSec: 200, rampS: 1, holdS: 10 },
  // a server-side objective needs a request histogram to read (cross-field.ts)
  metrics: { url: '/metrics' },
};

function problems(slo: unknown): string[] {
  return validateConfig({ ...valid, slo }).problems.map((p) => `${p.field}: ${p.message}`);
}

describe('slo', () => {
  it('defaults: p99 on the client', () => {
    const r = validateConfig({ ...valid, slo: { maxMs: 300 } });
    expect(r.config?.slo).toEqual({ quantile: 0.99, maxMs: 300, source: 'client' });
    expect(validateConfig(valid).config).not.toHaveProperty('slo.maxMs');
  });

  it.each<[unknown, RegExp]>([
    [
      { quantile: 0.95, maxMs: 300 },
      /^slo\.quantile: 0\.95 \(p95\) is not a quantile the client's results keep \(p50, p90, p99, p99\.9\): set slo\.quantile to one of 0\.5, 0\.9, 0\.99, 0\.999$/,
    ],
    [
      { quantile: 0.999, maxMs: 300, source: 'server' },
      /^slo\.quantile: .*server's results keep \(p50, p90, p99\) \(the client's results keep it: source 'client'\)/,
    ],
    [{ quantile: 99, maxMs: 300 }, /^slo\.quantile: .*99% is 0\.99\): set slo\.quantile to 0\.99/],
    [{ quantile: 0.99 }, /^slo\.maxMs: missing .*set slo\.maxMs/],
    [{ maxMs: 300, source: 'edge' }, /^slo\.source: must be one of "client", "server"/],
    [{ quantile: 0.95, maxMs: 300, source: 'edge' }, /^slo\.source: must be one of "client", "server"/],
  ])('%j is refused with the fix', (slo, message) => {
    const p = problems(slo);
    expect(p, p.join('\n')).toHaveLength(1);
    expect(p[0]).toMatch(message);
  });

  it.each([
    { quantile: 0.5, maxMs: 50 },
    { quantile: 0.999, maxMs: 800 },
    { quantile: 0.9, maxMs: 100, source: 'server' },
  ])('%j is accepted', (slo) => expect(problems(slo)).toEqual([]));
});
