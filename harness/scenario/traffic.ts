/**
 * A scenario as traffic: its entries (the mix, or the one `request` named after the scenario),
 * their order by arrival number, and every problem a scenario can have before load (unknown keys,
 * weights, an entry with both `request` and `run`, names). Pure, no Node API: the native engine,
 * preflight, `plateau plan` and the k6 bundle all read a scenario through this file.
 */
import type { Check, DataSource, RequestSpec, Scenario, ScenarioContext, TransactionHttp } from './types.ts';
import { groupCountOf, mixOrder, wholeWeights } from './mix-order.ts';
import { MAX_NAMES, nameProblem } from './names.ts';
import { idsProblems, scenarioNameProblems, secretsProblems, shown, unknownKeys } from './setting-problems.ts';
import type { TrafficRecord } from '../../analysis/types/records.ts';

export interface TrafficEntry {
  name: string;
  weight: number;
  /** A one-request entry: its builder and check. */
  request?: (ctx: ScenarioContext) => RequestSpec;
  check?: Check;
  /** A transaction: several named requests in order. */
  run?: (ctx: ScenarioContext, http: TransactionHttp) => Promise<void> | void;
  /** The check reads the body (its code names `body`, `json`, `truncated` or calls `text(`): responses keep it (docs/decisions/028). */
  checkReadsBody: boolean;
  /** The check reads the headers (its code names `headers`): the socket client makes header strings only then. */
  checkReadsHeaders: boolean;
  /** A transaction's code (its checks inline) names the body (`body`, `json`, `truncated`) or `headers`: its answers keep those. */
  runReads: { body: boolean; headers: boolean };
}

export interface Traffic {
  /** Their order is laid out by each engine from their weights (mixOrder; in k6 once per process, shared by its VUs). */
  entries: TrafficEntry[];
  /**
   * Results are recorded per name (BucketRecord.byName): the scenario has a mix of more than one
   * entry or a transaction. A one-request scenario records none (its step figures are its name's).
   */
  byName: boolean;
  data: Record<string, DataSource>;
}

const SCENARIO_KEYS = ['name', 'ids', 'secrets', 'data', 'mix', 'request', 'check'];
const ENTRY_KEYS = ['weight', 'request', 'check', 'run'];
const DATA_KEYS = ['csv', 'json', 'order', 'readBy', 'seed'];
const DATA_ORDERS = ['sequential', 'unique', 'random'];

/** The name a scenario without a mix gives its one entry. */
export function singleEntryName(s: Scenario): string {
  return typeof s.name === 'string' && s.name.trim() !== '' ? s.name : 'request';
}

