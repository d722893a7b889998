/**
 * Preflight's sample arrivals: one of each mix entry, sent before any load, so a scenario that
 * cannot succeed once (a wrong secret, a check that rejects the target's answer, a transaction
 * whose second request 404s) fails with the entry, the request and the answer, not after a
 * thousand failed requests. Each sample has ids of its own and, for a unique data source, a row
 * the load never uses (context.ts). A sample the target failed (a 5xx, a reset) is tried again: an
 * entry is refused only when none of its tries succeeded, the target's failure told from the
 * scenario's, each with its fix (sample-blame.ts).
 */
import { request, type Dispatcher } from 'undici';
import type { PlateauConfig } from '../config/schema.ts';
import type { ScenarioRequests } from '../scenario/requests.ts';
import type { EntryRun } from '../scenario/arrivals.ts';
import { strictSpec } from '../scenario/prepared.ts';
import type { SourceReaders } from '../scenario/data-load.ts';
import type { Check, RequestSpec, Row, SentResponse } from '../scenario/types.ts';
import { nameFromRow, nameFromRowText, type RowRead } from '../scenario/row-names.ts';
import { newOutcome, type Outcome, type PreparedRequest } from '../engine/http.ts';
import { deadlineSignal } from '../engine/deadline.ts';
import { PlateauError, EXIT } from '../errors.ts';
import { inFlightAtReturn, SEND_AFTER_END, upperCaseHeaderReads } from '../scenario/traffic.ts';
import { sendPromise } from '../scenario/send-promise.ts';
import { ScenarioMistake } from '../scenario/mistake.ts';
import { dataShape, NAME_FIX } from '../scenario/names.ts';
import {
  MAX_TRIES,
  refusal,
  sampleLabel,
  scenarioFailure,
  scenarioStep,
  TargetFailure,
  unanswered,
} from './sample-blame.ts';

/** What preflight shows of a refused answer: its first bytes (a hostile target may send gigabytes). */
const SHOWN_BYTES = 200;

/** Runs every entry's sample arrivals; resolves to each transaction's longest (ms, think time included). */
export async function sampleArrivals(
  config: PlateauConfig,
  s: ScenarioRequests,
  evidence: string[],
): Promise<Map<string, number>> {
  const entries = s.traffic.entries;
  const lasted = new Map<string, number>();
  let second = entries.length;
  for (let i = 0; i < entries.length; i++) {
    const first = await tried(config, s, i, i, 0);
    const { run } = first;
    evidence.push(
      (entries.length === 1 && run.kind === 'request'
        ? `sample request ${first.sent[0]} answered ${first.sent[1]}`
        : `sample arrival of "${run.name}": ${first.sent.join(' ')}`) + triesNote(first.failures),
    );
    if (run.kind !== 'transaction') continue;
    // a second arrival of the transaction, of another number, ids and rows: names its run builds from
    // data (an id of an answer, ctx.pick, ctx.uniqueId) come out otherwise, and would fill the run's names
    const again = await tried(config, s, i, second++, SECOND_SAMPLE_SEQ);
    refuseNameFromRow(run.name, [first.names, again.names], [first.reads, again.reads], s);
    const built = builtName(first.names, again.names);
    if (built) {
      throw new PlateauError(
        `transaction "${run.name}" named a request "${built[0]}" in one sample arrival and "${built[1]}" in the next, from the same code: the name is built from data`,
        NAME_FIX,
        'scenario-failed',
        EXIT.preflight,
      );
    }
    evidence.push(`second sample arrival of "${run.name}": ${again.sent.join(' ')}${triesNote(again.failures)}`);
    lasted.set(run.name, Math.max(first.ms, again.ms));
  }
  return lasted;
}

/** One sample arrival that succeeded: what it sent and got, its request names in order, the rows it read, and the tries the target failed before it. */
interface Sampled {
  run: EntryRun;
  sent: string[];
  names: string[];
  reads: RowRead[];
  failures: TargetFailure[];
  /** How long the arrival that succeeded took, ms (think time included). */
  ms: number;
}

