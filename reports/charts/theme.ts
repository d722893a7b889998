/**
 * What every chart shares: size, fonts, colours, and the vega-lite spec type. Colours are chosen
 * to stay apart for common colour-blindness (Okabe-Ito) and carry the same meaning everywhere.
 */
import type { TopLevelSpec } from 'vega-lite';
import type { StepResult, StepVerdict } from '../../analysis/types.ts';

export type ChartSpec = TopLevelSpec;

export const WIDTH_PX = 860;
export const HEIGHT_PX = 300;
export const PANEL_HEIGHT_PX = 120;

export const COLOR = {
  achieved: '#0072B2',
  offered: '#555555',
  ideal: '#999999',
  capacity: '#009E73',
  knee: '#D55E00',
  model: '#E69F00',
  failed: '#CC3311',
  dropped: '#AA3377',
  allocated: '#BBBBBB',
  steady: '#DCEBF7',
  threshold: '#555555',
  server: '#56B4E9',
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

/**
 * An attempt that is not a limit of the target is drawn apart from confirmed results: a transient
 * failure (its rerun held), a generator-bound one (the generator could not drive it) and a
 * contaminated one (the topology changed). Only categories a chart has are added to its legend.
 */
export const SET_ASIDE_COLOR = {
  transient: '#CC79A7',
  'generator-bound': '#56B4E9',
  contaminated: '#000000',
} as const;

export type PointCategory = StepVerdict | keyof typeof SET_ASIDE_COLOR;

/** The category a step's point is coloured by: its verdict unless it was set aside. */
export function pointCategory(s: StepResult): PointCategory {
  if (s.contaminated) return 'contaminated';
  if (s.transient) return 'transient';
  if (s.generatorBound) return 'generator-bound';
  return s.verdict;
}

/** The verdict scale, plus the set-aside categories present among `categories`. */
/** A layer of one point per step, coloured by its verdict (the throughput and USL charts). */
export function verdictPoints(values: readonly { verdict: string }[], x: object, yField: string): object {
  return {
    data: { values },
    mark: { type: 'point', filled: true, size: 70 },
    encoding: {
      x,
      y: { field: yField, type: 'quantitative' },
      color: {
        field: 'verdict',
        type: 'nominal',
        scale: pointScale(values.map((v) => v.verdict)),
        title: 'step verdict',
      },
    },
  };
}

export function pointScale(categories: readonly string[]): { domain: string[]; range: string[] } {
  const extra = (Object.keys(SET_ASIDE_COLOR) as (keyof typeof SET_ASIDE_COLOR)[]).filter((c) =>
    categories.includes(c),
  );
  return {
    domain: [...verdictScale.domain, ...extra],
    range: [...verdictScale.range, ...extra.map((c) => SET_ASIDE_COLOR[c])],
  };
}

/**
 * The characters a subtitle line may hold: vega sizes a chart to its widest title line, so one long
 * line widened the SVG past its plot and the page shrank the whole figure to half its size. With no
 * canvas to measure text, vega estimates 0.8 em a character (9.6 px at the subtitle's 12 px), so 90
 * keep a line within the plot's width; a browser draws them in about two thirds of it.
 */
export const SUBTITLE_CHARS = 90;

/** Subtitle lines broken at "; " (else at spaces) so that none is longer than `max` characters. */
export function wrapSubtitle(subtitle: string | readonly string[], max = SUBTITLE_CHARS): string[] {
  const out: string[] = [];
  for (const line of typeof subtitle === 'string' ? [subtitle] : subtitle) {
    let current = '';
    // clauses keep their "; " at the end of the line they close
    for (const clause of line.split(/(?<=; )/)) {
      for (const word of clause.length > max ? clause.split(/(?<= )/) : [clause]) {
        if (current.length > 0 && (current + word).trimEnd().length > max) {
          out.push(current.trimEnd());
          current = '';
        }
        current += word;
      }
    }
    out.push(current.trimEnd());
  }
  return out;
}
