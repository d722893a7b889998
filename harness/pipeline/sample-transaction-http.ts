/**
 * The http a sample transaction's run is given: each http.send admits its name, sends the request
 * (sample-send.ts), checks the answer and refuses it as preflight refuses a sample, and resolves
 * what the engine would give run (a failure too resolves, with ok false). It keeps what the arrival
 * needs to end as the engine ends one: the first failure, the requests accepted, the sends still in
 * flight. Apart from sample-arrival.ts, which runs the transaction and ends its arrival.
 */
import type { PlateauConfig } from '../config/schema.ts';
import type { ScenarioRequests } from '../scenario/requests.ts';
import type { TransactionRun } from '../scenario/arrivals.ts';
import { strictSpec } from '../scenario/prepared.ts';
import type { Check, RequestSpec, SentResponse, TransactionHttp } from '../scenario/types.ts';
import { newOutcome } from '../engine/outcome.ts';
import { SEND_AFTER_END, upperCaseHeaderReads } from '../scenario/traffic.ts';
import { sendPromise } from '../scenario/send-promise.ts';
import { NAME_FIX } from '../scenario/names.ts';
import { refusal, scenarioFailure, scenarioStep } from './sample-blame.ts';
import { send } from './sample-send.ts';

export class SampleHttp {
  /** The first failure of a send, which fails the arrival whatever run did with its answer. */
  failed: Error | null = null;
  /** Each request accepted: its name and status. */
  readonly said: string[] = [];
  /**
   * As on the engine, a send never rejects and the arrival waits for every send it made, awaited or
   * not (one not awaited fails it); by their names.
   */
  readonly pending = new Map<Promise<SentResponse>, string>();
  /** Set when the arrival ended: a send made after is refused (SEND_AFTER_END). */
  ended = false;
  /** What run is given: http.send alone. */
  readonly http: TransactionHttp;

  /** `names`: the transaction's request names, in the order it sent them. */
  constructor(
    private readonly config: PlateauConfig,
    private readonly s: ScenarioRequests,
    private readonly run: TransactionRun,
    private readonly names: string[],
  ) {
    this.http = {
      send: (name: string, spec: RequestSpec, check?: Check): Promise<SentResponse> => {
        // read before it is awaited (made.ok), the promise throws the fix, as on the engines
        const p = sendPromise(this.sendOne(name, spec, check), name);
        this.pending.set(p, String(name));
        void p.then(() => this.pending.delete(p));
        return p;
      },
    };
  }

  private fail(err: Error, message: string): SentResponse {
    this.failed ??= err;
    return this.s.arrivals.sent(newOutcome(), message, this.run.kept);
  }

  private async sendOne(name: string, spec: RequestSpec, check?: Check): Promise<SentResponse> {
    const { config, s, run } = this;
    if (this.ended) return s.arrivals.sent(newOutcome(), SEND_AFTER_END, run.kept);
    if (typeof name === 'string') this.names.push(name);
    const bad = s.arrivals.admit(name);
    if (bad) return this.fail(scenarioFailure(`transaction "${run.name}"`, bad, nameFix(bad)), bad);
    // what the load's hot path takes for granted, said here with its fix: a check is a function or nothing
    // a falsy one (`cond && fn`) is no check, as the load takes it
    if (check && typeof check !== 'function') {
      const notFn = `http.send("${name}") of transaction "${run.name}" was given a check that is not a function (${check === null ? 'null' : typeof check}): pass (res) => true | false | "why not", or leave it out`;
      return this.fail(
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
        this.failed ??= refused;
        return s.arrivals.sent(o, verdict ?? `HTTP ${o.status}`, run.kept);
      }
      this.said.push(`${name} ${o.status}`);
      return s.arrivals.sent(o, null, run.kept);
    } catch (err) {
      // a request the scenario could not make, or one the target never answered
      return this.fail(err as Error, (err as Error).message);
    }
  }
}

/** The fix of a name http.send refused (NameBook.problem): what follows its '; ', else the name's fix. */
function nameFix(bad: string): string {
  const entryName = "; give a transaction's requests names of their own";
  return bad.includes(entryName) ? entryName.slice(2) + " ('checkout: create')" : NAME_FIX;
}
