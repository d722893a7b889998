/**
 * One sample arrival of an entry, sent as the engine sends it: a request entry's request and its
 * check, or a transaction's run, whose http.send sends each request (sample-send.ts), checks it and
 * gives run the answer as the engine would, sends left in flight awaited and the arrival bounded by
 * http.transactionTimeoutMs. Resolves what it sent and got, or throws the failure with its fix
 * (sample-blame.ts). Apart from sample-arrivals.ts, which tries an arrival the target failed again.
 */
import type { PlateauConfig } from '../config/schema.ts';
import type { ScenarioRequests } from '../scenario/requests.ts';
import type { EntryRun } from '../scenario/arrivals.ts';
import { strictSpec } from '../scenario/prepared.ts';
import type { Check, RequestSpec, SentResponse } from '../scenario/types.ts';
import { newOutcome } from '../engine/http.ts';
import { PlateauError, EXIT } from '../errors.ts';
import { inFlightAtReturn, SEND_AFTER_END, upperCaseHeaderReads } from '../scenario/traffic.ts';
import { sendPromise } from '../scenario/send-promise.ts';
import { ScenarioMistake } from '../scenario/mistake.ts';
import { NAME_FIX } from '../scenario/names.ts';
import { refusal, scenarioFailure, scenarioStep } from './sample-blame.ts';
import { send } from './sample-send.ts';

/**
 * Sends one arrival of the entry (arrival number `seq`); resolves what it sent and got, or throws
 * the failure with the fix. `names`: a transaction's request names, in the order it sent them.
 */
export async function sampleArrival(
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

function pathOnly(p: string): string {
  return p.split('?')[0];
}

/** The fix of a request(ctx) that threw on building entry `name`'s sample request. */
export function buildFix(name: string): string {
  return `fix request(ctx) of "${name}" so that it returns { method?, url, headers?, body? } without throwing (the message says what it threw)`;
}

/** The fix of a name http.send refused (NameBook.problem): what follows its '; ', else the name's fix. */
function nameFix(bad: string): string {
  const entryName = "; give a transaction's requests names of their own";
  return bad.includes(entryName) ? entryName.slice(2) + " ('checkout: create')" : NAME_FIX;
}