/** Pause between tries of a sample arrival the target failed. */
const RETRY_PAUSE_MS = 100;

/**
 * Entry i's sample arrival (sample number `sampleNo`, arrival number `seq`), tried again while the
 * target is what failed it (sample-blame.ts), at most MAX_TRIES times: each try reads the same
 * rows, with ids of its own (its arrival number is the next). A scenario's failure is refused at
 * once: it fails every arrival.
 */
async function tried(
  config: PlateauConfig,
  s: ScenarioRequests,
  i: number,
  sampleNo: number,
  seq: number,
): Promise<Sampled> {
  const entry = s.traffic.entries[i].name;
  const failures: TargetFailure[] = [];
  for (;;) {
    // the rows each sample arrival reads, for names built from their text
    const reads: RowRead[] = [];
    const run = scenarioStep(`entry "${entry}"`, () =>
      s.sample(i, sampleNo, (source: string, row: Row) => reads.push({ source, row })),
    );
    const names: string[] = [];
    try {
      const startMs = performance.now();
      const sent = await sampleArrival(config, s, run, seq + failures.length, names);
      return { run, sent, names, reads, failures, ms: performance.now() - startMs };
    } catch (err) {
      if (!(err instanceof TargetFailure)) throw afterTargetFailures(err, failures);
      failures.push(err);
      if (!err.retry || failures.length === MAX_TRIES) throw allTriesFailed(config, entry, failures);
      await new Promise((r) => setTimeout(r, RETRY_PAUSE_MS));
    }
  }
}

/**
 * A scenario's refusal on a later try keeps what the target failed before it: a try re-reads the
 * sample's rows, so a create the target kept from a failed try can answer the next with a 409, and
 * the first failure is the one to see.
 */
function afterTargetFailures(err: unknown, failures: readonly TargetFailure[]): unknown {
  if (failures.length === 0 || !(err instanceof Error)) return err;
  const n = failures.length;
  err.message = `${err.message} (on try ${n + 1}: the target had failed ${n === 1 ? 'the first' : `the first ${n}`} (${failures.map((f) => f.short).join('; ')}), and each try reads the sample's same rows, so what a failed try left on the target may explain this answer)`;
  return err;
}

/** The refusal of an entry the target failed on every try: how many, and the last try's failure. */
function allTriesFailed(config: PlateauConfig, entry: string, failures: readonly TargetFailure[]): TargetFailure {
  const last = failures[failures.length - 1];
  if (failures.length === 1) return last;
  const of = config.scenario ? `entry "${entry}"` : entry;
  return new TargetFailure(
    `the target failed all ${failures.length} sample arrivals of ${of}: the last, ${last.message}`,
    last.hint,
    last.short,
    false,
  );
}

/** What an arrival that succeeded after failed tries says of them: ' (the target failed 2 attempts before it: "checkout: confirm" got 500)'. */
function triesNote(failures: readonly TargetFailure[]): string {
  if (failures.length === 0) return '';
  const what = [...new Set(failures.map((f) => f.short))].join(', ');
  return ` (the target failed ${failures.length} attempt${failures.length > 1 ? 's' : ''} before it: ${what})`;
}

/**
 * What `plan` can check of the sample arrivals without sending anything: each request entry's
 * request built as preflight builds it (its fields, its data sources and rows, what its code
 * throws), refused with preflight's own words. A transaction's run needs the target's answers:
 * only preflight runs it.
 */
export function buildSampleRequests(s: ScenarioRequests): void {
  s.traffic.entries.forEach((_, i) => {
    const run = scenarioStep(`entry "${s.traffic.entries[i].name}"`, () => s.sample(i, i));
    if (run.kind === 'request')
      scenarioStep('request(ctx) for the sample request', () => run.build(0), buildFix(run.name));
  });
}

/**
 * Which entries read each data source, as far as building each request entry's sample request
 * offline tells (as buildSampleRequests does: nothing is sent), for the readBy a refusal of too few
 * rows suggests (data-load.ts). A transaction is not run (its run needs the target's answers), and
 * a request that cannot be built is refused by its own check: both are unknown.
 */
