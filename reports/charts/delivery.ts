/**
 * Delivery (X / offered) and capture (gain / rate added) per step, each against its threshold:
 * the two numbers the stop rule reads, drawn as bars coloured by whether they pass.
 */
import type { RunResult, StepResult } from '../../analysis/types.ts';
import { BASE_CONFIG, COLOR, WIDTH_PX, type ChartSpec } from './theme.ts';
import { stepLabel, stepLabelsAxis } from './latency.ts';

const PASS = 'meets threshold';
const FAIL = 'below threshold';
/** A step cut short (interrupted, ended early): its figures cover part of its window, never a failure to judge. */
const INCOMPLETE = 'incomplete (not judged)';

/**
 * The verdicts' colours, one scale for both panels (vconcat shares it): grey only where a step was
 * cut short, in either panel. Decided per panel, a step cut short in step 1 (a delivery, no
 * capture) gave two domains, which vega reconciled with a warning on the run's terminal.
 */
function statusScale(incomplete: boolean): object {
  return incomplete
    ? { domain: [PASS, FAIL, INCOMPLETE], range: ['#009E73', '#CC3311', '#BBBBBB'] }
    : { domain: [PASS, FAIL], range: ['#009E73', '#CC3311'] };
}

function panel(
  title: string,
  order: string[],
  values: { step: string; value: number; status: string }[],
  threshold: number,
  scale: object,
): object {
  const x = {
    field: 'step',
    type: 'ordinal',
    title: 'step · offered rate',
    sort: order,
    axis: stepLabelsAxis(order, WIDTH_PX),
  };
  const maxY = Math.max(1.1, ...values.map((v) => v.value));
  const minY = Math.min(0, ...values.map((v) => v.value));
  return {
    // the threshold named in the title: a label at either end of its rule lay on the bars, which reach past it
    title: `${title} (dashed: threshold ${threshold.toFixed(2)})`,
    width: WIDTH_PX,
    height: 150,
    layer: [
      {
        data: { values },
        mark: { type: 'bar', width: { band: 0.6 } },
        encoding: {
          x,
          y: { field: 'value', type: 'quantitative', title: null, scale: { domain: [minY, maxY] } },
          color: {
            field: 'status',
            type: 'nominal',
            title: null,
            scale,
          },
        },
      },
      {
        data: { values: [{ t: threshold }] },
        mark: { type: 'rule', color: COLOR.threshold, strokeDash: [5, 3], strokeWidth: 1.5 },
        encoding: { y: { field: 't', type: 'quantitative' } },
      },
    ],
  };
}

function statusOf(s: StepResult, value: number, threshold: number): string {
  if (s.verdict === 'incomplete') return INCOMPLETE;
  return value >= threshold ? PASS : FAIL;
}

export function deliverySpec(run: RunResult): ChartSpec {
  const withData = run.steps.filter((s) => s.steadyS > 0);
  const { deliveryMin, captureMin } = run.rules;
  const order = withData.map((s) => stepLabel(s.index, s.ratePerSec, s.attempt));
  const delivery = withData.map((s) => ({
    step: stepLabel(s.index, s.ratePerSec, s.attempt),
    value: s.delivery,
    status: statusOf(s, s.delivery, deliveryMin),
  }));
  const capture = withData
    .filter((s) => s.capture !== null)
    .map((s) => ({
      step: stepLabel(s.index, s.ratePerSec, s.attempt),
      value: s.capture as number,
      status: statusOf(s, s.capture as number, captureMin),
    }));
  const scale = statusScale(withData.some((s) => s.verdict === 'incomplete'));
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: 'Delivery and capture per step',
      subtitle: 'delivery = achieved / offered; capture = throughput gained / rate added (from step 2)',
    },
    config: BASE_CONFIG,
    vconcat: [
      panel('delivery', order, delivery, deliveryMin, scale),
      panel('capture', order, capture, captureMin, scale),
    ],
    resolve: { scale: { x: 'shared' } },
  } as ChartSpec;
}
