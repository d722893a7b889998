/**
 * The parts of a raw config that are valid on their own, so that the cross-field rules can run
 * on them while other fields still fail (a misspelt key must not hide "maxPerSec below
 * startPerSec"). A field that fails is left out; a missing field with a default gets its default,
 * exactly as the full parse would give it.
 */
import type { z } from 'zod';
import { defOf, fieldOf } from './introspect.ts';
import type { PlateauConfig } from './schema.ts';

type DeepPartial<T> =
  T extends Array<infer E>
    ? Array<DeepPartial<E> | undefined>
    : T extends object
      ? { [K in keyof T]?: DeepPartial<T[K]> }
      : T;

/** A config of which any field may be absent (it failed, or it is optional and not given). */
export type ConfigParts = DeepPartial<PlateauConfig>;

export function validParts(schema: z.ZodType, raw: unknown): unknown {
  const whole = schema.safeParse(raw);
  if (whole.success) return whole.data;
  const def = defOf(fieldOf(schema).core);
  if (def.type === 'object' && def.shape && raw !== null && typeof raw === 'object' && !Array.isArray(raw)) {
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(def.shape)) {
      const v = validParts(child, (raw as Record<string, unknown>)[key]);
      if (v !== undefined) out[key] = v;
    }
    return out;
  }
  if (def.type === 'array' && def.element && Array.isArray(raw)) return raw.map((x) => validParts(def.element!, x));
  return undefined;
}
