/**
 * Offered vs achieved throughput per step: the ideal line (achieved = offered), each step's
 * achieved X coloured by verdict (an attempt set aside, hollow in its own colour, off the achieved
 * line, which joins only the attempts the verdicts count: theme.ts countedAttempts), the knee and the
 * capacity marked, and the USL fit's predicted peak. The fit's curve is drawn against N in the
 * USL chart: on this axis (offered rate) it would have to be drawn at each step's measured N, and
 * that zigzags with the noise of N. Labels keep apart and off the points: the capacity's below the
 * left end of its line (the steps past the knee lie along its right end), the predicted peak's
 * above the left end of its own, the knee's at the foot of its rule.
 */
import { fmtRate, stepNo } from '../../analysis/format.ts';
import type { RunResult, StepResult } from '../../analysis/types.ts';
import { fittedSpan } from '../models-text.ts';
import { rateUnit } from '../cells.ts';
import {
  BASE_CONFIG,
  COLOR,
  countedAttempts,
  HEIGHT_PX,
  pointCategory,
  verdictPoints,
  WIDTH_PX,
  type ChartSpec,
} from './theme.ts';
import { kneeResult } from '../../analysis/deciding-steps.ts';

/** The highest predicted peak drawn, as a multiple of the top offered rate: beyond, the axis would flatten the steps. */
export const PEAK_DRAWN_UP_TO = 1.5;

/**
 * What the chart marks besides its points, in the words of its labels: the knee (or the last step
 * held), the capacity (or the rate held at least) and the USL predicted peak, each where drawn. The
 * spec draws them and its text alternative (alt.ts) says them, so the two never disagree (the alt
 * said "the knee and the capacity" beside a chart of "last held" and "held at least").
 */
export interface ThroughputMarks {
  knee: { label: string; step: StepResult } | null;
  level: { label: string; perSec: number; dash: number[] } | null;
  peak: { label: string; perSec: number } | null;
}

export function throughputMarks(run: RunResult): ThroughputMarks {
  const maxRate = Math.max(1, ...run.steps.map((s) => s.ratePerSec));
  const usl = run.models?.usl ?? null;
  const knee = kneeResult(run);
  const unit = rateUnit(run);
  // a peak far above every offered rate is an extrapolation the Models section words with its
  // caveat: drawn here it stretched the axis (to 1.7e10 for a fit whose beta came out ~0) and laid
  // every step flat on zero
  const drawsPeak = usl?.peakPerSec != null && usl.nStar !== null && usl.peakPerSec <= PEAK_DRAWN_UP_TO * maxRate;
  let peak: ThroughputMarks['peak'] = null;
  if (drawsPeak) {
    const { maxN, maxX } = fittedSpan(run);
    const extrapolated =
      maxN !== null && usl!.nStar! > maxN
        ? ' (extrapolated past the measured N)'
        : maxX !== null && usl!.peakPerSec! < maxX
          ? ' (below a measured step)'
          : '';
    peak = {
      label: `USL predicted peak ${fmtRate(usl!.peakPerSec!)} ${unit}${extrapolated}`,
      perSec: usl!.peakPerSec!,
    };
  }
  // a lower bound is drawn as one, never labelled capacity
  const level =
    run.capacityPerSec !== null
      ? { label: `capacity ${fmtRate(run.capacityPerSec)} ${unit}`, perSec: run.capacityPerSec, dash: [] }
      : run.heldAtLeastPerSec != null
        ? {
            label: `held at least ${fmtRate(run.heldAtLeastPerSec)} ${unit}`,
            perSec: run.heldAtLeastPerSec,
            dash: [4, 3],
          }
        : null;
  // a knee is where the target's limit was found; without an established capacity the last held
  // step is a lower bound, not a knee (the generator, an interrupt or a changed topology ended it)
  const kneeMark = knee
    ? {
        label:
          run.capacityPerSec !== null ? `knee: step ${stepNo(knee.index)}` : `last held: step ${stepNo(knee.index)}`,
        step: knee,
      }
    : null;
  return { knee: kneeMark, level, peak };
}

