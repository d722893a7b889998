/**
 * A mistake of the scenario's code that plateau itself finds (a row read by an entry its source's
 * readBy does not list, a request to another origin), thrown with its own fix: preflight shows
 * that fix instead of the scenario module's general one (pipeline/sample-blame.ts). The load
 * reads only `message`, as of any Error. No Node API: the k6 bundle may use it.
 */
export class ScenarioMistake extends Error {
  constructor(
    message: string,
    /** What the user changes to fix it. */
    readonly fix: string,
  ) {
    super(message);
    this.name = 'ScenarioMistake';
  }
}
