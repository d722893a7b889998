/**
 * Path templates: `/orders/{id}` matches `/orders/ord-1` with id "ord-1". The template, never the
 * path, is the route's `uri` label on the metrics (as Spring labels a request by its mapping), so
 * the series stay one per route however many ids are read.
 */

export interface RouteMatch<H> {
  /** The template that matched, e.g. /orders/{id}. */
  template: string;
  handlers: Record<string, H>;
  /** The {name} segments, percent-decoded. */
  params: Record<string, string>;
}

interface Route<H> {
  template: string;
  segments: string[];
  handlers: Record<string, H>;
}

const PARAM = /^\{(\w+)\}$/;

export class Router<H> {
  private readonly routes: Route<H>[] = [];

  /** Add a route; templates are matched in the order added, a literal segment only by itself. */
  add(template: string, handlers: Record<string, H>): this {
    if (!template.startsWith('/')) throw new RangeError(`a route template starts with /, got "${template}"`);
    this.routes.push({ template, segments: template.split('/').slice(1), handlers });
    return this;
  }

  /** The route of `path` (no query string), or undefined when none matches. */
  match(path: string): RouteMatch<H> | undefined {
    const parts = path.split('/').slice(1);
    for (const r of this.routes) {
      const params = matchSegments(r.segments, parts);
      if (params) return { template: r.template, handlers: r.handlers, params };
    }
    return undefined;
  }
}

function matchSegments(segments: string[], parts: string[]): Record<string, string> | undefined {
  if (segments.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const name = PARAM.exec(segments[i]!)?.[1];
    if (name === undefined) {
      if (segments[i] !== parts[i]) return undefined;
      continue;
    }
    if (parts[i] === '') return undefined;
    try {
      params[name] = decodeURIComponent(parts[i]!);
    } catch {
      return undefined; // malformed percent-encoding: no such resource
    }
  }
  return params;
}
