/**
 * Offered vs achieved throughput per step: the ideal line (achieved = offered), each step's
 * achieved X coloured by verdict (a transient, generator-bound or contaminated attempt in its own
 * colour, off the achieved line, which joins only the attempts that decide), the knee and the capacity marked, and the USL model's X at each
 * step's measured concurrency (dashed) with its predicted peak.
 */
import { fmtRate, stepNo } from '../../analysis/format.ts';
import { uslThroughput } from '../../analysis/models/usl.ts';
import type { RunResult, StepResult } from '../../analysis/types.ts';
import { BASE_CONFIG, COLOR, HEIGHT_PX, pointCategory, pointScale, WIDTH_PX, type ChartSpec } from './theme.ts';
import { decidingSteps, kneeResult } from '../../analysis/stop.ts';

export function throughputSpec(run: RunResult): ChartSpec {
  const steps = run.steps.filter((s) => s.steadyS > 0);
  const maxRate = Math.max(1, ...run.steps.map((s) => s.ratePerSec));
  const point = (s: StepResult) => ({
    step: stepNo(s.index),
    offered: s.ratePerSec,
    achieved: s.throughputPerSec,
    verdict: pointCategory(s),
  });
  const achieved = steps.map(point);
  // the line joins the attempts that decide: a transient or contaminated one is a point beside it, never a dip in it
  const deciding = new Set(decidingSteps(run.steps));
  const line = steps.filter((s) => deciding.has(s)).map(point);
  const usl = run.models?.usl ?? null;
  const modelled =
    usl === null
      ? []
      : (run.models?.little ?? []).map((r) => ({ offered: r.ratePerSec, model: uslThroughput(usl, r.concurrency) }));
  const knee = kneeResult(run);
  const x = {
    field: 'offered',
    type: 'quantitative' as const,
    title: 'offered rate (req/s)',
    scale: { domain: [0, maxRate * 1.05] },
  };
  const layers: object[] = [
    {
      data: {
        values: [
          { offered: 0, ideal: 0 },
          { offered: maxRate * 1.05, ideal: maxRate * 1.05 },
        ],
      },
      mark: { type: 'line', strokeDash: [4, 4], color: COLOR.ideal },
      encoding: { x, y: { field: 'ideal', type: 'quantitative', title: 'successful req/s' } },
    },
    {
      data: { values: line },
      mark: { type: 'line', color: COLOR.achieved },
      encoding: { x, y: { field: 'achieved', type: 'quantitative' } },
    },
    {
      data: { values: achieved },
      mark: { type: 'point', filled: true, size: 70 },
      encoding: {
        x,
        y: { field: 'achieved', type: 'quantitative' },
        color: {
          field: 'verdict',
          type: 'nominal',
          scale: pointScale(achieved.map((a) => a.verdict)),
          title: 'step verdict',
        },
      },
    },
  ];
  if (modelled.length > 1) {
    layers.push({
      data: { values: modelled },
      mark: { type: 'line', strokeDash: [6, 3], color: COLOR.model },
      encoding: { x, y: { field: 'model', type: 'quantitative' } },
    });
  }
  if (usl?.peakPerSec != null)
    layers.push(hRule(usl.peakPerSec, `USL predicted peak ${fmtRate(usl.peakPerSec)}`, COLOR.model, [2, 3]));
  if (run.capacityPerSec !== null)
    layers.push(hRule(run.capacityPerSec, `capacity ${fmtRate(run.capacityPerSec)} req/s`, COLOR.capacity, []));
  // a lower bound is drawn as one, never labelled capacity
  else if (run.heldAtLeastPerSec != null)
    layers.push(
      hRule(run.heldAtLeastPerSec, `held at least ${fmtRate(run.heldAtLeastPerSec)} req/s`, COLOR.capacity, [4, 3]),
    );
  if (knee) layers.push(vRule(knee.ratePerSec, `knee: step ${stepNo(knee.index)}`));
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: 'Offered vs achieved throughput',
      subtitle: "grey dashed: ideal (achieved = offered); orange dashed: USL model at each step's concurrency",
    },
    width: WIDTH_PX,
    height: HEIGHT_PX,
    config: BASE_CONFIG,
    layer: layers,
  } as ChartSpec;
}

/** A horizontal reference line with a label at its right end. */
export function hRule(y: number, label: string, color: string, dash: number[]): object {
  return {
    data: { values: [{ y, label }] },
    layer: [
      {
        mark: { type: 'rule', color, strokeDash: dash, strokeWidth: 1.5 },
        encoding: { y: { field: 'y', type: 'quantitative' } },
      },
      {
        mark: { type: 'text', align: 'right', dy: -6, x: 'width', color, fontSize: 11 },
        encoding: { y: { field: 'y', type: 'quantitative' }, text: { field: 'label' } },
      },
    ],
  };
}

/** The knee: a vertical line at its offered rate, labelled at the top. */
function vRule(offered: number, label: string): object {
  return {
    data: { values: [{ offered, label }] },
    layer: [
      {
        mark: { type: 'rule', color: COLOR.knee, strokeWidth: 1.5 },
        encoding: { x: { field: 'offered', type: 'quantitative' } },
      },
      {
        mark: { type: 'text', align: 'left', dx: 4, y: 8, color: COLOR.knee, fontSize: 11 },
        encoding: { x: { field: 'offered', type: 'quantitative' }, text: { field: 'label' } },
      },
    ],
  };
}
