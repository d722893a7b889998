/**
 * What every chart shares: size, fonts, colours, and the vega-lite spec type. Colours are chosen
 * to stay apart for common colour-blindness (Okabe-Ito) and carry the same meaning everywhere.
 */
import type { TopLevelSpec } from 'vega-lite';
import type { StepVerdict } from '../../analysis/types.ts';

export type ChartSpec = TopLevelSpec;

export const WIDTH_PX = 860;
export const HEIGHT_PX = 300;
export const PANEL_HEIGHT_PX = 120;

export const COLOR = {
  achieved: '#0072B2',
  ideal: '#999999',
  capacity: '#009E73',
  knee: '#D55E00',
  model: '#E69F00',
  failed: '#CC3311',
  dropped: '#AA3377',
  allocated: '#BBBBBB',
  steady: '#DCEBF7',
  threshold: '#555555',
} as const;

export const VERDICT_COLOR: Record<StepVerdict, string> = {
  holds: '#009E73',
  fails: '#CC3311',
  incomplete: '#999999',
  'not-run': '#DDDDDD',
};

/** Percentile colours, p50 light to p99.9 dark. */
export const PERCENTILE_COLOR = ['#9ECAE1', '#4292C6', '#08519C', '#08306B'];

/** The config block of every spec: plain, readable, no interactivity (the SVG is static). */
export const BASE_CONFIG = {
  font: 'DejaVu Sans, Helvetica, Arial, sans-serif',
  background: 'white',
  view: { stroke: '#dddddd' },
  axis: { labelFontSize: 11, titleFontSize: 12, gridColor: '#eeeeee' },
  legend: { labelFontSize: 11, titleFontSize: 11, orient: 'top' as const },
  title: { fontSize: 14, anchor: 'start' as const },
};

export const verdictScale = {
  domain: Object.keys(VERDICT_COLOR),
  range: Object.values(VERDICT_COLOR),
};
