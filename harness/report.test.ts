import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyzeStore, reportFilesLine } from './report.ts';
import { RunStore, type RunMeta } from './store/run-store.ts';

const meta = (runId: string, config: unknown): RunMeta => ({
  schemaVersion: 2,
  runId,
  status: 'complete',
  startedAt: '2026-11-30T00:00:00.000Z',
  finishedAt: null,
  target: 'http://127.0.0.1:1/',
  engine: 'native',
  scenario: 'default',
  config,
  plan: null,
  vus: null,
  rtt: null,
  stages: [],
  interruptedAtStep: null,
  environment: {},
});

describe('analyzeStore', () => {
  it("carries the run's configured generator busy bound to the reports, and none when the config has none", () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'plateau-report-'));
    try {
      RunStore.create(out, meta('bound', { verdicts: { generatorBusyMax: 0.5 } })).close();
      RunStore.create(out, meta('default', { verdicts: {} })).close();
      expect(analyzeStore(path.join(out, 'bound')).result.generatorBusyMax).toBe(0.5);
      expect(analyzeStore(path.join(out, 'default')).result.generatorBusyMax).toBeUndefined();
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  });
});

describe('reportFilesLine', () => {
  it('names the reports, then the other files, only those the run wrote', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plateau-files-'));
    const cwd = path.dirname(dir);
    const id = path.basename(dir);
    expect(reportFilesLine(dir, cwd)).toBe(`report: ${id}/`);
    for (const f of ['run.json', 'buckets.ndjson', 'report.md', 'summary.json', 'steps.csv'])
      fs.writeFileSync(path.join(dir, f), '');
    expect(reportFilesLine(dir, cwd)).toBe(
      `report: ${id}/report.md (also summary.json, steps.csv, run.json, buckets.ndjson)`,
    );
    for (const f of ['report.html', 'steps-by-name.csv', 'probes.ndjson']) fs.writeFileSync(path.join(dir, f), '');
    expect(reportFilesLine(dir, cwd)).toBe(
      `report: ${id}/report.md and report.html (also summary.json, steps.csv, steps-by-name.csv, run.json, buckets.ndjson, probes.ndjson)`,
    );
    // a run directory outside the working one is named whole, not as ../../tmp/...
    expect(reportFilesLine(dir, path.join(cwd, 'elsewhere', 'deeper'))).toMatch(
      new RegExp(`^report: ${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/report\.md and report\.html`),
    );
    fs.rmSync(dir, { recursive: true });
  });
});
