/** The headline never overstates: a capacity only where a step failed at the target past the knee, in every output. */
import { describe, expect, it } from 'vitest';
import { analyzeRun } from '../analysis/analyze.ts';
import { buildInput, fakeRun, followingSteps, withAttempts } from '../analysis/testing/builders.ts';
import type { RunResult } from '../analysis/types.ts';
import { gateCapacity } from '../analysis/gate/decide.ts';
import { unjudgeableReasons } from '../analysis/gate/judgeable.ts';
import { renderHtml } from './html.ts';
import { renderMarkdown } from './markdown.ts';
import { renderSummaryJson } from './summary-json.ts';
import { consoleLine, renderPlateauTable } from './table.ts';

/** The headline as report.md, report.html, the terminal table and summary.json give it. */
function headlines(run: RunResult) {
  const summary = JSON.parse(renderSummaryJson(run)) as RunResult;
  return {
    md: /\*\*Capacity: (.*)\*\*/.exec(renderMarkdown(run))?.[1],
    html: /<p class="capacity">Capacity: <strong>(.*?)<\/strong><\/p>/.exec(renderHtml(run, []))?.[1],
    table: /^capacity {2}(.*); peak /m.exec(renderPlateauTable(run))?.[1],
    capacityPerSec: summary.capacityPerSec,
    heldAtLeastPerSec: summary.heldAtLeastPerSec,
  };
}

describe('the capacity headline', () => {
  it('a plateau: the capacity, in every output', () => {
    const h = headlines(
      fakeRun({
        steps: [
          { ratePerSec: 100 },
          { ratePerSec: 200 },
          { ratePerSec: 300, okPerSec: 210 },
          { ratePerSec: 300, okPerSec: 205 },
        ],
      }),
    );
    expect(h).toEqual({
      md: '200.0 req/s (step 2)',
      html: '200.0 req/s (step 2)',
      table: '200.0 req/s (step 2)',
      capacityPerSec: 200,
      heldAtLeastPerSec: 200,
    });
  });

  it('generator-bound: not established, with what held and why', () => {
    const input = buildInput({
      steps: [
        { ratePerSec: 100 },
        { ratePerSec: 200 },
        { ratePerSec: 300, okPerSec: 230, droppedPerSec: 40 },
        { ratePerSec: 300, okPerSec: 240, droppedPerSec: 30 },
      ],
    });
    const run = analyzeRun({
      ...withAttempts(input, { 3: { index: 2 } }),
      policy: {
        rules: input.rules,
        bounds: { lagP99MaxMs: 20, loopDelayMaxMs: 100, generatorBusyMax: 0.9, tailFactor: 3 },
        confirmFailedStep: true,
        rerunContaminated: false,
        maxVUsBound: 200,
      },
    });
    const text = 'not established (at least 200.0 req/s held; the load generator could not drive step 3)';
    expect(headlines(run)).toEqual({ md: text, html: text, table: text, capacityPerSec: null, heldAtLeastPerSec: 200 });
  });

  it('every planned step held: at least, never the capacity', () => {
    const text = 'at least 500.0 req/s (every planned step held; raise the top rate)';
    expect(headlines(fakeRun({ steps: followingSteps(5) }))).toEqual({
      md: text,
      html: text,
      table: text,
      capacityPerSec: null,
      heldAtLeastPerSec: 500,
    });
  });

  it('interrupted before a limit was confirmed: not established', () => {
    const h = headlines(fakeRun({ steps: followingSteps(5), stopAtS: 92, interrupted: true }));
    expect(h.md).toBe(
      'not established (at least 200.0 req/s held; the run was interrupted before its limit was confirmed)',
    );
    expect(h).toMatchObject({ capacityPerSec: null, heldAtLeastPerSec: 200 });
  });

  it('a closed-model k6 import (its VUs set the load): not established, though a step failed past the knee, and the gate cannot judge it', () => {
    const steps = [
      { ratePerSec: 100 },
      { ratePerSec: 200 },
      { ratePerSec: 300, okPerSec: 210 },
      { ratePerSec: 300, okPerSec: 205 },
    ];
    const run = analyzeRun({ ...buildInput({ steps }), closedModel: true });
    const text =
      'not established (at least 200.0 req/s held; a closed-model k6 run: its VUs set the load, no rate was offered)';
    expect(headlines(run)).toEqual({ md: text, html: text, table: text, capacityPerSec: null, heldAtLeastPerSec: 200 });
    expect(run.stopReason).toBe('closed-model');
    expect(unjudgeableReasons(run)).toEqual([
      expect.stringMatching(/^closed model: a closed-model k6 run .*capacity not established \(200\.0 req\/s held\)/),
    ]);
    // the same steps of an open run: the capacity
    expect(analyzeRun(buildInput({ steps })).capacityPerSec).toBe(200);
  });

  it('a closed-model k6 import whose every step held: not "at least", not a lower bound the gate takes', () => {
    const run = analyzeRun({ ...buildInput({ steps: followingSteps(5) }), closedModel: true });
    expect(headlines(run)).toMatchObject({
      md: 'not established (at least 500.0 req/s held; a closed-model k6 run: its VUs set the load, no rate was offered)',
      capacityPerSec: null,
    });
    expect(gateCapacity(run)).toBeNull();
  });

  it('no step held: not established', () => {
    expect(headlines(fakeRun({ steps: [{ ratePerSec: 100, okPerSec: 40 }] }))).toMatchObject({
      md: 'not established: no step held',
      capacityPerSec: null,
      heldAtLeastPerSec: null,
    });
  });
});

describe('the console cuts no sentence without saying where the rest is', () => {
  const long = `${'a word '.repeat(80)}the end of it.`;
  it('a long stop detail ends its cut with the section of report.md that holds it whole', () => {
    const run = { ...fakeRun({ steps: followingSteps(2) }), stopDetail: long };
    const stop = /^stop {6}.*$/m.exec(renderPlateauTable(run))![0];
    expect(stop).toMatch(/ a(?: word)?… \(the rest in report\.md, Stop reason\)$/);
    expect(stop.length).toBeLessThanOrEqual('stop      '.length + `${run.stopReason}: `.length + 400);
  });
  it('a short one is left whole', () => {
    expect(consoleLine('held: fine', 400, 'Stop reason')).toBe('held: fine');
  });
});
