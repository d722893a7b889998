/**
 * Stored runs for the re-render test (test/rerender.test.ts) and the script that records them
 * (scripts/record-run-fixtures.ts): the simulated steps stage into a real run store, the outputs a
 * run renders at its end, the first differing line of two texts, and what each fixture's shape
 * must show (so a fixture cannot silently hold a run of another shape).
 */
import { SIM_RTT_MS, simContext } from './sim-context.ts';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AttemptRecord, RunResult, StepResult } from '../../analysis/types.ts';
import type { PlateauConfigInput } from '../../harness/config/schema.ts';
import { type ModelTargetOptions } from '../../harness/engine/model-target.ts';
import { DurationCap } from '../../harness/limits.ts';
import { runStage } from '../../harness/pipeline/stage.ts';
import { runSteps, type StepsOutcome } from '../../harness/pipeline/steps.ts';
import { writeReports } from '../../harness/report.ts';
import { type RunMeta } from '../../harness/store/run-store.ts';
import { renderPlateauTable } from '../../reports/table.ts';

export const RUN_FIXTURES_DIR = fileURLToPath(new URL('../fixtures/runs/', import.meta.url));
export const RECORD_COMMAND = 'npx tsx scripts/record-run-fixtures.ts';

/** What the pipeline stores (the evidence); every other file of a fixture is an output rendered from these. */
export const STORE_FILES = ['run.json', 'buckets.ndjson', 'probes.ndjson'] as const;
/** The terminal table the CLI prints at the end of a run, kept as a file. */
export const TABLE_FILE = 'table.txt';

/** Every output of a stored run, as the end of a run renders it: writeReports' files and the terminal table. */
export async function renderOutputs(dir: string): Promise<RunResult> {
  const result = await writeReports(dir);
  fs.writeFileSync(path.join(dir, TABLE_FILE), renderPlateauTable(result) + '\n');
  return result;
}

/**
 * A chart's own file (chart-throughput.svg, ...): not kept in a fixture, since report.html holds
 * each chart byte for byte (the test checks that a re-rendered chart is inside the stored page).
 */
export function isChartFile(name: string): boolean {
  return /^chart-[a-z]+\.svg$/.test(name);
}

/** The files of a run directory that are outputs (not the store), sorted. */
export function outputFiles(dir: string): string[] {
  const store: readonly string[] = STORE_FILES;
  return fs
    .readdirSync(dir)
    .filter((f) => !store.includes(f) && fs.statSync(path.join(dir, f)).isFile())
    .sort();
}

/** The first line (1-based) where two texts differ, with both sides; null when they are byte-identical. */
export function firstDifference(
  expected: string,
  actual: string,
): { line: number; expected: string; actual: string } | null {
  if (expected === actual) return null;
  const e = expected.split('\n');
  const a = actual.split('\n');
  for (let i = 0; i < Math.max(e.length, a.length); i++) {
    if (e[i] !== a[i]) return { line: i + 1, expected: e[i] ?? '<end of file>', actual: a[i] ?? '<end of file>' };
  }
  // same lines, different bytes elsewhere cannot happen with '\n' splitting; keep the answer total
  return { line: e.length, expected: '<same lines>', actual: '<same lines>' };
}

/** Fixed wall-clock start of the simulated fixtures, so a re-recording writes the same bytes. */
export const SIM_STARTED_AT_MS = Date.UTC(2026, 0, 1);

export interface SimRun {
  runsDir: string;
  runId: string;
  model: ModelTargetOptions;
  config: Partial<PlateauConfigInput>;
  /** VUs the engine starts with (default: the plan's sizing). */
  vus?: { preAllocated: number; max: number };
  /** Simulated seconds after the steps start at which the run is interrupted. */
  interruptAtS?: number;
}

export interface SimOutput {
  dir: string;
  /** What the live steps stage decided: its judged attempts and the attempt records with their actions. */
  live: StepsOutcome;
  /** The result the end of the run rendered its outputs from. */
  result: RunResult;
}

/**
 * The real steps stage in simulated time over a model target into a fresh run store (as
 * test/sim-steps.test.ts runs it), closed as the pipeline closes a run, then rendered as the
 * pipeline renders at its end.
 */
export async function simRun(o: SimRun): Promise<SimOutput> {
  const { config, clock, engine, store, interrupt, ctx } = simContext({
    runsDir: o.runsDir,
    runId: o.runId,
    model: o.model,
    config: o.config,
    vus: o.vus,
    startedAtMs: SIM_STARTED_AT_MS,
    environment: { model: JSON.stringify(o.model) },
  });
  if (o.interruptAtS !== undefined) clock.setTimeout(() => interrupt.trigger(), o.interruptAtS * 1000);
  const cap = new DurationCap(config.limits.maxDurationS, interrupt, () => undefined, clock);
  ctx.loadCap = cap;
  const live = await clock.run(
    runStage(
      'steps',
      (s) => store.addStage(s),
      () => runSteps(ctx, engine, 0, SIM_RTT_MS),
      clock,
    ),
  );
  cap.end();
  store.update({
    interruptedAtStep: live.interruptedAtStep,
    status: interrupt.interrupted ? 'interrupted' : 'complete',
    finishedAt: new Date(SIM_STARTED_AT_MS + clock.now()).toISOString(),
  });
  store.close();
  return { dir: store.dir, live, result: await renderOutputs(store.dir) };
}

