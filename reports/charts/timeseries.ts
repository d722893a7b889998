/**
 * The run second by second (the "steps" phase, on its own clock): throughput and errors beside
 * the offered rate, dropped iterations, VUs, per-second p99, the server's own requests per second
 * and any server-side gauges, one panel each on a shared time axis, with every step's steady
 * window shaded so the judged seconds stand out from the ramps. The offered rate is each attempt's
 * target rate over its steady window (the run stores the windows, not the ramps' seconds), so
 * achieved can be read against it.
 */
import { hasNames } from '../../analysis/compare/by-name.ts';
import { stepNo } from '../../analysis/format.ts';
import { STEPS_PHASE } from '../../analysis/phases.ts';
import { SERVER_RATE_GAUGE } from '../../analysis/series.ts';
import type { RunResult, SeriesPoint } from '../../analysis/types.ts';
import { BASE_CONFIG, COLOR, OKABE_ITO, PANEL_HEIGHT_PX, WIDTH_PX, type ChartSpec } from './theme.ts';

interface Row {
  tS: number;
  series: string;
  /** null: no second was recorded here (the pause before a rerun); the line breaks instead of joining across it. */
  value: number | null;
}

/** Where the step numbers are drawn: this many pixels below the panel's top edge. */
const LABEL_Y_PX = 6;
/**
 * The labelled panel's y axis reaches this far above its largest value, so that no line is drawn
 * in the band of the step numbers (its top LABEL_Y_PX x 2 of PANEL_HEIGHT_PX, with room to spare).
 */
export const LABEL_HEADROOM = 1.2;

/**
 * The steady windows, shaded, each cut at `endS` (the data's end): an interrupted step's window was
 * shaded to its planned end, seconds past the interruption that no line reaches.
 */
function shading(run: RunResult, withLabels: boolean, endS: number): object {
  // a rerun's window is numbered as the report's tables number it: "17 (2)" for attempt 2 of step 17
  const windows = run.steps
    .filter((s) => s.steadyStartS < endS)
    .map((s) => ({
      from: s.steadyStartS,
      to: Math.min(s.steadyEndS, endS),
      label: `${stepNo(s.index)}${(s.attempt ?? 1) > 1 ? ` (${s.attempt})` : ''}`,
    }));
  const rect = {
    mark: { type: 'rect', color: COLOR.steady, opacity: 0.7 },
    encoding: { x: { field: 'from', type: 'quantitative' }, x2: { field: 'to' } },
  };
  const text = {
    mark: { type: 'text', y: LABEL_Y_PX, fontSize: 10, color: '#3A6EA5' },
    encoding: { x: { field: 'from', type: 'quantitative' }, text: { field: 'label' } },
  };
  return { data: { values: windows }, layer: withLabels ? [rect, text] : [rect] };
}

/** The series name of the offered rate in the first panel's legend. */
export const OFFERED = 'offered';

/**
 * The offered rate second by second (arrivals started or dropped in it: the schedule as the
 * generator offered it, ramps and reruns included), a dashed line coloured as `OFFERED` in the
 * panel's own colour scale (whose legend lists it: this layer adds none), broken at a pause.
 * Older stores' points have no `offered`: no line.
 */
function offeredLayer(
  points: readonly SeriesPoint[],
  colors: Record<string, string>,
): { data: { values: Row[] }; [key: string]: unknown } {
  const rows = points.some((p) => p.offered !== undefined)
    ? rowsOf(points, { [OFFERED]: (p) => p.offered ?? null })
    : [];
  return {
    data: { values: rows },
    mark: { type: 'line', strokeDash: [5, 3], strokeWidth: 1.5, interpolate: 'step-after' },
    encoding: {
      x: { field: 'tS', type: 'quantitative' },
      y: { field: 'value', type: 'quantitative' },
      color: {
        field: 'series',
        type: 'nominal',
        scale: { domain: Object.keys(colors), range: Object.values(colors) },
        legend: null,
      },
    },
  };
}

/** The dash of a ceiling's line (allocated VUs, a pool's max); the series under it are solid. */
export const CEILING_DASH = [4, 3];

/**
 * One panel: shaded steady windows behind one line per series (and `extra` layers over them). A
 * `ceiling` series (allocated VUs, a pool's max) is drawn thin and dashed beneath the others: drawn
 * with them, the active line vanished under it exactly when every VU (every connection) was busy,
 * the moment the panel is read for; now "all busy" is the solid line lying on the dashed one.
 */
