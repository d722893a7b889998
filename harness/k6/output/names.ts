/**
 * The names of k6 output (the `name` tag of http_* samples and of plateau_arrival): which ones
 * become rows of their own (NameCatalog), and each name's figures in one second (NameTally).
 *
 * k6 sets `name` to the URL when a script does not name its requests, so a script that puts ids in
 * its URLs has one name per request. Such names (nameProblem: numbers of 3+ digits, UUIDs, id-like
 * tokens; judged on a URL's path, since a host or a port is not data) and any name after the first
 * MAX_NAMES - 1 are folded into one key, FOLDED_NAME, never one row per URL: the run's names stay
 * at most MAX_NAMES and memory O(seconds x names). So are names that differ only in their numbers
 * once more than MAX_NAMES_OF_A_SHAPE of them came (`/orders/1`, `/orders/2`, ...: ids too short
 * for nameProblem), as the native engine refuses them; the first ones, kept while they were few,
 * are named in `foldedLate` for the import to merge into the folded row. The import says so, with
 * the fix.
 */
import { BufferedHistogram, encodeHistogram, newHistogram } from '../../../analysis/histogram.ts';
import type { ErrorKind, NameBucket } from '../../../analysis/types.ts';
import { MAX_NAMES, MAX_NAMES_OF_A_SHAPE, nameProblem } from '../../scenario/names.ts';
import { FOLDED_ROW, foldedRowOf } from '../../../analysis/names-limit.ts';

/** The key of every folded name while the output streams (the import renames it, knowing how many). */
export const FOLDED_NAME = FOLDED_ROW;

/** Distinct folded names counted one by one; past this the count says "more than". */
const FOLDED_COUNTED_MAX = 10_000;
/** Reasons kept for the message (the first few distinct folded names). */
const FOLDED_EXAMPLES = 3;

export interface NamesSummary {
  /** Names kept as rows of their own, in order of appearance. */
  kept: string[];
  /** Distinct names folded into FOLDED_NAME (at most FOLDED_COUNTED_MAX; foldedMore past it). */
  folded: number;
  foldedMore: boolean;
  /** Every folded name is a URL (k6's default name). */
  foldedAllUrls: boolean;
  /** The first folded names and why each was folded. */
  examples: string[];
  /**
   * Names kept as rows while their family (the same but for their numbers) was small, which then
   * grew past MAX_NAMES_OF_A_SHAPE: counted in `folded`, not in `kept`, and merged into the folded
   * row by the import.
   */
  foldedLate: string[];
}

const URL_ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i;

/** Why a name cannot be a row of its own: nameProblem, on the path of a URL (its origin is not data). */
export function importedNameProblem(name: string): string | null {
  const origin = URL_ORIGIN.exec(name);
  if (origin === null) return nameProblem(name);
  const rest = name.slice(origin[0].length) || '/';
  const problem = nameProblem(rest);
  return problem === null ? null : problem.replace(`name "${rest}"`, `URL "${name}"`);
}

export class NameCatalog {
  private readonly keys = new Map<string, string>();
  private readonly kept: string[] = [];
  private readonly foldedSeen = new Set<string>();
  private foldedMore = false;
  private foldedAllUrls = true;
  private readonly examples: string[] = [];
  /** Kept names with numbers in them, by their shape (each run of digits as '#', the origin as it is). */
  private readonly families = new Map<string, string[]>();
  /** Shapes past MAX_NAMES_OF_A_SHAPE: their kept members are folded too, at the end. */
  private readonly overflowed = new Set<string>();
  private lastRaw: string | null = null;
  private lastKey = '';

  /** How many keys the run has so far (kept names, and FOLDED_NAME once anything was folded). */
  get size(): number {
    return this.kept.length + (this.foldedSeen.size > 0 ? 1 : 0);
  }

  /** The key a raw name is counted under: itself, or FOLDED_NAME. */
  keyOf(raw: string): string {
    if (raw === this.lastRaw) return this.lastKey;
    let key = this.keys.get(raw);
    if (key === undefined) key = this.decide(raw);
    this.lastRaw = raw;
    this.lastKey = key;
    return key;
  }

