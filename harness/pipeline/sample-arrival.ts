/**
 * One sample arrival of an entry, sent as the engine sends it: a request entry's request and its
 * check, or a transaction's run with the sample's http (sample-transaction-http.ts), the sends it
 * left in flight awaited and the arrival bounded by http.transactionTimeoutMs. Resolves what it sent
 * and got, or throws the failure with its fix (sample-blame.ts). Apart from sample-arrivals.ts,
 * which tries an arrival the target failed again.
 */
import type { PlateauConfig } from '../config/schema.ts';
import type { ScenarioRequests } from '../scenario/requests.ts';
import type { EntryRun, RequestRun, TransactionRun } from '../scenario/arrivals.ts';
import { PlateauError, EXIT } from '../errors.ts';
import { inFlightAtReturn, upperCaseHeaderReads } from '../scenario/traffic.ts';
import { ScenarioMistake } from '../scenario/mistake.ts';
import { refusal, scenarioFailure, scenarioStep } from './sample-blame.ts';
import { send } from './sample-send.ts';
import { SampleHttp } from './sample-transaction-http.ts';
import { catchUnhandled } from '../engine/unhandled.ts';
import { faultError } from '../engine/thrown-by.ts';
import { UNHANDLED_FIX, unhandledText } from '../../analysis/scenario-unhandled.ts';

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
  return run.kind === 'request' ? sampleRequest(config, s, run, seq) : sampleTransaction(config, s, run, seq, names);
}

/** A one-request entry's arrival: its request and status, or its refusal. */
async function sampleRequest(
  config: PlateauConfig,
  s: ScenarioRequests,
  run: RequestRun,
  seq: number,
): Promise<string[]> {
  const req = scenarioStep('request(ctx) for the sample request', () => run.build(seq), buildFix(run.name));
  const { o, shown } = await send(config, req, run.name, null);
  const verdict = o.status < 400 ? run.check(o) : null;
  const check = s.traffic.entries.find((e) => e.name === run.name)?.check;
  const refused = refusal(config, req, o, shown, verdict, run.name, null, upperCaseHeaderReads(check));
  if (refused) throw refused;
  return [`${req.method} ${pathOnly(req.path)}`, String(o.status)];
}

/**
 * A transaction's arrival (transactionArrival), then the errors its code left unhandled (a promise
 * that rejects once the microtasks after its end have run, a timer that throws soon after): the
 * engines count them apart (they fail no arrival: harness/engine/unhandled.ts), so the sample refuses
 * the first with its fix, before load, where it would have ended this process.
 */
async function sampleTransaction(
  config: PlateauConfig,
  s: ScenarioRequests,
  run: TransactionRun,
  seq: number,
  names: string[],
): Promise<string[]> {
  let unhandled: string | null = null;
  let fault: { err: unknown } | null = null;
  const release = catchUnhandled(
    (message) => (unhandled ??= message),
    (err) => (fault ??= { err }),
  );
  try {
    const said = await transactionArrival(config, s, run, seq, names).catch((err: unknown) => {
      // a fault raised by the code that threw (process.exit(): exit-guard.ts) is what to say
      throw fault ? faultError((fault as { err: unknown }).err) : err;
    });
    // the microtasks after its end, and a timer it left of a few ms
    await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setImmediate(resolve));
    // an exception that may be plateau's own (the run's internal error, with its stack), or a package's
    if (fault) throw faultError((fault as { err: unknown }).err);
    if (unhandled !== null)
      throw scenarioFailure(`transaction "${run.name}"`, new ScenarioMistake(unhandledText(unhandled), UNHANDLED_FIX));
    return said;
  } finally {
    release();
  }
}

/**
 * A transaction's arrival: its run, given the sample's http (sample-transaction-http.ts), within
 * http.transactionTimeoutMs; each accepted request's name and status, or the arrival's failure.
 */
async function transactionArrival(
  config: PlateauConfig,
  s: ScenarioRequests,
  run: TransactionRun,
  seq: number,
  names: string[],
): Promise<string[]> {
  const sends = new SampleHttp(config, s, run, names);
  const limitMs = config.http.transactionTimeoutMs;
  let timer: NodeJS.Timeout | undefined;
  const late = lateFailure(run.name, limitMs);
  const overdue = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(late), limitMs);
  });
  try {
    await Promise.race([run.run(seq, sends.http), overdue]);
    // a send still in flight was not awaited: the engines fail every such arrival
    if (sends.pending.size > 0) sends.failed ??= notAwaitedFailure(run.name, [...sends.pending.values()]);
    // sends run left going (not awaited) end before the arrival does, as on the engine
    while (sends.pending.size > 0) await Promise.race([Promise.all(sends.pending.keys()), overdue]);
  } catch (err) {
    // the first failure wins, as on the engine: a send that failed before run threw (on reading
    // its empty answer, or past the deadline) is the cause, not what run did with it
    if (sends.failed) throw sends.failed;
    if (err === late) throw err;
    // what run's code threw, a ctx function's PlateauError too (an unset secret): named with the
    // transaction, its fix the one the error knows (scenarioFailure)
    throw scenarioFailure(
      `transaction "${run.name}"`,
      err,
      `fix run(ctx, http) of "${run.name}" so that it does not throw: a send that failed resolves with ok false (test it before reading its answer)`,
    );
  } finally {
    sends.ended = true;
    clearTimeout(timer);
  }
  if (sends.failed) throw sends.failed;
  if (sends.said.length === 0) {
    throw new PlateauError(
      `the sample arrival of transaction "${run.name}" sent no request`,
      'make run(ctx, http) send its requests with await http.send(name, request)',
      'scenario-failed',
      EXIT.preflight,
    );
  }
  return sends.said;
}

/** The refusal of a sample transaction not ended within http.transactionTimeoutMs. */
function lateFailure(transaction: string, limitMs: number): PlateauError {
  return new PlateauError(
    `the sample arrival of transaction "${transaction}" did not end within ${limitMs} ms (http.transactionTimeoutMs)`,
    'make every promise run(ctx, http) awaits settle (await each http.send and ctx.sleep), or raise http.transactionTimeoutMs above its longest arrival, think time included',
    'scenario-failed',
    EXIT.preflight,
  );
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
