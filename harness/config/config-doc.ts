/**
 * docs/config.md, rendered from the config schema itself: every field with its type and bounds,
 * its unit (from the name's suffix), its default and its description. Pure: the schema in, text
 * out; scripts/config-doc.ts writes it and config-doc.test.ts fails when the file is stale.
 */
import type { z } from 'zod';
import { defOf, exampleOf, fieldOf, literalsOf, typeText, unitOf } from './introspect.ts';
import { configSchema } from './schema.ts';

export const CONFIG_DOC_PATH = 'docs/config.md';
export const STALE_MESSAGE = 'docs/config.md is stale: run npx tsx scripts/config-doc.ts';

export interface FieldRow {
  /** Dotted path; `[]` marks a list's items, `{kind}` the option of a union. */
  path: string;
  type: string;
  unit: string;
  default: string;
  description: string;
}

/** Every field of the schema, depth first, sections before their fields. */
export function fieldRows(schema: z.ZodType = configSchema): FieldRow[] {
  const rows: FieldRow[] = [];
  walk(schema, '', rows);
  return rows;
}

function walk(schema: z.ZodType, path: string, rows: FieldRow[]): void {
  const def = defOf(fieldOf(schema).core);
  if (def.type === 'object' && def.shape) {
    for (const [key, child] of Object.entries(def.shape)) {
      const at = path ? `${path}.${key}` : key;
      rows.push(rowOf(key, at, child));
      walk(child, at, rows);
    }
    return;
  }
  // a list of sections (metrics.downstreams): its items' fields, as `path[].field`
  if (def.type === 'array' && def.element && defOf(fieldOf(def.element).core).type === 'object') {
    walk(def.element, `${path}[]`, rows);
    return;
  }
  if (def.type === 'array' && def.element && defOf(fieldOf(def.element).core).type === 'union') {
    const union = defOf(fieldOf(def.element).core);
    for (const option of union.options ?? []) {
      const tag = literalsOf(defOf(option).shape?.[union.discriminator!])[0];
      walk(option, `${path}[] (${union.discriminator}: ${JSON.stringify(tag)})`, rows);
    }
  }
}

function rowOf(key: string, path: string, schema: z.ZodType): FieldRow {
  const f = fieldOf(schema);
  const type = defOf(f.core).type;
  return {
    path,
    type: typeText(schema),
    unit: unitOf(key, f.core) ?? '',
    default: f.hasDefault
      ? defaultText(f.defaultValue, type)
      : `${f.optional ? 'optional' : 'required'}${exampleOf(f) === undefined ? '' : `, e.g. ${JSON.stringify(exampleOf(f))}`}`,
    description: f.description ?? '',
  };
}

function defaultText(v: unknown, type: string): string {
  if (type === 'object') return "its fields' defaults";
  if (Array.isArray(v) && v.length === 0) return 'none';
  if (v !== null && typeof v === 'object' && Object.keys(v).length === 0) return 'none';
  return JSON.stringify(v);
}

/** Markdown-safe cell text: no pipes, no HTML. */
const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/</g, '&lt;');

export function renderConfigDoc(schema: z.ZodType = configSchema): string {
  const rows = fieldRows(schema);
  const top = rows.filter((r) => !r.path.includes('.') && !r.path.includes('['));
  const out = [
    '# Configuration',
    '',
    '<!-- Generated from harness/config/schema.ts by `npx tsx scripts/config-doc.ts`: edit the schema, not this file. -->',
    '',
    'plateau reads `plateau.config.ts` (or the file given with `--config`: .ts, .mts, .cts, .js, .mjs, .cjs or .json),',
    "whose default export is the config; the CLI's flags override it (`plateau run --help`). Every field carries its unit",
    'in its name: `S` seconds, `Ms` milliseconds, `PerSec` per second. A config with mistakes is refused before any load,',
    'with every problem listed at once, each naming its field and the fix.',
    '',
    '## Top level',
    '',
    ...table(top),
  ];
  for (const section of top.filter((r) => r.type === 'section')) {
    const inside = rows.filter((r) => r.path.startsWith(`${section.path}.`) || r.path.startsWith(`${section.path}[]`));
    out.push('', `## ${section.path}`, '', `${capital(section.description)}.`, '', ...table(inside));
  }
  return `${out.join('\n')}\n`;
}

function table(rows: FieldRow[]): string[] {
  return [
    '| Field | Type | Unit | Default | Description |',
    '| --- | --- | --- | --- | --- |',
    ...rows.map((r) => `| \`${r.path}\` | ${cell(r.type)} | ${r.unit} | ${cell(r.default)} | ${cell(r.description)} |`),
  ];
}

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
