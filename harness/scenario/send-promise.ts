/**
 * What a transaction's http.send returns, on both engines and in preflight's sample arrivals (the
 * k6 runtime bundles this file: no Node API): the send's promise, whose ok, status, body, json, text and
 * headers, read before it was awaited, throw the fix instead of reading undefined. A forgotten
 * await, `const made = http.send(...); if (!made.ok) return;`, had ended every arrival there,
 * silently, the rest of the transaction never run. Pure but for the promise it marks.
 */
import { ScenarioMistake } from './mistake.ts';

/** What the scenario reads of a response (SentResponse): each, read on the promise, throws. */
const READS = ['ok', 'status', 'body', 'json', 'text', 'headers'];

/** The send's name, on its promise, for the message. */
const NAME = Symbol('plateau.sendName');

/** Why reading `what` on the promise of send `name` fails, and the fix (preflight shows it as the fix). */
export function notAwaited(name: unknown, what: string): ScenarioMistake {
  return new ScenarioMistake(
    `await http.send(${JSON.stringify(String(name))}, ...) before reading .${what}: it returns a promise`,
    'await each http.send: const made = await http.send(name, request), then read made.ok (sends made together: await Promise.all([...]))',
  );
}

/**
 * The prototype of a send's promise: Promise.prototype's, and the getters that throw. Its
 * `constructor` is Promise's (inherited), so `await` and Promise.all take the promise as it is.
 * A prototype set on each promise costs about 40 ns a send in a bench of Node 20, where defining the
 * five such getters on each promise cost 850.
 */
const SEND_PROMISE: object = Object.create(Promise.prototype);
for (const what of READS) {
  Object.defineProperty(SEND_PROMISE, what, {
    get(this: Record<symbol, unknown>) {
      throw notAwaited(this[NAME], what);
    },
  });
}

/** Marks http.send's promise of send `name` (the promise itself, returned). */
export function sendPromise<T>(p: Promise<T>, name: unknown): Promise<T> {
  Object.setPrototypeOf(p, SEND_PROMISE);
  (p as unknown as Record<symbol, unknown>)[NAME] = name;
  return p;
}