  private decide(raw: string): string {
    let problem = importedNameProblem(raw);
    const shape = shapeOf(raw);
    const family = shape === raw ? null : (this.families.get(shape) ?? []);
    if (problem === null && family !== null && family.length >= MAX_NAMES_OF_A_SHAPE) {
      this.overflowed.add(shape);
      problem = `"${raw}" differs only in its numbers${raw.includes('?') && URL_ORIGIN.test(raw) ? ' or query values' : ''} from ${family.length} names before it ("${family[0]}", ...)`;
    }
    if (problem === null && this.kept.length < MAX_NAMES - 1) {
      this.kept.push(raw);
      this.keys.set(raw, raw);
      if (family !== null) this.families.set(shape, [...family, raw]);
      return raw;
    }
    if (this.foldedSeen.size < FOLDED_COUNTED_MAX) {
      this.foldedSeen.add(raw);
      // remembered only while counted: past the bound a folded name costs a nameProblem per sample, not memory
      this.keys.set(raw, FOLDED_NAME);
    } else this.foldedMore = true;
    if (!URL_ORIGIN.test(raw)) this.foldedAllUrls = false;
    if (this.examples.length < FOLDED_EXAMPLES)
      this.examples.push(problem ?? `"${raw}" came after ${MAX_NAMES - 1} other names`);
    return FOLDED_NAME;
  }

  summary(): NamesSummary {
    const foldedLate = [...this.overflowed].flatMap((shape) => this.families.get(shape) ?? []);
    const late = new Set(foldedLate);
    return {
      kept: this.kept.filter((n) => !late.has(n)),
      foldedLate,
      folded: this.foldedSeen.size + foldedLate.length,
      foldedMore: this.foldedMore,
      foldedAllUrls: this.foldedAllUrls,
      examples: [...this.examples],
    };
  }
}

/**
 * A name with each run of digits as '#' (a URL's origin as it is: a port is not data), and a URL's
 * query values as '#': k6 names a request it was not given a name for by its whole URL, and
 * `/search?q=alice`, `/search?q=bob` are one request of many terms, with no digit to tell it.
 */
function shapeOf(name: string): string {
  const origin = URL_ORIGIN.exec(name)?.[0] ?? '';
  const rest = name.slice(origin.length).replace(/\d+/g, '#');
  const q = origin === '' ? -1 : rest.indexOf('?');
  return origin + (q === -1 ? rest : rest.slice(0, q) + rest.slice(q).replace(/=[^&#]*/g, '=#'));
}

/** The name FOLDED_NAME becomes once the count is known, e.g. "(unnamed: 412 URLs)". */
export function foldedNameOf(s: NamesSummary): string {
  return foldedRowOf(foldedCountOf(s));
}

/** "412 URLs", "1 name", "over 10,000 URLs". */
export function foldedCountOf(s: NamesSummary): string {
  const one = s.folded === 1 && !s.foldedMore;
  const what = s.foldedAllUrls ? (one ? 'URL' : 'URLs') : one ? 'name' : 'names';
  return `${s.foldedMore ? 'over ' : ''}${s.folded.toLocaleString('en-US')} ${what}`;
}

/** One name's counts in one second, and its successful durations (packed: a run keeps names x open seconds of them). */
export class NameTally {
  transaction = false;
  completed = 0;
  ok = 0;
  errors: Partial<Record<ErrorKind, number>> = {};
  statuses: Record<string, number> = {};
  readonly duration = new BufferedHistogram(newHistogram('packed'));

  reset(): this {
    this.transaction = false;
    this.completed = this.ok = 0;
    this.errors = {};
    this.statuses = {};
    this.duration.reset();
    return this;
  }

  fail(kind: ErrorKind, status: string | undefined): void {
    this.errors[kind] = (this.errors[kind] ?? 0) + 1;
    if (status && status !== '0') this.statuses[status] = (this.statuses[status] ?? 0) + 1;
  }

  toBucket(): NameBucket {
    return {
      ...(this.transaction ? { transaction: true as const } : {}),
      completed: this.completed,
      ok: this.ok,
      errors: this.errors,
      ...(Object.keys(this.statuses).length > 0 ? { statuses: this.statuses } : {}),
      duration: encodeHistogram(this.duration.flush()),
    };
  }
}
