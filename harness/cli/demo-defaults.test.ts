import { describe, expect, it } from 'vitest';
import { withDemoDefaults } from './commands.ts';

describe('plateau run --demo completes the config with the demo', () => {
  it("runs the demo's scenario unless --scenario or the config names one, whose scenario then runs against the demo", () => {
    expect(withDemoDefaults({}).scenario).toBe('demo/scenario.ts');
    // a config's scenario was replaced by the demo's before, silently
    expect(withDemoDefaults({ scenario: '/tmp/page/scenario.ts' }).scenario).toBe('/tmp/page/scenario.ts');
  });

  it('adds the demo reset hook, RTT path and metrics only where the config has none', () => {
    const d = withDemoDefaults({ target: { url: 'http://127.0.0.1:1/orders' } });
    expect(d.target).toEqual({ rttPath: '/ping', url: 'http://127.0.0.1:1/orders' });
    expect(d.reset).toEqual({ hooks: [{ kind: 'http', method: 'POST', url: '/admin/reset' }] });
    const own = withDemoDefaults({ metrics: { url: '/m' }, reset: { hooks: [{ kind: 'http', url: '/r' }] } });
    expect([own.metrics, own.reset]).toEqual([{ url: '/m' }, { hooks: [{ kind: 'http', url: '/r' }] }]);
  });
});