export function sourceReaders(s: ScenarioRequests): SourceReaders {
  const readers: Record<string, string[]> = {};
  const unknown: string[] = [];
  s.traffic.entries.forEach((e, i) => {
    const read = new Set<string>();
    try {
      const run = s.sample(i, i, (source) => read.add(source));
      if (run.kind !== 'request') throw new Error('a transaction');
      run.build(0);
    } catch {
      unknown.push(e.name);
      return;
    }
    for (const source of read) (readers[source] ??= []).push(e.name);
  });
  return { readers, unknown };
}

/**
 * A transaction's request named after text of a row it read, from a column of many values
 * (row-names.ts), in both of its sample arrivals, each from its own row and by the same column: a
 * fixed name that holds one sampled row's value by chance ('search', a row's term "search") is
 * not refused on one arrival alone.
 */
function refuseNameFromRow(
  transaction: string,
  names: readonly [readonly string[], readonly string[]],
  reads: readonly [readonly RowRead[], readonly RowRead[]],
  s: ScenarioRequests,
): void {
  const [first, second] = [nameFromRow(names[0], reads[0], s.data), nameFromRow(names[1], reads[1], s.data)];
  if (first && second && first.source === second.source && first.column === second.column)
    throw new PlateauError(nameFromRowText(transaction, second), NAME_FIX, 'scenario-failed', EXIT.preflight);
}

/** The second sample arrival's number: far from the first's 0, so ctx.pick and ctx.uniqueId differ (its rows follow its sample number). */
const SECOND_SAMPLE_SEQ = 7_919;

/**
 * A name one sample arrival of a transaction sent and the other did not, beside one of the same
 * shape the other sent instead ('item 12' and 'item 31'): built from data. Names as sets, so a
 * request sent in one arrival only (a branch, a loop of another length) shifts nothing; names
 * that differ in more than their numbers (a branch: 'upgrade' or 'standard') are not refused.
 */
function builtName(a: readonly string[], b: readonly string[]): [string, string] | null {
  const onlyA = a.filter((n) => !b.includes(n));
  const onlyB = b.filter((n) => !a.includes(n));
  for (const x of onlyA) {
    const y = onlyB.find((n) => dataShape(n) === dataShape(x));
    if (y !== undefined) return [x, y];
  }
  return null;
}

/**
 * Sends one arrival of the entry (arrival number `seq`); resolves what it sent and got, or throws
 * the failure with the fix. `names`: a transaction's request names, in the order it sent them.
 */