function reads(check: Check | undefined, what: RegExp): boolean {
  return check !== undefined && what.test(Function.prototype.toString.call(check));
}
// reading truncated asks about the body: it is kept too
// text only called: a word that common in a check's messages would keep bodies no check reads
const BODY_READ = /\b(body|json|truncated)\b|\btext\s*\(/;
const readsBody = (check: Check | undefined) => reads(check, BODY_READ);
const readsHeaders = (check: Check | undefined) => reads(check, /\bheaders\b/);

/** `res.headers['X-Cache']`, `r.headers?.["X-Cache"]`: a name read by its text (the receiver kept, for the fix). */
const HEADER_BY_KEY = /(?:\b([A-Za-z_$][\w$]*)\s*\??\.\s*)?\bheaders\s*(?:\?\.\s*)?\[\s*(['"`])([^'"`\\\]]+)\2\s*\]/g;
/** `res.headers.Location`: a name that begins upper-case (a lower-case one may be a method: hasOwnProperty). */
const HEADER_BY_DOT = /(?:\b([A-Za-z_$][\w$]*)\s*\??\.\s*)?\bheaders\s*\??\.\s*([A-Z][\w$]*)/g;

/** A header read of a check's code: what it wrote, and what reads the name. */
export interface HeaderRead {
  written: string;
  lowerCase: string;
}

/**
 * The header reads of a check's code whose name has an upper-case letter (`res.headers['X-Cache']`):
 * both engines give header names lower-case (as Node and HTTP/2 do; the k6 runtime lower-cases
 * k6's), so such a read is undefined and a check written the k6 or Locust way rejects a good
 * answer. Read from the check's own text, as what it keeps is; preflight's refusal names the fix. Pure.
 */
export function upperCaseHeaderReads(check: unknown): HeaderRead[] {
  if (typeof check !== 'function') return [];
  const text = Function.prototype.toString.call(check);
  if (!text.includes('headers')) return [];
  const reads = new Map<string, string>();
  for (const m of text.matchAll(HEADER_BY_KEY)) {
    if (!/[A-Z]/.test(m[3])) continue;
    const of = `${m[1] ?? 'res'}.headers`;
    reads.set(`${of}['${m[3]}']`, `${of}['${m[3].toLowerCase()}']`);
  }
  for (const m of text.matchAll(HEADER_BY_DOT)) {
    const of = `${m[1] ?? 'res'}.headers`;
    reads.set(`${of}.${m[2]}`, `${of}.${m[2].toLowerCase()}`);
  }
  return [...reads].map(([written, lowerCase]) => ({ written, lowerCase }));
}

/** The fix of a check that reads upper-case header names ("header names are lower-case: res.headers['x-cache'] ..."); null when it reads none. */
export function headerCaseFix(reads: readonly HeaderRead[], check: string): string | null {
  if (reads.length === 0) return null;
  const lower = reads.map((r) => r.lowerCase).join(', ');
  const written = reads.map((r) => r.written).join(', ');
  return `header names are lower-case: ${lower}, where ${check} reads ${written} (undefined on both engines)`;
}

/** Weights as whole percentages, at least 1 each: a coarser ratio to suggest for weights whose whole sum is too large. */
function percentages(weights: readonly number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  return weights.map((w) => Math.max(1, Math.round((100 * w) / sum)));
}

/**
 * Every problem of a scenario, each in one line that names the field and the fix; empty when it can
 * run. `checkName` false leaves the top-level name alone: plateau's own default scenario is named
 * after the target's URL (its port's digits would read as built from data), and a user's module
 * had its name checked when it was loaded (load.ts).
 */
export function scenarioProblems(s: Scenario, checkName = true): string[] {
  const out: string[] = [];
  if (!s || typeof s !== 'object')
    return ['the default export is not a scenario object: export default defineScenario({...})'];
  out.push(...unknownKeys('', s, SCENARIO_KEYS, `a scenario has ${SCENARIO_KEYS.join(', ')}`));
  if (checkName) out.push(...scenarioNameProblems(s.name));
  out.push(...idsProblems(s.ids), ...secretsProblems(s.secrets));
  if (s.mix !== undefined) {
    if (s.request !== undefined || s.check !== undefined) {
      out.push(
        'the scenario has both `mix` and a top-level `request`/`check`: move the request into an entry of `mix`',
      );
    }
    if (!s.mix || typeof s.mix !== 'object' || Array.isArray(s.mix)) {
      out.push('`mix` must be an object of named entries: mix: { "read order": { weight: 70, request(ctx) {...} } }');
    } else {
      const names = Object.keys(s.mix);
      if (names.length === 0)
        out.push('`mix` has no entries: give it at least one { weight, request } or { weight, run }');
      if (names.length > MAX_NAMES)
        out.push(
          `\`mix\` has ${names.length} entries, over ${MAX_NAMES} (names are the rows of the report): merge entries, making the variants of a request one entry whose request(ctx) varies with ctx (url: \`/items/\${ctx.pick(500)}\`, a row of ctx.row(name))`,
        );
      for (const name of names) out.push(...entryProblems(name, s.mix[name] as unknown as Record<string, unknown>));
      const weights = names.map((n) => (s.mix![n] as { weight?: unknown })?.weight);
      // an empty mix has its own line above; wholeWeights would add a second
      if (names.length > 0 && weights.every((w) => typeof w === 'number' && Number.isFinite(w) && w > 0)) {
        const whole = wholeWeights(weights as number[]);
        if (typeof whole === 'string') {
          out.push(
            `the mix's weights (${weights.join(', ')}): ${whole}; ${whole.includes('under 0.001') ? 'raise it to 0.001 or more, or scale every weight up by one factor (weights are ratios)' : whole.includes('decimals') ? 'round them to 3 decimals (or use whole numbers in the same ratio)' : `round them to a coarser ratio, e.g. percentages (${percentages(weights as number[]).join(', ')})`}`,
          );
        }
      }
    }
  } else if (typeof s.request !== 'function') {
    out.push(
      'the scenario has neither `request(ctx)` nor `mix`: default-export defineScenario({ request(ctx) { return { url } } }) or a `mix`',
    );
  } else if (s.check !== undefined && typeof s.check !== 'function') {
    out.push('`check` must be a function (res) => true | false | "why not"');
  }
  if (s.data !== undefined) out.push(...dataProblems(s.data, mixNames(s)));
  return out;
}

function entryProblems(name: string, e: Record<string, unknown>): string[] {
  const at = `mix entry "${name}"`;
  const bad = nameProblem(name);
  const out: string[] = bad ? [`${at}: ${bad}; name the entry by what it does ('read order')`] : [];
  if (!e || typeof e !== 'object')
    return [...out, `${at} must be an object { weight, request(ctx) } or { weight, run(ctx, http) }`];
  out.push(...unknownKeys(`${at}: `, e, ENTRY_KEYS, 'an entry has weight and request (+ check) or run'));
  const w = e.weight;
  if (typeof w !== 'number' || !Number.isFinite(w) || w <= 0) {
    const why =
      w === undefined
        ? 'is missing'
        : `${shown(w)} is not a ${typeof w === 'number' ? 'finite positive number' : 'number'}`;
    // a weight of 0 (or below) reads as "leave this entry out": say how
    const leaveOut = typeof w === 'number' && w <= 0 ? ', or remove the entry to leave it out' : '';
    out.push(`${at}: weight ${why}: give it a share, e.g. weight: 25${leaveOut}`);
  }
  const hasRequest = e.request !== undefined;
  const hasRun = e.run !== undefined;
  if (hasRequest && hasRun)
    out.push(`${at} has both \`request\` and \`run\`: keep request (one request) or run (a transaction), not both`);
  else if (!hasRequest && !hasRun) out.push(`${at} has neither \`request(ctx)\` nor \`run(ctx, http)\``);
  else if (hasRequest && typeof e.request !== 'function')
    out.push(`${at}: \`request\` must be a function (ctx) => ({ url })`);
  else if (hasRun && typeof e.run !== 'function')
    out.push(`${at}: \`run\` must be a function async (ctx, http) => {...}`);
  if (hasRun && e.check !== undefined)
    out.push(`${at}: a transaction checks each request in http.send(name, request, check), not with \`check\``);
  if (e.check !== undefined && typeof e.check !== 'function')
    out.push(`${at}: \`check\` must be a function (res) => true | false | "why not"`);
  return out;
}

/** The mix's entry names; null for a scenario without a mix (or a mix that is not an object). */
function mixNames(s: Scenario): string[] | null {
  return s.mix && typeof s.mix === 'object' && !Array.isArray(s.mix) ? Object.keys(s.mix) : null;
}

function dataProblems(data: unknown, entries: string[] | null): string[] {
  if (!data || typeof data !== 'object' || Array.isArray(data)) {
    return ['`data` must be an object of named sources: data: { accounts: { csv: "./accounts.csv" } }'];
  }
  const out: string[] = [];
  for (const [name, src] of Object.entries(data as Record<string, unknown>)) {
    const at = `data source "${name}"`;
    if (!src || typeof src !== 'object') {
      out.push(`${at} must be { csv: "./file.csv" } or { json: "./file.json" }`);
      continue;
    }
    const o = src as Record<string, unknown>;
    out.push(...unknownKeys(`${at}: `, o, DATA_KEYS, SOURCE_HAS));
    const files = ['csv', 'json'].filter((k) => o[k] !== undefined);
    if (files.length !== 1) out.push(`${at} needs exactly one of csv: "./file.csv" or json: "./file.json"`);
    else if (typeof o[files[0]] !== 'string' || o[files[0]] === '')
      out.push(`${at}: ${files[0]} must be a file path beside the scenario`);
    if (o.order !== undefined && !DATA_ORDERS.includes(o.order as string)) out.push(`${at}: ${orderProblem(o.order)}`);
    if (o.readBy !== undefined) out.push(...readByProblems(at, o.readBy, o.order, entries));
    if (o.seed !== undefined) out.push(...seedProblems(at, o.seed, o.order));
  }
  return out;
}

/** What a source may hold, every key, for the refusal of one it may not. */
const SOURCE_HAS =
  "a source has csv or json (its file), order, readBy (order 'unique', in a mix) and seed (order 'random')";

/**
 * Gatling's feeder strategies (issue 27 names its feeders as the model) as plateau's orders. Its
 * shuffle is a queue in shuffled order: plateau's unique takes rows in file order, so the nearest
 * is unique over a file shuffled beforehand (random would repeat rows).
 */
const GATLING_ORDERS = new Map([
  ['circular', 'sequential'],
  ['queue', 'unique'],
  ['random', 'random'],
  ['shuffle', 'unique'],
]);

const GATLING_MAPPING =
  "Gatling's feeders: circular is 'sequential'; queue is 'unique', refused before load if the rows are too few, where Gatling fails mid-run; random is 'random'; shuffle is 'unique' over a file shuffled beforehand, its rows taken in file order";

/** An order that is none of plateau's: the mapping of Gatling's feeders, and the order to set where the value names one (any case). */
function orderProblem(order: unknown): string {
  const given = typeof order === 'string' ? order.trim().toLowerCase() : '';
  const meant = DATA_ORDERS.includes(given) ? given : GATLING_ORDERS.get(given);
  const fix = meant === undefined ? '' : `: set order: '${meant}'`;
  return `order ${JSON.stringify(order)} is not one of ${DATA_ORDERS.join(', ')}${fix} (${GATLING_MAPPING})`;
}

/**
 * `seed`: what a random source's draws follow (data-rows.ts drawSeed), a text or a finite number;
 * on another order it would change nothing, so it is refused as readBy is off a unique source.
 */
function seedProblems(at: string, seed: unknown, order: unknown): string[] {
  if (seed === '')
    return [`${at}: seed is empty: give a text, e.g. seed: 'checkout-ab', or leave it out to draw by the run id`];
  if (typeof seed !== 'string' && !(typeof seed === 'number' && Number.isFinite(seed)))
    return [
      `${at}: seed is ${shown(seed)}, not a string or a finite number: give one, e.g. seed: 'checkout-ab' (the random rows follow it; two runs given one seed draw the same rows)`,
    ];
  if (order !== 'random')
    return [
      `${at}: seed is for order 'random' (the draws follow it); a ${order === undefined ? 'sequential' : String(order)} source draws no row at random: remove seed, or set order: 'random'`,
    ];
  return [];
}

/** "readBy: ['a', 'b']", as a scenario would write it (a name's own quote escaped), for a fix to suggest. */
export function readByText(names: readonly string[]): string {
  return `readBy: [${names.map((n) => `'${n.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`).join(', ')}]`;
}

/** `readBy`: a unique source's readers, each an entry of the mix. */
function readByProblems(at: string, readBy: unknown, order: unknown, entries: string[] | null): string[] {
  // the example in the scenario's own entries (the demo's 'create order' read as a typo of theirs)
  if (!Array.isArray(readBy) || readBy.length === 0 || !readBy.every((n) => typeof n === 'string'))
    return [
      `${at}: readBy must be a list of the mix entries that read it${entries?.length ? `, e.g. ${readByText(entries.slice(0, 1))} (its entries: ${entries.map((n) => JSON.stringify(n)).join(', ')})` : ''}`,
    ];
  if (order !== 'unique')
    return [
      `${at}: readBy is for order 'unique' (only the listed entries' arrivals take its rows); a ${order === undefined ? 'sequential' : String(order)} source gives every entry its rows already: remove readBy, or set order: 'unique'`,
    ];
  if (entries === null)
    return [
      `${at}: readBy names entries of a mix, and this scenario has none (its one request takes a row every arrival): remove readBy`,
    ];
  const unknown = readBy.filter((n) => !entries.includes(n));
  return unknown.length === 0
    ? []
    : [
        `${at}: readBy names ${unknown.map((n) => JSON.stringify(n)).join(', ')}, not ${unknown.length === 1 ? 'an entry' : 'entries'} of the mix (its entries: ${entries.map((n) => JSON.stringify(n)).join(', ')})`,
      ];
}

/**
 * How many of arrivals 1..n take a row of a unique source: every one, or with `readBy` only those
 * whose entry it lists (the mix's order, mix-order.ts groupCountOf).
 */
export function rowsTaken(traffic: Pick<Traffic, 'entries'>, readBy: readonly string[] | undefined, n: number): number {
  if (readBy === undefined || traffic.entries.length <= 1) return n;
  const inGroup = traffic.entries.map((e) => readBy.includes(e.name));
  return groupCountOf(mixOrder(traffic.entries.map((e) => e.weight)), inGroup, n);
}

/** What a send made after its transaction's arrival ended is told, on both engines and in preflight. */
export const SEND_AFTER_END = 'http.send after the transaction ended: await every send inside run(ctx, http)';

/**
 * Why a transaction whose run returned while sends it made were still in flight (not awaited)
 * failed its arrival (kind other), on both engines and in preflight: the arrival still waits for
 * them (its VU serves no other meanwhile), but their answers were never tested. `names`: those
 * sends', the first made first.
 */
export function inFlightAtReturn(transaction: string, names: readonly unknown[]): string {
  const first = JSON.stringify(String(names[0]));
  const which = names.length > 1 ? `its sends ${first} and ${names.length - 1} more were` : `its send ${first} was`;
  return `transaction ${JSON.stringify(transaction)} returned while ${which} still in flight: await every http.send inside run(ctx, http)`;
}

/** Why a transaction past http.transactionTimeoutMs failed its arrival (kind timeout), on either engine. */
export function deadlineMessage(name: string, timeoutMs: number): string {
  return `${name} did not end within ${timeoutMs} ms (http.transactionTimeoutMs): a promise it awaited never settled, or it needs a longer deadline, think time included`;
}

/**
 * Preflight's sample arrivals: one of each entry, and a second of each transaction (whose request
 * names, built in its run, must come out the same).
 */
export function sampleArrivalCount(traffic: Pick<Traffic, 'entries'>): number {
  return traffic.entries.length + traffic.entries.filter((e) => e.run !== undefined).length;
}

/** Tries of a sample arrival while the target is what fails it (pipeline/sample-arrivals.ts). */
export const SAMPLE_TRIES = 5;

/**
 * The last rows a unique source keeps for preflight's sample arrivals, which the load never sends:
 * a row for every try of every sample arrival (data-rows.ts sampleRowSlot), since a try the target
 * failed may still have used its row (a 503 after the account was charged). Decision 077.
 */
export function sampleRowsKept(traffic: Pick<Traffic, 'entries'>): number {
  return sampleArrivalCount(traffic) * SAMPLE_TRIES;
}

/** The scenario as traffic; throws an Error listing every problem (one a line) when it has any. */
export function trafficOf(s: Scenario): Traffic {
  const problems = scenarioProblems(s, false);
  if (problems.length) throw new Error(problems.join('\n'));
  const entries: TrafficEntry[] = s.mix
    ? Object.entries(s.mix).map(([name, e]) => ({
        name,
        weight: e.weight,
        ...(e.request ? { request: e.request, check: e.check } : { run: e.run }),
        checkReadsBody: readsBody(e.check),
        checkReadsHeaders: readsHeaders(e.check),
        runReads: { body: readsBody(e.run as Check | undefined), headers: readsHeaders(e.run as Check | undefined) },
      }))
    : [
        {
          name: singleEntryName(s),
          weight: 1,
          request: s.request,
          check: s.check,
          checkReadsBody: readsBody(s.check),
          checkReadsHeaders: readsHeaders(s.check),
          runReads: { body: false, headers: false },
        },
      ];
  const whole = wholeWeights(entries.map((e) => e.weight));
  if (typeof whole === 'string') throw new Error(`mix weights: ${whole}; give weights with at most 3 decimals`);
  return {
    entries,
    byName: entries.length > 1 || entries.some((e) => e.run),
    data: s.data ?? {},
  };
}

/**
 * What each random source's draws follow, for run.json (TrafficRecord.randomDraws): its seed as
 * text (drawSeed takes it so), else the run id. Nothing where no source is random.
 */
export function randomDrawsOf(
  data: Readonly<Record<string, { order: string; seed?: string | number }>>,
  runId: string,
): Pick<TrafficRecord, 'randomDraws'> {
  const random = Object.entries(data).filter(([, src]) => src.order === 'random');
  if (random.length === 0) return {};
  return {
    randomDraws: Object.fromEntries(
      random.map(([name, src]) => [
        name,
        src.seed === undefined
          ? { by: 'run id' as const, text: runId }
          : { by: 'seed' as const, text: String(src.seed) },
      ]),
    ),
  };
}

export function trafficSummary(t: Traffic): TrafficRecord {
  return { entries: t.entries.map((e) => ({ name: e.name, weight: e.weight, transaction: e.run !== undefined })) };
}
