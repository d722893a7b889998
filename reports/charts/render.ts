/**
 * vega-lite spec -> vega -> static SVG, at report time, with no DOM, no network and no script in
 * the output. Element ids are renumbered per chart: vega numbers clip paths with a process-wide
 * counter, which would make output depend on what rendered before and collide when several SVGs
 * share one HTML page.
 */
import { wrapSubtitle, type ChartSpec } from './theme.ts';

/**
 * vega and vega-lite are some hundred ES modules: loaded when the first chart is drawn, not by
 * every command that imports the reports (about a third of the CLI's start-up).
 */
let libs: Promise<[typeof import('vega'), typeof import('vega-lite')]> | null = null;
const loadLibs = () => (libs ??= Promise.all([import('vega'), import('vega-lite')]));

/** Renames every id="..." (and its url(#...) / href="#..." uses) to `${prefix}-1`, `${prefix}-2`, ... in order. */
export function renumberIds(svg: string, prefix: string): string {
  const ids = new Map<string, string>();
  for (const m of svg.matchAll(/\sid="([^"]+)"/g)) if (!ids.has(m[1])) ids.set(m[1], `${prefix}-${ids.size + 1}`);
  if (ids.size === 0) return svg;
  return svg
    .replace(/(\sid=")([^"]+)(")/g, (all, a: string, id: string, b: string) =>
      ids.has(id) ? a + ids.get(id) + b : all,
    )
    .replace(/url\(#([^)]+)\)/g, (all, id: string) => (ids.has(id) ? `url(#${ids.get(id)})` : all))
    .replace(/href="#([^"]+)"/g, (all, id: string) => (ids.has(id) ? `href="#${ids.get(id)}"` : all));
}

/** The spec with its subtitle's lines wrapped to the chart's width (theme.ts wrapSubtitle). */
export function withWrappedSubtitle(spec: ChartSpec): ChartSpec {
  const title = (spec as { title?: unknown }).title;
  if (typeof title !== 'object' || title === null || !('subtitle' in title)) return spec;
  const { subtitle } = title as { subtitle: string | string[] };
  return { ...spec, title: { ...title, subtitle: wrapSubtitle(subtitle) } } as ChartSpec;
}

/** What vega and vega-lite said about a spec (a conflict they resolved, a field they dropped). */
export interface RenderedSvg {
  svg: string;
  warnings: string[];
}

/**
 * The chart as an SVG document (string), with vega's warnings collected rather than printed: they
 * are about plateau's specs, not the user's run, so they belong in a failing test (the charts'
 * tests ask for none), never in the terminal of a run.
 */
export async function renderSvg(spec: ChartSpec, idPrefix: string): Promise<RenderedSvg> {
  const [vega, { compile }] = await loadLibs();
  const warnings: string[] = [];
  const logger = vega.logger(vega.Warn, undefined, (_method: string, level: string, input: readonly unknown[]) => {
    warnings.push(`${level} ${input.map(String).join(' ')}`);
  });
  const { spec: vgSpec } = compile(withWrappedSubtitle(spec), { logger });
  const view = new vega.View(vega.parse(vgSpec), { renderer: 'none', logger });
  try {
    return { svg: renumberIds(await view.toSVG(), idPrefix), warnings };
  } finally {
    view.finalize();
  }
}
