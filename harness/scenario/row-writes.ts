/**
 * A write to a row of ctx.row(name), said as such. Rows are frozen (data-load.ts: a JSON source's
 * nested values too; k6's SharedArray deep-freezes every element it gives) because every VU of a
 * thread reads the same row objects, so a scenario that changes one throws the JavaScript engine's
 * bare TypeError ("Cannot assign to read only property 'name' of object '#<Object>'"), which names
 * neither the row, nor that rows are shared, nor the fix.
 *
 * Recognised from that TypeError's message when a failure is worded (an arrival's message, kind
 * other; preflight's refusal), given that the scenario has data sources: nothing is added to
 * ctx.row or to any request. Telling the write itself would need a Proxy or a copy of the row on
 * every read of the load, a cost on the hot path for a mistake preflight's sample arrival usually
 * shows before any load. Pure, no Node API: the k6 runtime words its failures with it too.
 */
import { rowAt, type Rows } from './csv-rows.ts';
import type { Row } from './types.ts';
import { calledEnvText } from './scenario-env.ts';

/** A data source as a write to its rows is told: its name, its format and its rows. */
export interface WrittenSource {
  name: string;
  /** A CSV source: every value a string, so a spread copies a row whole. */
  csv: boolean;
  rows: Rows;
}

/** A write to a row: what to add to the TypeError's message, and the copy to make instead. */
export interface RowWrite {
  /** "ctx.row('acc') is shared and read-only: every VU of a thread reads the same rows". */
  problem: string;
  /** The copy to change instead: "const r = { ...ctx.row('acc') }". */
  copy: string;
  /** Why that copy (preflight's fix says it): a spread copies the top level only. */
  why: string;
}

/**
 * The messages of a write to a frozen object: V8's (the native engine) and goja's (k6): an assign
 * or a delete names a property the object has, an add or a define one it has not.
 */
const FROZEN =
  /^Cannot (?:assign to read only property '([^']*)'|delete property '([^']*)'|(?:add|define) property ([^,]*), object is not extensible)/;

/** Rows walked for the keys a source's rows have, and objects at most: a bound on an error path. */
const KEYS_ROWS = 100;
const KEYS_OBJECTS = 10_000;

interface Keys {
  names: Set<string>;
  /** Some value in the rows walked is an object or an array: a write may be to a nested value. */
  nested: boolean;
  arrays: boolean;
}

/** The keys of the first rows, nested ones too (a write to r.nested.n names n). */
function keysOf(rows: Rows): Keys {
  const out: Keys = { names: new Set(), nested: false, arrays: false };
  const todo: unknown[] = [];
  for (let i = 0; i < Math.min(rows.length, KEYS_ROWS); i++) todo.push(rowAt(rows, i));
  for (let seen = 0, o = todo.pop(); o !== undefined && seen < KEYS_OBJECTS; o = todo.pop(), seen++) {
    if (typeof o !== 'object' || o === null) continue;
    if (Array.isArray(o)) out.arrays = true;
    for (const k of Object.keys(o)) {
      if (!Array.isArray(o)) out.names.add(k);
      const v = (o as Record<string, unknown>)[k];
      if (typeof v === 'object' && v !== null) {
        out.nested = true;
        todo.push(v);
      }
    }
  }
  return out;
}

/** A name as a scenario writes it in single quotes, its own quotes and backslashes escaped. */
function quoted(name: string): string {
  return `'${name.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/**
 * The reader of `sources`' row writes: given a thrown message, the write to a row it tells, or
 * null when it tells none (another TypeError, or a write to an object no source's rows look like:
 * ctx.env, the scenario's own frozen values). `read`: the sources the arrival read, where known
 * (preflight's sample arrivals); else the write is matched against every source. Which source: an
 * assign or a delete names a key, which its rows have (or an index, of a row holding an array); an
 * add names a key no row has, so any source read may be its. Each source's keys are walked once, on
 * the first message that needs them.
 */
export function rowWrites(
  sources: readonly WrittenSource[],
): (message: string, read?: ReadonlySet<string>) => RowWrite | null {
  const keys = new Map<WrittenSource, Keys>();
  const keysOfSource = (s: WrittenSource): Keys => {
    let k = keys.get(s);
    if (k === undefined) keys.set(s, (k = keysOf(s.rows)));
    return k;
  };
  return (message, read) => {
    if (sources.length === 0) return null;
    const m = FROZEN.exec(message);
    if (m === null) return null;
    const pool = read === undefined ? sources : sources.filter((s) => read.has(s.name));
    const property = m[1] ?? m[2] ?? m[3];
    const index = /^\d+$/.test(property);
    const existing = m[3] === undefined;
    const of = pool.filter((s) => {
      const k = keysOfSource(s);
      if (index) return k.arrays || k.names.has(property);
      return existing ? k.names.has(property) : true;
    });
    return of.length === 0 ? null : rowWrite(of, keysOfSource(of[0]).nested);
  };
}

function rowWrite(of: readonly WrittenSource[], nested: boolean): RowWrite {
  const calls = of.map((s) => `ctx.row(${quoted(s.name)})`);
  const first = calls[0];
  const deep = !of[0].csv && nested;
  return {
    problem: `${calls.join(' or ')} is shared and read-only: every VU of a thread reads the same rows`,
    copy: deep ? `const r = JSON.parse(JSON.stringify(${first}))` : `const r = { ...${first} }`,
    why: deep
      ? `a deep copy: its rows hold nested values, which a spread would still share; k6 has no structuredClone`
      : of[0].csv
        ? 'its values are strings: a spread copies the row whole'
        : `a spread copies the row's top level (JSON.parse(JSON.stringify(${first})) copies nested values too)`,
  };
}

/** An arrival's failure (kind other, in the report) for a write to a row: the TypeError's message, what it means and the copy. */
export function rowWriteText(message: string, w: RowWrite): string {
  return `${message}: ${w.problem}; copy it first: ${w.copy}`;
}

/**
 * What a scenario threw during the load, as its arrival's failure records it, on both engines: a
 * write to a row with the copy to make, a call of ctx.env with the record form, anything else as
 * it was thrown.
 */
export function loadThrowText(message: string, writes: (message: string) => RowWrite | null): string {
  const w = writes(message);
  return w ? rowWriteText(message, w) : (calledEnvText(message) ?? message);
}

/** The text of what a scenario threw: its message (an Error's), or the value itself. */
export function thrownText(err: unknown): string {
  const message = (err as { message?: unknown } | null | undefined)?.message;
  return typeof message === 'string' ? message : String(err);
}
