/**
 * Whose fault a refused sample arrival is, and the fix for each. The target's (a 5xx, 408, 429, a
 * reset connection, no answer in time): a service that fails some requests must still be
 * measurable, so sample-arrivals.ts tries such an arrival again and refuses the entry only when no
 * attempt of it succeeded. The scenario's (a 4xx of a request built wrong, a check that refused
 * the target's answer, code that threw, a mistake plateau found: ScenarioMistake): refused at once,
 * since it fails every arrival, with the fix of that cause, not the module's general one.
 */
import type { PlateauConfig } from '../config/schema.ts';
import type { Outcome } from '../engine/outcome.ts';
import type { PreparedRequest } from '../engine/vu-connection.ts';
import { CHECK_CANNOT_JUDGE, CHECK_THREW, noVerdictFix, rejectedBy } from '../scenario/verdict.ts';
import { ScenarioMistake } from '../scenario/mistake.ts';
import { NAME_FIX } from '../scenario/names.ts';
import { headerCaseFix, SAMPLE_TRIES, type HeaderRead } from '../scenario/traffic.ts';
import { PlateauError, EXIT } from '../errors.ts';

/** Attempts of an entry's sample arrival while the target is what failed. */
export const MAX_TRIES = SAMPLE_TRIES;

export const TARGET_FAILED = 'sample-target-failed';

/** A sample the target failed: tried again (`retry`) unless it timed out, each try waiting as long. */
export class TargetFailure extends PlateauError {
  constructor(
    message: string,
    hint: string,
    /** What failed, for the evidence of an arrival that succeeded on a later try: '"checkout: confirm" got 500'. */
    readonly short: string,
    readonly retry: boolean,
  ) {
    super(message, hint, TARGET_FAILED, EXIT.preflight);
  }
}

/** Statuses that are the target's failure, whatever was sent: a 5xx, 408 (it timed the request out), 429 (it shed load). */
export function targetStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

const RETRIED = `preflight refuses an entry only when none of its ${MAX_TRIES} attempts succeeds, so a target that fails some requests is still measured, its errors counted`;

/** "the sample request "name" of transaction "t" POST url", the name left out when it only repeats the method and URL (no scenario module). */
export function sampleLabel(name: string, transaction: string | null, method: string, url: string): string {
  if (transaction) return `the sample request "${name}" of transaction "${transaction}" ${method} ${url}`;
  return name === `${method} ${url}`
    ? `the sample request ${method} ${url}`
    : `the sample request "${name}" ${method} ${url}`;
}

/** A sample request the target never answered (a reset, a refused connection, no answer within http.timeoutMs). */
export function unanswered(
  config: PlateauConfig,
  label: string,
  name: string,
  why: string,
  timedOut: boolean,
): TargetFailure {
  const ms = config.http.timeoutMs;
  return new TargetFailure(
    `${label} failed: ${why}`,
    timedOut
      ? `no answer is the target's failure, not the scenario's: make the target answer "${name}" within http.timeoutMs (${ms} ms), or raise http.timeoutMs if it is merely slow; a timeout is not tried again (each try would wait as long)`
      : `a connection the target ended without an answer is the target's failure, not the scenario's: see why it drops "${name}" (its logs), then run again; ${RETRIED}`,
    `"${name}" got no answer (${why.split(':')[0]})`,
    !timedOut,
  );
}

/**
 * The refusal of a sample request's answer, or null when it is accepted: `verdict` is the check's
 * (null when it accepted, or for a status of 400 or more, which fails without it). `headerReads`:
 * the check's reads of header names with an upper-case letter (traffic.ts upperCaseHeaderReads),
 * whose fix comes first where the check rejected or threw.
 */
