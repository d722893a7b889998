/**
 * Reading the config schema itself: the field at a path, its description, example, default and
 * bounds. The validation messages (messages.ts) and docs/config.md (config-doc.ts) both read the
 * schema through here, so a bound or a description is written once, in schema.ts.
 */
import { z } from 'zod';

type Schema = z.ZodType;

interface CheckDef {
  check: string;
  value?: number;
  inclusive?: boolean;
  format?: string;
  minimum?: number;
}

/** The parts of zod 4's schema definitions this module reads. */
interface Def {
  type: string;
  innerType?: Schema;
  shape?: Record<string, Schema>;
  element?: Schema;
  options?: Schema[];
  discriminator?: string;
  defaultValue?: unknown;
  entries?: Record<string, string | number>;
  values?: unknown[];
  checks?: Array<{ _zod: { def: CheckDef } }>;
  format?: string;
}

export const defOf = (s: Schema): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

/** A field with its wrappers (optional, default) peeled off, and what they said. */
export interface Field {
  core: Schema;
  description?: string;
  example?: unknown;
  hasDefault: boolean;
  defaultValue?: unknown;
  optional: boolean;
}

const WRAPPERS = new Set(['optional', 'default', 'prefault', 'nullable', 'readonly', 'nonoptional']);

export function fieldOf(schema: Schema): Field {
  const f: Field = { core: schema, hasDefault: false, optional: false };
  for (let s: Schema | undefined = schema; s; s = WRAPPERS.has(defOf(s).type) ? defOf(s).innerType : undefined) {
    const meta = z.globalRegistry.get(s) as { description?: string; examples?: unknown[] } | undefined;
    f.description ??= meta?.description;
    f.example ??= meta?.examples?.[0];
    const def = defOf(s);
    if (def.type === 'default' && !f.hasDefault) {
      f.hasDefault = true;
      f.defaultValue = def.defaultValue;
    }
    if (def.type === 'optional') f.optional = true;
    f.core = s;
  }
  return f;
}

/** The value to show in a fix: the example, else the default (when it is a plain value). */
export function exampleOf(f: Field): unknown {
  if (f.example !== undefined) return f.example;
  if (f.hasDefault && (typeof f.defaultValue !== 'object' || f.defaultValue === null)) return f.defaultValue;
  return undefined;
}

/** The keys an object schema accepts, or undefined for any other schema. */
export function keysOf(schema: Schema): string[] | undefined {
  const core = fieldOf(schema).core;
  const def = defOf(core);
  return def.type === 'object' && def.shape ? Object.keys(def.shape) : undefined;
}

/**
 * The schema of the field at `path`, following objects, arrays and discriminated unions (the option
 * whose discriminator the raw value carries). Undefined when the path leaves the schema.
 */
export function schemaAt(root: Schema, path: readonly PropertyKey[], raw: unknown): Schema | undefined {
  let s: Schema | undefined = root;
  let value = raw;
  for (const key of path) {
    if (!s) return undefined;
    s = childOf(fieldOf(s).core, key, value);
    value = value !== null && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  }
  return s;
}

function childOf(core: Schema, key: PropertyKey, value: unknown): Schema | undefined {
  const def = defOf(core);
  if (def.type === 'object') return def.shape?.[String(key)];
  if (def.type === 'array') return def.element;
  if (def.type === 'union' && def.discriminator && def.options) {
    const option = optionFor(def, value);
    return option ? childOf(fieldOf(option).core, key, value) : undefined;
  }
  return undefined;
}

/** The option of a discriminated union that the value's discriminator selects. */
function optionFor(def: Def, value: unknown): Schema | undefined {
  const tag =
    value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[def.discriminator!] : undefined;
  return def.options!.find((o) => literalsOf(defOf(o).shape?.[def.discriminator!]).includes(tag));
}

export function literalsOf(s: Schema | undefined): unknown[] {
  if (!s) return [];
  const def = defOf(fieldOf(s).core);
  if (def.type === 'literal') return def.values ?? [];
  if (def.type === 'enum') return Object.values(def.entries ?? {});
  return [];
}

/** Bounds of a number schema, read from its checks. */
export interface NumberRule {
  min?: { value: number; inclusive: boolean };
  max?: { value: number; inclusive: boolean };
  int: boolean;
}

export function numberRule(core: Schema): NumberRule {
  const rule: NumberRule = { int: false };
  for (const {
    _zod: { def },
  } of defOf(core).checks ?? []) {
    if (def.check === 'greater_than') rule.min = { value: def.value!, inclusive: def.inclusive ?? false };
    if (def.check === 'less_than') rule.max = { value: def.value!, inclusive: def.inclusive ?? false };
    if (def.check === 'number_format' && /int/.test(def.format ?? '')) rule.int = true;
  }
  return rule;
}

/** "> 0", ">= 0", "> 0 and <= 1", "" for an unbounded number. */
export function boundsText(r: NumberRule): string {
  const min = r.min ? `${r.min.inclusive ? '>=' : '>'} ${r.min.value}` : '';
  const max = r.max ? `${r.max.inclusive ? '<=' : '<'} ${r.max.value}` : '';
  return [min, max].filter(Boolean).join(' and ');
}

/** A share of 1 (0 < x <= 1 or 0 < x < 1): the docs call its unit a share, and the fix says how 90% is written. */
export function isShare(r: NumberRule): boolean {
  return r.min?.value === 0 && r.max?.value === 1;
}

/** The unit a field's name carries (CONVENTIONS 3: units in names). */
export function unitOf(key: string, core?: Schema): string | undefined {
  if (/PerSec$/.test(key)) return 'per second';
  if (/Ms$/.test(key)) return 'milliseconds';
  if (/[a-z0-9]S$/.test(key)) return 'seconds';
  if (core && defOf(core).type === 'number' && isShare(numberRule(core))) return 'share of 1';
  return undefined;
}

/** Short type text: "number > 0", "whole number > 0", "URL", "one of "a", "b"", "list of string". */
export function typeText(schema: Schema): string {
  const core = fieldOf(schema).core;
  const def = defOf(core);
  switch (def.type) {
    case 'number': {
      const r = numberRule(core);
      return [r.int ? 'whole number' : 'number', boundsText(r)].filter(Boolean).join(' ');
    }
    case 'string':
      if (def.format === 'url') return 'URL';
      return (def.checks ?? []).some((c) => c._zod.def.check === 'min_length') ? 'non-empty string' : 'string';
    case 'boolean':
      return 'true or false';
    case 'enum':
    case 'literal':
      return literalsOf(core).length === 1
        ? JSON.stringify(literalsOf(core)[0])
        : `one of ${literalsOf(core)
            .map((v) => JSON.stringify(v))
            .join(', ')}`;
    case 'array':
      return `list of ${typeText(def.element!)}`;
    case 'record':
      return 'map of string to string';
    case 'object':
      return 'section';
    case 'union':
      if (def.discriminator)
        return `section chosen by ${def.discriminator}: ${(def.options ?? []).map((o) => JSON.stringify(literalsOf(defOf(o).shape?.[def.discriminator!])[0])).join(', ')}`;
      return (def.options ?? []).map(typeText).join(' or ');
    default:
      return def.type;
  }
}
