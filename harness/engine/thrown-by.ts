/**
 * Whose code threw an exception nobody caught: the scenario's or plateau's. A scenario's timer or
 * event handler that throws reaches the thread's `uncaughtException` with no plateau frame on its
 * stack (Node's event loop called the scenario's callback), so plateau's state is as it was and the
 * load can go on, counting it as the scenario's (unhandled.ts). Anything else may be plateau's own
 * bug, after which the thread's state is unknown: the run stops and keeps its report (decision 074).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXIT, PlateauError } from '../errors.ts';

/** The name a scenario's bundle carries in stacks (load.ts gives it as its sourceURL), its path after it. */
export const SCENARIO_SOURCE = 'plateau-scenario:';

/**
 * The data: URLs this thread imported scenarios from: a stack formatter that maps frames itself
 * (vitest's, a source-map-support the scenario installs) names the URL, not the sourceURL.
 */
const bundles = new Set<string>();

/** Notes that `url` holds a scenario's bundle (load.ts). */
export function scenarioBundleLoaded(url: string): void {
  bundles.add(url);
}

const isScenario = (where: string) => where.startsWith(SCENARIO_SOURCE) || bundles.has(where);

/** plateau's own files: its source and its cached bundles, not the packages in its node_modules. */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const OWN = [
  path.join(ROOT, 'harness'),
  path.join(ROOT, 'analysis'),
  path.join(ROOT, 'reports'),
  path.join(ROOT, 'bin'),
  path.join(ROOT, 'node_modules', '.cache', 'plateau'),
];

/** The location of each `at` line of a V8 stack: `at fn (where:1:2)` or `at where:1:2`. */
export function stackLocations(stack: string): string[] {
  const out: string[] = [];
  for (const line of stack.split('\n')) {
    const m = /^\s+at (?:.*? \()?(.+?)(?::\d+:\d+)?\)?$/.exec(line);
    if (m) out.push(m[1]);
  }
  return out;
}

/** A stack location in one of `own` (file paths or file URLs), or not. */
function inOwn(where: string, own: readonly string[]): boolean {
  let file = where;
  if (where.startsWith('file://')) {
    try {
      file = fileURLToPath(where);
    } catch {
      return false;
    }
  }
  return own.some((dir) => file === dir || file.startsWith(dir + path.sep));
}

/**
 * The scenario's: a value that is not an Error (plateau throws only Errors), or an Error whose stack
 * shows the scenario's bundle with no file of plateau's own beneath its outermost frame, i.e. no
 * plateau code called the scenario and let its error through. Above it, plateau's code the scenario
 * called (ctx.row(...) in a timer) threw to the scenario, which did not catch it. A stack as long as
 * Error.stackTraceLimit may hide what is beneath: not the scenario's. `own` is for tests.
 */
export function thrownByScenario(err: unknown, own: readonly string[] = OWN): boolean {
  if (!(err instanceof Error)) return true;
  const at = stackLocations(err.stack ?? '');
  let outermost = -1;
  at.forEach((w, i) => {
    if (isScenario(w)) outermost = i;
  });
  if (outermost < 0 || at.length >= Error.stackTraceLimit) return false;
  return !at.slice(outermost + 1).some((w) => inOwn(w, own));
}

/** What to do about a process.exit() in the scenario's code (workers.ts, pipeline/exit-guard.ts). */
export const EXIT_CALLED_FIX =
  "remove the process.exit() call from the scenario: a transaction ends by returning, and fails its arrival by throwing; the run's data and report up to here are kept";

/**
 * What a fault (an uncaught exception not the scenario's) stops the run as: plateau's internal error
 * (the error itself, wrapped by the pipeline) where its stack shows plateau's own code or nothing
 * but Node's; else code of neither (a package the scenario uses, an 'error' event of its client
 * with no listener), said as that with where it was thrown.
 */
export function faultError(err: unknown, own: readonly string[] = OWN): unknown {
  if (!(err instanceof Error)) return err;
  const at = stackLocations(err.stack ?? '');
  const outside = at.find((w) => !w.startsWith('node:') && w !== '<anonymous>' && w !== 'native');
  if (outside === undefined || at.some((w) => inOwn(w, own))) return err;
  const out = new PlateauError(
    `an exception nobody caught stopped the run, thrown by code that is not plateau's (${outside}): ${err.message}`,
    "handle the error where it is thrown (an 'error' listener on the client the scenario uses, a try/catch in its callback); the run's data and report are kept",
    'uncaught-exception',
    EXIT.stage,
  );
  out.stack = err.stack;
  return out;
}