/** A step's classification in one word list: what the live decision and the replay must agree on. */
export function classificationOf(s: StepResult): string {
  const flags = (['transient', 'generatorBound', 'contaminated', 'inconclusive', 'waitedOnTarget'] as const).filter(
    (k) => s[k] === true,
  );
  return [
    `step ${s.index + 1}#${s.attempt ?? 1}`,
    s.verdict,
    ...flags,
    ...(s.generatorLimited ? ['generator-limited'] : []),
  ].join(':');
}

export function actionOf(a: AttemptRecord): string {
  if (a.action === undefined) return 'absent';
  if (a.action === null) return 'null';
  return a.action.kind === 'rerun' ? `rerun maxVUs ${a.action.maxVUs}` : a.action.kind;
}

/** A fixture's stored run and outputs, read back. */
export interface StoredRun {
  meta: RunMeta;
  summary: RunResult;
  reportMd: string;
  /** Topology readings in probes.ndjson. */
  topologyReadings: number;
}

export function readStoredRun(dir: string): StoredRun {
  return {
    meta: JSON.parse(fs.readFileSync(path.join(dir, 'run.json'), 'utf8')) as RunMeta,
    summary: JSON.parse(fs.readFileSync(path.join(dir, 'summary.json'), 'utf8')) as RunResult,
    reportMd: fs.readFileSync(path.join(dir, 'report.md'), 'utf8'),
    topologyReadings: probeLines(dir).filter((p) => p.topology !== undefined && p.topology !== null).length,
  };
}

/** The demo's capacity the native fixture is recorded against: 2 slots x 9.5 ms = 210.5 req/s. */
export const NATIVE_DEMO = { slots: 2, holdMs: 9.5, capacityPerSec: 2000 / 9.5 };

/**
 * What each fixture's run must show; a list of problems (empty when it holds its shape). The
 * recording script refuses to write a fixture with problems, and the test checks the stored ones.
 */