async function sampleArrival(
  config: PlateauConfig,
  s: ScenarioRequests,
  run: EntryRun,
  seq = 0,
  names: string[] = [],
): Promise<string[]> {
  if (run.kind === 'request') {
    const req = scenarioStep('request(ctx) for the sample request', () => run.build(seq), buildFix(run.name));
    const { o, shown } = await send(config, req, run.name, null);
    const verdict = o.status < 400 ? run.check(o) : null;
    const check = s.traffic.entries.find((e) => e.name === run.name)?.check;
    const refused = refusal(config, req, o, shown, verdict, run.name, null, upperCaseHeaderReads(check));
    if (refused) throw refused;
    return [`${req.method} ${pathOnly(req.path)}`, String(o.status)];
  }
  const said: string[] = [];
  let failed: Error | null = null;
  // as on the engine, a send never rejects and the arrival waits for every send it made, awaited or
  // not (one not awaited fails it); by their names
  const pending = new Map<Promise<SentResponse>, string>();
  let ended = false;
  const fail = (err: Error, message: string): SentResponse => {
    failed ??= err;
    return s.arrivals.sent(newOutcome(), message, run.kept);
  };
  const sendOne = async (name: string, spec: RequestSpec, check?: Check): Promise<SentResponse> => {
    if (ended) return s.arrivals.sent(newOutcome(), SEND_AFTER_END, run.kept);
    if (typeof name === 'string') names.push(name);
    const bad = s.arrivals.admit(name);
    if (bad) return fail(scenarioFailure(`transaction "${run.name}"`, bad, nameFix(bad)), bad);
    // what the load's hot path takes for granted, said here with its fix: a check is a function or nothing
    // a falsy one (`cond && fn`) is no check, as the load takes it
    if (check && typeof check !== 'function') {
      const notFn = `http.send("${name}") of transaction "${run.name}" was given a check that is not a function (${check === null ? 'null' : typeof check}): pass (res) => true | false | "why not", or leave it out`;
      return fail(
        scenarioFailure(`transaction "${run.name}"`, notFn, 'pass (res) => true | false | "why not", or leave it out'),
        notFn,
      );
    }
    try {
      const what = `http.send("${name}") of transaction "${run.name}"`;
      const req = scenarioStep(
        what,
        () => s.arrivals.prepare(strictSpec(spec, `http.send("${name}") was given `), run.kept),
        `give http.send("${name}") a request { method?, url, headers?, body? } as the message says`,
      );
      const { o, shown } = await send(config, req, name, run.name);
      const verdict = o.status < 400 ? s.arrivals.checkOf(check, o, run.kept) : null;
      const refused = refusal(config, req, o, shown, verdict, name, run.name, upperCaseHeaderReads(check));
      if (refused) {
        // a refused answer: run gets it as the engine would give it (ok false), preflight its reason
        failed ??= refused;
        return s.arrivals.sent(o, verdict ?? `HTTP ${o.status}`, run.kept);
      }
      said.push(`${name} ${o.status}`);
      return s.arrivals.sent(o, null, run.kept);
    } catch (err) {
      // a request the scenario could not make, or one the target never answered
      return fail(err as Error, (err as Error).message);
    }
  };
  const http = {
    send: (name: string, spec: RequestSpec, check?: Check): Promise<SentResponse> => {
      // read before it is awaited (made.ok), the promise throws the fix, as on the engines
      const p = sendPromise(sendOne(name, spec, check), name);
      pending.set(p, String(name));
      void p.then(() => pending.delete(p));
      return p;
    },
  };
  const limitMs = config.http.transactionTimeoutMs;
  let timer: NodeJS.Timeout | undefined;
  const late = new PlateauError(
    `the sample arrival of transaction "${run.name}" did not end within ${limitMs} ms (http.transactionTimeoutMs)`,
    'make every promise run(ctx, http) awaits settle (await each http.send and ctx.sleep), or raise http.transactionTimeoutMs above its longest arrival, think time included',
    'scenario-failed',
    EXIT.preflight,
  );
  const overdue = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(late), limitMs);
  });
  try {
    await Promise.race([run.run(seq, http), overdue]);
    // a send still in flight was not awaited: the engines fail every such arrival
    if (pending.size > 0) failed ??= notAwaitedFailure(run.name, [...pending.values()]);
    // sends run left going (not awaited) end before the arrival does, as on the engine
    while (pending.size > 0) await Promise.race([Promise.all(pending.keys()), overdue]);
  } catch (err) {
    // the first failure wins, as on the engine: a send that failed before run threw (on reading
    // its empty answer, or past the deadline) is the cause, not what run did with it
    if (failed) throw failed;
    if (err === late) throw err;
    // what run's code threw, a ctx function's PlateauError too (an unset secret): named with the
    // transaction, its fix the one the error knows (scenarioFailure)
    throw scenarioFailure(
      `transaction "${run.name}"`,
      err,
      `fix run(ctx, http) of "${run.name}" so that it does not throw: a send that failed resolves with ok false (test it before reading its answer)`,
    );
  } finally {
    ended = true;
    clearTimeout(timer);
  }
  if (failed) throw failed;
  if (said.length === 0) {
    throw new PlateauError(
      `the sample arrival of transaction "${run.name}" sent no request`,
      'make run(ctx, http) send its requests with await http.send(name, request)',
      'scenario-failed',
      EXIT.preflight,
    );
  }
  return said;
}