function panel(
  run: RunResult,
  title: string,
  rows: Row[],
  colors: Record<string, string>,
  opts: {
    log?: boolean;
    symlog?: boolean;
    /** Number the steady windows at the top, above the largest value (`top`, with the extra layers'). */
    labels?: { top: number };
    maxS: number;
    extra?: object[];
    /** step-before for a value that covers the time up to its stamp (a rate between two readings). */
    interpolate?: 'step-after' | 'step-before';
    /** The series that are a ceiling of the others. */
    ceilings?: readonly string[];
    /** The values are counts (requests, iterations, VUs): whole numbers on the axis. */
    counts?: boolean;
  },
): object {
  // not rounded past the data's end (vega's nice drew up to 4 s beyond it)
  const x = {
    field: 'tS',
    type: 'quantitative',
    title: 'seconds since load start',
    scale: { domain: [0, opts.maxS], nice: false },
    // a value a second: a short run's axis read 0.0, 0.1 ... 2.0, a resolution the data has not
    axis: { format: 'd', tickMinStep: 1 },
  };
  const ceilings = new Set(opts.ceilings ?? []);
  const ceilingRows = rows.filter((r) => ceilings.has(r.series));
  const scale = opts.log ? { scale: { type: 'log' } } : opts.symlog ? symlogAxis(rows, ceilingRows) : {};
  const headroom = opts.labels === undefined ? {} : { scale: { domainMax: opts.labels.top * LABEL_HEADROOM } };
  // a count's axis in whole numbers; all zero (no dropped iteration), the zero line at the foot of
  // 0 to 1: vega's domain of [0, 0] drew it mid-panel, labelled "0.000000"
  const zero = rows.every((r) => r.value === null || r.value === 0);
  const counts = !opts.counts
    ? {}
    : {
        axis: { format: ',d', tickMinStep: 1 },
        ...(zero && opts.labels === undefined ? { scale: { domain: [0, 1] } } : {}),
      };
  const y = { field: 'value', type: 'quantitative', title: null, ...scale, ...headroom, ...counts };
  const color = {
    field: 'series',
    type: 'nominal',
    title: null,
    scale: { domain: Object.keys(colors), range: Object.values(colors) },
  };
  // the legend draws a ceiling dashed too (one legend: vega-lite merges the channels of one field)
  const dash =
    ceilingRows.length === 0
      ? {}
      : {
          strokeDash: {
            field: 'series',
            type: 'nominal',
            title: null,
            scale: {
              domain: Object.keys(colors),
              range: Object.keys(colors).map((name) => (ceilings.has(name) ? CEILING_DASH : [1, 0])),
            },
          },
        };
  // the ceiling's layer adds no legend: the others' lists every series, the ceiling dashed
  const line = (values: Row[], strokeWidth: number, legend: boolean) => ({
    data: { values },
    mark: { type: 'line', strokeWidth, interpolate: opts.interpolate ?? 'step-after' },
    encoding: legend
      ? { x, y, color, ...dash }
      : {
          x,
          y,
          color: { ...color, legend: null },
          ...('strokeDash' in dash ? { strokeDash: { ...dash.strokeDash, legend: null } } : {}),
        },
  });
  return {
    title: { text: title, fontSize: 12 },
    width: WIDTH_PX,
    height: PANEL_HEIGHT_PX,
    layer: [
      shading(run, opts.labels !== undefined, opts.maxS),
      ...(ceilingRows.length === 0 ? [] : [line(ceilingRows, 1, false)]),
      line(
        rows.filter((r) => !ceilings.has(r.series)),
        1.2,
        true,
      ),
      ...(opts.extra ?? []),
    ],
    resolve: { scale: { color: 'independent', strokeDash: 'independent' } },
  };
}

/**
 * The least distance between two tick labels of a symlog panel, in pixels: vega hides a label
 * within about its height (11 px) of the one before, and it hid the 2 of a pool's 2 connections
 * under the 1 on an axis up to 500.
 */
export const TICK_GAP_PX = 12;

/** vega's symlog transform (constant 1). */
const symlog = (v: number) => Math.sign(v) * Math.log1p(Math.abs(v));

/**
 * The y ticks of a symlog panel, its domain not rounded (nice: false) so that the ticks' pixels are
 * known here: the values of `keep` first (a ceiling's: a pool's max of 4 lies between 2 and 5 and
 * was read off neither), then 0, then ±1, 2, 5 x 10^k within the rows' range (vega's own ticks
 * leave out the small values), each only where it keeps TICK_GAP_PX from every tick already taken,
 * so that vega hides none. null (vega's own ticks) when the values are all under 1 (a ratio) or
 * not finite.
 */
