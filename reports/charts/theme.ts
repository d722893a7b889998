/**
 * What every chart shares: size, fonts, colours, and the vega-lite spec type. Colours are chosen
 * to stay apart for common colour-blindness (Okabe-Ito) and carry the same meaning everywhere.
 */
import type { TopLevelSpec } from 'vega-lite';
import { decidingSteps, failedAtTarget, heldAndCounts } from '../../analysis/deciding-steps.ts';
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
  /**
   * A step whose latencies hold the generator's own delays: the generator-limited hold's orange
   * (pointScale), pale. Its points are diamonds: on the throughput chart the orange lay on the
   * knee's vermilion rule, and the latency charts' text calls the band pale orange.
   */
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

/** The widest legend label or title drawn whole, in pixels (BASE_CONFIG). */
export const LEGEND_LIMIT_PX = 400;

/** The config block of every spec: plain, readable, no interactivity (the SVG is static). */
export const BASE_CONFIG = {
  font: 'DejaVu Sans, Helvetica, Arial, sans-serif',
  background: 'white',
  view: { stroke: '#dddddd' },
  axis: { labelFontSize: 11, titleFontSize: 12, gridColor: '#eeeeee' },
  // vega cuts a legend's label past 160 px and its title past 180 px by its estimate of 0.8 em a
  // character (no canvas to measure): 'holds (generator-limited)' and 'incomplete (not judged)' were
  // cut to 'holds (generator-…'. LEGEND_LIMIT_PX is 45 characters, none of ours longer.
  legend: {
    labelFontSize: 11,
    titleFontSize: 11,
    orient: 'top' as const,
    labelLimit: LEGEND_LIMIT_PX,
    titleLimit: LEGEND_LIMIT_PX,
  },
  title: { fontSize: 14, anchor: 'start' as const },
};

/** The category of a step held with the generator over its bounds (gate: no capacity judged resting on it). */
export const GENERATOR_LIMITED = 'holds (generator-limited)';

/**
 * The attempts the verdicts count, of `steps` (analysis/deciding-steps.ts): those that held and
 * count, and those that failed at the target's hand. The others are set aside: a transient, a
 * contaminated or a generator-bound attempt, an inconclusive failure, an incomplete (interrupted)
 * step: none is a limit of the target, nor a rate it held.
 */
export function countedAttempts(steps: readonly StepResult[]): Set<StepResult> {
  return new Set(decidingSteps(steps).filter((s) => heldAndCounts(s) || failedAtTarget(s)));
}

/**
 * The colours of the attempts set aside (countedAttempts), drawn hollow and apart from those that
 * count: a transient failure (its rerun held), a generator-bound one (the generator could not drive
 * it), a contaminated one (the topology changed), an inconclusive failure (a first step, the
 * generator showing a symptom) and an incomplete step (cut short). Only categories a chart has are
 * added to its legend.
 */
export const SET_ASIDE_COLOR = {
  transient: OKABE_ITO.reddishPurple,
  'generator-bound': OKABE_ITO.skyBlue,
  contaminated: OKABE_ITO.black,
  inconclusive: VERDICT_COLOR.fails,
  incomplete: VERDICT_COLOR.incomplete,
} as const;

export type PointCategory = StepVerdict | typeof GENERATOR_LIMITED | keyof typeof SET_ASIDE_COLOR;

/** The category a step's point is coloured by: its verdict unless it was set aside or held generator-limited. */
export function pointCategory(s: StepResult): PointCategory {
  if (s.contaminated) return 'contaminated';
  if (s.transient) return 'transient';
  if (s.generatorBound) return 'generator-bound';
  if (s.inconclusive) return 'inconclusive';
  // drawn apart from a plain hold (a user read such steps as ordinary holds on the charts)
  if (s.verdict === 'holds' && s.generatorLimited !== undefined) return GENERATOR_LIMITED;
  return s.verdict;
}

/**
 * The shape and size of a counted point: a circle, but a larger diamond for a hold
 * generator-limited. Its orange (the pale bands of the latency charts are the same:
 * COLOR.generatorDelay) lay on the knee's vermilion rule as a circle of nearly its colour, the
 * knee's own attempt often being that step.
 */
export function pointShape(category: string): { shape: string; size: number } {
  return category === GENERATOR_LIMITED ? { shape: 'diamond', size: 150 } : { shape: 'circle', size: 70 };
}

/** A point of the throughput and USL charts: its category, and whether the verdicts count it. */
export interface VerdictPoint {
  verdict: string;
  counted: boolean;
}

/** A point drawn hollow this much larger than a filled one: a ring around a counted point at the same place. */
const SET_ASIDE_SIZE = 160;

/**
 * The layers of one point per step (the throughput and USL charts): the counted attempts filled,
 * coloured by verdict (the generator-limited hold a diamond), under the attempts set aside, hollow
 * and larger, in a legend of their own. One layer of filled points hid a contaminated attempt at
 * 200/s exactly under its rerun's, and read a set-aside attempt as a verdict.
 */
export function verdictPoints(values: readonly VerdictPoint[], x: object, yField: string): object {
  const y = { field: yField, type: 'quantitative' };
  const counted = values.filter((v) => v.counted);
  const aside = values.filter((v) => !v.counted);
  const scale = pointScale(counted.map((v) => v.verdict));
  const title = 'step verdict';
  // a layer with no point is left out: vega warns of its empty extent
  const layers: object[] = [];
  if (counted.length > 0)
    layers.push({
      data: { values: counted },
      mark: { type: 'point', filled: true, opacity: 1 },
      encoding: {
        x,
        y,
        color: { field: 'verdict', type: 'nominal', scale, title },
        shape: {
          field: 'verdict',
          type: 'nominal',
          scale: { domain: scale.domain, range: scale.domain.map((c) => pointShape(c).shape) },
          title,
        },
        // by condition, not a scale: vega-lite warns of a size scale on a nominal field
        size: {
          condition: {
            test: `datum.verdict === ${JSON.stringify(GENERATOR_LIMITED)}`,
            value: pointShape(GENERATOR_LIMITED).size,
          },
          value: pointShape('holds').size,
        },
      },
    });
  if (aside.length > 0) {
    const colors: Record<string, string> = { ...VERDICT_COLOR, ...SET_ASIDE_COLOR };
    const domain = [...new Set([...Object.keys(SET_ASIDE_COLOR), ...Object.keys(VERDICT_COLOR)])].filter((c) =>
      aside.some((v) => v.verdict === c),
    );
    layers.push({
      data: { values: aside },
      mark: { type: 'point', filled: false, size: SET_ASIDE_SIZE, strokeWidth: 2, opacity: 1 },
      encoding: {
        x,
        y,
        color: {
          field: 'verdict',
          type: 'nominal',
          scale: { domain, range: domain.map((c) => colors[c]) },
          title: 'set aside (not counted)',
        },
      },
    });
  }
  return { layer: layers, resolve: { scale: { color: 'independent', shape: 'independent' } } };
}

/**
 * The categories of the counted points a chart has, in a fixed order (verdicts, then the
 * generator-limited hold), each in its own colour: the legend lists only what is drawn (it listed
 * 'incomplete' and 'not-run' beside a run of held steps). `holds` and `fails` are always listed,
 * the two a reader looks for.
 */
export function pointScale(categories: readonly string[]): { domain: string[]; range: string[] } {
  const colors: Record<string, string> = { ...VERDICT_COLOR, [GENERATOR_LIMITED]: COLOR.generatorDelay };
  const always = new Set(['holds', 'fails']);
  const domain = [...Object.keys(VERDICT_COLOR), GENERATOR_LIMITED].filter(
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