export const SHAPES: Record<string, (r: StoredRun) => string[]> = {
  native: ({ meta, summary }) =>
    problems([
      [meta.engine === 'native', `engine is ${meta.engine}, not native`],
      [meta.status === 'complete', `status is ${meta.status}`],
      [
        ['preflight', 'rtt', 'warmup', 'steps'].every((n) =>
          meta.stages.some((s) => s.name === n && s.status === 'pass'),
        ),
        `stages: ${meta.stages.map((s) => `${s.name} ${s.status}`).join(', ')}`,
      ],
      [meta.target.startsWith('http://127.0.0.1:'), `target ${meta.target} is not the demo on 127.0.0.1`],
      [summary.stopReason === 'plateau', `stopReason is ${summary.stopReason}, not plateau`],
      [
        summary.capacityPerSec !== null &&
          Math.abs(summary.capacityPerSec - NATIVE_DEMO.capacityPerSec) / NATIVE_DEMO.capacityPerSec < 0.25,
        `capacityPerSec ${summary.capacityPerSec} is not within 25% of the demo's ${NATIVE_DEMO.capacityPerSec.toFixed(1)}`,
      ],
      [(meta.attempts ?? []).every((a) => a.action !== undefined), 'an attempt has no stored action'],
    ]),
  mix: ({ meta, summary }) => {
    const held = summary.steps.filter((s) => s.verdict === 'holds');
    const names = Object.keys(held[0]?.byName ?? {}).sort();
    return problems([
      [meta.engine === 'native' && meta.status === 'complete', `engine ${meta.engine}, status ${meta.status}`],
      [(meta.traffic?.entries.length ?? 0) === 3, `traffic has ${meta.traffic?.entries.length ?? 0} entries, not 3`],
      [held.length >= 2, `${held.length} steps held, not at least 2`],
      [
        names.join() === ['checkout', 'checkout: confirm', 'checkout: create', 'create order', 'read order'].join(),
        `the held steps' names are ${names.join(', ')}`,
      ],
      [held.every((s) => s.byName?.checkout?.transaction === true), 'checkout is not marked a transaction'],
      [held.every((s) => (s.requestsPerSec ?? 0) > s.completedPerSec), 'requests/s is not above arrivals/s'],
      [summary.stopReason === 'plateau', `stopReason is ${summary.stopReason}, not plateau`],
    ]);
  },
  k6: ({ meta, summary }) =>
    problems([
      [meta.engine === 'k6' && summary.engine === 'k6', `engine is ${meta.engine} / ${summary.engine}, not k6`],
      [meta.stages.length === 1 && meta.stages[0]!.detail.startsWith('imported '), 'the only stage is not the import'],
      [summary.steps.length >= 3, `${summary.steps.length} steps, want >= 3`],
      [summary.steps.some((s) => s.errorRate > 0), 'no step saw errors (the reject fixture answers 503s)'],
    ]),
  interrupted: ({ meta, summary }) =>
    problems([
      [
        meta.status === 'interrupted' && summary.interrupted,
        `status ${meta.status}, interrupted ${summary.interrupted}`,
      ],
      [summary.stopReason === 'interrupted', `stopReason is ${summary.stopReason}, not interrupted`],
      [meta.interruptedAtStep !== null, 'interruptedAtStep is null'],
      [meta.attempts?.at(-1)?.action === null, 'the last attempt (cut short) has an action'],
      [
        summary.capacityPerSec === null,
        `capacityPerSec ${summary.capacityPerSec}: an interruption before any knee establishes none`,
      ],
    ]),
  'generator-bound': ({ summary, reportMd }) =>
    problems([
      [
        summary.stopReason === 'generator-bound' && summary.generatorBound === true,
        `stopReason ${summary.stopReason}, generatorBound ${summary.generatorBound}`,
      ],
      [summary.capacityPerSec === null, `capacityPerSec is ${summary.capacityPerSec}, not null`],
      [
        typeof summary.heldAtLeastPerSec === 'number' && summary.heldAtLeastPerSec > 0,
        `heldAtLeastPerSec is ${summary.heldAtLeastPerSec}`,
      ],
      [summary.steps.some((s) => s.generatorBound && s.dropped > 0), 'no generator-bound step dropped arrivals'],
      [/not established/.test(reportMd), 'report.md does not say "not established"'],
    ]),
  contaminated: ({ meta, summary, topologyReadings }) => {
    const i = summary.steps.findIndex((s) => s.contaminated);
    const rerun = i >= 0 ? summary.steps[i + 1] : undefined;
    return problems([
      [summary.contaminated === true && i >= 0, 'no step is contaminated'],
      [
        rerun !== undefined && rerun.index === summary.steps[i]!.index && rerun.attempt === 2 && !rerun.contaminated,
        'the contaminated step is not followed by its clean rerun',
      ],
      [(meta.attempts ?? []).some((a) => a.action?.kind === 'rerun'), 'no attempt was rerun'],
      [meta.policy?.rerunContaminated === true, 'the stored policy does not rerun contaminated steps'],
      [topologyReadings > 0, 'probes.ndjson holds no topology readings'],
    ]);
  },
};

function probeLines(dir: string): { topology?: unknown }[] {
  const file = path.join(dir, 'probes.ndjson');
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { topology?: unknown });
}

function problems(checks: [ok: boolean, problem: string][]): string[] {
  return checks.filter(([ok]) => !ok).map(([, p]) => p);
}

/** A fresh directory holding only the store of `dir` (run.json, buckets.ndjson, probes.ndjson when any). */
export function copyStore(dir: string, into: string): string {
  fs.mkdirSync(into, { recursive: true });
  for (const f of STORE_FILES)
    if (fs.existsSync(path.join(dir, f))) fs.copyFileSync(path.join(dir, f), path.join(into, f));
  return into;
}

/**
 * Compares the outputs rendered into `rendered` with those stored in `stored`, byte for byte; a list
 * of problems, each naming the file and its first differing line. A chart file the fixture does
 * not keep must be, byte for byte, inside the stored report.html.
 */
export function compareOutputs(stored: string, rendered: string, label: string): string[] {
  const out: string[] = [];
  const kept = outputFiles(stored);
  const written = outputFiles(rendered);
  const read = (dir: string, f: string) => fs.readFileSync(path.join(dir, f), 'utf8');
  const cut = (line: string) => (line.length > 300 ? `${line.slice(0, 300)}…` : line);
  for (const f of kept) {
    if (!written.includes(f)) {
      out.push(`${label}/${f} is stored but the re-render wrote no such file`);
      continue;
    }
    const d = firstDifference(read(stored, f), read(rendered, f));
    if (d)
      out.push(
        `${label}/${f} differs from its re-render at line ${d.line}:\n  stored:      ${cut(d.expected)}\n  re-rendered: ${cut(d.actual)}`,
      );
  }
  const page = kept.includes('report.html') ? read(stored, 'report.html') : null;
  for (const f of written.filter((x) => !kept.includes(x))) {
    if (!isChartFile(f)) out.push(`${label}/${f} was written by the re-render but is not stored in the fixture`);
    else if (page !== null && !page.includes(read(rendered, f).trim()))
      out.push(`${label}/${f} (re-rendered) is not the chart inside the stored report.html`);
  }
  return out;
}