export function symlogTicks(
  rows: readonly Row[],
  keep: readonly number[] = [],
  heightPx = PANEL_HEIGHT_PX,
): number[] | null {
  const values = rows.map((r) => r.value).filter((v): v is number => v !== null);
  const max = values.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
  if (!Number.isFinite(max) || max < 1) return null;
  const least = values.reduce((m, v) => Math.min(m, v), 0);
  const most = values.reduce((m, v) => Math.max(m, v), 0);
  const steps: number[] = [];
  for (let k = 1; k <= max; k *= 10) steps.push(k, 2 * k, 5 * k);
  // only those inside the domain: vega draws no other
  const candidates = steps.flatMap((v) => [v, -v]).filter((v) => v >= least && v <= most);
  const [lo, hi] = [symlog(least), symlog(most)];
  const px = (v: number) => (heightPx * (symlog(v) - lo)) / (hi - lo);
  const taken: number[] = [];
  for (const v of [...keep, 0, ...candidates])
    if (!taken.includes(v) && taken.every((t) => Math.abs(px(t) - px(v)) >= TICK_GAP_PX)) taken.push(v);
  return taken.sort((a, b) => a - b);
}

/**
 * The y axis of a symlog panel: symlogTicks' values, a ceiling's own value kept among them (at most
 * three of them: a ceiling that moved more often is read off the others), or vega's own.
 */
function symlogAxis(rows: readonly Row[], ceilingRows: readonly Row[]): object {
  const levels = [...new Set(ceilingRows.map((r) => r.value).filter((v): v is number => v !== null && v >= 1))];
  const values = symlogTicks(rows, levels.length <= 3 ? levels : [Math.max(...levels)]);
  return values === null
    ? { scale: { type: 'symlog' } }
    : {
        scale: { type: 'symlog', nice: false },
        // each tick as itself: vega's own format wrote a topology's 1 and 2 as "1.0" and "2.0", and
        // with a format of ours (a log-like scale's tick format) 50 as "5e+1"
        axis: { values, labelOverlap: false, labelExpr: "format(datum.value, ',~g')" },
      };
}

function rowsOf(points: readonly SeriesPoint[], pick: Record<string, (p: SeriesPoint) => number | null>): Row[] {
  return withEnds(
    withBreaks(
      points.flatMap((p) =>
        Object.entries(pick).flatMap(([series, f]) => {
          const value = f(p);
          return value === null ? [] : [{ tS: p.tS, series, value }];
        }),
      ),
      new Set(points.map((p) => p.tS)),
    ),
  );
}

/**
 * Each series' last value held to the end of its second, as withBreaks holds one before a pause: a
 * step-after line ended at the start of its last second, a second short of the axis and of a
 * steady window cut there (an interrupted step's).
 */
export function withEnds(rows: readonly Row[]): Row[] {
  const last = new Map<string, Row>();
  for (const r of rows) if (r.value !== null) last.set(r.series, r);
  return [...rows, ...[...last.values()].map((r) => ({ ...r, tS: r.tS + 1 }))];
}

/**
 * Each series' rows, broken at a pause: where the first second after a row that was not recorded
 * (`recorded`: the seconds with a point) comes before the series' next row, the row's value is
 * held to that second and a null follows, at which Vega-Lite breaks the line. Without it a
 * step-after line holds the value across the pause, drawing a rate nothing sent. A series with no
 * value in recorded seconds (a p99 in seconds without successes) is held across them, as before.
 */
export function withBreaks(rows: readonly Row[], recorded: ReadonlySet<number>): Row[] {
  const bySeries = new Map<string, Row[]>();
  for (const r of rows) {
    const list = bySeries.get(r.series) ?? [];
    list.push(r);
    bySeries.set(r.series, list);
  }
  const next = new Map<Row, Row>();
  for (const list of bySeries.values()) for (let i = 0; i + 1 < list.length; i++) next.set(list[i], list[i + 1]);
  return rows.flatMap((r) => {
    const after = next.get(r);
    if (after === undefined) return [r];
    let gap = r.tS + 1;
    while (gap < after.tS && recorded.has(gap)) gap++;
    return gap < after.tS ? [r, { ...r, tS: gap }, { tS: gap, series: r.series, value: null }] : [r];
  });
}

/** The gauge of a pool's size (analysis/series.ts namedValues): the ceiling of its active connections. */
export const POOL_MAX = 'pool max';

/**
 * The gauges' colours: a pool's active and max as the VUs' active and allocated (the same reading:
 * busy against the ceiling), the rest in turn from the Okabe-Ito colours (vega's own scheme is not
 * one a colour-blind reader tells apart).
 */