export function refusal(
  config: PlateauConfig,
  req: PreparedRequest,
  o: Outcome,
  shown: Buffer,
  verdict: string | null,
  name: string,
  transaction: string | null,
  headerReads: readonly HeaderRead[] = [],
): PlateauError | null {
  if (o.status < 400 && verdict === null) return null;
  const headerFix = verdict === null ? null : headerCaseFix(headerReads, `the check of "${name}"`);
  if (verdict?.startsWith(CHECK_THREW)) {
    const fix = `make the check of "${name}" return true, false or a message for this answer instead of throwing (test what it reads before reading it: res.json() throws on a body that is not JSON)`;
    return scenarioFailure(
      `check(response) for the sample response of "${name}"`,
      verdict.slice(CHECK_THREW.length),
      headerFix === null ? fix : `${headerFix}; ${fix}`,
    );
  }
  const url = new URL(req.path, config.target.url).href;
  // plateau did not give the check what it read (a body cut at http.maxBodyBytes, one not kept):
  // the text ends with its own fix, and neither the target nor the check's logic is at fault
  if (verdict?.startsWith(CHECK_CANNOT_JUDGE)) {
    const why = verdict.slice(CHECK_CANNOT_JUDGE.length);
    const cut = why.lastIndexOf('; ');
    return new PlateauError(
      `${sampleLabel(name, transaction, req.method, url)} got ${o.status}, which its check cannot judge: ${cut >= 0 ? why.slice(0, cut) : why}`,
      cut >= 0 ? why.slice(cut + 2) : `give the check of "${name}" what it reads (see above)`,
      'sample-request-failed',
      EXIT.preflight,
    );
  }
  const message = `${sampleLabel(name, transaction, req.method, url)} got ${o.status}${verdict !== null ? `, ${rejectedBy(verdict)}` : ''}: ${shown.toString('utf8')}`;
  if (targetStatus(o.status)) {
    const which = o.status >= 500 ? '5xx' : String(o.status);
    return new TargetFailure(
      message,
      `a ${which} is the target's failure, not the scenario's: see why the target fails "${name}" (its logs), then run again; ${RETRIED}`,
      `"${name}" got ${o.status}`,
      true,
    );
  }
  const fix = scenarioFix(config, o.status, name, req.method, url, verdict);
  return new PlateauError(
    message,
    // a check that reads X-Cache rejects the answer that has x-cache: that first
    headerFix === null || o.status >= 400 ? fix : `${headerFix}; otherwise: ${fix}`,
    'sample-request-failed',
    EXIT.preflight,
  );
}

/** The fix of an answer the scenario's request or check is the cause of (`verdict`: the check's failure, if it judged). */
function scenarioFix(
  config: PlateauConfig,
  status: number,
  name: string,
  method: string,
  url: string,
  verdict: string | null,
): string {
  if (status === 401 || status === 403)
    return 'the target refused the credentials: check the value of the secret in the environment (a token, a key) and how the scenario sends it (the header and its scheme, as in Bearer <token>; for a signature, the bytes it signs)';
  // a check that gave no verdict (nothing, a Promise, a number): its own fix, not "accept what the
  // target answers", which read as if the answer were at fault
  const noVerdict = verdict === null ? null : noVerdictFix(verdict, `the check of "${name}"`);
  if (noVerdict !== null) return noVerdict;
  if (status < 400)
    return `the target answered ${status} and the check of "${name}" refused it: make the check accept what the target answers when the request works, or fix the request so that the target answers what the check expects`;
  if (!config.scenario) {
    const what =
      status === 404 ? `the target has nothing at ${url}` : `the target refuses ${method} ${url} (${status})`;
    return `${what}: give --target (or target.url) a URL the target answers GET on with a 2xx (without a scenario module every arrival is a GET of that URL), or give a scenario module (--scenario)`;
  }
  return `the target refused "${name}" as sent (${status}): fix how the scenario builds it (its method, URL, headers or body; the answer above says what the target objected to)`;
}

/**
 * A failure of the scenario's code in `what` ('request(ctx) for the sample request', 'transaction
 * "checkout"'): the fix the error knows (a ScenarioMistake's, or a PlateauError's hint: a secret
 * ctx.hmacSha256 found unset), a name refused with the name's fix, else `fix`, else the module's
 * general one.
 */
export function scenarioFailure(what: string, err: unknown, fix?: string): PlateauError {
  const message = typeof err === 'string' ? err : ((err as Error)?.message ?? String(err));
  const own = err instanceof ScenarioMistake ? err.fix : err instanceof PlateauError ? err.hint : null;
  // a name http.send refused (NameBook.problem): its message ends with the name's fix
  const named = message.endsWith(`; ${NAME_FIX}`);
  return new PlateauError(
    `the scenario failed in ${what}: ${named ? message.slice(0, -NAME_FIX.length - 2) : message}`,
    own ??
      (named
        ? NAME_FIX
        : (fix ??
          'fix the scenario module (request(ctx) must return { method?, url, headers?, body? }; check(response) and run(ctx, http) must not throw) before any load is sent')),
    // a PlateauError keeps its code (secret-missing), as it would reaching preflight on its own
    err instanceof PlateauError ? err.code : 'scenario-failed',
    EXIT.preflight,
  );
}

/** Runs the user's scenario code; what it throws becomes a preflight failure that names the scenario. */
export function scenarioStep<T>(what: string, fn: () => T, fix?: string): T {
  try {
    return fn();
  } catch (err) {
    throw scenarioFailure(what, err, fix);
  }
}