/** The refusal of a sample transaction that returned while sends it made were in flight (traffic.ts inFlightAtReturn). */
function notAwaitedFailure(transaction: string, names: readonly string[]): PlateauError {
  return scenarioFailure(
    `transaction "${transaction}"`,
    new ScenarioMistake(
      inFlightAtReturn(transaction, names),
      'await each http.send in run(ctx, http): await http.send(name, request), or await Promise.all([...]) for sends made together',
    ),
  );
}

/** A sample's answer: the outcome the check sees (its body kept as the engine keeps it) and the first bytes shown on a refusal. */
interface Answer {
  o: Outcome;
  shown: Buffer;
}

/**
 * One request with undici; its answer as the engine's Outcome (status, headers, and the body kept
 * exactly as the engine keeps it: PreparedRequest.keepBodyBytes, at most http.maxBodyBytes), and
 * its first bytes apart, for the message when the sample is refused.
 */
async function send(
  config: PlateauConfig,
  req: PreparedRequest,
  name: string,
  transaction: string | null,
): Promise<Answer> {
  const url = new URL(req.path, config.target.url).href;
  const timeoutMs = config.http.timeoutMs;
  const o = newOutcome();
  const shownChunks: Buffer[] = [];
  let res: Dispatcher.ResponseData;
  // the total deadline, as the engine's: an answer that came in time is read before it fires, even
  // after a stall of this process (in CI one read a sample as unanswered: decision 041)
  const deadline = deadlineSignal(timeoutMs);
  try {
    res = await request(url, {
      method: req.method as 'GET',
      headers: req.headers,
      body: req.body ?? undefined,
      headersTimeout: 0,
      bodyTimeout: 0,
      signal: deadline.signal,
    });
    const keep = req.keepBodyBytes ?? 0;
    let n = 0;
    let whole = true;
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      if (n < keep) o.bodyChunks.push(Buffer.from(chunk.subarray(0, keep - n)));
      if (n < SHOWN_BYTES) shownChunks.push(Buffer.from(chunk.subarray(0, SHOWN_BYTES - n)));
      n += chunk.length;
      // past what is kept (a byte more tells a body cut from one that ended there), no further
      if (n > Math.max(keep, SHOWN_BYTES)) {
        whole = false;
        break;
      }
    }
    res.body.destroy();
    // the body's size, as the engine counts it (Outcome.bytesIn): a body cut at what is kept says
    // how much of it its check saw; one not read to its end is its Content-Length, else unknown
    o.bytesIn = whole ? n : (declaredLength(res.headers['content-length']) ?? Infinity);
  } catch (err) {
    const e = err as Error & { code?: string | number };
    // the deadline's DOMException (deadlineSignal; undici's own timeouts are off) has the numeric
    // code 23: say what ran out instead
    const why =
      e.name === 'TimeoutError'
        ? `no answer within http.timeoutMs (${timeoutMs} ms)`
        : `${e.code ?? e.name}: ${e.message}`;
    throw unanswered(config, sampleLabel(name, transaction, req.method, url), name, why, e.name === 'TimeoutError');
  } finally {
    deadline.clear();
  }
  o.status = res.statusCode;
  o.rawHeaders = Object.entries(res.headers).flatMap(([k, v]) =>
    Array.isArray(v) ? v.flatMap((x) => [k, x]) : v === undefined ? [] : [k, String(v)],
  );
  return { o, shown: Buffer.concat(shownChunks) };
}

/** A Content-Length header's byte count, or null when absent or not a whole number. */
function declaredLength(v: string | string[] | undefined): number | null {
  return typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : null;
}

function pathOnly(p: string): string {
  return p.split('?')[0];
}

/** The fix of a request(ctx) that threw on building entry `name`'s sample request. */
function buildFix(name: string): string {
  return `fix request(ctx) of "${name}" so that it returns { method?, url, headers?, body? } without throwing (the message says what it threw)`;
}

/** The fix of a name http.send refused (NameBook.problem): what follows its '; ', else the name's fix. */
function nameFix(bad: string): string {
  const entryName = "; give a transaction's requests names of their own";
  return bad.includes(entryName) ? entryName.slice(2) + " ('checkout: create')" : NAME_FIX;
}