export function gaugeColors(gauges: readonly { name: string }[]): Record<string, string> {
  const known: Record<string, string> = {
    'pool active': COLOR.achieved,
    [POOL_MAX]: COLOR.allocated,
    'pool pending': COLOR.dropped,
  };
  let next = 0;
  return Object.fromEntries(gauges.map((g) => [g.name, known[g.name] ?? GAUGE_COLORS[next++ % GAUGE_COLORS.length]]));
}

/** The Okabe-Ito colours for the other gauges: the pool's and the steps' blues left out. */
const GAUGE_COLORS = [
  OKABE_ITO.orange,
  OKABE_ITO.bluishGreen,
  OKABE_ITO.reddishPurple,
  OKABE_ITO.vermilion,
  OKABE_ITO.black,
];

export function timeseriesSpec(run: RunResult): ChartSpec {
  // the steps' seconds only: the warmup runs on a clock of its own
  const points = (run.series ?? []).filter((p) => p.phase === STEPS_PHASE);
  // the axis ends where the data does: past an interruption no second was recorded
  const maxS =
    points.length > 0
      ? points.reduce((m, p) => Math.max(m, p.tS + 1), 1)
      : Math.max(1, ...run.steps.map((s) => s.steadyEndS));
  const o = { maxS };
  // with a mix, the series count arrivals (a transaction is one), as the steps do
  const unit = hasNames(run) ? 'arrivals' : 'requests';
  const throughputColors = { successful: COLOR.achieved, failed: COLOR.failed, [OFFERED]: COLOR.offered };
  const throughput = rowsOf(points, { successful: (p) => p.ok, failed: (p) => p.failed });
  const offered = offeredLayer(points, throughputColors);
  // the step numbers above every line: before, a run near its top rate drew its throughput over them
  const top = Math.max(1, ...[...throughput, ...offered.data.values].map((r) => r.value ?? 0));
  const panels: object[] = [
    panel(
      run,
      `${unit} per second (shaded: steady windows, numbered by step; dashed: offered)`,
      throughput,
      throughputColors,
      {
        ...o,
        labels: { top },
        extra: [offered],
        counts: true,
      },
    ),
    panel(
      run,
      'dropped iterations per second (no free VU)',
      rowsOf(points, { dropped: (p) => p.dropped }),
      { dropped: COLOR.dropped },
      { ...o, counts: true },
    ),
    panel(
      run,
      'VUs',
      rowsOf(points, { active: (p) => p.vusActive, allocated: (p) => p.vusAllocated }),
      { active: COLOR.achieved, allocated: COLOR.allocated },
      { ...o, ceilings: ['allocated'], counts: true },
    ),
    panel(
      run,
      'p99 latency per second (ms, log scale)',
      rowsOf(points, { p99: (p) => (p.p99Ms !== null && p.p99Ms > 0 ? p.p99Ms : null) }),
      { p99: '#08519C' },
      { ...o, log: true },
    ),
  ];
  // the server's own req/s on a panel of its own: beside it, a pool's few connections lay flat on the axis
  const gauges = (run.gauges ?? []).filter((g) => g.points.length > 0);
  const gaugeRows = (gs: typeof gauges) =>
    gs.flatMap((g) => g.points.map((p) => ({ tS: p.tS, series: g.name, value: p.value })));
  const rate = gauges.filter((g) => g.name === SERVER_RATE_GAUGE);
  const others = gauges.filter((g) => g.name !== SERVER_RATE_GAUGE);
  if (rate.length > 0)
    panels.push(
      panel(
        run,
        "the server's own requests per second (its metrics)",
        gaugeRows(rate),
        { [SERVER_RATE_GAUGE]: COLOR.server },
        // each rate covers the time since the reading before it (gaugesOf stamps it at its end)
        { ...o, interpolate: 'step-before' },
      ),
    );
  // symlog: a pool's few active connections and hundreds waiting, both readable (zero included)
  if (others.length > 0)
    panels.push(
      panel(run, 'server-side gauges (symmetric log scale)', gaugeRows(others), gaugeColors(others), {
        ...o,
        symlog: true,
        ceilings: [POOL_MAX],
      }),
    );
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: 'The run second by second', subtitle: 'steps phase; warmup not shown' },
    config: BASE_CONFIG,
    vconcat: panels,
    // each panel its own series (a dash shared across them dashed the gauges by the VUs' ceiling)
    resolve: { scale: { color: 'independent', strokeDash: 'independent' } },
  } as ChartSpec;
}
