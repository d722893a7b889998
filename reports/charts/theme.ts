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

/** The Okabe-Ito palette, by name: the colours the charts draw with (besides greys and the percentiles' blues). */
export const OKABE_ITO = {
  orange: '#E69F00',
  skyBlue: '#56B4E9',
  bluishGreen: '#009E73',
  yellow: '#F0E442',
  blue: '#0072B2',
  vermilion: '#D55E00',
  reddishPurple: '#CC79A7',
  black: '#000000',
} as const;

export const COLOR = {
  achieved: '#0072B2',
  offered: '#555555',
  ideal: '#999999',
  capacity: '#009E73',
  knee: '#D55E00',
  model: '#E69F00',
  failed: '#CC3311',
  dropped: '#AA3377',
  // a ceiling, drawn thin and dashed (timeseries.ts): a grey that stays visible on the shaded windows
  allocated: '#999999',
  steady: '#DCEBF7',
  threshold: '#555555',
  server: '#56B4E9',
  /** A step whose latencies hold the generator's own delays: the generator-limited hold's orange, pale. */
  generatorDelay: '#E69F00',
} as const;

export const VERDICT_COLOR: Record<StepVerdict, string> = {
  holds: '#009E73',
  fails: '#CC3311',
  incomplete: '#999999',
  'not-run': '#DDDDDD',
};

/**
 * Percentile colours, p50 light to p99.9 dark: blues to p99, p99.9 near-black (a darker blue read
 * as p99's: a user could not tell the two lines apart).
 */
export const PERCENTILE_COLOR = ['#9ECAE1', '#4292C6', '#08519C', '#252525'];

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
 * An attempt that is not a limit of the target is drawn apart from confirmed results: a step that
 * held with the generator over its bounds, a transient failure (its rerun held), a generator-bound
 * one (the generator could not drive it) and a contaminated one (the topology changed). Only categories a chart has are added to its legend.
 */
export const SET_ASIDE_COLOR = {
  // held, but with the generator over its bounds: the gate judges no capacity resting on it
  'holds (generator-limited)': '#E69F00',
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
  // drawn apart from a plain hold (a user read such steps as ordinary holds on the charts)
  if (s.verdict === 'holds' && s.generatorLimited !== undefined) return 'holds (generator-limited)';
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

/**
 * The point categories a chart has, in a fixed order (verdicts, then the set-aside ones), each in
 * its own colour: the legend lists only what is drawn (it listed 'incomplete' and 'not-run' beside
 * a run of held steps). `holds` and `fails` are always listed, the two a reader looks for.
 */
export function pointScale(categories: readonly string[]): { domain: string[]; range: string[] } {
  const colors: Record<string, string> = { ...VERDICT_COLOR, ...SET_ASIDE_COLOR };
  const always = new Set(['holds', 'fails']);
  const domain = [...verdictScale.domain, ...Object.keys(SET_ASIDE_COLOR)].filter(
    (c) => always.has(c) || categories.includes(c),
  );
  return { domain, range: domain.map((c) => colors[c]) };
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