export function throughputSpec(run: RunResult): ChartSpec {
  const steps = run.steps.filter((s) => s.steadyS > 0);
  const maxRate = Math.max(1, ...run.steps.map((s) => s.ratePerSec));
  // the line joins the attempts the verdicts count: one set aside is a point off it, never a dip in
  // it, nor its end (a generator-bound last step drew a flat line that read as the target's plateau)
  const counted = countedAttempts(run.steps);
  const point = (s: StepResult) => ({
    step: stepNo(s.index),
    offered: s.ratePerSec,
    achieved: s.throughputPerSec,
    verdict: pointCategory(s),
    counted: counted.has(s),
  });
  const achieved = steps.map(point);
  const line = achieved.filter((p) => p.counted);
  const unit = rateUnit(run);
  const marks = throughputMarks(run);
  const x = {
    field: 'offered',
    type: 'quantitative' as const,
    title: `offered rate (${unit})`,
    scale: { domain: [0, maxRate * 1.05] },
  };
  // the ideal over the achieved line (a wider one beneath): held steps lie on the ideal, and drawn
  // under it the ideal vanished along the whole run
  const y = { type: 'quantitative' as const, title: `successful ${unit}` };
  const layers: object[] = [
    // none where no attempt counts (a run interrupted in its first step): vega warns of an empty line
    ...(line.length === 0
      ? []
      : [
          {
            data: { values: line },
            mark: { type: 'line', color: COLOR.achieved, strokeWidth: 3 },
            encoding: { x, y: { field: 'achieved', ...y } },
          },
        ]),
    {
      data: {
        values: [
          { offered: 0, ideal: 0 },
          { offered: maxRate * 1.05, ideal: maxRate * 1.05 },
        ],
      },
      mark: { type: 'line', strokeDash: [4, 4], color: COLOR.ideal },
      encoding: { x, y: { field: 'ideal', ...y } },
    },
  ];
  if (marks.peak) layers.push(hRule(marks.peak.perSec, marks.peak.label, COLOR.model, [2, 3], 'left'));
  // below the left end of its line: the right end is where the steps past the knee lie along it
  if (marks.level)
    layers.push(hRule(marks.level.perSec, marks.level.label, COLOR.capacity, marks.level.dash, 'left', 'below'));
  if (marks.knee) layers.push(vRule(marks.knee.step.ratePerSec, marks.knee.label));
  // the points over every rule: the knee's own attempt lies on the knee's rule, and the rule hid it
  layers.push(verdictPoints(achieved, x, 'achieved'));
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: 'Offered vs achieved throughput',
      // each line named only where it is drawn: the achieved line had no word on the chart, and
      // that it joins only the attempts that count was left to the caption
      subtitle: `${line.length > 0 ? 'blue: achieved, joining the attempts that count; ' : ''}grey dashed: ideal (achieved = offered)${marks.peak ? '; orange dotted: USL predicted peak (its curve: Models)' : ''}`,
    },
    width: WIDTH_PX,
    height: HEIGHT_PX,
    config: BASE_CONFIG,
    layer: layers,
  } as ChartSpec;
}

/** A horizontal reference line with a label above (or below) its right (or left) end. */
export function hRule(
  y: number,
  label: string,
  color: string,
  dash: number[],
  end: 'left' | 'right' = 'right',
  side: 'above' | 'below' = 'above',
): object {
  const at = {
    ...(end === 'right' ? { align: 'right', x: 'width' } : { align: 'left', x: 4 }),
    ...(side === 'above' ? { dy: -6 } : { dy: 6, baseline: 'top' }),
  };
  return {
    data: { values: [{ y, label }] },
    layer: [
      {
        mark: { type: 'rule', color, strokeDash: dash, strokeWidth: 1.5 },
        encoding: { y: { field: 'y', type: 'quantitative' } },
      },
      {
        mark: { type: 'text', ...at, color, fontSize: 11 },
        encoding: { y: { field: 'y', type: 'quantitative' }, text: { field: 'label' } },
      },
    ],
  };
}

/**
 * The knee: a vertical line at its offered rate, labelled at its foot (the top is where the
 * capacity and peak labels are; below the achieved line near the knee nothing else is drawn).
 */
function vRule(offered: number, label: string): object {
  return {
    data: { values: [{ offered, label }] },
    layer: [
      {
        mark: { type: 'rule', color: COLOR.knee, strokeWidth: 1.5 },
        encoding: { x: { field: 'offered', type: 'quantitative' } },
      },
      {
        mark: {
          type: 'text',
          align: 'left',
          baseline: 'bottom',
          dx: 4,
          y: { expr: 'height - 4' },
          color: COLOR.knee,
          fontSize: 11,
        },
        encoding: { x: { field: 'offered', type: 'quantitative' }, text: { field: 'label' } },
      },
    ],
  };
}
