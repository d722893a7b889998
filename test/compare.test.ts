import { describe, expect, it } from 'vitest';
import { fakeRun } from '../analysis/testing/builders.ts';
import { compareRows, renderCompare } from '../reports/compare.ts';
import { settingDifferences } from '../analysis/compare/differences.ts';

const A = fakeRun({ steps: [100, 200, 300, 400].map((r) => ({ ratePerSec: r, okPerSec: r <= 300 ? r : 310 })) });
const B = fakeRun({
  steps: [100, 200, 300, 400, 500].map((r) => ({ ratePerSec: r, okPerSec: r <= 400 ? r : 405, latencyMs: 8 })),
});

describe('plateau compare', () => {
  it('lines the steps up at equal offered rates', () => {
    const rows = compareRows(A, B);
    expect(rows.map((r) => r.ratePerSec)).toEqual([100, 200, 300, 400, 500]);
    expect(rows[4].a).toBeNull();
    expect(rows[4].b?.ratePerSec).toBe(500);
  });

  it('shows capacity, knee and the change; the same grid is no difference, wherever each run stopped', () => {
    const md = renderCompare(A, B);
    expect(md).toContain('| Capacity | 300.0 req/s | 400.0 req/s | +33.33% |');
    expect(md).not.toContain('steps (offered rates) differs');
    expect(md).toMatch(/\| 500 \| – \| 405\.0 \|/);
    // a rerun (the same rate twice) is no difference either; another grid is
    const rerun = fakeRun({ steps: [100, 200, 300, 300].map((r) => ({ ratePerSec: r })) });
    expect(settingDifferences(A, rerun).join('\n')).not.toMatch(/steps/);
    const finer = fakeRun({ steps: [100, 150, 200, 250].map((r) => ({ ratePerSec: r })) });
    expect(settingDifferences(A, finer).join('\n')).toMatch(
      /steps \(offered rates\) differs: from 100 by 100 req\/s vs from 100 by 50 req\/s/,
    );
  });

  it("a loopback target on another port (the demo's, ephemeral) is the same target; another host is not", () => {
    const at = (target: string) => ({ ...A, target });
    expect(settingDifferences(at('http://127.0.0.1:33063/orders'), at('http://127.0.0.1:45661/orders'))).toEqual([]);
    expect(
      settingDifferences(at('https://staging.example/orders'), at('https://prod.example/orders')).join('\n'),
    ).toMatch(/target differs/);
  });

  it('comparable runs produce no warning; engine, topology and RTT differences do', () => {
    expect(settingDifferences(A, A)).toEqual([]);
    const C = {
      ...A,
      engine: 'k6',
      environment: { ...A.environment, topology: '3 replicas' },
      rtt: { ...A.rtt!, httpMedianMs: 40 },
    };
    const D = { ...A, environment: { ...A.environment, topology: '2 replicas' } };
    const w = settingDifferences(D, C).join('\n');
    expect(w).toMatch(/engine differs/);
    expect(w).toMatch(/topology differs: 2 replicas vs 3 replicas: an A\/B is only valid on the same topology/);
    expect(w).toMatch(/RTT/);
  });

  it("a different container CPU quota is a different generator; the cgroup's path alone is not", () => {
    const q = (cpuQuota: string) => ({ ...A, environment: { ...A.environment, cpuQuota } });
    expect(
      settingDifferences(
        q('2 CPUs (cgroup v2 cpu.max 200000 100000 in /sys/fs/cgroup)'),
        q('1.5 CPUs (cgroup v2 cpu.max 150000 100000 in /sys/fs/cgroup)'),
      ),
    ).toEqual(['generator CPU quota differs: 2 CPUs vs 1.5 CPUs: the generator had a different share of CPU']);
    expect(settingDifferences(A, q('2 CPUs (cgroup v1 in /a)'))).toEqual([
      'generator CPU quota differs: no CPU quota vs 2 CPUs: the generator had a different share of CPU',
    ]);
    expect(settingDifferences(q('2 CPUs (cgroup v1 in /docker/a)'), q('2 CPUs (cgroup v1 in /docker/b)'))).toEqual([]);
  });

  it('escapes target-controlled text', () => {
    expect(renderCompare({ ...A, runId: 'a|<b>' }, B)).toContain('a\\|&lt;b>');
  });
});
