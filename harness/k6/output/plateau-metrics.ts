/**
 * The custom metrics plateau's k6 scripts write beside k6's own (runtime/iteration.ts,
 * runtime/send.ts), by name: what the ingest reads them as.
 */

/** Custom counter the generated script adds when the scenario's check rejects a 2xx/3xx response. */
export const CHECK_FAILED_METRIC = 'plateau_check_failed';
/** Custom trend plateau's k6 runtime writes once per arrival of a mix (second.ts). */
export const ARRIVAL_METRIC = 'plateau_arrival';
/**
 * A Counter of plateau's one-request k6 scripts: an arrival whose request(ctx) threw, so that no
 * request was sent (a mix says so with plateau_arrival's transaction tag 'unsent').
 */
export const UNSENT_METRIC = 'plateau_unsent';
/** A send plateau's k6 runtime refused for its name, its message in the `error` tag (BucketRecord.refusedNames). */
export const REFUSED_NAME_METRIC = 'plateau_refused_name';
